#!/usr/bin/env python3
"""The label rows of one vote written to PostgreSQL two ways, timed in one process (not a test).

Why: a submit writes its vote's labels in one INSERT (engine/assignment.py). Written as one VALUES list it has seven
parameters per label, and psycopg converts the placeholders of a statement of more than 50 parameters to PostgreSQL's
in Python on every run; written from three arrays (unnest) it has seven whatever the number of labels. This times
both statements on a fresh schema, for votes of N labels, interleaved round by round, each INSERT in a transaction
rolled back afterwards, and prints the median milliseconds per statement of each and their ratio.

    .venv/bin/python -m bench.label_insert --labels 5 20 100 1000 --rounds 7 --repeat 50

Exit status: 0 when it ran, 2 when PostgreSQL is not there.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import uuid
from typing import Any

from bench.common import POSTGRES_URL, with_search_path
from bench.database import _postgres


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--labels", type=int, nargs="+", default=[5, 20, 100, 1000])
    parser.add_argument("--rounds", type=int, default=7, help="rounds, the two ways interleaved in each")
    parser.add_argument("--repeat", type=int, default=50, help="statements of each way per round")
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args(argv)
    schema = f"bench_labels_{uuid.uuid4().hex[:10]}"
    try:
        _postgres(f"CREATE SCHEMA {schema}")
    except Exception as error:  # noqa: BLE001 - a missing server is a set-up error, said in words
        print(f"PostgreSQL is not there: {error}", file=sys.stderr)
        return 2
    try:
        return _run(args, with_search_path(POSTGRES_URL, schema))
    finally:
        _postgres(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


def _run(args: argparse.Namespace, url: str) -> int:
    from annotator import create_app
    from annotator.core.extensions import db
    from annotator.core.models import Assignment, Item, Project, User, utcnow
    from annotator.engine.assignment import _LABELS, _LABELS_FROM_ARRAYS

    app = create_app(None, SQLALCHEMY_DATABASE_URI=url, SECRET_KEY="bench")
    with app.app_context():
        db.create_all()
        project = Project(slug="p", name="p", task_type="custom", k=1)
        db.session.add(project)
        db.session.flush()
        item = Item(project_id=project.id, external_id="i", position=0, payload={})
        user = User(username="u", password_hash="-")
        db.session.add_all([item, user])
        db.session.flush()
        now = utcnow()
        vote = Assignment(project_id=project.id, item_id=item.id, user_id=user.id, status="submitted", leased_at=now,
                          expires_at=now, submitted_at=now)
        db.session.add(vote)
        db.session.commit()
        ids = {"assignment_id": vote.id, "project_id": project.id, "item_id": item.id, "user_id": user.id}
        figures: dict[str, Any] = {}
        for count in args.labels:
            units = [f"w{n}" for n in range(count)]
            rows = [{**ids, "unit": u, "field": "selected", "value": "1"} for u in units]
            arrays = {**ids, "units": units, "fields": ["selected"] * count, "values": ["1"] * count}
            ways = {"values list": (_LABELS, rows), "arrays": (_LABELS_FROM_ARRAYS, arrays)}
            times: dict[str, list[float]] = {name: [] for name in ways}
            for round_ in range(args.rounds):
                for name in (list(ways) if round_ % 2 == 0 else list(reversed(ways))):
                    statement, params = ways[name]
                    spent = 0.0
                    for _ in range(args.repeat):
                        connection = db.session.connection()
                        started = time.perf_counter()
                        connection.execute(statement, params)
                        spent += time.perf_counter() - started
                        db.session.rollback()
                    times[name].append(spent / args.repeat * 1000)
            medians = {name: statistics.median(values) for name, values in times.items()}
            figures[str(count)] = {"median_ms": medians, "ratio": medians["arrays"] / medians["values list"]}
            print(f"{count:5d} labels: values list {medians['values list']:.3f} ms, arrays {medians['arrays']:.3f} ms "
                  f"(ratio {figures[str(count)]['ratio']:.2f})", flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({"date": time.strftime("%Y-%m-%d %H:%M:%S %z"), "args": vars(args), "labels": figures}, out,
                      indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
