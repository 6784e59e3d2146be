"""One run from start to end: the ceiling (the empty Flask app) or an engine (SQLite, PostgreSQL).

An engine run: a fresh database set up through the CLI, gunicorn on it, the load, gunicorn
stopped, then the checks, and everything removed again (`--keep` keeps the temp dir). The ceiling
run: bench/ceiling_app.py under the same gunicorn settings, serving the data's first item, for as
many pairs as the engine runs make; its submits/s is what each engine run is compared with.
"""
from __future__ import annotations

import argparse
import json
import math
import shutil
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from .checks import ceiling_checks, engine_checks
from .clients import Record, run_load
from .common import BENCH, HOST, SLUG, Deadline
from .cpu import wait_until_quiet
from .data import Dataset
from .database import base_env, fresh_database, setup_database
from .figures import Figures, figures_from
from .server import Gunicorn

LABELS = {"sqlite": "SQLite", "postgresql": "PostgreSQL"}
Load = tuple[list[Record], dict[str, str], dict[str, float]]  # records, outcome per annotator, CPU split


@contextmanager
def temp_dir(prefix: str, keep: bool) -> Iterator[Path]:
    tmp = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield tmp
    finally:
        if keep:
            print(f"    kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def _server_line(args: argparse.Namespace) -> str:
    return f"gunicorn -w {args.workers}" + (f" --threads {args.threads}" if args.threads > 1 else "")


def _load(server: Gunicorn, tokens: dict[str, str], headers: dict[str, str], data: Dataset,
          args: argparse.Namespace, deadline: Deadline, quota: int | None = None) -> Load:
    """Wait for the server (and, if asked, for a quiet machine), then run the load against it."""
    server.wait_ready(f"/api/v1/projects/{SLUG}/progress", headers, deadline, args.workers)
    if args.wait_quiet:
        print("    " + wait_until_quiet(args.wait_quiet, deadline), flush=True)
    print(f"    gunicorn pid {server.proc.pid} on {HOST}:{server.port}; load running ...", flush=True)
    return run_load(server.port, tokens, data.task, args, deadline, server.proc.pid, quota=quota)


def _serve(env: dict[str, str], tokens: dict[str, str], data: Dataset, args: argparse.Namespace,
           deadline: Deadline, log: Path) -> tuple[Load, str]:
    """gunicorn on the set-up database for the load; returns the load and the log's errors, if any."""
    server = Gunicorn("annotator:create_app()", env, args, log)
    try:
        load = _load(server, tokens, {"Authorization": f"Bearer {next(iter(tokens.values()))}"}, data, args,
                     deadline)
        server.stop()
        return load, server.log_errors()
    finally:
        server.stop()


def run_engine(engine: str, data: Dataset, args: argparse.Namespace, deadline: Deadline,
               ceiling_per_s: float | None) -> Figures:
    label = LABELS[engine]
    print(f"\n== {label}: {args.annotators} annotators, {_server_line(args)}, k={args.k}")
    with temp_dir(f"bench-{engine}-", args.keep) as tmp, fresh_database(engine, tmp) as url:
        env = base_env(tmp, url)
        started = time.perf_counter()
        tokens, items = setup_database(env, data.spec, args, tmp, deadline)
        print(f"    set up in {time.perf_counter() - started:.1f} s: {items} items, {len(tokens)} annotators ({url})")
        (records, outcome, cpu), errors = _serve(env, tokens, data, args, deadline, tmp / "gunicorn.log")
        fig = figures_from(label, records, outcome)
        fig.cpu, fig.ceiling_per_s = cpu, ceiling_per_s
        fig.note = f"gunicorn log has errors:\n{errors}" if errors else ""
        fig.invariants = engine_checks(url, records, outcome, data.items, args.k)
        return fig


def run_ceiling(data: Dataset, args: argparse.Namespace, deadline: Deadline) -> Figures:
    quota = math.ceil(data.items * args.k / args.annotators)
    print(f"\n== ceiling: empty Flask app (bench/ceiling_app.py), {args.annotators} clients x {quota} pairs, "
          f"{_server_line(args)}")
    with temp_dir("bench-ceiling-", keep=False) as tmp:
        env = {**base_env(tmp, None), "BENCH_ITEM": json.dumps(data.sample_item)}
        server = Gunicorn("ceiling_app:create_app()", env, args, tmp / "gunicorn.log", BENCH)
        try:
            tokens = {f"ann{n}": "none" for n in range(1, args.annotators + 1)}
            records, outcome, cpu = _load(server, tokens, {}, data, args, deadline, quota=quota)
        finally:
            server.stop()
    fig = figures_from("ceiling (empty Flask)", records, outcome)
    fig.cpu = cpu
    fig.invariants = ceiling_checks(records, outcome)
    return fig
