"""Crowd entry limits and erasures that stay done (issue 42)

- crowd_account_creations: one row per crowd account a study link made, so the per-link cap and the
  per-address rate limit count the same in every worker process (people/crowd_limits.py).
- crowd_workers.erased_key goes: a worker who comes back after an erasure is a new account, so nothing
  derived from an erased worker's id is kept. The keys already stored are dropped with the column (they
  recognised the person again); the downgrade makes the column again, empty, which 0015's code reads as
  "erased workers nobody can find", so nothing is restored.

Revision ID: 0016_crowd_entry_limits
Revises: 0015
Create Date: 2026-11-28 00:30:00
"""
from alembic import op
import sqlalchemy as sa

revision = "0016_crowd_entry_limits"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "crowd_account_creations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("link_id", sa.Integer(), nullable=False),
        sa.Column("address_key", sa.String(length=64), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["link_id"], ["crowd_links.id"],
                                name=op.f("fk_crowd_account_creations_link_id_crowd_links"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_crowd_account_creations")),
    )
    with op.batch_alter_table("crowd_account_creations") as batch_op:
        batch_op.create_index(batch_op.f("ix_crowd_account_creations_link_id"), ["link_id"], unique=False)
        batch_op.create_index("ix_crowd_account_creations_address_key_created_at", ["address_key", "created_at"],
                              unique=False)
    with op.batch_alter_table("crowd_workers") as batch_op:
        batch_op.drop_constraint("uq_crowd_workers_erased_key", type_="unique")
        batch_op.drop_column("erased_key")


def downgrade():
    with op.batch_alter_table("crowd_workers") as batch_op:
        batch_op.add_column(sa.Column("erased_key", sa.String(length=64), nullable=True))
        batch_op.create_unique_constraint("uq_crowd_workers_erased_key", ["erased_key"])
    with op.batch_alter_table("crowd_account_creations") as batch_op:
        batch_op.drop_index("ix_crowd_account_creations_address_key_created_at")
        batch_op.drop_index(batch_op.f("ix_crowd_account_creations_link_id"))
    op.drop_table("crowd_account_creations")
