"""RuArg-2022 projects of the built-in stance_premise type become declared projects of the stage's definition,
votes kept

Why: the switch to one engine (docs/one-engine.md) serves every campaign from its shared task's definition; the
built-in "stance_premise" HIT type goes. Each project of that type becomes a project of the declared type
("custom") with the definition of its stage (annotator/shared_tasks/ruarg2022/: stance_premise.yaml at stage
"both", stance.yaml at "stance", premise.yaml at "premise"), made from its settings as a declared import of those
settings makes it (ruarg2022/declared_projects.py, `definition_for`): `agree` the m of the stance and premise
rules, `relevant_votes` the m of the relevance rule, `claims` the group's elements (or the premise questions),
`language` the wording. Those settings leave the project's settings (a declared project's rules and claims are its
definition's); a premise stage's `stance_project` moves into its source, where a declared premise stage names its
stance stage. Nothing else of it changes (slug, name, source, quality, items, leases). Its votes are mapped as
the task's bridge maps them (ruarg2022/bridge.py: `map_labels`, `map_stance_labels`, `map_premise_labels`, the
converters), which is the declared engine's own check of the converted answer:

- stage "both" and "stance": a vote's rows (claim, stance | premise, code) become, claim by claim, (claim,
  relevance, "irrelevant") for a claim coded -1, else (claim, relevance, "relevant") and the same (claim, stance |
  premise, code) rows (an irrelevant claim's stance and premise are not asked, so they have no row);
- stage "premise": (claim, premise, code) becomes (<claim>_premise, <claim>_premise, code);
- each stored answer {"claims": {claim: {"stance": code, "premise": code}}} becomes the definition's:
  {"claims": {claim: {"relevance": "irrelevant"}}} or {"relevance": "relevant", "stance": "2", "premise": "0"}; at
  the premise stage {"<claim>_premise": "code"}; an admin's decision (adjudications) the same;
- an item's known answer (the file's labels, or a control's drawn from the gold) {claim: {"stance": code,
  "premise": code}} becomes the answer of the same shape (the labels it gives, the relevance first); at the premise
  stage {claim: {"premise": code}} becomes {"<claim>_premise": "code"};
- the project's kept figures (kept_results, kept_states) are dropped: they are recomputed under the new fields.

Each vote keeps its assignment; its old rows are deleted and its new ones inserted in one transaction, so no vote is
lost or counted twice; the control answers' scores stay as they were given. The official files, the scoring gold
and the dataset table are the same bytes (tests/lifecycle/test_upgrade_keeps_exports.py). The mapping and the
definitions are frozen copies here, not imported from the app: a migration must do the same thing on every
database for ever, and the app's bridge and definitions change (the built-in type's module is removed after this
revision). tests/unit/test_migration_stance_premise_declared.py checks the copies against the app of today.

Downgrade maps back: the declared projects whose definition is one of the three as this migration makes it (any
m, claims and language) and whose source's format is ruarg2022 become built-in projects again, the definition's
parameters their settings (those that differ from the built-in's defaults; a premise stage's stance_project from
its source), their rows, answers, decisions and known answers as the built-in stored them. A claim's text comes
back in both languages as the definition words it (the other language's text is not kept by a declared project);
an irrelevant claim of a stance-stage known answer comes back with stance and premise -1 where its relevant claims
have a premise, or it has none and the project's file carried labels; else with the stance alone (a control drawn
from the stance stage's gold). Refused, changing nothing, when a
project holds what the built-in cannot hold (a vote or answer that is not a code per asked claim): the message
names the project and the item.

Revision ID: 0022_stance_premise_declared
Revises: 0021_cloze_declared
Create Date: 2026-11-28 15:10:00
"""
from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0022_stance_premise_declared"
down_revision = "0021_cloze_declared"
branch_labels = None
depends_on = None

BUILT_IN = "stance_premise"
DECLARED = "custom"
FORMAT = "ruarg2022"
GROUP = "claims"
ITEM_CLAIMS = "item.claims"
PREMISE_SUFFIX = "_premise"
STANCE_PROJECT = "stance_project"
IRRELEVANT = "-1"
CODES = ("2", "0", "1")
RELEVANT_VALUE, IRRELEVANT_VALUE = "relevant", "irrelevant"
STAGES = {"both": ("stance", "premise"), "stance": ("stance",), "premise": ("premise",)}
# the built-in type's settings that become the definition (or the source), and their defaults
DEFAULT_CLAIMS: tuple[dict[str, str], ...] = (
    {"key": "masks", "en": "Wearing masks is beneficial for society", "ru": "Ношение масок полезно для общества"},
    {"key": "quarantine", "en": "The introduction and observance of quarantine is beneficial for society",
     "ru": "Введение и соблюдение карантина полезно для общества"},
    {"key": "vaccines", "en": "Vaccination is beneficial for society", "ru": "Вакцинация полезна для общества"},
)
SETTINGS_DEFAULTS: dict[str, Any] = {"agree": 2, "relevant_votes": 2, "stage": "both", "stance_project": None,
                                     "claims": DEFAULT_CLAIMS, "language": "en"}
# the built-in's Russian words the Russian definition carries (tasks/stance_premise.py WORDS["ru"])
RUSSIAN = {"show": "Предложение", "group": "Утверждение",
           "relevance": "Укажите, относится ли предложение к этому утверждению.", "stance": "Позиция автора",
           "premise": "Довод"}
RUSSIAN_OPTIONS = {"relevant": "Релевантно", "irrelevant": "Нерелевантно", "2": "за", "0": "против",
                   "stance 1": "другое", "premise 1": "нет довода"}
PREMISE_PROMPT = "Claim: {text}. Does the sentence give an argument for or against it?"
# stance_premise.yaml, stance.yaml and premise.yaml as a declared project stores them (Definition.to_data() of the
# files at this revision)
BOTH: dict[str, Any] = json.loads("""{
  "name": "Stance and premise per claim (RuArg-2022)",
  "description": "For each of three claims about the pandemic: is the sentence about it, what is its author's stance, and does it give an argument (a premise) for or against the claim?",
  "licence": "none stated for the RuArg-2022 texts (check before publishing them)",
  "k": 3,
  "show": [{"field": "text", "label": "Sentence"}],
  "questions": [
    {"repeat": "claims", "label": "Claim", "elements": [{"id": "masks", "text": "Wearing masks is beneficial for society."}, {"id": "quarantine", "text": "The introduction and observance of quarantine is beneficial for society."}, {"id": "vaccines", "text": "Vaccination is beneficial for society."}],
     "questions": [
      {"id": "relevance", "kind": "choice", "prompt": "Is the sentence about this claim?", "options": [{"value": "relevant", "label": "Relevant"}, {"value": "irrelevant", "label": "Not relevant"}], "gold": {"rule": "agree", "m": 2, "value": "relevant", "otherwise": "irrelevant"}},
      {"id": "stance", "kind": "choice", "prompt": "Stance of the author towards the claim", "when": {"relevance": "relevant"}, "options": [{"value": "2", "label": "for"}, {"value": "0", "label": "against"}, {"value": "1", "label": "other"}], "gold": {"rule": "agree", "m": 2}, "agreement": {"level": "nominal", "not_asked": "irrelevant", "per_element": true, "pooled": "all_labels"}},
      {"id": "premise", "kind": "choice", "prompt": "Does the sentence give an argument (premise) for or against the claim?", "when": {"relevance": "relevant"}, "options": [{"value": "2", "label": "for"}, {"value": "0", "label": "against"}, {"value": "1", "label": "no argument"}], "gold": {"rule": "agree", "m": 2}, "agreement": {"level": "nominal", "not_asked": "irrelevant", "per_element": true, "pooled": "all_labels"}}]}],
  "checks": [{"rule": "ruarg_consistency", "group": "claims", "relevance": "relevance", "stance": "stance", "premise": "premise"}],
  "control_score": {"questions": ["stance", "premise"], "not_asked": true},
  "summary_items": true
}""")  # noqa: E501

STANCE: dict[str, Any] = json.loads("""{
  "name": "Stance per claim (RuArg-2022, first stage)",
  "description": "For each of three claims about the pandemic: is the sentence about it, and what is its author's stance towards it?",
  "licence": "none stated for the RuArg-2022 texts (check before publishing them)",
  "k": 3,
  "show": [{"field": "text", "label": "Sentence"}],
  "questions": [
    {"repeat": "claims", "label": "Claim", "elements": [{"id": "masks", "text": "Wearing masks is beneficial for society."}, {"id": "quarantine", "text": "The introduction and observance of quarantine is beneficial for society."}, {"id": "vaccines", "text": "Vaccination is beneficial for society."}],
     "questions": [
      {"id": "relevance", "kind": "choice", "prompt": "Is the sentence about this claim?", "options": [{"value": "relevant", "label": "Relevant"}, {"value": "irrelevant", "label": "Not relevant"}], "gold": {"rule": "agree", "m": 2, "value": "relevant", "otherwise": "irrelevant"}},
      {"id": "stance", "kind": "choice", "prompt": "Stance of the author towards the claim", "when": {"relevance": "relevant"}, "options": [{"value": "2", "label": "for"}, {"value": "0", "label": "against"}, {"value": "1", "label": "other"}], "gold": {"rule": "agree", "m": 2}, "agreement": {"level": "nominal", "not_asked": "irrelevant", "per_element": true, "pooled": "all_labels"}}]}],
  "checks": [{"rule": "ruarg_consistency", "group": "claims", "relevance": "relevance", "stance": "stance"}],
  "control_score": {"questions": ["stance"], "not_asked": true},
  "summary_items": true
}""")  # noqa: E501

PREMISE: dict[str, Any] = json.loads("""{
  "name": "Premise per relevant claim (RuArg-2022, second stage)",
  "description": "The sentence was found to be about one or more of three claims about the pandemic. For each of those claims, does it give an argument (a premise) for or against the claim?",
  "licence": "none stated for the RuArg-2022 texts (check before publishing them)",
  "k": 3,
  "show": [{"field": "text", "label": "Sentence"}],
  "questions": [
    {"id": "masks_premise", "kind": "choice", "when": {"item.claims": "masks"}, "prompt": "Claim: wearing masks is beneficial for society. Does the sentence give an argument for or against it?", "options": [{"value": "2", "label": "for"}, {"value": "0", "label": "against"}, {"value": "1", "label": "no argument"}], "gold": {"rule": "agree", "m": 2}, "agreement": {"level": "nominal", "pooled": "all_labels"}},
    {"id": "quarantine_premise", "kind": "choice", "when": {"item.claims": "quarantine"}, "prompt": "Claim: the introduction and observance of quarantine is beneficial for society. Does the sentence give an argument for or against it?", "options": [{"value": "2", "label": "for"}, {"value": "0", "label": "against"}, {"value": "1", "label": "no argument"}], "gold": {"rule": "agree", "m": 2}, "agreement": {"level": "nominal", "pooled": "all_labels"}},
    {"id": "vaccines_premise", "kind": "choice", "when": {"item.claims": "vaccines"}, "prompt": "Claim: vaccination is beneficial for society. Does the sentence give an argument for or against it?", "options": [{"value": "2", "label": "for"}, {"value": "0", "label": "against"}, {"value": "1", "label": "no argument"}], "gold": {"rule": "agree", "m": 2}, "agreement": {"level": "nominal", "pooled": "all_labels"}}],
  "summary_items": true
}""")  # noqa: E501
FILES = {"both": BOTH, "stance": STANCE, "premise": PREMISE}
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
adjudications = sa.table("adjudications", sa.column("id", sa.Integer), sa.column("project_id", sa.Integer),
                         sa.column("item_id", sa.Integer), sa.column("answer", JSON_TYPE))
labels = sa.table("labels", sa.column("id", sa.Integer), sa.column("assignment_id", sa.Integer),
                  sa.column("project_id", sa.Integer), sa.column("item_id", sa.Integer),
                  sa.column("user_id", sa.Integer), sa.column("unit", sa.String), sa.column("field", sa.String),
                  sa.column("value", sa.Text))
Row = tuple[str, str, str]   # (unit, field, value)


class Refused(RuntimeError):
    """What stops the migration, said with the project and the item; nothing is changed (one transaction)."""


# --- the frozen definitions (ruarg2022/claims.py and declared_projects.py at this revision) ------------------------

def _file_claims() -> dict[str, str]:
    return {element["id"]: element["text"] for element in _group(BOTH)["elements"]}


def _group(data: Mapping[str, Any]) -> dict[str, Any]:
    return next(q for q in data["questions"] if q.get("repeat") == GROUP)


def _premise_claim(question: Mapping[str, Any]) -> str | None:
    when = question.get("when")
    return str(when[ITEM_CLAIMS]) if isinstance(when, Mapping) and ITEM_CLAIMS in when else None


def _questions(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for question in data.get("questions", []):
        found += question["questions"] if "repeat" in question else [question]
    return found


def _with_claims(data: dict[str, Any], stage: str, claims: list[tuple[str, str]]) -> None:
    """The stage's definition asking about `claims` ((key, text) in its language), in place."""
    if stage != "premise":
        _group(data)["elements"] = [{"id": key, "text": text} for key, text in claims]
        return
    own = {_premise_claim(q): q for q in data["questions"]}
    template, texts = data["questions"][0], _file_claims()
    questions = []
    for key, text in claims:
        if key in own and texts.get(key, "").rstrip(".") == text.rstrip("."):
            questions.append(own[key])
            continue
        question = copy.deepcopy(template)
        question.update(id=f"{key}{PREMISE_SUFFIX}", when={ITEM_CLAIMS: key},
                        prompt=PREMISE_PROMPT.format(text=text.rstrip(".")))
        questions.append(question)
    data["questions"] = questions


def _in_russian(data: dict[str, Any], claims: Mapping[str, str]) -> None:
    """The definition's wording in Russian, in place (the built-in's Russian HIT's words)."""
    for shown in data.get("show", []):
        shown["label"] = RUSSIAN["show"]
    for entry in data.get("questions", []):
        if "repeat" in entry:
            entry["label"] = RUSSIAN["group"]
    for question in _questions(data):
        field = next((f for f in ("relevance", "stance", "premise") if question["id"].endswith(f)), None)
        if field is None:
            continue
        claim = question["id"].removesuffix(f"_{field}")
        question["prompt"] = f"{claims[claim].rstrip('.')}. {RUSSIAN[field]}" if claim in claims else RUSSIAN[field]
        for option in question.get("options", []):
            option["label"] = RUSSIAN_OPTIONS[f"{field} 1"] if option["value"] == "1" else \
                RUSSIAN_OPTIONS.get(option["value"], option["label"])


def claim_settings(claims: Any) -> list[dict[str, str]]:
    """The built-in `claims` setting as {"key", "en", "ru"} dicts: stored as a list of them, or as the settings
    page's text ("key | English | Russian" a line, the Russian left out meaning the English)."""
    if isinstance(claims, str):
        found = []
        for line in claims.splitlines():
            if line.strip():
                parts = [part.strip() for part in line.split("|")]
                found.append({"key": parts[0], "en": parts[1], "ru": parts[2] if len(parts) > 2 and parts[2]
                              else parts[1]})
        return found
    return [dict(claim) for claim in claims]


def settings_with_defaults(settings: Mapping[str, Any] | None) -> dict[str, Any]:
    given = {key: value for key, value in (settings or {}).items() if value is not None}
    return {**SETTINGS_DEFAULTS, **{key: value for key, value in given.items() if key in SETTINGS_DEFAULTS}}


def definition_for(settings: Mapping[str, Any] | None) -> dict[str, Any]:
    """The definition a declared import with these built-in settings makes (declared_projects.definition_for)."""
    chosen = settings_with_defaults(settings)
    stage, language = str(chosen["stage"]), str(chosen["language"])
    data = copy.deepcopy(FILES[stage])
    texts = [(str(claim["key"]), str(claim[language])) for claim in claim_settings(chosen["claims"])]
    files = _file_claims()
    the_files = [key for key, _ in texts] == list(files) and \
        all(files[key].rstrip(".") == text.rstrip(".") for key, text in texts)
    if language != "en" or not the_files:
        _with_claims(data, stage, texts)
    for question in _questions(data):
        if (question.get("gold") or {}).get("rule") == "agree":
            question["gold"]["m"] = int(chosen["relevant_votes"] if question["id"] == "relevance"
                                        else chosen["agree"])
    if language == "ru":
        _in_russian(data, dict(texts))
    return data


def stage_of(settings: Mapping[str, Any] | None) -> str:
    return str(settings_with_defaults(settings)["stage"])


def claim_keys(settings: Mapping[str, Any] | None) -> list[str]:
    return [str(claim["key"]) for claim in claim_settings(settings_with_defaults(settings)["claims"])]


# --- the frozen mapping (ruarg2022/bridge.py at this revision) -----------------------------------------------------

def vote_rows(stage: str, rows: list[Row], claims: list[str]) -> list[Row]:
    """One built-in vote's rows as the definition's, in the order the declared engine stores them (claim by claim
    in the project's order, the relevance first, then stance and premise); ValueError for what is not a vote of the
    stage."""
    mapped: list[Row] = []
    order = {claim: at for at, claim in enumerate(claims)}
    for unit, field, value in sorted(rows, key=lambda row: (order.get(row[0], -1), row[1] != "stance")):
        if stage == "premise":
            if unit not in claims or field != "premise" or value not in CODES:
                raise ValueError(f"({unit!r}, {field!r}, {value!r}) is not a premise-stage label row (a claim, "
                                 "premise, a code)")
            mapped.append((f"{unit}{PREMISE_SUFFIX}", f"{unit}{PREMISE_SUFFIX}", value))
            continue
        if unit not in claims or field not in STAGES[stage] or value not in (IRRELEVANT, *CODES):
            raise ValueError(f"({unit!r}, {field!r}, {value!r}) is not a label row of stage {stage!r} (a claim, "
                             f"{' or '.join(STAGES[stage])}, a code)")
        if field == "stance":
            mapped.append((unit, "relevance", IRRELEVANT_VALUE if value == IRRELEVANT else RELEVANT_VALUE))
        if value != IRRELEVANT:
            mapped.append((unit, field, value))
    return mapped


def _code_text(claim: str, field: str, code: Any, allowed: tuple[str, ...]) -> str:
    if isinstance(code, bool) or not isinstance(code, int) or str(code) not in allowed:
        raise ValueError(f"{field} of claim {claim!r} is {code!r}, not a code ({', '.join(allowed)})")
    return str(code)


def declared_claim(claim: str, codes: Any, fields: tuple[str, ...]) -> dict[str, str]:
    """One claim's built-in codes of `fields` as the group's answer: relevance, then the codes as texts."""
    if not isinstance(codes, Mapping) or set(codes) != set(fields):
        raise ValueError(f"claim {claim!r} gives {codes!r}, not exactly {' and '.join(fields)}")
    said = [_code_text(claim, field, codes[field], (IRRELEVANT, *CODES)) for field in fields]
    if IRRELEVANT in said:
        if set(said) != {IRRELEVANT}:
            raise ValueError(f"claim {claim!r} is irrelevant (-1) for one label but not the other")
        return {"relevance": IRRELEVANT_VALUE}
    return {"relevance": RELEVANT_VALUE, **dict(zip(fields, said))}


def declared_answer(stage: str, answer: Any, asked: list[str]) -> dict[str, Any]:
    """A stored built-in answer (or decision) about the `asked` claims as the definition's; ValueError else."""
    if not isinstance(answer, Mapping) or set(answer) != {GROUP} or not isinstance(answer[GROUP], Mapping) \
            or set(answer[GROUP]) != set(asked):
        raise ValueError(f"the answer {answer!r} does not give a code per claim asked ({', '.join(asked)})")
    given = answer[GROUP]
    if stage == "premise":
        return {f"{claim}{PREMISE_SUFFIX}": _code_text(claim, "premise", _premise(claim, given[claim]), CODES)
                for claim in asked}
    return {GROUP: {claim: declared_claim(claim, given[claim], STAGES[stage]) for claim in asked}}


def _premise(claim: str, codes: Any) -> Any:
    if not isinstance(codes, Mapping) or set(codes) != {"premise"}:
        raise ValueError(f"claim {claim!r} gives {codes!r}, not a premise alone")
    return codes["premise"]


def declared_reference(stage: str, reference: Any) -> Any:
    """An item's built-in known answer as the definition's (the file's labels or a control's gold); ValueError
    for one that is not codes per claim."""
    if not isinstance(reference, Mapping) or not reference:
        raise ValueError(f"the known answer {reference!r} is not codes per claim")
    if stage == "premise":
        return {f"{claim}{PREMISE_SUFFIX}": _code_text(claim, "premise", _premise(claim, codes), CODES)
                for claim, codes in reference.items()}
    found = {}
    for claim, codes in reference.items():
        fields = tuple(field for field in ("stance", "premise") if isinstance(codes, Mapping) and field in codes)
        found[claim] = declared_claim(claim, codes, fields or ("stance",))
    return {GROUP: found}


def asked_claims(stage: str, payload: Mapping[str, Any], claims: list[str]) -> list[str]:
    """The claims an item's HIT asks: the project's, or at the premise stage those the item names."""
    relevant = payload.get("claims")
    return [c for c in claims if c in relevant] if stage == "premise" and isinstance(relevant, list) else claims


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


def _answers(conn: sa.Connection, table: sa.TableClause, project_id: int) -> list[Any]:
    return conn.execute(sa.select(table.c.id, table.c.item_id, table.c.answer)
                        .where(table.c.project_id == project_id, table.c.answer.is_not(None))
                        .order_by(table.c.id)).all()


def _map_answers(conn: sa.Connection, slug: str, project_id: int, payloads: dict[int, tuple[str, dict[str, Any]]],
                 convert: Any) -> list[tuple[sa.TableClause, int, Any]]:
    """Every answer and decision of the project converted by `convert(answer, payload)`; Refused, naming the item,
    for one it cannot take."""
    changed = []
    for table, what in ((assignments, "assignment"), (adjudications, "adjudication")):
        for row in _answers(conn, table, project_id):
            external_id, payload = payloads[row.item_id]
            try:
                changed.append((table, row.id, convert(row.answer, payload)))
            except ValueError as error:
                raise Refused(f"project {slug!r}, item {external_id!r}, {what} {row.id}: {error}; nothing "
                              "changed") from None
    return changed


def _write_answers(conn: sa.Connection, changed: list[tuple[sa.TableClause, int, Any]]) -> None:
    for table, ident, answer in changed:
        conn.execute(sa.update(table).where(table.c.id == ident).values(answer=answer))


# --- upgrade --------------------------------------------------------------------------------------------------------

def _upgrade_project(conn: sa.Connection, project_id: int, slug: str, settings: Mapping[str, Any]) -> None:
    stage, claims = stage_of(settings), claim_keys(settings)
    payloads = _payloads(conn, project_id)
    new: list[dict[str, Any]] = []
    for vote, rows in _votes(conn, project_id):
        external_id = payloads[vote[1]][0]
        try:
            mapped = vote_rows(stage, rows, claims)
        except ValueError as error:
            raise Refused(f"project {slug!r}, item {external_id!r}, assignment {vote[0]}: {error}; nothing "
                          "changed") from None
        new += [_label_row(vote, project_id, row) for row in mapped]
    answers = _map_answers(conn, slug, project_id, payloads, lambda answer, payload: declared_answer(
        stage, answer, asked_claims(stage, payload, claims)))
    references = []
    for row in conn.execute(sa.select(items.c.id, items.c.external_id, items.c.reference)
                            .where(items.c.project_id == project_id, items.c.reference.is_not(None))).all():
        try:
            references.append((row.id, declared_reference(stage, row.reference)))
        except ValueError as error:
            raise Refused(f"project {slug!r}, item {row.external_id!r}: {error}; nothing changed") from None
    _replace_rows(conn, project_id, new)
    _write_answers(conn, answers)
    for ident, reference in references:
        conn.execute(sa.update(items).where(items.c.id == ident).values(reference=reference))


def upgrade() -> None:
    conn = op.get_bind()
    found = conn.execute(sa.select(projects.c.id, projects.c.slug, projects.c.settings, projects.c.source)
                         .where(projects.c.task_type == BUILT_IN).order_by(projects.c.id)).all()
    for project in found:
        settings = project.settings if isinstance(project.settings, dict) else {}
        _upgrade_project(conn, project.id, project.slug, settings)
        source = dict(project.source) if isinstance(project.source, dict) else {}
        if stage_of(settings) == "premise" and settings.get(STANCE_PROJECT):
            source[STANCE_PROJECT] = settings[STANCE_PROJECT]
        conn.execute(sa.update(projects).where(projects.c.id == project.id)
                     .values(task_type=DECLARED, definition=definition_for(settings), source=source,
                             settings={k: v for k, v in settings.items() if k not in SETTINGS_DEFAULTS}))
    if found:
        _drop_kept(conn, [project.id for project in found])


# --- downgrade ------------------------------------------------------------------------------------------------------

def _m(definition: Mapping[str, Any], relevance: bool) -> int | None:
    return next((int(q["gold"]["m"]) for q in _questions(definition) if (q["id"] == "relevance") == relevance
                 and isinstance(q.get("gold"), Mapping) and q["gold"].get("rule") == "agree"), None)


def _premise_text(question: Mapping[str, Any], key: str, russian: bool) -> str:
    """A premise question's claim text, as _with_claims and _in_russian wrote it into the prompt."""
    prompt = str(question.get("prompt", ""))
    if russian:
        return prompt.removesuffix(f". {RUSSIAN['premise']}")
    own = next((q for q in PREMISE["questions"] if _premise_claim(q) == key), None)
    if own is not None and own.get("prompt") == prompt:
        return _file_claims()[key]
    head, tail = PREMISE_PROMPT.split("{text}")
    return prompt.removeprefix(head).removesuffix(tail)


def built_in_settings(definition: Any) -> dict[str, Any] | None:
    """The built-in settings whose definition this is (those differing from the defaults), or None when it is
    none of the three as this migration makes them."""
    if not isinstance(definition, dict) or not isinstance(definition.get("questions"), list):
        return None
    try:
        russian = any(isinstance(s, Mapping) and s.get("label") == RUSSIAN["show"] for s in definition.get("show", []))
        groups = [q for q in definition["questions"] if isinstance(q, Mapping) and q.get("repeat") == GROUP]
        if groups:
            stage = "both" if any(q.get("id") == "premise" for q in groups[0]["questions"]) else "stance"
            texts = [(str(e["id"]), str(e["text"])) for e in groups[0]["elements"]]
        else:
            stage = "premise"
            texts = [(key, _premise_text(q, key, russian)) for q in definition["questions"]
                     if (key := _premise_claim(q)) is not None]
        chosen: dict[str, Any] = {"stage": stage, "agree": _m(definition, relevance=False),
                                  "language": "ru" if russian else "en"}
        if stage != "premise":
            chosen["relevant_votes"] = _m(definition, relevance=True)
        defaults = [(claim["key"], claim[chosen["language"]]) for claim in DEFAULT_CLAIMS]
        if [k for k, _ in texts] != [k for k, _ in defaults] or \
                any(t.rstrip(".") != d.rstrip(".") for (_, t), (_, d) in zip(texts, defaults)):
            chosen["claims"] = [{"key": key, "en": text, "ru": text} for key, text in texts]
        if None in chosen.values() or definition_for(chosen) != definition:
            return None
    except (KeyError, TypeError, AttributeError, ValueError):
        return None
    return {key: value for key, value in chosen.items() if value != SETTINGS_DEFAULTS[key]}


def built_in_rows(stage: str, rows: list[Row]) -> list[Row]:
    """One declared vote's rows as the built-in's; ValueError for what the built-in cannot hold."""
    out: list[Row] = []
    if stage == "premise":
        for unit, field, value in rows:
            if unit != field or not field.endswith(PREMISE_SUFFIX) or value not in CODES:
                raise ValueError(f"the row ({unit!r}, {field!r}, {value!r}) is not a premise code")
            out.append((field.removesuffix(PREMISE_SUFFIX), "premise", value))
        return out
    for unit, field, value in rows:
        if field == "relevance" and value in (RELEVANT_VALUE, IRRELEVANT_VALUE):
            if value == IRRELEVANT_VALUE:
                out += [(unit, asked, IRRELEVANT) for asked in STAGES[stage]]
        elif field in STAGES[stage] and value in CODES:
            out.append((unit, field, value))
        else:
            raise ValueError(f"the row ({unit!r}, {field!r}, {value!r}) is none of the built-in's")
    return out


def built_in_claim(claim: str, said: Any, fields: tuple[str, ...]) -> dict[str, int]:
    if not isinstance(said, Mapping) or said.get("relevance") not in (RELEVANT_VALUE, IRRELEVANT_VALUE):
        raise ValueError(f"claim {claim!r} gives {said!r}, not its relevance")
    if said["relevance"] == IRRELEVANT_VALUE:
        if set(said) != {"relevance"}:
            raise ValueError(f"claim {claim!r} is irrelevant but gives {said!r}")
        return dict.fromkeys(fields, int(IRRELEVANT))
    if set(said) != {"relevance", *fields} or not all(said[f] in CODES for f in fields):
        raise ValueError(f"claim {claim!r} gives {said!r}, not a code for each of {' and '.join(fields)}")
    return {field: int(said[field]) for field in fields}


def built_in_answer(stage: str, answer: Any) -> dict[str, Any]:
    """A declared answer (or decision) as the built-in's; ValueError for what the built-in cannot hold."""
    if stage == "premise":
        if not isinstance(answer, Mapping) or not all(isinstance(k, str) and k.endswith(PREMISE_SUFFIX)
                                                      and v in CODES for k, v in answer.items()):
            raise ValueError(f"the answer {answer!r} is not a premise code per claim")
        return {GROUP: {key.removesuffix(PREMISE_SUFFIX): {"premise": int(code)} for key, code in answer.items()}}
    if not isinstance(answer, Mapping) or set(answer) != {GROUP} or not isinstance(answer[GROUP], Mapping):
        raise ValueError(f"the answer {answer!r} is not an answer per claim")
    return {GROUP: {claim: built_in_claim(claim, said, STAGES[stage]) for claim, said in answer[GROUP].items()}}


def built_in_reference(stage: str, reference: Any, labelled: bool = True) -> dict[str, Any]:
    """A declared known answer as the built-in's; ValueError for what the built-in cannot hold. An irrelevant
    claim's codes are both labels' -1 where the known answer's relevant claims have a premise, or it has none and
    the project's file is `labelled` (the file's labels); else the stance's alone (a stance-stage control drawn from
    its gold)."""
    if stage == "premise":
        return built_in_answer(stage, reference)[GROUP]
    if not isinstance(reference, Mapping) or set(reference) != {GROUP} or not isinstance(reference[GROUP], Mapping):
        raise ValueError(f"the known answer {reference!r} is not an answer per claim")
    relevant = [said for said in reference[GROUP].values()
                if isinstance(said, Mapping) and said.get("relevance") == RELEVANT_VALUE]
    with_premise = any("premise" in said for said in relevant) if relevant else labelled
    found = {}
    for claim, said in reference[GROUP].items():
        fields = ("stance", "premise") if (said.get("relevance") == IRRELEVANT_VALUE and with_premise) \
            or "premise" in said else ("stance",)
        found[claim] = built_in_claim(claim, said, fields)
    return found


def _downgrade_project(conn: sa.Connection, project_id: int, slug: str, stage: str, labelled: bool) -> None:
    payloads = _payloads(conn, project_id)
    new: list[dict[str, Any]] = []
    for vote, rows in _votes(conn, project_id):
        try:
            mapped = built_in_rows(stage, rows)
        except ValueError as error:
            raise Refused(f"project {slug!r}, item {payloads[vote[1]][0]!r}, assignment {vote[0]}: the vote cannot "
                          f"be held by the built-in stance_premise type ({error}); nothing changed") from None
        new += [_label_row(vote, project_id, row) for row in mapped]
    answers = _map_answers(conn, slug, project_id, payloads, lambda answer, _: built_in_answer(stage, answer))
    references = []
    for row in conn.execute(sa.select(items.c.id, items.c.external_id, items.c.reference)
                            .where(items.c.project_id == project_id, items.c.reference.is_not(None))).all():
        try:
            references.append((row.id, built_in_reference(stage, row.reference, labelled)))
        except (ValueError, AttributeError) as error:
            raise Refused(f"project {slug!r}, item {row.external_id!r}: the known answer {row.reference!r} cannot "
                          f"be held by the built-in stance_premise type ({error}); nothing changed") from None
    _replace_rows(conn, project_id, new)
    _write_answers(conn, answers)
    for ident, reference in references:
        conn.execute(sa.update(items).where(items.c.id == ident).values(reference=reference))


def downgrade() -> None:
    conn = op.get_bind()
    found = []
    for row in conn.execute(sa.select(projects.c.id, projects.c.slug, projects.c.settings, projects.c.definition,
                                      projects.c.source)
                            .where(projects.c.task_type == DECLARED).order_by(projects.c.id)).all():
        chosen = built_in_settings(row.definition)
        if chosen is not None and (row.source or {}).get("format") == FORMAT:
            found.append((row, chosen))
    for row, chosen in found:
        stage = str(chosen.get("stage", SETTINGS_DEFAULTS["stage"]))
        source = dict(row.source)
        _downgrade_project(conn, row.id, row.slug, stage, source.get("layout") == "labelled")
        if stage == "premise" and source.get(STANCE_PROJECT):
            chosen[STANCE_PROJECT] = source.pop(STANCE_PROJECT)
        settings = row.settings if isinstance(row.settings, dict) else {}
        conn.execute(sa.update(projects).where(projects.c.id == row.id)
                     .values(task_type=BUILT_IN, definition=None, source=source, settings={**settings, **chosen}))
    if found:
        _drop_kept(conn, [row.id for row, _ in found])
