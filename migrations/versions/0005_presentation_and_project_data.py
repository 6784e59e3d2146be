"""Assignment.presentation (how an item was shown, e.g. which system is A) and project_data (import side data)

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23 18:00:00
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")
NULLABLE_JSON = sa.JSON(none_as_null=True).with_variant(postgresql.JSONB(none_as_null=True, astext_type=sa.Text()),
                                                        "postgresql")


def upgrade():
    with op.batch_alter_table("assignments", schema=None) as batch_op:
        batch_op.add_column(sa.Column("presentation", NULLABLE_JSON, nullable=True))
    op.create_table(
        "project_data",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=120), nullable=False),
        sa.Column("content", JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], name=op.f("fk_project_data_project_id_projects"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_project_data")),
        sa.UniqueConstraint("project_id", "name", name="uq_project_data_project_name"),
    )


def downgrade():
    op.drop_table("project_data")
    with op.batch_alter_table("assignments", schema=None) as batch_op:
        batch_op.drop_column("presentation")
