"""items.stopped_at: when a declared campaign's stopping rule stopped the item before its k-th vote

Why: with `stopping:` in a definition, an item takes no more votes once its votes so far decide it; its target
is set to the votes it has, and this column says that (and when) it was stopped rather than completed at k.

Revision ID: 0019_item_stopped
Revises: 0018_emphasis_declared
Create Date: 2026-11-28 09:40:00
"""
from alembic import op
import sqlalchemy as sa

revision = "0019_item_stopped"
down_revision = "0018_emphasis_declared"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("items") as batch:
        batch.add_column(sa.Column("stopped_at", sa.DateTime(), nullable=True))


def downgrade():
    with op.batch_alter_table("items") as batch:
        batch.drop_column("stopped_at")
