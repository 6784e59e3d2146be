"""The ceiling: an empty Flask app with the same two JSON routes as the real API.

No database, no auth, no work: `next` returns a constant assignment (ids counting up per worker)
and `submit` parses the JSON body and echoes it with 201. Run under the same gunicorn settings as
the real app (`bench/load.py --engine ceiling` does that), it shows how many next+submit pairs per
second Flask + gunicorn + the Python clients alone can do on this machine, i.e. the upper bound
that the real server can approach but not pass.

The item it serves is the benched data's first item as the real API shows it (BENCH_ITEM, JSON, set
by bench/runs.py), so the clients answer it with the same task type's `example_answer` as in the
engine runs; without BENCH_ITEM it serves the KPA-style item below.
"""
from __future__ import annotations

import itertools
import json
import os
from datetime import UTC, datetime, timedelta

from flask import Flask, jsonify, request

DEFAULT_ITEM = {"id": "arg_4_1", "topic": "We should abandon the use of school uniform", "stance": -1,
                "argument": "it is a good way to instill discipline",
                "key_points": [{"id": f"kp_4_{n}", "text": f"key point {n}"} for n in range(6)]}
ITEM = json.loads(os.environ["BENCH_ITEM"]) if os.environ.get("BENCH_ITEM") else DEFAULT_ITEM


def create_app() -> Flask:
    app = Flask(__name__)
    app.json.sort_keys = False
    ids = itertools.count(1)

    @app.post("/api/v1/projects/<slug>/next")
    def next_hit(slug: str):  # type: ignore[no-untyped-def]
        expires = datetime.now(UTC).replace(tzinfo=None) + timedelta(minutes=30)
        return jsonify({"assignment": {"id": next(ids), "item": ITEM,
                                       "expires_at": expires.isoformat() + "Z"}})

    @app.post("/api/v1/assignments/<int:assignment_id>/submit")
    def submit(assignment_id: int):  # type: ignore[no-untyped-def]
        body = request.get_json(silent=True) or {}
        now = datetime.now(UTC).replace(tzinfo=None)
        return jsonify({"assignment": {"id": assignment_id, "answer": body.get("answer"),
                                       "submitted_at": now.isoformat() + "Z"}, "created": True}), 201

    @app.get("/api/v1/projects/<slug>/progress")
    def progress(slug: str):  # type: ignore[no-untyped-def]
        return jsonify({"project": slug})

    return app
