"""users.session_version: sessions and remember-me cookies carry it, so bumping it ends them all

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23 14:00:00
"""
from alembic import op
import sqlalchemy as sa

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.add_column(sa.Column("session_version", sa.Integer(), server_default=sa.text("0"), nullable=False))


def downgrade():
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_column("session_version")
