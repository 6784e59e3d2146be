"""Audit events: the admin actions that changed data, who did them and when (annotator/core/audit.py)

Why: crowd workers have rights over their data, and a data-protection officer asks who imported, deleted,
changed or erased what; the record has no foreign keys, so it outlives the projects and accounts it names.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-26 07:00:00
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "audit_events",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.Column("actor_id", sa.Integer(), nullable=True),
        sa.Column("actor", sa.String(length=120), nullable=False),
        sa.Column("action", sa.String(length=40), nullable=False),
        sa.Column("project", sa.String(length=80), nullable=True),
        sa.Column("detail", sa.JSON().with_variant(postgresql.JSONB(), "postgresql"), nullable=False),
    )
    op.create_index("ix_audit_events_at", "audit_events", ["at"])
    op.create_index("ix_audit_events_project_at", "audit_events", ["project", "at"])
    op.create_index("ix_audit_events_action_at", "audit_events", ["action", "at"])


def downgrade():
    op.drop_index("ix_audit_events_action_at", table_name="audit_events")
    op.drop_index("ix_audit_events_project_at", table_name="audit_events")
    op.drop_index("ix_audit_events_at", table_name="audit_events")
    op.drop_table("audit_events")
