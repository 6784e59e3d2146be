"""The Flask extensions, created unbound here and bound in create_app (no module-level app).

Flask-Migrate is not among them: annotator/core/schema.py binds it when a `flask db` command runs.
"""
from __future__ import annotations

from flask_login import LoginManager
from flask_sqlalchemy import SQLAlchemy
from flask_wtf import CSRFProtect
from sqlalchemy import MetaData
from sqlalchemy.orm import DeclarativeBase

# Named constraints so Alembic migrations are the same on SQLite (batch mode) and PostgreSQL.
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


# expire_on_commit=False: views keep using objects (current_user) after the short write
# transactions of the assignment engine without a reload query each time.
db = SQLAlchemy(model_class=Base, session_options={"expire_on_commit": False})
login_manager = LoginManager()
csrf = CSRFProtect()
