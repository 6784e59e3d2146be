"""Adjudications: an admin's answer for an item the task's rule left undecided

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23 14:00:00
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "adjudications",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("answer", sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
                  nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["item_id"], ["items.id"], name=op.f("fk_adjudications_item_id_items"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], name=op.f("fk_adjudications_project_id_projects"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=op.f("fk_adjudications_user_id_users"),
                                ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_adjudications")),
        sa.UniqueConstraint("item_id", name=op.f("uq_adjudications_item_id")),
    )
    with op.batch_alter_table("adjudications", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_adjudications_project_id"), ["project_id"], unique=False)


def downgrade():
    with op.batch_alter_table("adjudications", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_adjudications_project_id"))
    op.drop_table("adjudications")
