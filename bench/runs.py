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
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .checks import ceiling_checks, engine_checks
from .clients import Record, run_load
from .common import BENCH, HOST, POSTGRES_LIBPQ_URL, SLUG, Deadline
from .cpu import wait_until_quiet
from .data import Dataset
from .database import base_env, fresh_database, setup_database
from .figures import Figures, figures_from
from .server import Gunicorn

LABELS = {"sqlite": "SQLite", "postgresql": "PostgreSQL"}
# records, outcome per annotator, CPU split, gunicorn memory by moment (and server)
Load = tuple[list[Record], dict[str, str], dict[str, float], dict[str, dict[str, object]]]


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
    line = f"gunicorn -w {args.workers}" + (f" --threads {args.threads}" if args.threads > 1 else "")
    servers = getattr(args, "servers", 1)
    return line if servers == 1 else f"{servers} x {line} on one database"


def _load(servers: list[Gunicorn], tokens: dict[str, str], headers: dict[str, str], data: Dataset,
          args: argparse.Namespace, deadline: Deadline, quota: int | None = None) -> Load:
    """Wait for the servers (and, if asked, for a quiet machine), then run the load against them.

    Also reads each server's memory (/proc VmRSS of master and workers) once it has warmed up and
    again after the load, while it still runs.
    """
    for server in servers:
        server.wait_ready(f"/api/v1/projects/{SLUG}/progress", headers, deadline, args.workers)
    if args.wait_quiet:
        print("    " + wait_until_quiet(args.wait_quiet, deadline), flush=True)
    memory = {_at("at start", n, len(servers)): server.memory() for n, server in enumerate(servers, 1)}
    where = ", ".join(f"pid {s.proc.pid} on {HOST}:{s.port}" for s in servers)
    print(f"    gunicorn {where}; load running ...", flush=True)
    records, outcome, cpu = run_load([s.port for s in servers], tokens, data.task, args, deadline,
                                     [s.proc.pid for s in servers], quota=quota)
    memory.update({_at("after the run", n, len(servers)): server.memory() for n, server in enumerate(servers, 1)})
    return records, outcome, cpu, memory


def _at(when: str, n: int, servers: int) -> str:
    return when if servers == 1 else f"{when}, server {n}"


def _serve(env: dict[str, str], tokens: dict[str, str], data: Dataset, args: argparse.Namespace,
           deadline: Deadline, tmp: Path) -> tuple[Load, str]:
    """gunicorn (--servers of them) on the set-up database for the load; the load and the logs' errors, if any."""
    servers: list[Gunicorn] = []
    try:
        for n in range(1, args.servers + 1):
            servers.append(Gunicorn("annotator:create_app()", env, args, tmp / f"gunicorn-{n}.log"))
        headers = {"Authorization": f"Bearer {next(iter(tokens.values()))}"}
        load = _load(servers, tokens, headers, data, args, deadline, quota=args.pairs or None)
        for server in servers:
            server.stop()
        return load, "\n".join(e for e in (s.log_errors() for s in servers) if e)
    finally:
        for server in servers:
            server.stop()


def run_engine(engine: str, data: Dataset, args: argparse.Namespace, deadline: Deadline,
               ceiling_per_s: float | None) -> Figures:
    label = LABELS[engine] + (f", {args.servers} servers" if args.servers > 1 else "")
    print(f"\n== {label}: {args.annotators} annotators, {_server_line(args)}, k={args.k}")
    with temp_dir(f"bench-{engine}-", args.keep) as tmp, fresh_database(engine, tmp) as url:
        env = base_env(tmp, url)
        started = time.perf_counter()
        tokens, items = setup_database(env, data.spec, args, tmp, deadline)
        print(f"    set up in {time.perf_counter() - started:.1f} s: {items} items, {len(tokens)} annotators ({url})")
        (records, outcome, cpu, memory), errors = _serve(env, tokens, data, args, deadline, tmp)
        fig = figures_from(label, records, outcome)
        fig.cpu, fig.memory, fig.ceiling_per_s = cpu, memory, ceiling_per_s
        fig.note = f"gunicorn log has errors:\n{errors}" if errors else ""
        fig.invariants = engine_checks(url, records, outcome, items, args.k, complete=not args.pairs)
        return fig


def ceiling_label(args: argparse.Namespace) -> str:
    if not args.ceiling_statements:
        return "empty Flask"
    shape = "each on its own" if args.ceiling_autocommit else "in a transaction"
    return f"Flask + {args.ceiling_statements} statements {shape}"


def run_ceiling(data: Dataset, args: argparse.Namespace, deadline: Deadline) -> Figures:
    items = max(data.items, args.grow_items)  # the engine runs' project holds this many after --grow-items
    quota = args.pairs or math.ceil(items * args.k / args.annotators)
    label = ceiling_label(args)
    print(f"\n== ceiling: {label} (bench/ceiling_app.py), {args.annotators} clients x {quota} pairs, "
          f"{_server_line(args)}")
    with temp_dir("bench-ceiling-", keep=False) as tmp:
        env = {**base_env(tmp, None), "BENCH_ITEM": json.dumps(data.sample_item),
               "BENCH_CEILING_STATEMENTS": str(args.ceiling_statements),
               "BENCH_CEILING_AUTOCOMMIT": "1" if args.ceiling_autocommit else "0",
               "BENCH_CEILING_DATABASE": POSTGRES_LIBPQ_URL}
        servers: list[Gunicorn] = []
        try:  # as many servers as the engine runs have, so that the share compares like with like
            for n in range(1, args.servers + 1):
                servers.append(Gunicorn("ceiling_app:create_app()", env, args, tmp / f"gunicorn-{n}.log", BENCH))
            tokens = {f"ann{n}": "none" for n in range(1, args.annotators + 1)}
            records, outcome, cpu, memory = _load(servers, tokens, {}, data, args, deadline, quota=quota)
        finally:
            for server in servers:
                server.stop()
    fig = figures_from(f"ceiling ({label})", records, outcome)
    fig.cpu, fig.memory = cpu, memory
    fig.invariants = ceiling_checks(records, outcome)
    return fig
