"""Crowd entry: study links per project and platform, crowd workers' accounts, their study sessions

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-23 14:00:00
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade():
    op.create_table(
        "crowd_links",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("platform", sa.String(length=16), nullable=False),
        sa.Column("nonce", sa.String(length=64), nullable=False),
        sa.Column("hits", sa.Integer(), nullable=False),
        sa.Column("completion_code", sa.String(length=80), nullable=False),
        sa.Column("screen_out_code", sa.String(length=80), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.CheckConstraint("platform IN ('prolific', 'mturk')", name=op.f("ck_crowd_links_platform")),
        sa.CheckConstraint("hits >= 1", name=op.f("ck_crowd_links_hits_positive")),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], name=op.f("fk_crowd_links_project_id_projects"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_crowd_links")),
        sa.UniqueConstraint("project_id", "platform", name="uq_crowd_links_project_platform"),
    )
    op.create_table(
        "crowd_workers",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("platform", sa.String(length=16), nullable=False),
        sa.Column("worker_id", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=op.f("fk_crowd_workers_user_id_users"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_crowd_workers")),
        sa.UniqueConstraint("platform", "worker_id", name="uq_crowd_workers_platform_worker_id"),
        sa.UniqueConstraint("user_id", name=op.f("uq_crowd_workers_user_id")),
    )
    op.create_table(
        "crowd_sessions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("link_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("session_key", sa.String(length=200), nullable=False),
        sa.Column("details", JSON, nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=False),
        sa.Column("completed_at", sa.DateTime(), nullable=True),
        sa.Column("screened_out", sa.String(length=500), nullable=True),
        sa.ForeignKeyConstraint(["link_id"], ["crowd_links.id"], name=op.f("fk_crowd_sessions_link_id_crowd_links"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=op.f("fk_crowd_sessions_user_id_users"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_crowd_sessions")),
        sa.UniqueConstraint("link_id", "session_key", name="uq_crowd_sessions_link_session_key"),
    )
    with op.batch_alter_table("crowd_sessions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_crowd_sessions_user_id"), ["user_id"], unique=False)


def downgrade():
    with op.batch_alter_table("crowd_sessions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_crowd_sessions_user_id"))
    op.drop_table("crowd_sessions")
    op.drop_table("crowd_workers")
    op.drop_table("crowd_links")
