"""KPA-2021 projects of the three built-in types become declared projects of the task's definitions, votes kept

Which: the built-in kp_match, kp_match_check and kp_set_compare projects become declared projects of match.yaml,
match_check.yaml and set_compare.yaml.

Why: the switch to one engine (docs/one-engine.md) serves every campaign from its shared task's definition; the
three built-in KPA-2021 HIT types go. Each project of one of them becomes a project of the declared type ("custom")
with the definition of annotator/shared_tasks/kpa2021/<file>, the type's settings that are rules written into the
project's copy as a new declared import of those settings writes them (shared_tasks/kpa2021/declared_rules.py):
kp_match's positive_threshold / negative_threshold the `share` rule's positive / negative, kp_match_check's tie
"match" the majority's `ties: "yes"`. Those settings leave the project's settings; the others (the check's
map_variant, the comparison's equal and check_project) stay, as a declared project keeps them (the bridges'
`kept_settings`). Nothing else of the project changes (slug, name, source, quality, items and their payloads,
leases, control answers, quiz and blocking states). The votes are mapped as the task's bridges map them
(shared_tasks/kpa2021/bridge.py), which is the declared engine's own check of the converted answer:

- kp_match: a vote's rows (key point id, "match", "1" / "0") become (key point id, "matches", "1" / "0"), one per
  key point of the item, in its order; an answer {"matches": [ids]} keeps its ids, in the item's key point order
  (as the declared engine stores a `multi` answer); a known answer ({key point id: 1 / 0}, the labels file's) is
  kept as it is, as a declared import keeps it (the dataset table reads it so);
- kp_match_check: a vote's row ("pair", "verdict", v) becomes ("verdict", "verdict", v); answers and known answers
  ({"verdict": v}) are the definition's already;
- kp_set_compare: the built-in drew per lease which system the page showed as summary A (presentation {"a": x,
  "b": y}) and stored system names; the definition draws one order for the HIT ({"swapped": [the two comparisons]}
  when the item's second system is shown as "A", else {"swapped": []}) and stores the comparisons in the item's
  terms. A vote's rows ("stance <system>", "stance", s) become (<system>, "stance", s); ("pair", <comparison>,
  <system> | "equal") become ('["<first>", "<second>"]', <comparison>, "A" for the item's first system, "B" for its
  second, or "equal"); the derived comparison `right_stance` gets its row from the two stances ("A" when only the
  first system takes the stance of its side, all_support for a pro item and all_contest for a con one, "B" when
  only the second, else "equal"). An answer {"stance_a", "stance_b", "less_redundant", "more_central"} (in the
  terms of the sides shown) becomes {"each_summary": {"A": {"stance": stance_a}, "B": {"stance": stance_b}},
  "less_redundant": ..., "more_central": ...}, still in the sides shown, read with the converted presentation; a
  known answer {"stance": {system: s}, "less_redundant": system | "equal", ...} becomes the definition's, in the
  item's terms: {"each_summary": {"A": {"stance": s of the first}, "B": {...}}, "less_redundant": "A" | "B" |
  "equal", ...}.
- the projects' kept figures (kept_results, kept_states) are dropped: they are recomputed under the new fields.

Each vote keeps its assignment; its old rows are deleted and its new ones inserted in one transaction, so no vote is
lost or counted twice. The official files, votes.csv, the mAP per system, the Bradley-Terry rankings, the scoring
gold and the dataset table are the same bytes (tests/lifecycle/test_upgrade_keeps_exports.py). The mapping and the
definitions are frozen copies here, not imported from the app: a migration must do the same thing on every
database for ever, and the app's bridges change or go (the built-in types' modules are removed after this
revision). tests/unit/test_migration_kpa_declared.py checks the copies against the bridges and the definitions of
today.

Refused, changing nothing, when a vote is not one the built-in type stored (rows of another field, a key point that
is not the item's, a comparison naming another system): the message names the project, the item and the
assignment.

Downgrade maps back: the declared projects of these definitions (any rule parameters) imported from the kpa2021,
kpa2021-check or kpa2021-compare files become built-in projects again, the rules' parameters their settings, their
rows, answers, presentations and known answers as the built-in stored them. Refused, changing nothing, when one
holds what the built-in cannot hold (a vote or answer other than the type's, a comparison whose two questions were
shown in different orders, a known answer other than the type's): the message names the project and the item.

Revision ID: 0023_kpa_declared
Revises: 0022_stance_premise_declared
Create Date: 2026-11-28 15:10:00
"""
from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Iterator
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0023_kpa_declared"
down_revision = "0022_stance_premise_declared"
branch_labels = None
depends_on = None

DECLARED = "custom"
MATCH, CHECK, COMPARE = "kp_match", "kp_match_check", "kp_set_compare"
FORMATS = {MATCH: "kpa2021", CHECK: "kpa2021-check", COMPARE: "kpa2021-compare"}   # a project's source format
# kp_match's rule settings and their defaults (the share rule's positive / negative)
MATCH_DEFAULTS: dict[str, float] = {"positive_threshold": 0.6, "negative_threshold": 0.15}
# kp_match_check's rule setting: a tie of yes against no + faulty counts as no match (ties "no") or match ("yes")
TIES = {"no_match": "no", "match": "yes"}
TIE_DEFAULT = "no_match"
MATCH_FIELD, MATCH_QUESTION = "match", "matches"
CHECK_UNIT, CHECK_FIELD, VERDICTS = "pair", "verdict", ("yes", "no", "faulty")
COMPARED = ("less_redundant", "more_central")
STANCE_FIELD, STANCE_UNIT, STANCE_KEYS = "stance", "stance ", ("stance_a", "stance_b")
STANCES = ("all_support", "all_contest", "most_support", "most_contest")
EACH_SUMMARY, RIGHT_STANCE, SWAPPED, EQUAL, SIDES = "each_summary", "right_stance", "swapped", "equal", ("A", "B")
RIGHT = {"1": "all_support", "-1": "all_contest"}   # the stance a set of a pro / con side should take
BATCH = 5000

# match.yaml as a declared project stores it (Definition.to_data() of the file at this revision)
MATCH_DEFINITION: dict[str, Any] = json.loads("""{
 "name": "Argument / key-point match (KPA-2021)",
 "description": "For each argument, mark every key point it expresses, or say that none of them matches. The labels are the ones of Bar-Haim et al. (ACL 2020) and of the KPA-2021 shared task.",
 "licence": "CDLA-Sharing-1.0 (the IBM Debater ArgKP data the items come from)",
 "k": 8,
 "show": [
  {
   "field": "topic",
   "as": "title",
   "label": "Topic"
  },
  {
   "field": "stance",
   "label": "Stance of the argument (1 pro, -1 con)"
  },
  {
   "field": "argument",
   "label": "Argument"
  }
 ],
 "questions": [
  {
   "id": "matches",
   "kind": "multi",
   "prompt": "Which key points does the argument express?",
   "options_from": "key_points",
   "none": "None of these key points",
   "gold": {
    "rule": "share",
    "positive": 0.6,
    "negative": 0.15
   },
   "agreement": "nominal"
  }
 ]
}""")  # noqa: E501
# match_check.yaml as a declared project stores it (Definition.to_data() of the file at this revision)
CHECK_DEFINITION: dict[str, Any] = json.loads("""{
 "name": "Key-point match check (KPA-2021 Track 2)",
 "description": "A system matched each argument to one of its key points. Say whether the key point matches the argument, or whether the key point itself is faulty (unclear, not a point, or not of this stance).",
 "licence": "CDLA-Sharing-1.0 (the IBM Debater ArgKP arguments of the items)",
 "k": 3,
 "show": [
  {
   "field": "topic",
   "as": "title",
   "label": "Topic"
  },
  {
   "field": "stance",
   "label": "Stance of the argument (1 pro, -1 con)"
  },
  {
   "field": "argument",
   "label": "Argument"
  },
  {
   "field": "key_point.text",
   "label": "Key point"
  }
 ],
 "keep": [
  "arg_id",
  "systems"
 ],
 "questions": [
  {
   "id": "verdict",
   "kind": "choice",
   "prompt": "Does the key point match the argument?",
   "options": [
    {
     "value": "yes",
     "label": "Yes, the key point matches the argument"
    },
    {
     "value": "no",
     "label": "No, it does not match"
    },
    {
     "value": "faulty",
     "label": "Faulty key point (unclear, not a point, or not of this stance)"
    }
   ],
   "gold": {
    "rule": "majority",
    "strict": true,
    "groups": {
     "no": [
      "no",
      "faulty"
     ]
    },
    "ties": "no",
    "also": {
     "faulty_majority": {
      "value": "faulty",
      "rule": "majority",
      "strict": true,
      "known": true
     }
    }
   },
   "agreement": {
    "level": "nominal",
    "merged": {
     "match": {
      "match": [
       "yes"
      ],
      "no match": [
       "no",
       "faulty"
      ]
     }
    }
   }
  }
 ]
}""")  # noqa: E501
# set_compare.yaml as a declared project stores it (Definition.to_data() of the file at this revision)
COMPARE_DEFINITION: dict[str, Any] = json.loads("""{
 "name": "Key-point set comparison (KPA-2021 Track 2)",
 "description": "Two summaries of the arguments on one side of a debate topic, each a list of key points with the share of the arguments each one covers. Say what stance each summary takes, which is less redundant, and which captures points more central to the topic.",
 "licence": "CDLA-Sharing-1.0 (the IBM Debater ArgKP topics of the items)",
 "k": 3,
 "pairwise_order": "per_hit",
 "show": [
  {
   "field": "topic",
   "as": "title",
   "label": "Topic"
  },
  {
   "field": "stance",
   "label": "Stance of the arguments summarised (1 pro, -1 con)"
  },
  {
   "field": "summaries.<systems.0>",
   "as": "list",
   "text": 0,
   "figure": 1,
   "figure_label": "share of the arguments",
   "label": "First summary"
  },
  {
   "field": "summaries.<systems.1>",
   "as": "list",
   "text": 0,
   "figure": 1,
   "figure_label": "share of the arguments",
   "label": "Second summary"
  }
 ],
 "questions": [
  {
   "repeat": "each_summary",
   "sides": "less_redundant",
   "label": "Summary",
   "questions": [
    {
     "id": "stance",
     "kind": "choice",
     "prompt": "What stance does this summary take towards the topic?",
     "options": [
      {
       "value": "all_support",
       "label": "All key points support the topic"
      },
      {
       "value": "all_contest",
       "label": "All key points contest the topic"
      },
      {
       "value": "most_support",
       "label": "Most support it, some contest it"
      },
      {
       "value": "most_contest",
       "label": "Most contest it, some support it"
      }
     ],
     "gold": "majority"
    }
   ]
  },
  {
   "id": "less_redundant",
   "kind": "pairwise",
   "prompt": "Which summary is less redundant?",
   "a": "summaries.<systems.0>",
   "b": "summaries.<systems.1>",
   "players": [
    "systems.0",
    "systems.1"
   ],
   "gold": "bradley_terry"
  },
  {
   "id": "more_central",
   "kind": "pairwise",
   "prompt": "Which summary captures points more central to the topic?",
   "a": "summaries.<systems.0>",
   "b": "summaries.<systems.1>",
   "players": [
    "systems.0",
    "systems.1"
   ],
   "gold": "bradley_terry"
  },
  {
   "id": "right_stance",
   "kind": "pairwise",
   "prompt": "Which summary takes the stance of the arguments it summarises?",
   "derived": {
    "from": "stance",
    "wins": {
     "field": "stance",
     "values": {
      "1": "all_support",
      "-1": "all_contest"
     }
    }
   },
   "gold": "bradley_terry"
  }
 ]
}""")  # noqa: E501

JSON_TYPE = sa.JSON().with_variant(JSONB(), "postgresql")
NULLABLE_JSON = sa.JSON(none_as_null=True).with_variant(JSONB(none_as_null=True), "postgresql")
projects = sa.table("projects", sa.column("id", sa.Integer), sa.column("slug", sa.String), sa.column("task_type",
                    sa.String), sa.column("settings", JSON_TYPE), sa.column("definition", JSON_TYPE),
                    sa.column("source", JSON_TYPE))
items = sa.table("items", sa.column("id", sa.Integer), sa.column("project_id", sa.Integer),
                 sa.column("external_id", sa.String), sa.column("payload", JSON_TYPE),
                 sa.column("reference", NULLABLE_JSON))
assignments = sa.table("assignments", sa.column("id", sa.Integer), sa.column("project_id", sa.Integer),
                       sa.column("item_id", sa.Integer), sa.column("answer", NULLABLE_JSON),
                       sa.column("presentation", NULLABLE_JSON))
labels = sa.table("labels", sa.column("id", sa.Integer), sa.column("assignment_id", sa.Integer),
                  sa.column("project_id", sa.Integer), sa.column("item_id", sa.Integer),
                  sa.column("user_id", sa.Integer), sa.column("unit", sa.String), sa.column("field", sa.String),
                  sa.column("value", sa.Text))
Row = tuple[str, str, str]   # (unit, field, value)


class Refused(RuntimeError):
    """What stops the migration, said with the project and the item; nothing is changed (one transaction)."""


# --- the frozen mapping (bridge.py, declared_rules.py and the declared engine at this revision) --------------------

def key_points(payload: dict[str, Any]) -> list[str]:
    """The item's key point ids, in its order (the units of a match vote)."""
    return [str(kp.get("id")) for kp in payload.get("key_points") or () if isinstance(kp, dict)]


def systems(payload: dict[str, Any]) -> tuple[str, str]:
    """The comparison item's two systems, (first, second); ValueError when it does not name two."""
    found = payload.get("systems")
    if not isinstance(found, list) or len(found) != 2 or not all(isinstance(s, str) for s in found) \
            or found[0] == found[1]:
        raise ValueError(f"'systems' {found!r} does not name two systems")
    return found[0], found[1]


def number_text(value: Any) -> str:
    """An item value as a derived question's `values` key it: 1, not 1.0; anything else as text."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def pair_unit(payload: dict[str, Any]) -> str:
    """A comparison row's unit: the JSON pair of the item's systems (the `players`)."""
    return json.dumps(list(systems(payload)), ensure_ascii=False)


def match_rows(rows: list[Row], payload: dict[str, Any]) -> list[Row]:
    """One kp_match vote's rows as the definition's: a row per key point of the item, in its order."""
    known = key_points(payload)
    given = {unit: value for unit, field, value in rows if field == MATCH_FIELD and value in ("0", "1")}
    if len(given) != len(rows) or sorted(given) != sorted(known):
        raise ValueError(f"the rows {rows[:4]!r} are not one (key point, 'match', 1 / 0) row for each of the item's "
                         f"key points ({', '.join(known)})")
    return [(unit, MATCH_QUESTION, given[unit]) for unit in known]


def match_answer(answer: Any, payload: dict[str, Any]) -> Any:
    """A kp_match answer's ticked key points in the item's order, as the declared engine stores them (anything
    else as it is)."""
    if not isinstance(answer, dict) or set(answer) != {MATCH_QUESTION} or not isinstance(answer[MATCH_QUESTION], list):
        return answer
    if not all(isinstance(kp, str) for kp in answer[MATCH_QUESTION]):
        return answer
    ticked = set(answer[MATCH_QUESTION])
    known = key_points(payload)
    if not ticked <= set(known) or len(ticked) != len(answer[MATCH_QUESTION]):
        return answer
    return {MATCH_QUESTION: [kp for kp in known if kp in ticked]}


def check_rows(rows: list[Row]) -> list[Row]:
    """One kp_match_check vote's row ("pair", "verdict", v) as the definition's ("verdict", "verdict", v)."""
    if len(rows) != 1 or rows[0][:2] != (CHECK_UNIT, CHECK_FIELD) or rows[0][2] not in VERDICTS:
        raise ValueError(f"the rows {rows!r} are not one ('pair', 'verdict', yes / no / faulty) row")
    return [(CHECK_FIELD, CHECK_FIELD, rows[0][2])]


def shown_first(presentation: Any, payload: dict[str, Any]) -> str:
    """The system the built-in page showed as summary A: the presentation's, else the item's first."""
    first, second = systems(payload)
    if not isinstance(presentation, dict) or not {"a", "b"} <= set(presentation):
        return first
    if {presentation["a"], presentation["b"]} != {first, second}:
        raise ValueError(f"the presentation shows {presentation['a']!r} and {presentation['b']!r}, not the item's "
                         f"{first!r} and {second!r}")
    return str(presentation["a"])


def compare_presentation(presentation: Any, payload: dict[str, Any]) -> Any:
    """The built-in's drawn order as the definition's: both comparisons swapped when the item's second system was
    summary A (a presentation of the definition's already, or None, as it is)."""
    if presentation is None or isinstance(presentation, dict) and SWAPPED in presentation:
        return presentation
    return {SWAPPED: list(COMPARED) if shown_first(presentation, payload) != systems(payload)[0] else []}


def compare_rows(rows: list[Row], payload: dict[str, Any], presentation: Any) -> list[Row]:
    """One kp_set_compare vote's rows as the definition's: the stances under the systems' names (summary A's
    first), the comparisons in the item's terms, and the derived right_stance."""
    first, second = systems(payload)
    stances: dict[str, str] = {}
    compared: dict[str, str] = {}
    for unit, field, value in rows:
        system = unit.removeprefix(STANCE_UNIT)
        if field == STANCE_FIELD and unit.startswith(STANCE_UNIT) and system in (first, second) \
                and value in STANCES and system not in stances:
            stances[system] = value
        elif field in COMPARED and unit == CHECK_UNIT and value in (first, second, EQUAL) and field not in compared:
            compared[field] = value
        else:
            raise ValueError(f"the row {(unit, field, value)!r} is not one of this item's (systems {first!r}, "
                             f"{second!r})")
    if len(stances) != 2 or len(compared) != 2:
        raise ValueError(f"the rows {rows!r} are not one comparison's two stances and two comparisons")
    shown_a = shown_first(presentation, payload)
    shown_b = second if shown_a == first else first
    side = {first: "A", second: "B", EQUAL: EQUAL}
    pair = pair_unit(payload)
    found: list[Row] = [(shown_a, STANCE_FIELD, stances[shown_a]), (shown_b, STANCE_FIELD, stances[shown_b])]
    found += [(pair, field, side[compared[field]]) for field in COMPARED]
    right = RIGHT.get(number_text(payload.get("stance")))
    if right is not None:
        first_right, second_right = stances[first] == right, stances[second] == right
        won = "A" if first_right and not second_right else "B" if second_right and not first_right else EQUAL
        found.append((pair, RIGHT_STANCE, won))
    return found


def compare_answer(answer: Any) -> Any:
    """A kp_set_compare answer (the sides shown) as the definition's, still in the sides shown (anything else as
    it is)."""
    if not isinstance(answer, dict) or set(answer) != {*STANCE_KEYS, *COMPARED}:
        return answer
    return {EACH_SUMMARY: {side: {STANCE_FIELD: answer[key]} for side, key in zip(SIDES, STANCE_KEYS)},
            **{field: answer[field] for field in COMPARED}}


def compare_reference(reference: Any, payload: dict[str, Any]) -> Any:
    """A kp_set_compare known answer (system names) as the definition's (the item's terms); ValueError for one that
    names another system (anything not of the built-in's shape as it is)."""
    if not isinstance(reference, dict) or not reference or not set(reference) <= {STANCE_FIELD, *COMPARED}:
        return reference
    first, second = systems(payload)
    side = {first: "A", second: "B", EQUAL: EQUAL}
    found: dict[str, Any] = {}
    stances = reference.get(STANCE_FIELD)
    if stances is not None:
        if not isinstance(stances, dict) or not set(stances) <= {first, second}:
            raise ValueError(f"the known stances {stances!r} are not of the item's systems {first!r}, {second!r}")
        found[EACH_SUMMARY] = {side[system]: {STANCE_FIELD: stances[system]} for system in (first, second)
                               if system in stances}
    for field in COMPARED:
        if field in reference:
            if reference[field] not in side:
                raise ValueError(f"the known {field} {reference[field]!r} is none of {first!r}, {second!r}, 'equal'")
            found[field] = side[reference[field]]
    return found


def match_definition(settings: dict[str, Any]) -> dict[str, Any]:
    """match.yaml with the project's thresholds as the share rule's (declared_rules.match_definition)."""
    data = copy.deepcopy(MATCH_DEFINITION)
    gold = data["questions"][0]["gold"]
    gold["positive"] = float(settings.get("positive_threshold", MATCH_DEFAULTS["positive_threshold"]))
    gold["negative"] = float(settings.get("negative_threshold", MATCH_DEFAULTS["negative_threshold"]))
    return data


def check_definition(settings: dict[str, Any]) -> dict[str, Any]:
    """match_check.yaml with the project's tie as the majority's `ties` (declared_rules.check_definition)."""
    tie = settings.get("tie", TIE_DEFAULT)
    if tie not in TIES:
        raise ValueError(f"its tie setting {tie!r} is not one of {', '.join(TIES)}")
    data = copy.deepcopy(CHECK_DEFINITION)
    data["questions"][0]["gold"]["ties"] = TIES[tie]
    return data


RULE_SETTINGS = {MATCH: tuple(MATCH_DEFAULTS), CHECK: ("tie",), COMPARE: ()}


def definition_for(task_type: str, settings: dict[str, Any]) -> dict[str, Any]:
    if task_type == MATCH:
        return match_definition(settings)
    if task_type == CHECK:
        return check_definition(settings)
    return copy.deepcopy(COMPARE_DEFINITION)


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


def _presentations(conn: sa.Connection, project_id: int) -> dict[int, Any]:
    return {row.id: row.presentation for row in conn.execute(
        sa.select(assignments.c.id, assignments.c.presentation).where(assignments.c.project_id == project_id))}


def _label_row(vote: tuple[int, int, int], project_id: int, row: Row) -> dict[str, Any]:
    assignment, item, user = vote
    return {"assignment_id": assignment, "project_id": project_id, "item_id": item, "user_id": user,
            "unit": row[0], "field": row[1], "value": row[2]}


def _where(slug: str, external_id: str, assignment: int | None = None) -> str:
    return f"project {slug!r}, item {external_id!r}" + (f", assignment {assignment}" if assignment else "")


# --- upgrade --------------------------------------------------------------------------------------------------------

def declared_rows(task_type: str, rows: list[Row], payload: dict[str, Any], presentation: Any) -> list[Row]:
    """One built-in vote's rows as the definition's; ValueError for what is not one vote of the type."""
    if task_type == MATCH:
        return match_rows(rows, payload)
    if task_type == CHECK:
        return check_rows(rows)
    return compare_rows(rows, payload, presentation)


def _upgrade_project(conn: sa.Connection, task_type: str, project_id: int, slug: str) -> None:
    payloads = _payloads(conn, project_id)
    shown = _presentations(conn, project_id)
    new: list[dict[str, Any]] = []
    for vote, rows in _votes(conn, project_id):
        external_id, payload = payloads[vote[1]]
        try:
            mapped = declared_rows(task_type, rows, payload, shown.get(vote[0]))
        except ValueError as error:
            raise Refused(f"{_where(slug, external_id, vote[0])}: {error}, not a {task_type} vote; nothing "
                          "changed") from None
        new += [_label_row(vote, project_id, row) for row in mapped]
    _replace_rows(conn, project_id, new)
    for row in conn.execute(sa.select(assignments.c.id, assignments.c.item_id, assignments.c.answer,
                                      assignments.c.presentation)
                            .where(assignments.c.project_id == project_id)).all():
        external_id, payload = payloads[row.item_id]
        answer, presentation = row.answer, row.presentation
        if task_type == MATCH:
            answer = match_answer(answer, payload)
        elif task_type == COMPARE:
            answer = compare_answer(answer)
            try:
                presentation = compare_presentation(presentation, payload)
            except ValueError as error:
                raise Refused(f"{_where(slug, external_id, row.id)}: {error}; nothing changed") from None
        if answer != row.answer or presentation != row.presentation:
            conn.execute(sa.update(assignments).where(assignments.c.id == row.id)
                         .values(answer=answer, presentation=presentation))
    if task_type == COMPARE:
        for row in conn.execute(sa.select(items.c.id, items.c.external_id, items.c.payload, items.c.reference)
                                .where(items.c.project_id == project_id, items.c.reference.is_not(None))).all():
            try:
                reference = compare_reference(row.reference, row.payload if isinstance(row.payload, dict) else {})
            except ValueError as error:
                raise Refused(f"{_where(slug, row.external_id)}: {error}; nothing changed") from None
            if reference != row.reference:
                conn.execute(sa.update(items).where(items.c.id == row.id).values(reference=reference))


def upgrade() -> None:
    conn = op.get_bind()
    found = conn.execute(sa.select(projects.c.id, projects.c.slug, projects.c.task_type, projects.c.settings)
                         .where(projects.c.task_type.in_(list(FORMATS))).order_by(projects.c.id)).all()
    for project in found:
        settings = project.settings if isinstance(project.settings, dict) else {}
        try:
            definition = definition_for(project.task_type, settings)
        except ValueError as error:
            raise Refused(f"project {project.slug!r}: {error}; nothing changed") from None
        _upgrade_project(conn, project.task_type, project.id, project.slug)
        conn.execute(sa.update(projects).where(projects.c.id == project.id)
                     .values(task_type=DECLARED, definition=definition,
                             settings={key: value for key, value in settings.items()
                                       if key not in RULE_SETTINGS[project.task_type]}))
    if found:
        _drop_kept(conn, [project.id for project in found])


# --- downgrade ------------------------------------------------------------------------------------------------------

def built_in_of(definition: Any) -> tuple[str, dict[str, Any]] | None:
    """(the built-in type, its rule settings) of a definition that is one of the three files with only its rule's
    parameters changed; None for any other definition."""
    if not isinstance(definition, dict) or not isinstance(definition.get("questions"), list) \
            or not definition["questions"] or not isinstance(definition["questions"][0], dict):
        return None
    gold = definition["questions"][0].get("gold")
    if definition.get("name") == MATCH_DEFINITION["name"] and isinstance(gold, dict):
        chosen = {"positive_threshold": gold.get("positive"), "negative_threshold": gold.get("negative")}
        if match_definition(chosen) != definition:
            return None
        return MATCH, {key: value for key, value in chosen.items() if value != MATCH_DEFAULTS[key]}
    if definition.get("name") == CHECK_DEFINITION["name"] and isinstance(gold, dict):
        tie = next((name for name, ties in TIES.items() if ties == gold.get("ties")), None)
        if tie is None or check_definition({"tie": tie}) != definition:
            return None
        return CHECK, ({"tie": tie} if tie != TIE_DEFAULT else {})
    if definition == COMPARE_DEFINITION:
        return COMPARE, {}
    return None


def built_in_rows(task_type: str, rows: list[Row], payload: dict[str, Any], presentation: Any) -> list[Row]:
    """One declared vote's rows as the built-in stored them; ValueError for what the built-in cannot hold."""
    if task_type == MATCH:
        known = key_points(payload)
        given = {unit: value for unit, field, value in rows if field == MATCH_QUESTION and value in ("0", "1")}
        if len(given) != len(rows) or sorted(given) != sorted(known):
            raise ValueError(f"the rows {rows[:4]!r} are not one ('matches', 1 / 0) row per key point of the item")
        return [(unit, MATCH_FIELD, given[unit]) for unit in known]
    if task_type == CHECK:
        if len(rows) != 1 or rows[0][:2] != (CHECK_FIELD, CHECK_FIELD) or rows[0][2] not in VERDICTS:
            raise ValueError(f"the rows {rows!r} are not one verdict")
        return [(CHECK_UNIT, CHECK_FIELD, rows[0][2])]
    first, second = systems(payload)
    pair = pair_unit(payload)
    stances: dict[str, str] = {}
    compared: dict[str, str] = {}
    system = {"A": first, "B": second, EQUAL: EQUAL}
    for unit, field, value in rows:
        if field == STANCE_FIELD and unit in (first, second) and value in STANCES and unit not in stances:
            stances[unit] = value
        elif field in COMPARED and unit == pair and value in system and field not in compared:
            compared[field] = system[value]
        elif field != RIGHT_STANCE or unit != pair:
            raise ValueError(f"the row {(unit, field, value)!r} is none of the built-in's")
    if len(stances) != 2 or len(compared) != 2:
        raise ValueError(f"the rows {rows!r} are not two stances and two comparisons")
    shown_a = built_in_presentation(presentation, payload)["a"]
    shown_b = second if shown_a == first else first
    return [(STANCE_UNIT + shown_a, STANCE_FIELD, stances[shown_a]),
            (STANCE_UNIT + shown_b, STANCE_FIELD, stances[shown_b]),
            *((CHECK_UNIT, field, compared[field]) for field in COMPARED)]


def built_in_presentation(presentation: Any, payload: dict[str, Any]) -> dict[str, str]:
    """The definition's drawn order as the built-in's {"a": system, "b": system}; ValueError when the two
    comparisons were shown in different orders (the built-in page showed one order)."""
    first, second = systems(payload)
    swapped = set((presentation or {}).get(SWAPPED) or ()) & set(COMPARED) if isinstance(presentation, dict) else set()
    if swapped and swapped != set(COMPARED):
        raise ValueError(f"the comparisons were shown in different orders ({presentation!r})")
    return {"a": second, "b": first} if swapped else {"a": first, "b": second}


def built_in_answer(task_type: str, answer: Any, payload: dict[str, Any]) -> Any:
    """A declared answer as the built-in's; ValueError for what the built-in cannot hold."""
    if task_type == MATCH:
        ticked = answer.get(MATCH_QUESTION) if isinstance(answer, dict) and set(answer) == {MATCH_QUESTION} else None
        if not isinstance(ticked, list) or not all(isinstance(kp, str) for kp in ticked) or \
                not set(ticked) <= set(key_points(payload)):
            raise ValueError(f"the answer {answer!r} is not the item's ticked key points")
        return answer
    if task_type == CHECK:
        if not isinstance(answer, dict) or set(answer) != {CHECK_FIELD} or answer[CHECK_FIELD] not in VERDICTS:
            raise ValueError(f"the answer {answer!r} is not one verdict")
        return answer
    group = answer.get(EACH_SUMMARY) if isinstance(answer, dict) else None
    if not isinstance(answer, dict) or set(answer) != {EACH_SUMMARY, *COMPARED} or not isinstance(group, dict) or \
            set(group) != set(SIDES) or not all(isinstance(group[side], dict) and set(group[side]) == {STANCE_FIELD}
                                                for side in SIDES):
        raise ValueError(f"the answer {answer!r} is not the two stances and two comparisons")
    return {"stance_a": group["A"][STANCE_FIELD], "stance_b": group["B"][STANCE_FIELD],
            **{field: answer[field] for field in COMPARED}}


def built_in_reference(task_type: str, reference: Any, payload: dict[str, Any]) -> Any:
    """A declared known answer as the built-in's; ValueError for what the built-in cannot hold."""
    if task_type == MATCH:
        if isinstance(reference, dict) and set(reference) == {MATCH_QUESTION} and \
                isinstance(reference[MATCH_QUESTION], list):   # the decided gold of a declared control item
            ticked = set(reference[MATCH_QUESTION])
            return {kp: int(kp in ticked) for kp in key_points(payload)}
        if isinstance(reference, dict) and all(value in (0, 1) for value in reference.values()):
            return reference   # the labels file's, kept as it was
        raise ValueError(f"the known answer {reference!r} is neither the labels file's nor ticked key points")
    if task_type == CHECK:
        if isinstance(reference, dict) and set(reference) == {CHECK_FIELD} and reference[CHECK_FIELD] in VERDICTS:
            return reference
        raise ValueError(f"the known answer {reference!r} is not one verdict")
    first, second = systems(payload)
    system = {"A": first, "B": second, EQUAL: EQUAL}
    if not isinstance(reference, dict) or not set(reference) <= {EACH_SUMMARY, *COMPARED}:
        raise ValueError(f"the known answer {reference!r} is not stances and comparisons")
    found: dict[str, Any] = {}
    group = reference.get(EACH_SUMMARY)
    if group is not None:
        if not isinstance(group, dict) or not set(group) <= set(SIDES) or \
                not all(isinstance(known, dict) and set(known) == {STANCE_FIELD} for known in group.values()):
            raise ValueError(f"the known stances {group!r} are not one stance per side")
        found[STANCE_FIELD] = {system[side]: group[side][STANCE_FIELD] for side in SIDES if side in group}
    for field in COMPARED:
        if field in reference:
            if reference[field] not in system:
                raise ValueError(f"the known {field} {reference[field]!r} is not A, B or equal")
            found[field] = system[reference[field]]
    return found


def _downgrade_project(conn: sa.Connection, task_type: str, project_id: int, slug: str) -> None:
    payloads = _payloads(conn, project_id)
    shown = _presentations(conn, project_id)
    new: list[dict[str, Any]] = []
    for vote, rows in _votes(conn, project_id):
        external_id, payload = payloads[vote[1]]
        try:
            mapped = built_in_rows(task_type, rows, payload, shown.get(vote[0]))
        except ValueError as error:
            raise Refused(f"{_where(slug, external_id, vote[0])}: the vote cannot be held by the built-in "
                          f"{task_type} type ({error}); nothing changed") from None
        new += [_label_row(vote, project_id, row) for row in mapped]
    changes = []
    for row in conn.execute(sa.select(assignments.c.id, assignments.c.item_id, assignments.c.answer,
                                      assignments.c.presentation)
                            .where(assignments.c.project_id == project_id)).all():
        external_id, payload = payloads[row.item_id]
        try:
            answer = None if row.answer is None else built_in_answer(task_type, row.answer, payload)
            presentation = built_in_presentation(row.presentation, payload) \
                if task_type == COMPARE and row.presentation is not None else row.presentation
        except ValueError as error:
            raise Refused(f"{_where(slug, external_id, row.id)}: {error}, which the built-in {task_type} type "
                          "cannot hold; nothing changed") from None
        changes.append((row.id, answer, presentation))
    references = []
    for row in conn.execute(sa.select(items.c.id, items.c.external_id, items.c.reference)
                            .where(items.c.project_id == project_id, items.c.reference.is_not(None))).all():
        try:
            references.append((row.id, built_in_reference(task_type, row.reference, payloads[row.id][1])))
        except ValueError as error:
            raise Refused(f"{_where(slug, row.external_id)}: {error}, which the built-in {task_type} type cannot "
                          "hold; nothing changed") from None
    _replace_rows(conn, project_id, new)
    for ident, answer, presentation in changes:
        conn.execute(sa.update(assignments).where(assignments.c.id == ident)
                     .values(answer=answer, presentation=presentation))
    for ident, reference in references:
        conn.execute(sa.update(items).where(items.c.id == ident).values(reference=reference))


def downgrade() -> None:
    conn = op.get_bind()
    found = []
    for row in conn.execute(sa.select(projects.c.id, projects.c.slug, projects.c.settings, projects.c.definition,
                                      projects.c.source)
                            .where(projects.c.task_type == DECLARED).order_by(projects.c.id)).all():
        built_in = built_in_of(row.definition)
        if built_in is not None and (row.source or {}).get("format") == FORMATS[built_in[0]]:
            found.append((row, *built_in))
    for row, task_type, chosen in found:
        _downgrade_project(conn, task_type, row.id, row.slug)
        settings = row.settings if isinstance(row.settings, dict) else {}
        conn.execute(sa.update(projects).where(projects.c.id == row.id)
                     .values(task_type=task_type, definition=None, settings={**settings, **chosen}))
    if found:
        _drop_kept(conn, [row.id for row, _, _ in found])
