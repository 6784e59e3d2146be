"""items.certainty and the partial index ix_items_route: routing a stopping campaign's votes to uncertain items

Why: with `stopping:` in a definition, the next item an annotator gets is the least certain one they may take
(engine/picking.py), where a vote is worth most. Each vote writes the item's certainty under the rule
(core/stopping.certainty); the index walks a project's voted items least certain first. It is partial (certainty
IS NOT NULL): items of a project without a stopping rule never get a certainty, so they keep no entry and their
votes' updates never touch it. Existing rows get NULL, which the routing reads as "no vote counted under a rule
yet": a campaign with a stopping rule that already has votes is served its unvoted items first, then its voted
ones in order of certainty as their next votes write it.

Revision ID: 0020_item_certainty
Revises: 0019_item_stopped
Create Date: 2026-11-28 12:00:00
"""
from alembic import op
import sqlalchemy as sa

revision = "0020_item_certainty"
down_revision = "0019_item_stopped"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("items") as batch:
        batch.add_column(sa.Column("certainty", sa.Float(), nullable=True))
    op.create_index("ix_items_route", "items", ["project_id", "certainty", "position"],
                    sqlite_where=sa.text("certainty IS NOT NULL"), postgresql_where=sa.text("certainty IS NOT NULL"))


def downgrade():
    op.drop_index("ix_items_route", table_name="items")
    with op.batch_alter_table("items") as batch:
        batch.drop_column("certainty")
