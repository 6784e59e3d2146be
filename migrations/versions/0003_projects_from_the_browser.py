"""Projects and accounts from the browser; storage fit for the new HIT types

- items.reference: the answer an imported file gives (was payload["reference"] for KPA items);
  moved out of the payload so that no page can show it to annotators by mistake.
- labels.field up to 80 characters, labels.value any text (spans "12:40", ratings, free text).
- projects.archived and projects.audience, with project_annotators for the listed annotators.
- users.must_change_password (one-time passwords), api_tokens.note (what a token is for).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23 09:00:00
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

JSON = sa.JSON(none_as_null=True).with_variant(postgresql.JSONB(none_as_null=True, astext_type=sa.Text()), "postgresql")


def _move_references_out_of_payloads() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("UPDATE items SET reference = payload -> 'reference', payload = payload - 'reference' "
                   "WHERE payload ? 'reference'")
    else:
        op.execute("UPDATE items SET reference = json_extract(payload, '$.reference'), "
                   "payload = json_remove(payload, '$.reference') "
                   "WHERE json_type(payload, '$.reference') IS NOT NULL")


def _move_references_back() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("UPDATE items SET payload = jsonb_set(payload, '{reference}', reference) "
                   "WHERE reference IS NOT NULL")
    else:
        op.execute("UPDATE items SET payload = json_set(payload, '$.reference', json(reference)) "
                   "WHERE reference IS NOT NULL")


def upgrade():
    with op.batch_alter_table("items", schema=None) as batch_op:
        batch_op.add_column(sa.Column("reference", JSON, nullable=True))
    _move_references_out_of_payloads()

    with op.batch_alter_table("labels", schema=None) as batch_op:
        batch_op.alter_column("field", existing_type=sa.String(length=40), type_=sa.String(length=80),
                              existing_nullable=False)
        batch_op.alter_column("value", existing_type=sa.String(length=40), type_=sa.Text(),
                              existing_nullable=False)

    with op.batch_alter_table("projects", schema=None) as batch_op:
        batch_op.add_column(sa.Column("archived", sa.Boolean(), nullable=False, server_default=sa.text("false")))
        batch_op.add_column(sa.Column("audience", sa.String(length=16), nullable=False, server_default="all"))
        batch_op.create_check_constraint(op.f("ck_projects_audience"), "audience IN ('all', 'listed')")

    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.add_column(sa.Column("must_change_password", sa.Boolean(), nullable=False,
                                      server_default=sa.text("false")))

    with op.batch_alter_table("api_tokens", schema=None) as batch_op:
        batch_op.add_column(sa.Column("note", sa.String(length=120), nullable=False, server_default=""))

    op.create_table(
        "project_annotators",
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"],
                                name=op.f("fk_project_annotators_project_id_projects"), ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"],
                                name=op.f("fk_project_annotators_user_id_users"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("project_id", "user_id", name=op.f("pk_project_annotators")),
    )
    with op.batch_alter_table("project_annotators", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_project_annotators_user_id"), ["user_id"], unique=False)


def downgrade():
    with op.batch_alter_table("project_annotators", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_project_annotators_user_id"))
    op.drop_table("project_annotators")
    with op.batch_alter_table("api_tokens", schema=None) as batch_op:
        batch_op.drop_column("note")
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_column("must_change_password")
    with op.batch_alter_table("projects", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("ck_projects_audience"), type_="check")
        batch_op.drop_column("audience")
        batch_op.drop_column("archived")
    with op.batch_alter_table("labels", schema=None) as batch_op:
        batch_op.alter_column("value", existing_type=sa.Text(), type_=sa.String(length=40), existing_nullable=False)
        batch_op.alter_column("field", existing_type=sa.String(length=80), type_=sa.String(length=40),
                              existing_nullable=False)
    _move_references_back()
    with op.batch_alter_table("items", schema=None) as batch_op:
        batch_op.drop_column("reference")
