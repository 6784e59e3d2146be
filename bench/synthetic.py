"""A big project made fast: more items, a crowd of annotators and their votes, without the HTTP API.

Why: the aggregation benchmark needs a project with a million labels and the memory check one with
200,000 items; the load benchmark's clients would take hours to make them. Both start from a small
project that `flask import` made (so any format, and any HIT type, can be used) and grow it here:

- `grow_items` copies the project's items round-robin (payload and reference as imported; a new
  external id `<id>~<round>`, positions after the last) until it holds `total` items;
- `add_votes` gives items k submitted votes each, from distinct annotators drawn from a crowd: the
  answer is the type's own `example_answer` to the item as that annotator is shown it, and the Label
  rows are what the type's `labels` makes of it, exactly as a submit would store them. It copies
  items as it goes until the project holds at least the number of labels asked for.

Rows go in with explicit ids, in chunks, through Core `insert` executemany on SQLite and COPY on
PostgreSQL (whose id sequences are moved past the new ids at the end), so the database is left as
the server would have left it: `flask check --complete` holds on the result.

Run as `python -m bench.synthetic --project SLUG [--items N] [--labels N --k K --crowd C] [--seed S]`
in the environment of a set-up database (DATABASE_URL ...); it prints one JSON line of counts.
"""
from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from sqlalchemy import JSON, Connection, Table, func, select, text

from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, Item, Label, Project, User, utcnow
from annotator.tasks import project_task

CHUNK = 20_000  # rows per table kept before they are written
CROWD_PREFIX = "crowd"
TABLES: tuple[Table, ...] = (Item.__table__, Assignment.__table__, Label.__table__)  # type: ignore[assignment]


@dataclass
class Built:
    """What `add_votes` or `grow_items` added."""

    items: int = 0        # new item rows (copies)
    voted: int = 0        # items that got votes
    assignments: int = 0
    labels: int = 0
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class _Writer:
    """Rows per table, written in chunks in foreign-key order (items, assignments, labels)."""

    conn: Connection
    rows: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: {t.name: [] for t in TABLES})

    def add(self, table: Table, row: dict[str, Any]) -> None:
        self.rows[table.name].append(row)
        if len(self.rows[table.name]) >= CHUNK:
            self.flush()

    def flush(self) -> None:
        for table in TABLES:
            rows = self.rows[table.name]
            if rows:
                _write(self.conn, table, rows)
                rows.clear()


def _write(conn: Connection, table: Table, rows: list[dict[str, Any]]) -> None:
    if conn.dialect.name != "postgresql":
        conn.execute(table.insert(), rows)
        return
    columns = list(rows[0])
    json_columns = {c.name for c in table.columns if isinstance(c.type, JSON)}
    raw = conn.connection.driver_connection
    with raw.cursor().copy(f"COPY {table.name} ({', '.join(columns)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row([json.dumps(row[c]) if c in json_columns and row[c] is not None else row[c]
                            for c in columns])


def _next_id(conn: Connection, table: Table) -> int:
    return int(conn.execute(select(func.coalesce(func.max(table.c.id), 0))).scalar_one()) + 1


def _fix_sequences(conn: Connection) -> None:
    """On PostgreSQL, move each id sequence past the ids written explicitly."""
    if conn.dialect.name == "postgresql":
        for table in (*TABLES, User.__table__):
            conn.execute(text(f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), "
                              f"(SELECT coalesce(max(id), 0) + 1 FROM {table.name}), false)"))


class _Copier:
    """New item rows copied round-robin from a project's items as they were before growing."""

    def __init__(self, conn: Connection, project: Project) -> None:
        self.sources = db.session.scalars(select(Item).where(Item.project_id == project.id)
                                          .order_by(Item.position)).all()
        if not self.sources:
            raise ValueError(f"project {project.slug!r} has no item to copy")
        self.project_id = project.id
        self.next_id = _next_id(conn, Item.__table__)
        self.position = (max(i.position for i in self.sources) + 1)
        self.made = 0
        # A second copier (votes after `--items`) copies copies too; an id whose source already has a "~"
        # (KPA-2021 Track 2's "<argument>~<key point>") could then be made twice: the round goes on past it.
        self.taken = {i.external_id for i in self.sources}

    def __call__(self) -> Item:
        source = self.sources[self.made % len(self.sources)]
        round_ = self.made // len(self.sources) + 1
        while f"{source.external_id}~{round_}" in self.taken:
            round_ += 1
        self.taken.add(external_id := f"{source.external_id}~{round_}")
        copy = Item(id=self.next_id, project_id=self.project_id, position=self.position, external_id=external_id,
                    payload=source.payload, reference=source.reference, done_count=0)
        self.next_id, self.position, self.made = self.next_id + 1, self.position + 1, self.made + 1
        return copy


def _item_row(item: Item) -> dict[str, Any]:
    return {"id": item.id, "project_id": item.project_id, "external_id": item.external_id,
            "position": item.position, "payload": item.payload, "reference": item.reference,
            "done_count": item.done_count}


def crowd(conn: Connection, size: int) -> list[int]:
    """The ids of `size` annotators crowd1..crowdN (made when missing; they have no password)."""
    names = [f"{CROWD_PREFIX}{n}" for n in range(1, size + 1)]
    users = User.__table__
    known = dict(conn.execute(select(users.c.username, users.c.id).where(users.c.username.in_(names))).all())
    missing = [{"username": n, "role": "annotator", "password_hash": None, "active": True,
                "must_change_password": False, "created_at": utcnow()} for n in names if n not in known]
    if missing:
        conn.execute(users.insert(), missing)
        known = dict(conn.execute(select(users.c.username, users.c.id).where(users.c.username.in_(names))).all())
    return [known[n] for n in names]


def grow_items(project: Project, total: int) -> Built:
    """Copy the project's items until it holds `total` (no votes); nothing when it holds that many already."""
    started = time.perf_counter()
    conn = db.session.connection()
    have = db.session.scalar(select(func.count()).select_from(Item).where(Item.project_id == project.id)) or 0
    built = Built()
    if have < total:
        copier, writer = _Copier(conn, project), _Writer(conn)
        for _ in range(total - have):
            writer.add(Item.__table__, _item_row(copier()))
        writer.flush()
        built.items = copier.made
        _fix_sequences(conn)
    db.session.commit()
    built.seconds = time.perf_counter() - started
    return built


def _votes(project: Project, item: Item, annotators: list[int], k: int, rng: random.Random,
           settings: dict[str, Any], ids: dict[str, int]) -> Iterator[tuple[Table, dict[str, Any]]]:
    """One item's k submitted votes (assignment rows, then their label rows), as a submit stores them."""
    task = project_task(project)   # a declared project's type is bound to its definition
    now = utcnow()
    for user_id in rng.sample(annotators, k):
        presentation = task.presentation(item, rng)
        given = task.example_answer(task.public_item(item, settings, presentation), rng)
        answer, labels = task.checked(item, given, settings, presentation)   # stored as a submit stores it
        aid = ids["assignment"]
        ids["assignment"] += 1
        yield Assignment.__table__, {
            "id": aid, "project_id": project.id, "item_id": item.id, "user_id": user_id, "status": SUBMITTED,
            "leased_at": now, "expires_at": now + timedelta(minutes=project.lease_minutes), "submitted_at": now,
            "seconds_spent": round(rng.uniform(5, 60), 1), "answer": answer, "presentation": presentation}
        for label in labels:
            yield Label.__table__, {"id": ids["label"], "assignment_id": aid, "project_id": project.id,
                                    "item_id": item.id, "user_id": user_id, "unit": label.unit,
                                    "field": label.field, "value": label.value}
            ids["label"] += 1


def add_votes(project: Project, labels: int, k: int, crowd_size: int, seed: int = 2021) -> Built:
    """k votes on each unvoted item (copying items as needed) until the project holds at least `labels` labels.

    The project must have no votes yet: every item it holds, and every copy, gets exactly k.
    """
    if not 1 <= k <= crowd_size:
        raise ValueError("k must be between 1 and the crowd size (each item needs k distinct annotators)")
    if db.session.scalar(select(func.count()).select_from(Assignment).where(Assignment.project_id == project.id)):
        raise ValueError(f"project {project.slug!r} already has assignments")
    started = time.perf_counter()
    conn = db.session.connection()
    annotators = crowd(conn, crowd_size)
    rng = random.Random(seed)
    settings = project_task(project).settings_of(project)
    ids = {"assignment": _next_id(conn, Assignment.__table__), "label": _next_id(conn, Label.__table__)}
    copier, writer, built = _Copier(conn, project), _Writer(conn), Built()
    first_label = ids["label"]
    existing = iter(copier.sources)
    while ids["label"] - first_label < labels:
        item = next(existing, None)
        if item is None:
            item = copier()
            item.done_count = k
            writer.add(Item.__table__, _item_row(item))
        else:
            item.done_count = k  # the ORM flushes this on commit
        for table, row in _votes(project, item, annotators, k, rng, settings, ids):
            writer.add(table, row)
        built.voted += 1
    writer.flush()
    _fix_sequences(conn)
    db.session.commit()
    built.items, built.labels = copier.made, ids["label"] - first_label
    built.assignments = built.voted * k
    built.seconds = time.perf_counter() - started
    return built


def main() -> None:
    from annotator import create_app
    from annotator.campaigns.projects import refresh_statistics

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", required=True)
    parser.add_argument("--items", type=int, default=0, help="copy items until the project holds N (no votes)")
    parser.add_argument("--labels", type=int, default=0, help="k votes per item until N labels are stored")
    parser.add_argument("--k", type=int, default=9)
    parser.add_argument("--crowd", type=int, default=50, help="annotators the k of each item are drawn from")
    parser.add_argument("--seed", type=int, default=2021)
    args = parser.parse_args()
    with create_app().app_context():
        project = db.session.scalar(select(Project).where(Project.slug == args.project))
        built = (add_votes(project, args.labels, args.k, args.crowd, args.seed) if args.labels
                 else grow_items(project, args.items))
        refresh_statistics()
    print(json.dumps(built.to_dict()))


if __name__ == "__main__":
    main()
