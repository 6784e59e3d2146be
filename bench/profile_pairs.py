"""Where the CPU of one next+submit pair goes, in one process, without HTTP servers or client noise.

Not a test and not a throughput figure (bench/load.py is that): it runs N annotators round-robin
through the Flask test client against a fresh database (SQLite file or a private PostgreSQL schema),
under cProfile, and prints the CPU milliseconds per pair and the functions that take them. It is the
tool for finding what to cut on the hot path; its figures are CPU of this process only (the
database server's CPU is not in them).

    .venv/bin/python -m bench.profile_pairs --engine postgresql --items 100 --k 4 --annotators 8
    .venv/bin/python -m bench.profile_pairs --format custom --data items.jsonl --option definition=task.yaml
"""
from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import random
import secrets
import tempfile
import time
from pathlib import Path

from .database import fresh_database


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", choices=("sqlite", "postgresql"), default="postgresql")
    parser.add_argument("--items", type=int, default=100)
    parser.add_argument("--k", type=int, default=4)
    parser.add_argument("--annotators", type=int, default=8)
    parser.add_argument("--format", default="kpa2021",
                        help="a registered file format (default: the KPA-2021 demo's dev split)")
    parser.add_argument("--data", type=Path, default=Path("annotator/campaigns/demo/kpa2021"),
                        help="the file or folder --format reads")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="an import option of --format (repeatable; with the demo: split=dev)")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--sort", default="tottime", choices=("tottime", "cumulative"))
    parser.add_argument("--callees", default="", help="also print what functions matching this name call")
    parser.add_argument("--dump", metavar="FILE", help="also write the cProfile statistics to FILE (pstats format)")
    parser.add_argument("--no-profile", action="store_true", help="only the CPU per pair, without cProfile's overhead")
    parser.add_argument("--echo", type=int, default=0,
                        help="print the SQL of the first N requests after the first pairs")
    parser.add_argument("--pairs", type=int, default=0, help="stop after N pairs (default: when all items are done)")
    parser.add_argument("--explain", action="store_true",
                        help="at the end (see --pairs), print the pick's plan as the workers run it: PostgreSQL's "
                             "generic plan with EXPLAIN ANALYZE, SQLite's query plan")
    parser.add_argument("--timings", action="store_true",
                        help="the wall time of each kind of statement, in the first and the last fifth of the run")
    parser.add_argument("--vacuum", action="store_true",
                        help="with --explain: VACUUM ANALYZE items and assignments first (dead row versions "
                             "of the run are what a later autovacuum removes)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, fresh_database(args.engine, Path(tmp)) as url:
        os.environ.update({"DATABASE_URL": url, "SECRET_KEY": secrets.token_hex(16),
                           "ANNOTATOR_INSTANCE": str(Path(tmp) / "instance")})
        _run(args)


def _run(args: argparse.Namespace) -> None:
    from flask_migrate import upgrade

    from annotator import create_app
    from annotator.campaigns.imports import import_files
    from annotator.campaigns.projects import refresh_statistics
    from annotator.core.extensions import db
    from annotator.core.schema import init_migrations
    from annotator.lookups.formats import file_format
    from annotator.people.accounts import create_user, issue_token
    from annotator.tasks import project_task
    from bench.provision import keep_first

    app = create_app()
    init_migrations(app)  # a served app does not load Flask-Migrate (annotator/core/schema.py)
    with app.app_context():
        upgrade()
        options = dict(option.split("=", 1) for option in args.option) if args.option \
            else {"split": "dev"} if args.format == "kpa2021" else {}
        result = import_files(file_format(args.format), args.data, slug="bench", k=args.k, options=options)
        db.session.commit()
        refresh_statistics()  # as the import action does after every import (actions/imports.py)
        keep_first(result.project, args.items)
        tokens = [issue_token(create_user(f"ann{n}", "annotator", "bench-password").user)
                  for n in range(args.annotators)]
        db.session.commit()
        task = project_task(result.project)  # a declared project's type answers from its definition
    client, rng = app.test_client(), random.Random(1)
    headers = [{"Authorization": f"Bearer {t}"} for t in tokens]
    pairs = 0

    def work() -> None:
        nonlocal pairs
        finished: set[int] = set()
        while len(finished) < len(headers):
            for n, h in enumerate(headers):
                if n in finished or (args.pairs and pairs >= args.pairs):
                    finished.add(n)
                    continue
                r = client.post("/api/v1/projects/bench/next", headers=h)
                if r.status_code == 204:
                    finished.add(n)
                    continue
                lease = r.get_json()["assignment"]
                s = client.post(f"/api/v1/assignments/{lease['id']}/submit", headers=h,
                                json={"answer": task.example_answer(lease["item"], rng)})
                # 409: a lease its item's stop released (a project that stops early; nothing stored)
                assert s.status_code in (201, 409), s.get_data(as_text=True)
                pairs += s.status_code == 201

    if args.echo:
        _echo_statements(app, client, headers[0], task, rng, args.echo)
    if args.timings:
        timings = _time_statements(app, lambda: pairs)
    profile = cProfile.Profile(time.process_time)  # CPU, not wall: waiting on the database is not ours
    began, cpu = time.perf_counter(), time.process_time()
    if not args.no_profile:
        profile.enable()
    work()
    profile.disable()
    if args.dump:
        profile.dump_stats(args.dump)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - began
    if not args.no_profile:
        out = io.StringIO()
        stats = pstats.Stats(profile, stream=out).sort_stats(args.sort)
        stats.print_stats(args.top)
        if args.callees:
            stats.print_callees(args.callees)
        print(out.getvalue())
    if args.timings:
        _print_timings(timings, pairs)
    if args.explain:
        _explain(app, args)
    print(f"{args.engine}: {pairs} pairs, {1000 * cpu / pairs:.2f} ms CPU and {1000 * wall / pairs:.2f} ms wall per "
          f"pair" + ("" if args.no_profile else " (profiled: cProfile adds overhead)"))


def _time_statements(app, pair_number):  # type: ignore[no-untyped-def]
    """Record (pair number, statement kind, seconds) of every statement the app runs from now on."""
    from sqlalchemy import event

    from annotator.core.extensions import db

    with app.app_context():
        engine = db.engine
    records: list[tuple[int, str, float]] = []

    def before(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        conn.info["statement_began"] = time.perf_counter()

    def after(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        kind = " ".join(statement.split())[:70]
        records.append((pair_number(), kind, time.perf_counter() - conn.info.pop("statement_began")))

    event.listen(engine, "before_cursor_execute", before)
    event.listen(engine, "after_cursor_execute", after)
    return records


def _print_timings(records: list[tuple[int, str, float]], pairs: int) -> None:
    fifth = max(1, pairs // 5)
    kinds = sorted({kind for _, kind, _ in records})
    print(f"{'statement':72} {'first fifth, ms':>16} {'last fifth, ms':>16}")
    for kind in kinds:
        first = [s for n, k, s in records if k == kind and n < fifth]
        last = [s for n, k, s in records if k == kind and n >= pairs - fifth]
        mean = lambda xs: f"{1000 * sum(xs) / len(xs):8.3f} ({len(xs)})" if xs else "-"  # noqa: E731
        print(f"{kind:72} {mean(first):>16} {mean(last):>16}")


def _explain(app, args: argparse.Namespace) -> None:  # type: ignore[no-untyped-def]
    """The pick statement's plan as the workers run it (bench/plans.py: PostgreSQL's generic plan, with
    ANALYZE; SQLite's query plan), with the parameters of the next `next` of ann3 (ann0 with one annotator)."""
    from annotator.core.extensions import db
    from annotator.core.models import Project, User, utcnow
    from annotator.engine.picking import pick_statement
    from bench.plans import plan_lines

    with app.app_context():
        project = db.session.scalar(db.select(Project).where(Project.slug == "bench"))
        user = db.session.scalar(db.select(User).where(User.username == ("ann3" if args.annotators > 3 else "ann0")))
        if args.vacuum:
            db.session.commit()
            sqlite = db.engine.dialect.name == "sqlite"
            with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
                for table in ("items", "assignments"):
                    connection.execute(db.text(f"{'ANALYZE' if sqlite else 'VACUUM ANALYZE'} {table}"))
        params = {"project_id": project.id, "user_id": user.id, "now": utcnow(), "k": project.k}
        for line in plan_lines(db.session.connection(), pick_statement(False), params, analyze=True):
            print("   ", line)
        db.session.rollback()


def _echo_statements(app, client, header, task, rng, requests: int) -> None:  # type: ignore[no-untyped-def]
    """Print each SQL statement (and the request it belongs to) of one annotator's first pairs."""
    from sqlalchemy import event

    from annotator.core.extensions import db

    with app.app_context():
        engine = db.engine

    def show(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        print("   ", " ".join(statement.split())[:300])

    event.listen(engine, "before_cursor_execute", show)
    try:
        for _ in range(max(1, requests // 2)):
            print("-- next")
            lease = client.post("/api/v1/projects/bench/next", headers=header).get_json()["assignment"]
            print("-- submit")
            client.post(f"/api/v1/assignments/{lease['id']}/submit", headers=header,
                        json={"answer": task.example_answer(lease["item"], rng)})
    finally:
        event.remove(engine, "before_cursor_execute", show)


if __name__ == "__main__":
    main()
