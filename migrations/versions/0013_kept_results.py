"""Kept results: a big project's page figures stored with the stamp of the votes they were computed from

Why: at a million labels, recomputing gold and agreement on every admin page took seconds (issue 27);
the figures are kept in the database, so every server process and host reads the same ones, and which
process computes the next ones is decided there too (kept_states.claimed_until).

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-26 03:30:00
"""
from alembic import op
import sqlalchemy as sa

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "kept_states",
        sa.Column("project_id", sa.Integer(), sa.ForeignKey("projects.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("generation", sa.Integer(), nullable=False),
        sa.Column("claimed_until", sa.DateTime(), nullable=True),
    )
    op.create_table(
        "kept_results",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("project_id", sa.Integer(), sa.ForeignKey("projects.id", ondelete="CASCADE"), nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("stamp", sa.String(length=200), nullable=False),
        sa.Column("votes", sa.Integer(), nullable=False),
        sa.Column("computed_at", sa.DateTime(), nullable=False),
        sa.Column("seconds", sa.Float(), nullable=False),
        sa.Column("payload", sa.LargeBinary(), nullable=False),
        sa.UniqueConstraint("project_id", "name", name="uq_kept_results_project_name"),
    )


def downgrade():
    op.drop_table("kept_results")
    op.drop_table("kept_states")
