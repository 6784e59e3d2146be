"""The Flask extensions, created unbound here and bound in create_app (no module-level app).

Flask-Migrate is not among them: annotator/core/schema.py binds it when a `flask db` command runs.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from flask_login import LoginManager
from flask_sqlalchemy import SQLAlchemy
from flask_wtf import CSRFProtect
from sqlalchemy import MetaData, Table
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

    if TYPE_CHECKING:
        # Every model is declared with __tablename__, so its __table__ is a Table (DeclarativeBase says only
        # FromClause, which has no insert()).
        __table__: ClassVar[Table]


# expire_on_commit=False: views keep using objects (current_user) after the short write
# transactions of the assignment engine without a reload query each time.
db = SQLAlchemy(model_class=Base, session_options={"expire_on_commit": False})

# The models' base. At run time it is db.Model, the class Flask-SQLAlchemy builds from Base (same metadata and
# registry, plus its query property, bind key and repr); mypy cannot take db.Model, an attribute, as a base class,
# so it sees Base, which has every column and relationship feature the models use.
if TYPE_CHECKING:
    Model = Base
else:
    Model = db.Model
login_manager = LoginManager()
csrf = CSRFProtect()
