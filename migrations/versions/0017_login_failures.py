"""Failed logins in the database: each worker and host counts the same ones, and a restart forgets none

Why: the counters were kept per process (Flask-Limiter's memory://), so two workers doubled the limits and a
restart reset them; they were also per account, so anyone could lock the owner of a name out. The rows are
counted per (account, address) and per address, and deleted once older than the login limits' longest window.

Revision ID: 0017_login_failures
Revises: 0016_crowd_entry_limits
Create Date: 2026-11-28 00:40:00
"""
from alembic import op
import sqlalchemy as sa

revision = "0017_login_failures"
down_revision = "0016_crowd_entry_limits"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "login_failures",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("account", sa.String(length=64), nullable=False),
        sa.Column("address", sa.String(length=64), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_login_failures_address_at", "login_failures", ["address", "at"])
    op.create_index("ix_login_failures_at", "login_failures", ["at"])
    op.create_index("ix_login_failures_account", "login_failures", ["account"])


def downgrade():
    op.drop_index("ix_login_failures_account", table_name="login_failures")
    op.drop_index("ix_login_failures_at", table_name="login_failures")
    op.drop_index("ix_login_failures_address_at", table_name="login_failures")
    op.drop_table("login_failures")
