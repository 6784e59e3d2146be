"""Assignments indexed by (user_id, project_id, item_id) instead of user_id alone

Why: `next` excludes the items the annotator had in this project. With the planner's statistics
taken while the table was empty (an import analyses it before any vote), PostgreSQL answered that
from two bitmap indexes, one of them every assignment of the project: a cost that grew with the
campaign (bench/results/2026-11-23-hot-path-second-round.md). With this index it reads only the annotator's own rows, index-only.
The index still leads with user_id, so it also serves the cascade from users.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-23 19:30:00
"""
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("assignments", schema=None) as batch_op:
        batch_op.create_index("ix_assignments_user_project", ["user_id", "project_id", "item_id"], unique=False)
        batch_op.drop_index("ix_assignments_user_id")


def downgrade():
    with op.batch_alter_table("assignments", schema=None) as batch_op:
        batch_op.create_index("ix_assignments_user_id", ["user_id"], unique=False)
        batch_op.drop_index("ix_assignments_user_project")
