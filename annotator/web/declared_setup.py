from flask import Blueprint

bp = Blueprint("declared_setup", __name__, url_prefix="/admin/projects/declared")
