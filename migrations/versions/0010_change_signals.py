"""Signals that users, API tokens or projects changed, for the caches of the worker processes

Each worker keeps API token holders and projects between requests (annotator/engine/process_cache.py) and
must learn when one of them is updated or deleted, by whatever process or host.
- PostgreSQL: a statement trigger on each table sends NOTIFY annotator_rows_changed (delivered at
  commit, to every listening connection of the database).
- SQLite: row triggers add one to change_counter.changes, which the workers read per request.
Inserts need no signal: nothing that does not exist yet is kept.

A later migration that rebuilds one of these tables on SQLite (`batch_alter_table` copies the table and
drops the old one) drops its triggers with it and must create them again; the process-cache tests, which
run on the migrated schema, fail if it does not.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-24 10:00:00
"""
from alembic import op
import sqlalchemy as sa

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

TABLES = ("users", "api_tokens", "projects")
CHANNEL = "annotator_rows_changed"  # the process cache listened on it (removed, with these signals, in 0011)


def upgrade():
    op.create_table("change_counter",
                    sa.Column("id", sa.Integer(), nullable=False),
                    sa.Column("changes", sa.Integer(), nullable=False),
                    sa.PrimaryKeyConstraint("id", name=op.f("pk_change_counter")))
    op.execute("INSERT INTO change_counter (id, changes) VALUES (1, 0)")
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"""CREATE FUNCTION annotator_rows_changed() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN PERFORM pg_notify('{CHANNEL}', TG_TABLE_NAME); RETURN NULL; END $$""")
        for table in TABLES:
            op.execute(f"CREATE TRIGGER {table}_changed AFTER UPDATE OR DELETE OR TRUNCATE ON {table} "
                       "FOR EACH STATEMENT EXECUTE FUNCTION annotator_rows_changed()")
    else:
        for table in TABLES:
            for event in ("UPDATE", "DELETE"):
                op.execute(f"CREATE TRIGGER {table}_{event.lower()}_counted AFTER {event} ON {table} "
                           "BEGIN UPDATE change_counter SET changes = changes + 1 WHERE id = 1; END")


def downgrade():
    if op.get_bind().dialect.name == "postgresql":
        for table in TABLES:
            op.execute(f"DROP TRIGGER {table}_changed ON {table}")
        op.execute("DROP FUNCTION annotator_rows_changed()")
    else:
        for table in TABLES:
            for event in ("UPDATE", "DELETE"):
                op.execute(f"DROP TRIGGER {table}_{event.lower()}_counted")
    op.drop_table("change_counter")
