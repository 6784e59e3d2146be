"""The ceiling: an empty Flask app with the same two JSON routes as the real API.

No database, no auth, no work: `next` returns a constant assignment (ids counting up per worker)
and `submit` parses the JSON body and echoes it with 201. Run under the same gunicorn settings as
the real app (`bench/load.py --engine ceiling` does that), it shows how many next+submit pairs per
second Flask + gunicorn + the Python clients alone can do on this machine, i.e. the upper bound
that the real server can approach but not pass.

The item it serves is the benched data's first item as the real API shows it (BENCH_ITEM, JSON, set
by bench/runs.py), so the clients answer it with the same task type's `example_answer` as in the
engine runs; without BENCH_ITEM it serves the KPA-style item below.

`bench/load.py --engine ceiling --ceiling-statements N` (BENCH_CEILING_STATEMENTS) makes every request
also run N trivial prepared statements on PostgreSQL (BENCH_CEILING_DATABASE), in a transaction of their
own (BEGIN ... COMMIT, the shape of the real server's `next` and `submit`) or, with
`--ceiling-autocommit`, each on its own: what the database's round trips alone cost Flask + gunicorn,
before any real work, so that the bound of a request shape can be compared with the real server's.
"""
from __future__ import annotations

import itertools
import json
import os
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from flask import Flask, jsonify, request

DEFAULT_ITEM = {"id": "arg_4_1", "topic": "We should abandon the use of school uniform", "stance": -1,
                "argument": "it is a good way to instill discipline",
                "key_points": [{"id": f"kp_4_{n}", "text": f"key point {n}"} for n in range(6)]}
ITEM = json.loads(os.environ["BENCH_ITEM"]) if os.environ.get("BENCH_ITEM") else DEFAULT_ITEM


def _statements(count: int, autocommit: bool, url: str) -> Callable[[], None]:
    """What each request runs on the database: nothing, or `count` trivial statements (see above)."""
    if count == 0:
        return lambda: None
    import psycopg

    connection: Any = None  # one per worker process, opened at its first request (after the fork)

    def run() -> None:
        nonlocal connection
        if connection is None:
            connection = psycopg.connect(url, autocommit=autocommit, prepare_threshold=0)
        cursor = connection.cursor()
        for n in range(count):
            cursor.execute("SELECT %s::int + 1", (n,))
            cursor.fetchall()
        if not autocommit:
            connection.commit()

    return run


def create_app() -> Flask:
    app = Flask(__name__)
    app.json.sort_keys = False
    ids = itertools.count(1)
    database_work = _statements(int(os.environ.get("BENCH_CEILING_STATEMENTS", "0")),
                                os.environ.get("BENCH_CEILING_AUTOCOMMIT") == "1",
                                os.environ.get("BENCH_CEILING_DATABASE", ""))

    @app.post("/api/v1/projects/<slug>/next")
    def next_hit(slug: str):  # type: ignore[no-untyped-def]
        database_work()
        expires = datetime.now(UTC).replace(tzinfo=None) + timedelta(minutes=30)
        return jsonify({"assignment": {"id": next(ids), "item": ITEM,
                                       "expires_at": expires.isoformat() + "Z"}})

    @app.post("/api/v1/assignments/<int:assignment_id>/submit")
    def submit(assignment_id: int):  # type: ignore[no-untyped-def]
        body = request.get_json(silent=True) or {}
        database_work()
        now = datetime.now(UTC).replace(tzinfo=None)
        return jsonify({"assignment": {"id": assignment_id, "answer": body.get("answer"),
                                       "submitted_at": now.isoformat() + "Z"}, "created": True}), 201

    @app.get("/api/v1/projects/<slug>/progress")
    def progress(slug: str):  # type: ignore[no-untyped-def]
        return jsonify({"project": slug})

    return app
