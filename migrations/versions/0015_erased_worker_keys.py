"""Erased crowd workers: their row keeps a keyed hash of (platform, worker id) instead of the worker id

Why: a worker who comes back after an erasure is mapped back to their pseudonymous account, so they are not
given items that account voted on already; the hash (HMAC-SHA256 with SECRET_KEY) names no one by itself.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-26 08:00:00
"""
from alembic import op
import sqlalchemy as sa

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("crowd_workers") as batch_op:
        batch_op.alter_column("worker_id", existing_type=sa.String(length=64), nullable=True)
        batch_op.add_column(sa.Column("erased_key", sa.String(length=64), nullable=True))
        batch_op.create_unique_constraint("uq_crowd_workers_erased_key", ["erased_key"])


def downgrade():
    op.execute("DELETE FROM crowd_workers WHERE worker_id IS NULL")  # erased workers' rows: their ids are gone
    with op.batch_alter_table("crowd_workers") as batch_op:
        batch_op.drop_constraint("uq_crowd_workers_erased_key", type_="unique")
        batch_op.drop_column("erased_key")
        batch_op.alter_column("worker_id", existing_type=sa.String(length=64), nullable=False)
