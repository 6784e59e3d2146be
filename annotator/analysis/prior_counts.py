"""The table prior_counts (core/models.PriorCount): a project's votes per (group of items, question, unit, value),
which a stopping rule with `prior_by` reads for an item's prior (core/stopping.shrunk_prior).

Kept with the label rows it counts, in the same transactions:
  * a submit adds its vote's labels (engine/stopping.after_vote, under the item's lock): one statement, an UPSERT
    increment of the group's row and of the project's row (group key '') of each unit, on SQLite and PostgreSQL;
  * a vote taken out (a blocked annotator's excluded vote, quality/blocking.py; an erased annotator's vote,
    people/erasure.py) takes its labels back out before they are deleted, under the item's lock (`take_out`);
  * imported votes (campaigns/votes_import.py), written in bulk, are counted by `recount` from the labels.
Only the questions the rule stops on (those with gold) of ordinary items (not control items) are counted: the
votes the rule reads, and the replay replays. A project without `prior_by` has no row and runs none of this.

The rows are updated in one order in every transaction (sorted by key: the project's rows, group key '', before
any group's), so two submits that touch the same rows wait for each other rather than deadlock.

Each count is kept in STRIPES rows, an item's votes in the stripe of its id modulo STRIPES, and read as their sum.
Every submit increments the project's rows, and on PostgreSQL an incremented row stays locked until the commit: with
one row per count, the project's submits took turns at it (bench/results/2026-11-29-stopping-prior-built.md: 0.42-0.67
of the same rule's rate without the prior); with eight, two submits meet at a row one time in eight.

Here (analysis/) rather than in engine/: the quality layer, below the engine, takes votes out too.
"""
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlalchemy import bindparam, delete, func, select
from sqlalchemy.dialects import postgresql, sqlite

from annotator.core.extensions import db
from annotator.core.models import Item, Label, PriorCount, Project
from annotator.core.statements import execute
from annotator.core.stopping import NO_GROUP
from annotator.declared.definition import Definition
from annotator.declared.definition_reader import definition_from_data
from annotator.declared.stopping import item_group

COUNTS = PriorCount.__table__
_C = COUNTS.c
_KEY = ("project_id", "group_key", "question", "unit", "value", "stripe")
STRIPES = 8


@dataclass(frozen=True)
class PriorBy:
    """What a project's rule counts: the item field that groups its items, and the questions it stops on."""

    field: str
    questions: frozenset[str]


def prior_by_of(definition: Definition) -> PriorBy | None:
    """What a checked definition's rule counts: None without `prior_by`. The one derivation, for the engine's rule
    (engine/stopping.py) and for `prior_by` below."""
    stopping = definition.stopping
    if stopping is None or stopping.prior_by is None:
        return None
    return PriorBy(stopping.prior_by, frozenset(q.id for q in definition.questions if q.gold is not None))


@lru_cache(maxsize=64)
def _prior_by(definition_json: str) -> PriorBy | None:
    return prior_by_of(definition_from_data(json.loads(definition_json)))


def prior_by(project: Project) -> PriorBy | None:
    """The project's `prior_by` and the questions it counts; None without one (a key looked up first: a project
    without a stopping mapping parses nothing)."""
    stopping = (project.definition or {}).get("stopping")
    if not isinstance(stopping, dict) or not stopping.get("prior_by"):
        return None
    return _prior_by(json.dumps(project.definition, sort_keys=True))


def _upsert(dialect: str) -> Any:
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement = insert(COUNTS).values(project_id=bindparam("project_id"), group_key=bindparam("group_key"),
                                      question=bindparam("question"), unit=bindparam("unit"),
                                      value=bindparam("value"), stripe=bindparam("stripe"),
                                      votes=bindparam("votes"))
    return statement.on_conflict_do_update(index_elements=list(_KEY),
                                           set_={"votes": _C.votes + statement.excluded.votes})


_UPSERTS = {name: _upsert(name) for name in ("postgresql", "sqlite")}
_READ = (select(_C.group_key, _C.question, _C.unit, _C.value, func.sum(_C.votes).label("votes"))
         .where(_C.project_id == bindparam("project_id"),
                _C.group_key.in_([bindparam("group_key"), bindparam("project_key")]))
         .group_by(_C.group_key, _C.question, _C.unit, _C.value))   # the stripes summed by the database
_VOTE_LABELS = select(Label.field, Label.unit, Label.value).where(Label.assignment_id == bindparam("assignment_id"))


def add(project_id: int, item_id: int, key: str, labels: Iterable[tuple[str, str, str]], rule: PriorBy,
        votes: int = 1) -> None:
    """Count one vote's labels (field, unit, value) of the rule's questions for item `item_id` of group `key`
    (`votes` -1: take them out): its unit's row of the project and, when the item has a group, of its group, in the
    item's stripe. One statement (an UPSERT run for every row), nothing when the vote has no label the rule counts."""
    rows = sorted({(k, field, unit, value) for field, unit, value in labels if field in rule.questions
                   for k in ({NO_GROUP, key})})
    if rows:
        execute(_UPSERTS["postgresql" if db.engine.dialect.name == "postgresql" else "sqlite"],
                [{"project_id": project_id, "group_key": k, "question": field, "unit": unit, "value": value,
                  "stripe": item_id % STRIPES, "votes": votes} for k, field, unit, value in rows])


def read(project_id: int, key: str) -> tuple[dict[Hashable, Counter[str]], dict[Hashable, Counter[str]]]:
    """(the group's counts, the project's counts), each per (question, unit), summed over the stripes: one
    statement. An item without a group (key '') gets empty group counts."""
    group: dict[Hashable, Counter[str]] = {}
    project: dict[Hashable, Counter[str]] = {}
    for row in execute(_READ, {"project_id": project_id, "group_key": key, "project_key": NO_GROUP}):
        into = project if row.group_key == NO_GROUP else group
        into.setdefault((row.question, row.unit), Counter())[row.value] += int(row.votes)
    return group, project


def take_out(assignment_id: int, item: Item, project: Project) -> None:
    """Before a counted vote's label rows are deleted (its item locked): take them out of the project's counts.
    Nothing for a project without `prior_by` or a control item."""
    rule = prior_by(project)
    if rule is None or item.is_control:
        return
    labels = [(row.field, row.unit, row.value) for row in execute(_VOTE_LABELS, {"assignment_id": assignment_id})]
    add(project.id, item.id, item_group(item.payload, rule.field), labels, rule, votes=-1)


def recount(project: Project) -> None:
    """Rebuild the project's counts from its label rows (votes imported in bulk): delete its rows and insert what
    its labels count, each item's in its stripe. In the caller's transaction; for a project without `prior_by`, only
    the delete (of nothing)."""
    db.session.execute(delete(PriorCount).where(PriorCount.project_id == project.id))
    counts = _counted_in_stripes(project)
    if counts:
        db.session.execute(COUNTS.insert(), [
            {"project_id": project.id, "group_key": key, "question": field, "unit": unit, "value": value,
             "stripe": stripe, "votes": votes} for (key, field, unit, value, stripe), votes in sorted(counts.items())])


def table(project_id: int) -> dict[tuple[str, str, str, str], int]:
    """The project's rows as {(group key, question, unit, value): votes}, summed over the stripes, counts of 0 left
    out: what a check compares with `counted`'s."""
    totals: Counter[tuple[str, str, str, str]] = Counter()
    for r in db.session.execute(select(PriorCount).where(PriorCount.project_id == project_id)).scalars():
        totals[(r.group_key, r.question, r.unit, r.value)] += int(r.votes)
    return {key: votes for key, votes in totals.items() if votes}


def counted(project: Project) -> Mapping[tuple[str, str, str, str], int]:
    """What the table should hold for the project now, from its label rows, without writing: {(group key,
    question, unit, value): votes} (tests and `flask check` compare the table with it)."""
    totals: Counter[tuple[str, str, str, str]] = Counter()
    for (key, field, unit, value, _), votes in _counted_in_stripes(project).items():
        totals[(key, field, unit, value)] += votes
    return dict(totals)


def _counted_in_stripes(project: Project) -> Mapping[tuple[str, str, str, str, int], int]:
    """{(group key, question, unit, value, stripe): votes} from the project's label rows; {} without `prior_by`."""
    rule = prior_by(project)
    if rule is None:
        return {}
    groups = {item_id: item_group(payload, rule.field) for item_id, payload in db.session.execute(
        select(Item.id, Item.payload).where(Item.project_id == project.id, Item.is_control.is_(False)))}
    counts: Counter[tuple[str, str, str, str, int]] = Counter()
    for item_id, field, unit, value, votes in db.session.execute(
            select(Label.item_id, Label.field, Label.unit, Label.value, func.count())
            .where(Label.project_id == project.id, Label.field.in_(sorted(rule.questions)))
            .group_by(Label.item_id, Label.field, Label.unit, Label.value)):
        if item_id in groups:
            for key in {NO_GROUP, groups[item_id]}:
                counts[(key, field, unit, value, item_id % STRIPES)] += int(votes)
    return dict(counts)
