"""prior_counts: a project's votes per group of items, for a stopping rule's prior per group (`prior_by`)

Why: `stopping: {confidence: P, min_votes: M, prior_by: FIELD}` gives an item's unit a prior learned from the votes
on the other items whose FIELD has the same value (docs/declared-stopping.md). The engine reads the item's group's
counts at every submit, under the item's lock; a table of counts, written in the submit's transaction, keeps that
read the same size however many votes the campaign has. Each count is kept in stripes (an item's votes in the stripe
of its id modulo 8), which the read sums, so that the submits of one project do not all wait for one row. Only projects with `prior_by` write rows, and no earlier
definition could declare it, so the table starts empty and every existing row of every other table stays as it is.

Revision ID: 0024_prior_counts
Revises: 0023_kpa_declared
Create Date: 2026-11-29 05:30:00
"""
from alembic import op
import sqlalchemy as sa

revision = "0024_prior_counts"
down_revision = "0023_kpa_declared"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "prior_counts",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("project_id", sa.Integer(), sa.ForeignKey("projects.id", ondelete="CASCADE"), nullable=False),
        sa.Column("group_key", sa.String(length=200), nullable=False),
        sa.Column("question", sa.String(length=80), nullable=False),
        sa.Column("unit", sa.String(length=200), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.Column("stripe", sa.SmallInteger(), nullable=False),
        sa.Column("votes", sa.Integer(), nullable=False),
        sa.UniqueConstraint("project_id", "group_key", "question", "unit", "value", "stripe",
                            name="uq_prior_counts_key"),
    )


def downgrade():
    op.drop_table("prior_counts")
