"""Control items in bulk: mark the items a CSV names (with their known answers, or the imported ones), or unmark them.

The file: a header row with an `item` column (the items' ids as imported) and optionally an `answer`
column (the known answer as JSON, in the shape of `Item.reference`); an empty answer takes the item's
imported reference. All or nothing: the first bad line (unknown or repeated id, no known answer, answer
that is not JSON) refuses the whole file with its line, and nothing changes.

Set-based for tens of thousands of items: one SELECT of the project's ids, then one UPDATE ... WHERE id IN
per chunk of ids (and one executemany for the answers the file gives), never an ORM load per item.
"""
from __future__ import annotations

import csv
import io
import json
import random
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, select, update

from annotator.analysis.results import labels_frame
from annotator.core.csv_cells import csv_text, restored
from annotator.core.extensions import db
from annotator.core.jsonsafe import JSONBodyError, JSONValueError, check_value, loads_text
from annotator.core.models import Item, Project
from annotator.figures.kept import results_changed
from annotator.figures.kept_gold import gold_frame
from annotator.quality.controls import ControlRefused
from annotator.tasks import project_task
from annotator.tasks.base import TaskType

CHUNK = 10_000  # ids per UPDATE ... IN (SQLite allows 32,766 bound values, PostgreSQL 65,535)
_NO_ANSWER = object()


@dataclass(frozen=True)
class ControlLine:
    line: int
    external_id: str
    answer: Any  # _NO_ANSWER when the file gives none


def read_control_file(text: str, filename: str, answers: bool = True) -> list[ControlLine]:
    """The lines of a controls CSV; ControlRefused naming the file, line and field of the first bad one."""
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    fields = [f.strip() for f in reader.fieldnames or []]
    if "item" not in fields:
        raise ControlRefused(f"{filename} line 1: the header has no 'item' column "
                             f"(it names {', '.join(fields) or 'nothing'}).")
    reader.fieldnames = fields
    lines: list[ControlLine] = []
    seen: dict[str, int] = {}
    for row in reader:
        number = reader.line_num
        external_id = restored((row.get("item") or "").strip())  # a file controls_csv wrote, read back
        if not external_id:
            raise ControlRefused(f"{filename} line {number}, field item: empty.")
        if external_id in seen:
            raise ControlRefused(f"{filename} line {number}, field item: {external_id} is already on line "
                                 f"{seen[external_id]}.")
        seen[external_id] = number
        answer: Any = _NO_ANSWER
        given = restored((row.get("answer") or "").strip()) if answers else ""
        if given:
            try:
                answer = loads_text(given)
                check_value(answer, "the answer")
            except JSONBodyError as error:   # deep nesting too: not a RecursionError's 500
                raise ControlRefused(f"{filename} line {number}, field answer: not JSON: {error}.") from None
            except JSONValueError as error:
                raise ControlRefused(f"{filename} line {number}, field answer: {error}.") from None
            if answer is None:
                raise ControlRefused(f"{filename} line {number}, field answer: null is no known answer.")
        lines.append(ControlLine(number, external_id, answer))
    if not lines:
        raise ControlRefused(f"{filename}: no items listed.")
    return lines


def _ids(project: Project, lines: list[ControlLine], filename: str) -> dict[str, tuple[int, bool]]:
    """{external id: (item id, has a reference)} of the project, refusing the first line naming no item."""
    known = {e: (i, has) for e, i, has in db.session.execute(
        select(Item.external_id, Item.id, Item.reference.is_not(None)).where(Item.project_id == project.id))}
    for line in lines:
        if line.external_id not in known:
            raise ControlRefused(f"{filename} line {line.line}, field item: project {project.slug} has no item "
                                 f"{line.external_id}.")
    return known


def _set_control(ids: list[int], value: bool) -> None:
    for start in range(0, len(ids), CHUNK):
        db.session.execute(update(Item).where(Item.id.in_(ids[start:start + CHUNK])).values(is_control=value),
                           execution_options={"synchronize_session": False})


def mark_controls(project: Project, lines: list[ControlLine], filename: str) -> int:
    """Make every listed item a control (known answer: the file's, else the imported reference); the count.

    Nothing is written unless every line is good. The caller commits.
    """
    task = project_task(project)
    if type(task).control_score is TaskType.control_score:
        raise ControlRefused(f"{task.title} HITs cannot be control items: the task type does not score answers.")
    known = _ids(project, lines, filename)
    for line in lines:
        if line.answer is _NO_ANSWER and not known[line.external_id][1]:
            raise ControlRefused(f"{filename} line {line.line}, field answer: empty, and item {line.external_id} "
                                 "has no imported reference answer, so there is no known answer.")
    answered = [{"item_id": known[line.external_id][0], "known": line.answer}
                for line in lines if line.answer is not _NO_ANSWER]
    if answered:  # one executemany: each item its own answer
        items = Item.__table__
        db.session.execute(update(items).where(items.c.id == bindparam("item_id"))
                           .values(reference=bindparam("known", type_=items.c.reference.type), is_control=True),
                           answered)
    _set_control([known[line.external_id][0] for line in lines if line.answer is _NO_ANSWER], True)
    controls_changed(project)
    return len(lines)


def draw_controls(project: Project, n: int, seed: int) -> list[str]:
    """Make n random ordinary items with a known answer controls (seeded: the same seed draws the same items).

    Known answer as for one item: the imported reference, else the gold of a complete item when the task
    type calls it decided (`control_reference`). Refused, changing nothing, when fewer than n items have one.
    Returns the drawn items' ids in draw order. The caller commits.
    """


    task = project_task(project)
    if type(task).control_score is TaskType.control_score:
        raise ControlRefused(f"{task.title} HITs cannot be control items: the task type does not score answers.")
    if n < 1:
        raise ControlRefused(f"field n: {n} items cannot be drawn; give a number from 1.")
    rows = db.session.execute(select(Item.external_id, Item.id, Item.reference.is_not(None))
                              .where(Item.project_id == project.id, Item.is_control.is_(False))
                              .order_by(Item.position, Item.id)).all()
    labels = labels_frame(project)
    gold = gold_frame(project, labels)
    label_rows = labels.groupby("item").indices if not labels.empty else {}
    gold_rows = gold.groupby("item").indices if not gold.empty else {}
    pool = [(e, i, has) for e, i, has in rows if has or e in gold_rows or e in label_rows]
    random.Random(seed).shuffle(pool)
    referenced: list[int] = []
    computed: list[dict[str, Any]] = []
    drawn: list[str] = []
    for start in range(0, len(pool), 1000):  # items loaded a thousand at a time, only those without reference
        chunk = pool[start:start + 1000]
        if len(drawn) == n:
            break
        needed = [i for _, i, has in chunk if not has]
        loaded = {item.id: item for item in db.session.scalars(select(Item).where(Item.id.in_(needed)))} \
            if needed else {}
        for external_id, item_id, has in chunk:
            if len(drawn) == n:
                break
            if not has:
                reference = task.control_reference(loaded[item_id], labels.iloc[label_rows.get(external_id, [])],
                                                   gold.iloc[gold_rows.get(external_id, [])])
                if reference is None:  # the rule left it undecided
                    continue
                computed.append({"item_id": item_id, "known": reference})
            else:
                referenced.append(item_id)
            drawn.append(external_id)
    if len(drawn) < n:
        raise ControlRefused(f"field n: only {len(drawn)} ordinary items of project {project.slug} have a known "
                             f"answer (an imported reference or decided gold), fewer than the {n} asked for.")
    if computed:
        items = Item.__table__
        db.session.execute(update(items).where(items.c.id == bindparam("item_id"))
                           .values(reference=bindparam("known", type_=items.c.reference.type), is_control=True),
                           computed)
    _set_control(referenced, True)
    controls_changed(project)
    return drawn


def unmark_controls(project: Project, lines: list[ControlLine] | None, filename: str = "") -> int:
    """Make the listed items (None: every control of the project) ordinary again; their references stay."""
    if lines is None:
        count = db.session.execute(update(Item).where(Item.project_id == project.id, Item.is_control.is_(True))
                                   .values(is_control=False), execution_options={"synchronize_session": False})
        controls_changed(project)
        return int(count.rowcount or 0)  # type: ignore[attr-defined]
    known = _ids(project, lines, filename)
    _set_control([known[line.external_id][0] for line in lines], False)
    controls_changed(project)
    return len(lines)


def controls_changed(project: Project) -> None:
    """After items were made controls or ordinary again, in the same transaction: the ORM's copies are stale, and
    so are a big project's kept figures. Their stamp counts the control items, not which they are: one marked and
    another unmarked would leave it as it was (figures/kept.py)."""

    db.session.expire_all()
    results_changed(project.id)


def controls_csv(project: Project) -> str:
    """The project's control items as a controls file (item, answer), in item order: what mark_controls reads."""
    rows = db.session.execute(
        select(Item.external_id, Item.reference).where(Item.project_id == project.id, Item.is_control.is_(True))
        .order_by(Item.position, Item.id))
    return csv_text(["item", "answer"], ([external_id, json.dumps(reference, ensure_ascii=False)]
                                         for external_id, reference in rows))


