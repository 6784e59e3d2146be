"""Drop the change signals of 0010: the per-process cache they served is gone

Why: the workers no longer keep API token holders and projects between requests (every request reads
them, with its other statements), so nothing listens for the NOTIFY or reads change_counter any more,
and the triggers only cost every update of users, api_tokens and projects. The downgrade makes them again
exactly as 0010 did, with the counter back at 0.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-25 16:00:00
"""
from alembic import op
import sqlalchemy as sa

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

TABLES = ("users", "api_tokens", "projects")
CHANNEL = "annotator_rows_changed"


def upgrade():
    if op.get_bind().dialect.name == "postgresql":
        for table in TABLES:
            op.execute(f"DROP TRIGGER IF EXISTS {table}_changed ON {table}")
        op.execute("DROP FUNCTION IF EXISTS annotator_rows_changed()")
    else:
        for table in TABLES:
            for event in ("UPDATE", "DELETE"):
                op.execute(f"DROP TRIGGER IF EXISTS {table}_{event.lower()}_counted")
    op.drop_table("change_counter")


def downgrade():
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
