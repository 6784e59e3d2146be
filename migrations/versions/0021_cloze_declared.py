"""SemEval-2021 ReCAM projects of the built-in cloze type become declared projects of cloze_selection.yaml, votes kept

Why: the switch to one engine (docs/one-engine.md) serves every campaign from its shared task's definition; the
built-in "cloze" HIT type goes. Each project of that type becomes a project of the declared type ("custom") with
the definition of annotator/shared_tasks/recam2021/cloze_selection.yaml, the project's selection settings that
differ from the built-in's defaults (min_accuracy, require_spans, easy_must_be_right, keep_share, majority_share)
written as the parameters of the definition's `recam_selection` rule, as a new declared import of those settings
makes it (shared_tasks/recam2021/exchange.py, `declared_definition`); those settings leave the project's settings,
since a declared project's rules are its definition's. Nothing else of it changes (slug, name, source, quality,
items, leases). Its votes are mapped as the task's bridge maps them (shared_tasks/recam2021/bridge.py, `map_labels`,
`convert_answer`, `map_reference`), which is the declared engine's own check of the converted answer:

- a vote's four rows of unit "question" (option "0".."4", difficulty, passage_span and question_span as
  "start:end" or "" for none) become, in the definition's question order: (option, option, n); for each evidence
  question a row per character of its text (article, question), white space left out and a letter kept with the
  marks that combine with it, unit "<start>:<end>", value "evidence" when the vote's span covers any of it, else
  "O", then, when the span is marked, (start:end:evidence, <question>, "1"); and (difficulty, difficulty, rating);
- each stored answer {"option": n, "passage_span": [s, e] | null, ...} becomes {"option": "n", "passage_span":
  [{"start": s, "end": e, "label": "evidence"}] or [], "question_span": ..., "difficulty": rating};
- an item's known answer {"label": n} (ReCAM's label, on every item and on control items) becomes {"option": "n"};
- the project's kept figures (kept_results, kept_states) are dropped: they are recomputed under the new fields.

Each vote keeps its assignment; its old rows are deleted and its new ones inserted in one transaction, so no vote is
lost or counted twice. The official files, the scoring gold and the dataset table are the same bytes
(tests/lifecycle/test_upgrade_keeps_exports.py). The mapping and the definition are frozen copies here, not
imported from the app: a migration must do the same thing on every database for ever, and the app's bridge and
span rows change or go (the built-in type's module is removed after this revision).
tests/unit/test_migration_cloze_declared.py checks the copies against the bridge and the definition of today.

Downgrade maps back: the declared projects of this definition (any rule parameters) imported from recam2021 files
become built-in projects again, the rule's parameters their settings, their rows and answers as the built-in stored
them. Refused, changing nothing, when one holds what the built-in cannot hold (an answer or vote that is not one
option, two evidence marks of at most one span each and a rating; a known answer other than an option): the message
names the project and the item.

Revision ID: 0021_cloze_declared
Revises: 0020_item_certainty
Create Date: 2026-11-28 11:40:00
"""
from __future__ import annotations

import copy
import json
import unicodedata
from collections.abc import Iterable, Iterator
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0021_cloze_declared"
down_revision = "0020_item_certainty"
branch_labels = None
depends_on = None

BUILT_IN = "cloze"
DECLARED = "custom"
FORMAT = "recam2021"
UNIT = "question"                                  # the built-in's one unit per vote
FIELDS = ("option", "difficulty", "passage_span", "question_span")   # the built-in's rows, in its order
DIFFICULTIES = ("easy", "medium", "hard")
EVIDENCE = "evidence"
OUTSIDE = "O"
SPAN_TEXT = {"passage_span": "article", "question_span": "question"}   # evidence question -> the text it marks
# the built-in's selection settings and their defaults: the recam_selection rule's parameters
SELECTION_DEFAULTS: dict[str, Any] = {"min_accuracy": 0.4, "require_spans": True, "easy_must_be_right": True,
                                      "keep_share": 0.5, "majority_share": 0.5}
# cloze_selection.yaml as a declared project stores it (Definition.to_data() of the file at this revision)
DEFINITION: dict[str, Any] = json.loads("""{
  "name": "Cloze validation with ReCAM's selection rules (SemEval-2021 Task 4)",
  "description": "Read the passage and the question. Choose the option that fills the blank, mark the text of the passage that supports your answer and the part of the question it relates to (or leave a mark out), then say how hard it was.",
  "licence": "none stated for the ReCAM data (its passages come from CNN / Daily Mail and XSum; check before publishing)",
  "language": "en",
  "k": 3,
  "show": [{"field": "article", "label": "Passage"}, {"field": "question", "as": "blanks", "label": "Question"}],
  "questions": [
    {"id": "option", "kind": "choice", "prompt": "Which option fills the blank?", "options_from": "options",
     "values": "index", "gold": {"rule": "recam_selection", "difficulty": "difficulty",
                                 "passage_span": "passage_span", "question_span": "question_span"}},
    {"id": "passage_span", "kind": "spans", "of": "article",
     "prompt": "Mark the text of the passage that supports your answer (or none).",
     "labels": [{"value": "evidence", "label": "Evidence"}], "max": 1, "edges": "code_points", "required": false},
    {"id": "question_span", "kind": "spans", "of": "question",
     "prompt": "Mark the part of the question your answer relates to (or none).",
     "labels": [{"value": "evidence", "label": "Evidence"}], "max": 1, "edges": "code_points", "required": false},
    {"id": "difficulty", "kind": "choice", "prompt": "How hard was it to answer?",
     "options": ["easy", "medium", "hard"], "gold": "median", "agreement": "ordinal"}
  ]
}""")  # noqa: E501
QUESTIONS = ("option", "passage_span", "question_span", "difficulty")   # the definition's order: its rows' order
BATCH = 5000

JSON_TYPE = sa.JSON().with_variant(JSONB(), "postgresql")
NULLABLE_JSON = sa.JSON(none_as_null=True).with_variant(JSONB(none_as_null=True), "postgresql")
projects = sa.table("projects", sa.column("id", sa.Integer), sa.column("slug", sa.String), sa.column("task_type",
                    sa.String), sa.column("settings", JSON_TYPE), sa.column("definition", JSON_TYPE),
                    sa.column("source", JSON_TYPE))
items = sa.table("items", sa.column("id", sa.Integer), sa.column("project_id", sa.Integer),
                 sa.column("external_id", sa.String), sa.column("payload", JSON_TYPE),
                 sa.column("reference", NULLABLE_JSON))
assignments = sa.table("assignments", sa.column("id", sa.Integer), sa.column("project_id", sa.Integer),
                       sa.column("item_id", sa.Integer), sa.column("answer", JSON_TYPE))
labels = sa.table("labels", sa.column("id", sa.Integer), sa.column("assignment_id", sa.Integer),
                  sa.column("project_id", sa.Integer), sa.column("item_id", sa.Integer),
                  sa.column("user_id", sa.Integer), sa.column("unit", sa.String), sa.column("field", sa.String),
                  sa.column("value", sa.Text))
Row = tuple[str, str, str]   # (unit, field, value)


class Refused(RuntimeError):
    """What stops the migration, said with the project and the item; nothing is changed (one transaction)."""


# --- the frozen mapping (bridge.py and declared/spans.py at this revision) -----------------------------------------

def _joins(char: str) -> bool:
    """Does this code point belong to the character before it (a combining mark, a variation selector, a skin tone,
    a zero-width joiner)?"""
    return unicodedata.category(char) in ("Mn", "Me", "Mc") or char == "\u200d" or "\ufe00" <= char <= "\ufe0f" \
        or "\U0001f3fb" <= char <= "\U0001f3ff"


def characters(text: str) -> list[tuple[int, int]]:
    """(start, end) of every character of the text but white space: a code point with the code points that join it
    (the declared engine's units of a span question with edges at characters or code points)."""
    found: list[tuple[int, int]] = []
    at, size = 0, len(text)
    while at < size:
        if text[at].isspace():
            at += 1
            continue
        end = at + 1
        while end < size and (_joins(text[end]) or text[end - 1] == "\u200d" and not text[end].isspace()):
            end += 1
        found.append((at, end))
        at = end
    return found


def span_of(value: str, text: str) -> tuple[int, int] | None:
    """A built-in span row's value ("start:end", "" for none) as offsets of the text; ValueError when it is none."""
    if value == "":
        return None
    start, sep, end = value.partition(":")
    if not (sep and start.isdigit() and end.isdigit()) or not 0 <= int(start) < int(end) <= len(text):
        raise ValueError(f"span {value!r} is not start:end within the {len(text)} characters of the text")
    return int(start), int(end)


def evidence_rows(question: str, text: str, span: tuple[int, int] | None) -> list[Row]:
    """A spans question's rows for one vote: a row per character (evidence / O), then the mark's row."""
    found = [(f"{start}:{end}", question,
              EVIDENCE if span is not None and span[0] < end and start < span[1] else OUTSIDE)
             for start, end in characters(text)]
    return found + ([(f"{span[0]}:{span[1]}:{EVIDENCE}", question, "1")] if span is not None else [])


def vote_rows(fields: dict[str, str], payload: dict[str, Any]) -> list[Row]:
    """One vote's built-in rows {field: value} as the definition's rows; ValueError for what is not a cloze vote."""
    if set(fields) != set(FIELDS):
        raise ValueError(f"the fields {sorted(fields)} are not one cloze vote's ({', '.join(FIELDS)})")
    option, difficulty = fields["option"], fields["difficulty"]
    if not option.isdigit() or int(option) >= len(payload.get("options") or ()):
        raise ValueError(f"option {option!r} is not the position of one of the item's options")
    if difficulty not in DIFFICULTIES:
        raise ValueError(f"difficulty {difficulty!r} is not easy, medium or hard")
    found: list[Row] = [("option", "option", option)]
    for question, of in SPAN_TEXT.items():
        text = str(payload.get(of) or "")
        found += evidence_rows(question, text, span_of(fields[question], text))
    return found + [("difficulty", "difficulty", difficulty)]


def declared_answer(answer: Any) -> Any:
    """A stored built-in answer as the definition's stored answer (anything else as it is)."""
    if not isinstance(answer, dict) or set(answer) != set(FIELDS):
        return answer

    def marks(span: Any) -> list[dict[str, Any]]:
        return [] if span is None else [{"start": span[0], "end": span[1], "label": EVIDENCE}]
    return {"option": str(answer["option"]), "passage_span": marks(answer["passage_span"]),
            "question_span": marks(answer["question_span"]), "difficulty": answer["difficulty"]}


def declared_reference(reference: Any) -> Any:
    """A built-in item's known answer {"label": n} as the definition's {"option": "n"} (anything else as it is)."""
    if isinstance(reference, dict) and set(reference) == {"label"} and type(reference["label"]) is int:
        return {"option": str(reference["label"])}
    return reference


def definition_for(settings: dict[str, Any] | None) -> dict[str, Any]:
    """The definition with the project's selection settings that differ from the defaults as its rule's
    parameters (none differing: the file as it is)."""
    data = copy.deepcopy(DEFINITION)
    chosen = {key: value for key, value in (settings or {}).items()
              if key in SELECTION_DEFAULTS and value is not None and value != SELECTION_DEFAULTS[key]}
    if chosen:
        data["questions"][0]["gold"] = {**data["questions"][0]["gold"], **chosen}
    return data


# --- shared steps -------------------------------------------------------------------------------------------------

def _drop_kept(conn: sa.Connection, ids: list[int]) -> None:
    for table in ("kept_results", "kept_states"):
        conn.execute(sa.text(f"DELETE FROM {table} WHERE project_id IN :ids")
                     .bindparams(sa.bindparam("ids", expanding=True)), {"ids": ids})


def _votes(conn: sa.Connection, project_id: int) -> Iterator[tuple[tuple[int, int, int], list[Row]]]:
    """Each vote's (assignment, item, user) and its label rows, in assignment order and each vote's row order."""
    current: tuple[int, int, int] | None = None
    rows: list[Row] = []
    result = conn.execute(sa.select(labels.c.assignment_id, labels.c.item_id, labels.c.user_id, labels.c.unit,
                                    labels.c.field, labels.c.value)
                          .where(labels.c.project_id == project_id)
                          .order_by(labels.c.assignment_id, labels.c.id))
    for row in result:
        key = (row.assignment_id, row.item_id, row.user_id)
        if key != current:
            if current is not None:
                yield current, rows
            current, rows = key, []
        rows.append((row.unit, row.field, row.value))
    if current is not None:
        yield current, rows


def _replace_rows(conn: sa.Connection, project_id: int, new: Iterable[dict[str, Any]]) -> None:
    """Delete the project's label rows and insert the mapped ones (in order, in batches)."""
    conn.execute(sa.delete(labels).where(labels.c.project_id == project_id))
    batch: list[dict[str, Any]] = []
    for row in new:
        batch.append(row)
        if len(batch) >= BATCH:
            conn.execute(sa.insert(labels), batch)
            batch = []
    if batch:
        conn.execute(sa.insert(labels), batch)


def _payloads(conn: sa.Connection, project_id: int) -> dict[int, tuple[str, dict[str, Any]]]:
    return {row.id: (row.external_id, row.payload if isinstance(row.payload, dict) else {})
            for row in conn.execute(sa.select(items.c.id, items.c.external_id, items.c.payload)
                                    .where(items.c.project_id == project_id))}


def _label_row(vote: tuple[int, int, int], project_id: int, row: Row) -> dict[str, Any]:
    assignment, item, user = vote
    return {"assignment_id": assignment, "project_id": project_id, "item_id": item, "user_id": user,
            "unit": row[0], "field": row[1], "value": row[2]}


# --- upgrade --------------------------------------------------------------------------------------------------------

def _upgrade_project(conn: sa.Connection, project_id: int, slug: str) -> None:
    payloads = _payloads(conn, project_id)
    new: list[dict[str, Any]] = []
    for vote, rows in _votes(conn, project_id):
        external_id, payload = payloads[vote[1]]
        fields = {field: value for unit, field, value in rows if unit == UNIT}
        try:
            if len(rows) != len(FIELDS) or len(fields) != len(FIELDS):
                raise ValueError(f"{len(rows)} label rows {sorted(rows)[:6]!r} are not one cloze vote's four rows "
                                 f"of unit {UNIT!r} ({', '.join(FIELDS)})")
            mapped = vote_rows(fields, payload)
        except ValueError as error:
            raise Refused(f"project {slug!r}, item {external_id!r}, assignment {vote[0]}: {error}; nothing "
                          "changed") from None
        new += [_label_row(vote, project_id, row) for row in mapped]
    _replace_rows(conn, project_id, new)
    for row in conn.execute(sa.select(assignments.c.id, assignments.c.answer)
                            .where(assignments.c.project_id == project_id, assignments.c.answer.is_not(None))).all():
        answer = declared_answer(row.answer)
        if answer != row.answer:
            conn.execute(sa.update(assignments).where(assignments.c.id == row.id).values(answer=answer))
    for row in conn.execute(sa.select(items.c.id, items.c.reference)
                            .where(items.c.project_id == project_id, items.c.reference.is_not(None))).all():
        reference = declared_reference(row.reference)
        if reference != row.reference:
            conn.execute(sa.update(items).where(items.c.id == row.id).values(reference=reference))


def upgrade() -> None:
    conn = op.get_bind()
    found = conn.execute(sa.select(projects.c.id, projects.c.slug, projects.c.settings)
                         .where(projects.c.task_type == BUILT_IN).order_by(projects.c.id)).all()
    for project in found:
        _upgrade_project(conn, project.id, project.slug)
        settings = project.settings if isinstance(project.settings, dict) else {}
        conn.execute(sa.update(projects).where(projects.c.id == project.id)
                     .values(task_type=DECLARED, definition=definition_for(settings),
                             settings={k: v for k, v in settings.items() if k not in SELECTION_DEFAULTS}))
    if found:
        _drop_kept(conn, [project.id for project in found])


# --- downgrade ------------------------------------------------------------------------------------------------------

def selection_settings(definition: Any) -> dict[str, Any] | None:
    """The rule's parameters, when the definition is this one with only those added (None: another definition)."""
    if not isinstance(definition, dict) or not isinstance(definition.get("questions"), list) \
            or not definition["questions"] or not isinstance(definition["questions"][0], dict):
        return None
    gold = definition["questions"][0].get("gold")
    if not isinstance(gold, dict):
        return None
    chosen = {key: value for key, value in gold.items() if key in SELECTION_DEFAULTS}
    return chosen if definition_for(chosen) == definition else None


def built_in_fields(rows: list[Row]) -> dict[str, str]:
    """One declared vote's rows as the built-in's {field: value}; ValueError for what the built-in cannot hold."""
    found: dict[str, str] = {}
    marks: dict[str, list[str]] = {question: [] for question in SPAN_TEXT}
    for unit, field, value in rows:
        if field in ("option", "difficulty") and unit == field:
            if field in found:
                raise ValueError(f"two {field} rows")
            found[field] = value
        elif field in SPAN_TEXT:
            start, _, rest = unit.partition(":")
            end, sep, label = rest.partition(":")
            if sep:
                if label != EVIDENCE or value != "1" or not (start.isdigit() and end.isdigit()):
                    raise ValueError(f"the mark ({unit!r}, {field!r}, {value!r}) is not one evidence span")
                marks[field].append(f"{start}:{end}")
        else:
            raise ValueError(f"the row ({unit!r}, {field!r}, {value!r}) is none of the built-in's")
    if set(found) != {"option", "difficulty"} or not found["option"].isdigit() or \
            found["difficulty"] not in DIFFICULTIES:
        raise ValueError(f"it gives {found!r}, not one option position and one rating easy, medium or hard")
    for question, spans in marks.items():
        if len(spans) > 1:
            raise ValueError(f"it marks {len(spans)} spans in {question}; the built-in held one or none")
        found[question] = spans[0] if spans else ""
    return {field: found[field] for field in FIELDS}


def built_in_answer(answer: Any) -> dict[str, Any]:
    """A declared answer as the built-in's; ValueError for what the built-in cannot hold."""
    def span(marks: Any) -> list[int] | None:
        if marks is None or marks == []:
            return None
        if isinstance(marks, list) and len(marks) == 1 and isinstance(marks[0], dict) and \
                marks[0].get("label") == EVIDENCE and type(marks[0].get("start")) is int and \
                type(marks[0].get("end")) is int:
            return [marks[0]["start"], marks[0]["end"]]
        raise ValueError(f"the evidence {marks!r} is not one span or none")
    if not isinstance(answer, dict) or not set(answer) <= set(QUESTIONS) or \
            not isinstance(answer.get("option"), str) or not answer["option"].isdigit() or \
            answer.get("difficulty") not in DIFFICULTIES:
        raise ValueError(f"the answer {answer!r} is not an option, evidence and a rating")
    return {"option": int(answer["option"]), "passage_span": span(answer.get("passage_span")),
            "question_span": span(answer.get("question_span")), "difficulty": answer["difficulty"]}


def _downgrade_project(conn: sa.Connection, project_id: int, slug: str) -> None:
    payloads = _payloads(conn, project_id)
    new: list[dict[str, Any]] = []
    for vote, rows in _votes(conn, project_id):
        external_id = payloads[vote[1]][0]
        try:
            fields = built_in_fields(rows)
        except ValueError as error:
            raise Refused(f"project {slug!r}, item {external_id!r}, assignment {vote[0]}: the vote cannot be held by "
                          f"the built-in cloze type ({error}); nothing changed") from None
        new += [_label_row(vote, project_id, (UNIT, field, fields[field])) for field in FIELDS]
    answers = []
    for row in conn.execute(sa.select(assignments.c.id, assignments.c.item_id, assignments.c.answer)
                            .where(assignments.c.project_id == project_id, assignments.c.answer.is_not(None))).all():
        try:
            answers.append((row.id, built_in_answer(row.answer)))
        except ValueError as error:
            raise Refused(f"project {slug!r}, item {payloads[row.item_id][0]!r}, assignment {row.id}: {error}, "
                          "which the built-in cloze type cannot hold; nothing changed") from None
    references = []
    for row in conn.execute(sa.select(items.c.id, items.c.external_id, items.c.reference)
                            .where(items.c.project_id == project_id, items.c.reference.is_not(None))).all():
        known = row.reference
        if not (isinstance(known, dict) and set(known) == {"option"} and isinstance(known["option"], str)
                and known["option"].isdigit()):
            raise Refused(f"project {slug!r}, item {row.external_id!r}: the known answer {known!r} is not an option "
                          "alone, which the built-in cloze type kept; nothing changed")
        references.append((row.id, {"label": int(known["option"])}))
    _replace_rows(conn, project_id, new)
    for ident, answer in answers:
        conn.execute(sa.update(assignments).where(assignments.c.id == ident).values(answer=answer))
    for ident, reference in references:
        conn.execute(sa.update(items).where(items.c.id == ident).values(reference=reference))


def downgrade() -> None:
    conn = op.get_bind()
    found = []
    for row in conn.execute(sa.select(projects.c.id, projects.c.slug, projects.c.settings, projects.c.definition,
                                      projects.c.source)
                            .where(projects.c.task_type == DECLARED).order_by(projects.c.id)).all():
        chosen = selection_settings(row.definition)
        if chosen is not None and (row.source or {}).get("format") == FORMAT:
            found.append((row, chosen))
    for row, chosen in found:
        _downgrade_project(conn, row.id, row.slug)
        settings = row.settings if isinstance(row.settings, dict) else {}
        conn.execute(sa.update(projects).where(projects.c.id == row.id)
                     .values(task_type=BUILT_IN, definition=None, settings={**settings, **chosen}))
    if found:
        _drop_kept(conn, [row.id for row, _ in found])
