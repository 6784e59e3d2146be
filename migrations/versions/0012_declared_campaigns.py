"""Declared campaigns: a project may carry its HIT's definition (questions, gold rules, agreement)

Why: a declared campaign's type is its definition, so the definition is read with the project on every
request, like its settings; kept on the row rather than in project_data, which per-request reads never load.
Null for the built-in types.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-26 01:30:00
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade():
    with op.batch_alter_table("projects") as batch_op:
        batch_op.add_column(sa.Column("definition", JSON, nullable=True))


def downgrade():
    with op.batch_alter_table("projects") as batch_op:
        batch_op.drop_column("definition")
