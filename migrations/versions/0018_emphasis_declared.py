"""SemEval-2020 emphasis projects of the built-in type become declared projects of selection.yaml, votes kept

Why: the switch to one engine (docs/one-engine.md) serves every campaign from its shared task's definition; the
built-in "emphasis" HIT type goes. Each project of that type becomes a project of the declared type ("custom") with
the definition of annotator/shared_tasks/emphasis2020/selection.yaml; nothing else of it changes (slug, name,
settings, source, quality, items, leases). Its votes are mapped as the task's bridge maps them
(shared_tasks/emphasis2020/bridge.py, `map_labels` and `convert_answer`):

- each label row (word id, "bio", B | I | O) becomes (word id, "emphasis.bio", the tag), the same row renamed, plus
  a new row (word id, "emphasis", "1" for B or I, "0" for O), inserted in the order of the tag rows;
- each stored answer {"tags": [...]} becomes {"emphasis": [the same tags]} (what the declared HIT stores);
- a control item's known answer {word id: probability} becomes {"emphasis": {word id: probability}}, the declared
  span's known probabilities (declared/controls.py), scored as before against the words most annotators selected;
- the project's kept figures (kept_results, kept_states) are dropped: they are recomputed under the new fields.

So the official files, the scoring gold and the dataset table are the same bytes (tests/lifecycle/
test_upgrade_keeps_exports.py). The mapping and the definition are frozen copies here, not imported from the app:
a migration must do the same thing on every database for ever, and the app's bridge and built-in type change or
go (the type's module is removed after this revision). tests/unit/test_migration_emphasis_declared.py checks the
copies against the bridge and the definition file of today.

Downgrade maps back: the declared projects of this definition imported from the emphasis2020 files (their source's
format) become built-in projects again, their rows and answers as the built-in stored them. Refused, changing
nothing, when one holds what the built-in cannot hold (an answer that is not the list of tags, a known answer not
given as word probabilities): the message names the project and the item.

Revision ID: 0018_emphasis_declared
Revises: 0017_login_failures
Create Date: 2026-11-28 09:00:00
"""
from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0018_emphasis_declared"
down_revision = "0017_login_failures"
branch_labels = None
depends_on = None

BUILT_IN = "emphasis"
DECLARED = "custom"
FORMAT = "emphasis2020"
QUESTION = "emphasis"
BUILT_IN_FIELD = "bio"
TAG_FIELD = "emphasis.bio"
TAGS = ("B", "I", "O")
# selection.yaml as a declared project stores it (Definition.to_data() of the file at this revision)
DEFINITION: dict[str, Any] = json.loads("""{
  "name": "Emphasis selection (SemEval-2020 Task 10)",
  "description": "Select the words of the short text that you would emphasise if you designed it as a poster or a quote card. Select none when nothing stands out.",
  "licence": "none stated for the SemEval-2020 Task 10 texts (check before publishing them)",
  "k": 9,
  "show": [{"field": "words", "label": "Text"}],
  "questions": [{"id": "emphasis", "kind": "span", "of": "words", "token_id": "id", "token_text": "text",
                 "boundaries": true, "prompt": "Which words would you emphasise? Select every one, or none.",
                 "gold": "probability", "agreement": "nominal"}]
}""")  # noqa: E501

JSON_TYPE = sa.JSON().with_variant(JSONB(), "postgresql")
NULLABLE_JSON = sa.JSON(none_as_null=True).with_variant(JSONB(none_as_null=True), "postgresql")
projects = sa.table("projects", sa.column("id", sa.Integer), sa.column("slug", sa.String), sa.column("task_type",
                    sa.String), sa.column("definition", JSON_TYPE), sa.column("source", JSON_TYPE))
items = sa.table("items", sa.column("id", sa.Integer), sa.column("project_id", sa.Integer),
                 sa.column("external_id", sa.String), sa.column("reference", NULLABLE_JSON))
assignments = sa.table("assignments", sa.column("id", sa.Integer), sa.column("project_id", sa.Integer),
                       sa.column("item_id", sa.Integer), sa.column("answer", JSON_TYPE))
labels = sa.table("labels", sa.column("id", sa.Integer), sa.column("assignment_id", sa.Integer),
                  sa.column("project_id", sa.Integer), sa.column("item_id", sa.Integer),
                  sa.column("user_id", sa.Integer), sa.column("unit", sa.String), sa.column("field", sa.String),
                  sa.column("value", sa.Text))


class Refused(RuntimeError):
    """What stops the migration, said with the project and the row; nothing is changed (one transaction)."""


def selected(tag: str) -> str:
    """The bridge's map_label: B and I are selected ("1"), O is not ("0")."""
    return "0" if tag == "O" else "1"


def _drop_kept(conn: sa.Connection, ids: list[int]) -> None:
    for table in ("kept_results", "kept_states"):
        conn.execute(sa.text(f"DELETE FROM {table} WHERE project_id IN :ids")
                     .bindparams(sa.bindparam("ids", expanding=True)), {"ids": ids})


def upgrade() -> None:
    conn = op.get_bind()
    found = conn.execute(sa.select(projects.c.id, projects.c.slug).where(projects.c.task_type == BUILT_IN)
                         .order_by(projects.c.id)).all()
    ids = [row.id for row in found]
    if not ids:
        return
    slugs = dict(found)
    wrong = conn.execute(sa.select(labels.c.project_id, labels.c.item_id, labels.c.unit, labels.c.field,
                                   labels.c.value)
                         .where(labels.c.project_id.in_(ids),
                                sa.or_(labels.c.field != BUILT_IN_FIELD, labels.c.value.not_in(TAGS)))).first()
    if wrong is not None:
        raise Refused(f"project {slugs[wrong.project_id]!r}: label row ({wrong.unit!r}, {wrong.field!r}, "
                      f"{wrong.value!r}) is not an emphasis tag row (field 'bio', value B, I or O); nothing changed")
    # the selected-or-not rows, in the order of the tag rows (a vote's words in order, votes in order)
    tag_rows = sa.select(labels.c.assignment_id, labels.c.project_id, labels.c.item_id, labels.c.user_id,
                         labels.c.unit, sa.literal(QUESTION, sa.String),
                         sa.case((labels.c.value == "O", "0"), else_="1")) \
        .where(labels.c.project_id.in_(ids), labels.c.field == BUILT_IN_FIELD).order_by(labels.c.id)
    conn.execute(sa.insert(labels).from_select(["assignment_id", "project_id", "item_id", "user_id", "unit", "field",
                                                "value"], tag_rows))
    conn.execute(sa.update(labels).where(labels.c.project_id.in_(ids), labels.c.field == BUILT_IN_FIELD)
                 .values(field=TAG_FIELD))
    for row in conn.execute(sa.select(assignments.c.id, assignments.c.answer)
                            .where(assignments.c.project_id.in_(ids), assignments.c.answer.is_not(None))).all():
        answer = row.answer
        if isinstance(answer, dict) and set(answer) == {"tags"}:
            conn.execute(sa.update(assignments).where(assignments.c.id == row.id)
                         .values(answer={QUESTION: answer["tags"]}))
    for row in conn.execute(sa.select(items.c.id, items.c.reference)
                            .where(items.c.project_id.in_(ids), items.c.reference.is_not(None))).all():
        if isinstance(row.reference, dict) and QUESTION not in row.reference:
            conn.execute(sa.update(items).where(items.c.id == row.id)
                         .values(reference={QUESTION: row.reference}))
    conn.execute(sa.update(projects).where(projects.c.id.in_(ids))
                 .values(task_type=DECLARED, definition=DEFINITION))
    _drop_kept(conn, ids)


def downgrade() -> None:
    conn = op.get_bind()
    found = [row for row in conn.execute(sa.select(projects.c.id, projects.c.slug, projects.c.definition,
                                                   projects.c.source)
                                         .where(projects.c.task_type == DECLARED).order_by(projects.c.id)).all()
             if row.definition == DEFINITION and (row.source or {}).get("format") == FORMAT]
    ids = [row.id for row in found]
    if not ids:
        return
    slugs = {row.id: row.slug for row in found}
    answers = []
    for row in conn.execute(sa.select(assignments.c.id, assignments.c.project_id, assignments.c.item_id,
                                      assignments.c.answer)
                            .where(assignments.c.project_id.in_(ids), assignments.c.answer.is_not(None))).all():
        answer = row.answer if isinstance(row.answer, dict) else {}
        tags = answer.get(QUESTION)
        if set(answer) != {QUESTION} or not isinstance(tags, list) or not all(t in TAGS for t in tags):
            raise Refused(f"project {slugs[row.project_id]!r}, assignment {row.id}: the answer {row.answer!r} is not "
                          "a list of tags, which the built-in type stored; nothing changed")
        answers.append((row.id, {"tags": tags}))
    references = []
    for row in conn.execute(sa.select(items.c.id, items.c.project_id, items.c.external_id, items.c.reference)
                            .where(items.c.project_id.in_(ids), items.c.reference.is_not(None))).all():
        reference = row.reference if isinstance(row.reference, dict) else {}
        known = reference.get(QUESTION)
        if set(reference) != {QUESTION} or not isinstance(known, dict):
            raise Refused(f"project {slugs[row.project_id]!r}, item {row.external_id!r}: the known answer "
                          f"{row.reference!r} is not every word's probability, which the built-in type kept; "
                          "nothing changed")
        references.append((row.id, known))
    for ident, answer in answers:
        conn.execute(sa.update(assignments).where(assignments.c.id == ident).values(answer=answer))
    for ident, known in references:
        conn.execute(sa.update(items).where(items.c.id == ident).values(reference=known))
    conn.execute(sa.delete(labels).where(labels.c.project_id.in_(ids), labels.c.field == QUESTION))
    conn.execute(sa.update(labels).where(labels.c.project_id.in_(ids), labels.c.field == TAG_FIELD)
                 .values(field=BUILT_IN_FIELD))
    conn.execute(sa.update(projects).where(projects.c.id.in_(ids)).values(task_type=BUILT_IN, definition=None))
    _drop_kept(conn, ids)
