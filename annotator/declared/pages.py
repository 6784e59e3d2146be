from flask import Blueprint

bp = Blueprint("declared", __name__, url_prefix="/admin/projects/declared")
