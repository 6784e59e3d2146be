"""Crowd quality control: project quality settings, control items, item targets, excluded votes,
control answers, annotator states (quiz, blocking) and quiz results.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23 14:00:00
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade():
    with op.batch_alter_table("projects", schema=None) as batch_op:
        batch_op.add_column(sa.Column("quality", JSON, nullable=False, server_default=sa.text("'{}'")))
    with op.batch_alter_table("items", schema=None) as batch_op:
        batch_op.add_column(sa.Column("is_control", sa.Boolean(), nullable=False, server_default=sa.text("false")))
        batch_op.add_column(sa.Column("target", sa.Integer(), nullable=True))
    with op.batch_alter_table("assignments", schema=None) as batch_op:
        batch_op.add_column(sa.Column("excluded", sa.Boolean(), nullable=False, server_default=sa.text("false")))
    op.create_table(
        "control_answers",
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("quiz_attempt", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["assignment_id"], ["assignments.id"],
                                name=op.f("fk_control_answers_assignment_id_assignments"), ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["item_id"], ["items.id"], name=op.f("fk_control_answers_item_id_items"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], name=op.f("fk_control_answers_project_id_projects"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=op.f("fk_control_answers_user_id_users"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("assignment_id", name=op.f("pk_control_answers")),
    )
    op.create_index("ix_control_answers_project_user", "control_answers", ["project_id", "user_id"])
    op.create_table(
        "annotator_states",
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("quiz_status", sa.String(length=16), nullable=False, server_default="pending"),
        sa.Column("quiz_attempt", sa.Integer(), nullable=False, server_default=sa.text("1")),
        sa.Column("blocked_at", sa.DateTime(), nullable=True),
        sa.Column("blocked_reason", sa.Text(), nullable=True),
        sa.Column("exempt", sa.Boolean(), nullable=False, server_default=sa.text("false")),
        sa.CheckConstraint("quiz_status IN ('pending', 'passed', 'failed')",
                           name=op.f("ck_annotator_states_quiz_status")),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], name=op.f("fk_annotator_states_project_id_projects"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=op.f("fk_annotator_states_user_id_users"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("project_id", "user_id", name=op.f("pk_annotator_states")),
    )
    op.create_index(op.f("ix_annotator_states_user_id"), "annotator_states", ["user_id"])
    op.create_table(
        "quiz_results",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("answered", sa.Integer(), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("passed", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], name=op.f("fk_quiz_results_project_id_projects"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=op.f("fk_quiz_results_user_id_users"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_quiz_results")),
    )
    op.create_index("ix_quiz_results_project_user", "quiz_results", ["project_id", "user_id"])


def downgrade():
    op.drop_index("ix_quiz_results_project_user", table_name="quiz_results")
    op.drop_table("quiz_results")
    op.drop_index(op.f("ix_annotator_states_user_id"), table_name="annotator_states")
    op.drop_table("annotator_states")
    op.drop_index("ix_control_answers_project_user", table_name="control_answers")
    op.drop_table("control_answers")
    with op.batch_alter_table("assignments", schema=None) as batch_op:
        batch_op.drop_column("excluded")
    with op.batch_alter_table("items", schema=None) as batch_op:
        batch_op.drop_column("target")
        batch_op.drop_column("is_control")
    with op.batch_alter_table("projects", schema=None) as batch_op:
        batch_op.drop_column("quality")
