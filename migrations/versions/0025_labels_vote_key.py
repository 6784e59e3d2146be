"""labels: one foreign key to their vote (assignment, project, item, annotator) instead of four

Why: a label row repeats its assignment's project, item and annotator (the queries that read labels alone need
them), and each of the four columns had a foreign key of its own, to assignments, projects, items and users. On
PostgreSQL every key is a lookup and a row lock per inserted label: imported votes' COPY spent three quarters of its
time in them (the emphasis train file's 291,600 labels: 12.3 s with the four keys, 2.8 s without any, in a copy of
the table), and a 40-label vote 1.7 ms against 0.6-0.9 ms with one key
(bench/results/2026-11-29-test-kpa-rows.md). One composite key to the assignment's (id, project_id, item_id,
user_id) checks one row and also that the copies agree, which the four keys did not. ON DELETE CASCADE: deleting a
project, item or annotator still deletes their labels, through their assignments, which those deletions cascade to
already; ON UPDATE CASCADE: an assignment's project, item or annotator changed by hand carries its labels along.

Every existing label was written from its assignment's values, so the new key holds for every row; an upgrade of a
database where one does not is refused (PostgreSQL names the constraint; on SQLite, migrations/env.py's check of the
keys names the table and row) and changes nothing (tests/cli/test_migrations.py).

Revision ID: 0025_labels_vote_key
Revises: 0024_prior_counts
Create Date: 2026-11-29 22:40:00
"""
from alembic import op

revision = "0025_labels_vote_key"
down_revision = "0024_prior_counts"
branch_labels = None
depends_on = None

VOTE = ["assignment_id", "project_id", "item_id", "user_id"]
OLD_KEYS = [("fk_labels_assignment_id_assignments", "assignments", "assignment_id"),
            ("fk_labels_project_id_projects", "projects", "project_id"),
            ("fk_labels_item_id_items", "items", "item_id"),
            ("fk_labels_user_id_users", "users", "user_id")]


def upgrade():
    op.create_index("uq_assignments_vote", "assignments", ["id", "project_id", "item_id", "user_id"], unique=True)
    with op.batch_alter_table("labels", schema=None) as batch_op:
        for name, _, _ in OLD_KEYS:
            batch_op.drop_constraint(name, type_="foreignkey")
        batch_op.create_foreign_key("fk_labels_vote_assignments", "assignments", VOTE,
                                    ["id", "project_id", "item_id", "user_id"], ondelete="CASCADE",
                                    onupdate="CASCADE")


def downgrade():
    with op.batch_alter_table("labels", schema=None) as batch_op:
        batch_op.drop_constraint("fk_labels_vote_assignments", type_="foreignkey")
        for name, table, column in OLD_KEYS:
            batch_op.create_foreign_key(name, table, [column], ["id"], ondelete="CASCADE")
    op.drop_index("uq_assignments_vote", table_name="assignments")
