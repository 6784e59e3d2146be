"""A fresh database per engine run, set up through the CLI in the environment gunicorn gets too.

SQLite: a new file in the run's temp dir. PostgreSQL: a new private schema `bench_<hex>` in the
`test` database, dropped at the end even when the run fails. Set-up: `flask db upgrade`,
`flask import FORMAT PATH --project bench --k K ...`, then bench/provision.py (trim, annotators).
"""
from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .common import POSTGRES_LIBPQ_URL, POSTGRES_URL, SLUG, Deadline, run, venv_tool, with_search_path
from .data import DataSpec, import_args, import_source


def base_env(tmp: Path, database_url: str | None) -> dict[str, str]:
    """The environment of every set-up command and of gunicorn: a random key, an instance dir of our own."""
    env = dict(os.environ)
    env.update({"SECRET_KEY": secrets.token_hex(32), "ANNOTATOR_INSTANCE": str(tmp / "instance"),
                "ANNOTATOR_EXPORT_DIR": str(tmp / "exports"), "PYTHONUNBUFFERED": "1"})
    env.pop("FLASK_APP", None)
    if database_url:
        env["DATABASE_URL"] = database_url
    return env


def _postgres(sql: str) -> None:
    import psycopg
    with psycopg.connect(POSTGRES_LIBPQ_URL, autocommit=True, connect_timeout=10) as conn:
        conn.execute(sql)


@contextmanager
def fresh_database(engine: str, tmp: Path) -> Iterator[str]:
    """The URL of an empty database of `engine`; a PostgreSQL schema is dropped afterwards."""
    if engine == "sqlite":
        yield f"sqlite:///{tmp / 'bench.db'}"
        return
    schema = f"bench_{uuid.uuid4().hex[:10]}"
    _postgres(f"CREATE SCHEMA {schema}")
    try:
        yield with_search_path(POSTGRES_URL, schema)
    finally:
        try:
            _postgres(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        except Exception as error:  # noqa: BLE001 - report, do not mask the run's own error
            print(f"    could not drop schema {schema}: {error}", file=sys.stderr)


def setup_database(env: dict[str, str], spec: DataSpec, args: argparse.Namespace, tmp: Path,
                   deadline: Deadline) -> tuple[dict[str, str], int]:
    """Migrate, import the data and create the annotators; returns ({username: token}, items)."""
    flask = venv_tool("flask") + ["--app", "annotator"]
    run(flask + ["db", "upgrade"], env, deadline, "flask db upgrade")
    source, trim = import_source(spec, args.items, tmp)
    out = run(flask + import_args(spec, source, SLUG, args.k), env, deadline, f"flask import {spec.format}")
    print("   ", out.strip().splitlines()[-1])
    provision = [sys.executable, "-m", "bench.provision", "--project", SLUG, "--annotators", str(args.annotators),
                 "--items", str(trim), "--controls", str(getattr(args, "controls", 0))]
    for setting in getattr(args, "quality", []):
        provision += ["--quality", setting]
    out = run(provision, env, deadline, "trimming the import and creating the annotators")
    made = json.loads(out.strip().splitlines()[-1])
    if made.get("controls"):
        print(f"    {made['controls']} control items")
    if getattr(args, "grow_items", 0):
        grow = [sys.executable, "-m", "bench.synthetic", "--project", SLUG, "--items", str(args.grow_items)]
        grown = json.loads(run(grow, env, deadline, "copying items").strip().splitlines()[-1])
        print(f"    copied {grown['items']} items in {grown['seconds']:.1f} s (bench/synthetic.py)")
        made["items"] += grown["items"]
    return made["tokens"], made["items"]
