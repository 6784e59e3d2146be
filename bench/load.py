#!/usr/bin/env python3
"""Load benchmark of the JSON API (not a test): N annotators do next + submit until every item has k votes.

For each engine (SQLite file, PostgreSQL private schema) the script
  1. makes a fresh database and sets it up with the CLI, in the environment gunicorn gets too:
     `flask --app annotator db upgrade`, `flask --app annotator import kpa2021 ... --project bench --k K`,
     and the annotators ann1..annN with API tokens (one Python process: create_user/issue_token);
  2. starts `gunicorn -w W "annotator:create_app()"` on a free 127.0.0.1 port;
  3. lets N concurrent annotators (threads spread over client processes, stdlib http.client) loop
     POST /api/v1/projects/bench/next + POST /api/v1/assignments/ID/submit until next answers 204;
     the answer is {"matches": [first key point]} or {"matches": []} at random (seeded);
  4. stops gunicorn, then checks the invariants directly in the database and prints a table.

`--engine ceiling` runs the same clients against bench/ceiling_app.py (an empty Flask app with the
same routes) for the same number of pairs: the upper bound of Flask + gunicorn + clients here.

Exit status: 0 when every invariant holds on every engine run, 1 when one fails, 2 on a setup error,
the global timeout or a crash. Only the standard library is used on the client side; the checks
use sqlite3 and psycopg (installed with the app).
"""
from __future__ import annotations

import argparse
import csv
import http.client
import json
import math
import multiprocessing as mp
import os
import platform
import random
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH = Path(__file__).resolve().parent
DEMO = ROOT / "annotator" / "demo" / "kpa2021"
SLUG = "bench"
HOST = "127.0.0.1"
POSTGRES_URL = os.environ.get("BENCH_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
AIM_SUBMITS_PER_S, AIM_P99_MS = 300.0, 100.0


class SetupError(RuntimeError):
    pass


class Timeout(RuntimeError):
    pass


# --------------------------------------------------------------------------------------- time

class Deadline:
    """One global time budget; every wait in the script takes what is left of it."""

    def __init__(self, seconds: float) -> None:
        self.at = time.monotonic() + seconds

    def left(self, what: str = "the benchmark") -> float:
        left = self.at - time.monotonic()
        if left <= 0:
            raise Timeout(f"global timeout reached during {what}")
        return left


# --------------------------------------------------------------------------------------- setup

def venv_tool(name: str) -> list[str]:
    """The console script next to this Python (the project's venv), else `python -m name`."""
    script = Path(sys.executable).parent / name
    return [str(script)] if script.exists() else [sys.executable, "-m", name]


def run(cmd: list[str], env: dict[str, str], deadline: Deadline, what: str) -> str:
    try:
        done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=False,
                              timeout=deadline.left(what))
    except subprocess.TimeoutExpired:
        raise Timeout(f"global timeout reached during {what}") from None
    if done.returncode != 0:
        raise SetupError(f"{what} failed ({' '.join(cmd)}):\n{done.stdout}{done.stderr}")
    return done.stdout


def write_split_subset(src: Path, dst: Path, items: int) -> int:
    """The first `items` arguments of the dev split, with their key points and labels only."""
    dst.mkdir(parents=True, exist_ok=True)

    def read(name: str) -> tuple[list[str], list[dict[str, str]]]:
        with open(src / name, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            return list(reader.fieldnames or []), list(reader)

    def write(name: str, header: list[str], rows: list[dict[str, str]]) -> None:
        with open(dst / name, "w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=header, lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)

    header, arguments = read("arguments_dev.csv")
    arguments = arguments[:items]
    write("arguments_dev.csv", header, arguments)
    groups = {(a["topic"], a["stance"]) for a in arguments}
    header, key_points = read("key_points_dev.csv")
    write("key_points_dev.csv", header, [k for k in key_points if (k["topic"], k["stance"]) in groups])
    if (src / "labels_dev.csv").exists():
        ids = {a["arg_id"] for a in arguments}
        kps = {k["key_point_id"] for k in key_points if (k["topic"], k["stance"]) in groups}
        header, labels = read("labels_dev.csv")
        write("labels_dev.csv", header, [r for r in labels if r["arg_id"] in ids and r["key_point_id"] in kps])
    return len(arguments)


USERS_CODE = """
import json, sys
from annotator import create_app
from annotator.cli.users import create_user, issue_token
from annotator.extensions import db
app = create_app()
with app.app_context():
    tokens = {}
    for n in range(1, int(sys.argv[1]) + 1):
        user, _ = create_user(f"ann{n}", "annotator", "bench-password")
        tokens[user.username] = issue_token(user)
    db.session.commit()
print(json.dumps(tokens))
"""


def setup_database(env: dict[str, str], args: argparse.Namespace, tmp: Path, deadline: Deadline) -> dict[str, str]:
    """Migrate, import the split and create the annotators; returns {username: token}."""
    flask = venv_tool("flask") + ["--app", "annotator"]
    run(flask + ["db", "upgrade"], env, deadline, "flask db upgrade")
    source = DEMO
    if args.items:
        source = tmp / "split"
        write_split_subset(DEMO, source, args.items)
    out = run(flask + ["import", "kpa2021", str(source), "--split", "dev", "--project", SLUG, "--k", str(args.k)],
              env, deadline, "flask import kpa2021")
    print("   ", out.strip().splitlines()[-1])
    out = run([sys.executable, "-c", USERS_CODE, str(args.annotators)], env, deadline, "creating annotators")
    return json.loads(out.strip().splitlines()[-1])


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


class Gunicorn:
    """gunicorn in its own session, stopped (TERM, then KILL) by its process group id."""

    def __init__(self, app: str, env: dict[str, str], args: argparse.Namespace, log: Path,
                 pythonpath: Path | None = None) -> None:
        self.port = free_port()
        cmd = venv_tool("gunicorn") + ["--workers", str(args.workers), "--bind", f"{HOST}:{self.port}",
                                       "--log-level", "warning", "--error-logfile", str(log)]
        if args.threads > 1:
            cmd += ["--worker-class", "gthread", "--threads", str(args.threads)]
        if pythonpath:
            cmd += ["--pythonpath", str(pythonpath)]
        self.log = log
        self.proc = subprocess.Popen(cmd + [app], cwd=ROOT, env=env, start_new_session=True,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def wait_ready(self, path: str, headers: dict[str, str], deadline: Deadline, workers: int) -> None:
        """Until the app answers 200; then a few more requests so that every worker has served one."""
        start = time.monotonic()
        while True:
            if self.proc.poll() is not None:
                raise SetupError(f"gunicorn exited with {self.proc.returncode}:\n{self.log_tail()}")
            if time.monotonic() - start > min(60.0, deadline.left("gunicorn start")):
                raise SetupError(f"gunicorn did not answer within 60 s:\n{self.log_tail()}")
            try:
                status, _ = request_once(self.port, "GET", path, headers)
                if status == 200:
                    break
                raise SetupError(f"GET {path} answered {status} at start-up:\n{self.log_tail()}")
            except OSError:
                time.sleep(0.1)
        for _ in range(4 * workers):
            request_once(self.port, "GET", path, headers)

    def log_tail(self) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-30:])
        except OSError:
            return "(no gunicorn log)"

    def stop(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=5)
            except ProcessLookupError:
                pass


def request_once(port: int, method: str, path: str, headers: dict[str, str]) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection(HOST, port, timeout=5)
    try:
        conn.request(method, path, headers=headers)
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


# --------------------------------------------------------------------------------------- CPU

TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def machine_busy_seconds() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine since boot, from /proc/stat."""
    try:
        fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except OSError:
        return math.nan, math.nan
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / TICK, sum(fields[:8]) / TICK


def processes() -> dict[int, tuple[int, str, float]]:
    """pid -> (ppid, command name, CPU seconds used so far) of every process we can read."""
    table = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            raw = (entry / "stat").read_text()
        except OSError:
            continue
        comm = raw[raw.index("(") + 1:raw.rindex(")")]
        rest = raw[raw.rindex(")") + 2:].split()
        table[int(entry.name)] = (int(rest[1]), comm, (int(rest[11]) + int(rest[12])) / TICK)
    return table


def _socket_inodes(pid: int) -> set[int]:
    inodes = set()
    try:
        for fd in (Path("/proc") / str(pid) / "fd").iterdir():
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(int(target[8:-1]))
    except OSError:
        pass
    return inodes


def _tcp_table() -> dict[int, tuple[int, int]]:
    """socket inode -> (local port, remote port) of every TCP socket (IPv4 and IPv6)."""
    table = {}
    for name in ("tcp", "tcp6"):
        try:
            lines = (Path("/proc/net") / name).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            cols = line.split()
            table[int(cols[9])] = (int(cols[1].rsplit(":", 1)[1], 16), int(cols[2].rsplit(":", 1)[1], 16))
    return table


def postgres_backends_of(client_pids: list[int], procs: dict[int, tuple[int, str, float]]) -> list[int]:
    """The PostgreSQL server processes whose client sockets belong to `client_pids` (our workers)."""
    tcp = _tcp_table()
    ports = {tcp[i][0] for pid in client_pids for i in _socket_inodes(pid) if i in tcp and tcp[i][1] == 5432}
    return [pid for pid, (_, comm, _) in procs.items() if comm.startswith("postgres")
            and any(tcp.get(i, (0, 0))[1] in ports for i in _socket_inodes(pid))]


class CpuMeter:
    """Where the machine's CPU went during the load phase: our server, our clients, PostgreSQL, the rest.

    The machine may be shared (other people's test runs); the "other" column shows how much.
    """

    def __init__(self, server_pid: int) -> None:
        self.server_pid = server_pid
        self.busy0, self.total0 = machine_busy_seconds()
        self.procs0 = processes()
        self.children0 = self._children_cpu()
        self.self0 = self._self_cpu()

    @staticmethod
    def _children_cpu() -> float:
        import resource
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    @staticmethod
    def _self_cpu() -> float:
        import resource
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_utime + usage.ru_stime

    def stop(self) -> dict[str, float]:
        busy, total = machine_busy_seconds()
        procs = processes()

        def delta(select) -> float:  # type: ignore[no-untyped-def]
            return sum(cpu - (self.procs0[pid][2] if pid in self.procs0 else 0.0)
                       for pid, (ppid, comm, cpu) in procs.items() if select(pid, ppid, comm))
        server = delta(lambda pid, ppid, comm: pid == self.server_pid or ppid == self.server_pid)
        postgres = delta(lambda pid, ppid, comm: comm.startswith("postgres"))
        workers = [pid for pid, (ppid, _, _) in procs.items() if ppid == self.server_pid]
        ours = set(postgres_backends_of(workers, procs))
        our_postgres = delta(lambda pid, ppid, comm: pid in ours)
        clients = self._children_cpu() - self.children0 + self._self_cpu() - self.self0
        used = busy - self.busy0
        return {"machine_busy_s": used, "machine_capacity_s": total - self.total0, "server_s": server,
                "clients_s": clients, "postgres_s": postgres,
                "our_postgres_s": our_postgres, "our_backends": float(len(ours)),
                "other_s": max(used - server - clients - postgres, 0.0)}


def wait_until_quiet(limit: float, deadline: Deadline) -> str:
    """Wait (at most `limit` s) until the machine is idle (< 15% busy over 3 s): on a shared machine
    other people's test runs would take CPU from the server, the database and the clients."""
    start = time.monotonic()
    busy = math.nan
    while True:
        b0, t0 = machine_busy_seconds()
        time.sleep(3)
        b1, t1 = machine_busy_seconds()
        busy = 100 * (b1 - b0) / max(t1 - t0, 1e-9)
        if busy < 15 or time.monotonic() - start >= limit or deadline.at - time.monotonic() < 120:
            return f"machine {busy:.0f}% busy before the load (waited {time.monotonic() - start:.0f} s)"


# --------------------------------------------------------------------------------------- clients

# One record per request: (kind, status, start, end, assignment id, username, matches sent).
# kind is "next" or "submit"; status 0 means no HTTP answer (connection error or client timeout).
Record = tuple[str, int, float, float, int, str, "list[str] | None"]


def annotator(port: int, username: str, token: str, seed: int, deadline_at: float, quota: int | None,
              records: list[Record], outcome: dict[str, str]) -> None:
    """One annotator: next, submit, ... until next answers 204 (or the quota of pairs, for the ceiling)."""
    rng = random.Random(f"{seed}:{username}")
    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    next_path = f"/api/v1/projects/{SLUG}/next"
    errors_in_a_row, pairs = 0, 0
    clock = time.perf_counter

    def call(kind: str, path: str, body: bytes, aid: int = 0,
             matches: list[str] | None = None) -> tuple[int, bytes]:
        nonlocal errors_in_a_row
        start = clock()
        try:
            conn.request("POST", path, body=body, headers=headers)
            resp = conn.getresponse()
            data = resp.read()
            status = resp.status
        except (OSError, http.client.HTTPException):
            conn.close()
            status, data = 0, b""
        records.append((kind, status, start, clock(), aid, username, matches))
        errors_in_a_row = errors_in_a_row + 1 if status == 0 or status >= 500 else 0
        return status, data

    while True:
        if time.monotonic() > deadline_at:
            outcome[username] = "timeout"
            return
        if errors_in_a_row >= 20:
            outcome[username] = "gave up after 20 errors in a row"
            return
        if quota is not None and pairs >= quota:
            outcome[username] = "done"
            return
        status, data = call("next", next_path, b"")
        if status == 204:
            outcome[username] = "done"
            return
        if status != 200:
            time.sleep(0.05)
            continue
        lease = json.loads(data)["assignment"]
        key_points = lease["item"]["key_points"]
        matches = [key_points[0]["id"]] if rng.random() < 0.5 else []
        body = json.dumps({"answer": {"matches": matches}}).encode()
        status, _ = call("submit", f"/api/v1/assignments/{lease['id']}/submit", body, lease["id"], matches)
        pairs += 1
        if status >= 500 or status == 0:
            time.sleep(0.05)


def client_process(port: int, users: list[tuple[str, str]], seed: int, deadline_at: float, quota: int | None,
                   barrier: Any, results: Any) -> None:
    """Runs its share of the annotators as threads; all processes start together at the barrier."""
    records: list[Record] = []
    outcome: dict[str, str] = {}
    threads = [threading.Thread(target=annotator, args=(port, name, token, seed, deadline_at, quota, records, outcome),
                                daemon=True) for name, token in users]
    try:
        barrier.wait(timeout=60)
    except threading.BrokenBarrierError:
        results.put(([], {name: "start barrier broken" for name, _ in users}))
        return
    for t in threads:
        t.start()
    for t in threads:
        t.join(max(deadline_at - time.monotonic(), 0) + 35)  # a request in flight may take its 30 s
    for name, _ in users:
        outcome.setdefault(name, "still running at the deadline")
    results.put((list(records), dict(outcome)))


def run_load(port: int, tokens: dict[str, str], args: argparse.Namespace, deadline: Deadline, server_pid: int,
             quota: int | None = None) -> tuple[list[Record], dict[str, str], dict[str, float]]:
    """The load phase; returns every request record, each annotator's outcome and where the CPU went."""
    ctx = mp.get_context("fork")
    procs = max(1, min(args.client_procs, len(tokens)))
    shares: list[list[tuple[str, str]]] = [[] for _ in range(procs)]
    for n, pair in enumerate(tokens.items()):
        shares[n % procs].append(pair)
    barrier = ctx.Barrier(procs + 1)
    results = ctx.Queue()
    deadline_at = deadline.at - 20  # leave time to check invariants and clean up
    workers = [ctx.Process(target=client_process, args=(port, share, args.seed, deadline_at, quota, barrier, results),
                           daemon=True) for share in shares]
    for w in workers:
        w.start()
    records: list[Record] = []
    outcome: dict[str, str] = {}
    try:
        meter = CpuMeter(server_pid)
        barrier.wait(timeout=60)
        for _ in workers:
            recs, outs = results.get(timeout=max(deadline_at - time.monotonic(), 0) + 40)
            records.extend(recs)
            outcome.update(outs)
    finally:
        for w in workers:
            w.join(timeout=5)
            if w.is_alive():
                w.terminate()
                w.join(timeout=5)
    cpu = meter.stop()
    for name in tokens:
        outcome.setdefault(name, "no result from its client process")
    return records, outcome, cpu


# --------------------------------------------------------------------------------------- figures

def percentile(sorted_values: list[float], p: float) -> float:
    """Nearest-rank percentile of an ascending list (NaN when empty)."""
    if not sorted_values:
        return math.nan
    rank = max(1, math.ceil(p / 100 * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


@dataclass
class Figures:
    label: str
    wall: float = 0.0
    submits_201: int = 0
    submits_per_s: float = 0.0
    steady_per_s: float = 0.0
    pairs_per_s: float = 0.0
    requests: int = 0
    statuses: dict[str, Counter] = field(default_factory=dict)
    latency_ms: dict[str, dict[str, float]] = field(default_factory=dict)
    invariants: list[tuple[str, bool, str]] = field(default_factory=list)
    outcomes: Counter = field(default_factory=Counter)
    slices: list[float] = field(default_factory=list)  # submits/s in each tenth of the wall time
    cpu: dict[str, float] = field(default_factory=dict)
    note: str = ""

    @property
    def ok(self) -> bool:
        return all(passed for _, passed, _ in self.invariants)


def figures_from(label: str, records: list[Record], outcome: dict[str, str]) -> Figures:
    fig = Figures(label)
    fig.requests = len(records)
    fig.outcomes = Counter(outcome.values())
    if not records:
        return fig
    first = min(r[2] for r in records)
    last = max(r[3] for r in records)
    fig.wall = last - first
    by_kind: dict[str, list[float]] = defaultdict(list)
    for kind, status, start, end, *_ in records:
        fig.statuses.setdefault(kind, Counter())[status] += 1
        by_kind[kind].append((end - start) * 1000)
        if kind == "next":
            by_kind["next 200" if status == 200 else "next other"].append((end - start) * 1000)
    for kind, values in by_kind.items():
        values.sort()
        fig.latency_ms[kind] = {"n": len(values), "mean": sum(values) / len(values),
                                "p50": percentile(values, 50), "p95": percentile(values, 95),
                                "p99": percentile(values, 99), "max": values[-1]}
    ends = sorted(r[3] for r in records if r[0] == "submit" and r[1] in (200, 201))
    fig.submits_201 = sum(1 for r in records if r[0] == "submit" and r[1] == 201)
    if fig.wall > 0:
        fig.submits_per_s = fig.submits_201 / fig.wall
        fig.pairs_per_s = len(ends) / fig.wall
    if fig.wall > 0:
        width = fig.wall / 10
        counts = Counter(min(int((end - first) / width), 9) for end in ends)
        fig.slices = [counts[n] / width for n in range(10)]
    if len(ends) >= 20:  # between the 10th and the 90th percentile of completions: no ramp-up, no tail
        a, b = ends[len(ends) // 10], ends[len(ends) * 9 // 10]
        fig.steady_per_s = (len(ends) * 9 // 10 - len(ends) // 10) / (b - a) if b > a else math.nan
    return fig


# --------------------------------------------------------------------------------------- invariants

def fetch_rows(engine: str, url: str) -> dict[str, list[tuple]]:
    """Everything the checks need, read straight from the database (no ORM, no app code)."""
    queries = {
        "project": f"SELECT id, k FROM projects WHERE slug = '{SLUG}'",
        "items": "SELECT id, project_id, payload, done_count FROM items",
        "assignments": "SELECT id, project_id, item_id, user_id, status, answer FROM assignments",
        "labels": "SELECT assignment_id, item_id, user_id, COUNT(*), "
                  "SUM(CASE WHEN value = '1' THEN 1 ELSE 0 END) FROM labels GROUP BY assignment_id, item_id, user_id",
        "users": "SELECT id, username FROM users",
    }
    rows: dict[str, list[tuple]] = {}
    if engine == "sqlite":
        import sqlite3
        conn = sqlite3.connect(url.removeprefix("sqlite:///"), timeout=30)
        try:
            for name, sql in queries.items():
                rows[name] = list(conn.execute(sql))
        finally:
            conn.close()
    else:
        import psycopg
        with psycopg.connect(url.replace("+psycopg", "", 1), connect_timeout=10) as conn:
            for name, sql in queries.items():
                rows[name] = list(conn.execute(sql))
    return rows


def as_json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, (str, bytes)) else value


def check_invariants(engine: str, url: str, records: list[Record], outcome: dict[str, str],
                     expected_items: int, k: int) -> list[tuple[str, bool, str]]:
    rows = fetch_rows(engine, url)
    checks: list[tuple[str, bool, str]] = []

    def check(name: str, passed: bool, detail: str) -> None:
        checks.append((name, bool(passed), detail))

    (project_id, stored_k), = rows["project"]
    items = {i: (as_json(payload), done) for i, pid, payload, done in rows["items"] if pid == project_id}
    kp_count = {i: len(payload["key_points"]) for i, (payload, _) in items.items()}
    user_id = {name: uid for uid, name in rows["users"]}
    assignments = [a for a in rows["assignments"] if a[1] == project_id]
    submitted = [a for a in assignments if a[4] == "submitted"]
    check("project has the items and k asked for", len(items) == expected_items and stored_k == k,
          f"{len(items)} items, k={stored_k}")
    check("every annotator finished (next answered 204)", all(o == "done" for o in outcome.values()),
          ", ".join(f"{n} {o}" for o, n in Counter(outcome.values()).items()))

    votes, voters = Counter(), defaultdict(set)
    for aid, _, item, user, _, _ in submitted:
        votes[item] += 1
        voters[item].add(user)
    wrong = [i for i in items if votes[i] != k or len(voters[i]) != k]
    check("every item has exactly k submitted assignments by k distinct users", not wrong,
          f"{len(items) - len(wrong)}/{len(items)} items right"
          + (f"; e.g. item {wrong[0]}: {votes[wrong[0]]} votes by {len(voters[wrong[0]])} users" if wrong else ""))
    twice = [pair for pair, n in Counter((a[2], a[3]) for a in assignments).items() if n > 1]
    check("no (item, user) twice (any status)", not twice, f"{len(twice)} pairs repeated")
    drift = [i for i, (_, done) in items.items() if done != votes[i]]
    check("items.done_count = submitted assignments", not drift, f"{len(drift)} items differ")
    leased = Counter(a[4] for a in assignments)
    check("no open lease left at the end", leased.get("leased", 0) == 0,
          ", ".join(f"{n} {s}" for s, n in sorted(leased.items())))

    labels = {aid: (item, user, n, ones) for aid, item, user, n, ones in rows["labels"]}
    expected_labels = sum(kp_count[a[2]] for a in submitted)
    stored_labels = sum(n for aid, (item, _, n, _) in labels.items() if item in items)
    check("labels = sum over submitted assignments of the item's key points", stored_labels == expected_labels,
          f"{stored_labels} stored, {expected_labels} expected")
    by_id = {a[0]: a for a in assignments}
    bad_labels = [aid for aid, a in by_id.items()
                  if (a[4] == "submitted") != (aid in labels)
                  or (aid in labels and (labels[aid][2] != kp_count[a[2]] or labels[aid][:2] != (a[2], a[3])
                                         or labels[aid][3] != len(as_json(a[5])["matches"])))]
    check("each vote has one label per key point, '1' exactly for its matches, none for unsubmitted",
          not bad_labels, f"{len(bad_labels)} assignments wrong")

    submits = [r for r in records if r[0] == "submit"]
    five = Counter(r[1] for r in submits if r[1] >= 500)
    lost = sum(1 for r in submits if r[1] == 0)
    check("no submit answered 5xx", not five, ", ".join(f"{n}x {s}" for s, n in five.items()) or "none")
    check("no submit without an HTTP answer (connection error / client timeout)", not lost, f"{lost}")
    other = Counter(r[1] for r in submits if r[1] not in (0, 201) and r[1] < 500)
    check("every submit answered 201 (no 200 repeat, no 4xx)", not other,
          ", ".join(f"{n}x {s}" for s, n in other.items()) or "all 201")
    created = Counter(r[4] for r in submits if r[1] == 201)
    stored_ids = {a[0] for a in submitted}
    again = [aid for aid, n in created.items() if n > 1]
    mismatched = [r[4] for r in submits if r[1] == 201 and (
        r[4] not in by_id or by_id[r[4]][4] != "submitted" or by_id[r[4]][3] != user_id.get(r[5])
        or as_json(by_id[r[4]][5]) != {"matches": r[6]})]
    check("every 201 is exactly one stored vote (same id, user, answer) and every vote had its 201",
          not again and not mismatched and set(created) == stored_ids,
          f"{sum(created.values())} x 201, {len(stored_ids)} votes stored, {len(again)} ids answered 201 twice, "
          f"{len(mismatched)} not stored as sent, {len(stored_ids - set(created))} votes without a 201")
    nexts = Counter(r[1] for r in records if r[0] == "next" and r[1] not in (200, 204))
    check("no next answered 5xx or failed", not nexts, ", ".join(f"{n}x {s}" for s, n in nexts.items()) or "none")
    return checks


# --------------------------------------------------------------------------------------- engines

def base_env(tmp: Path, database_url: str | None) -> dict[str, str]:
    env = dict(os.environ)
    env.update({"SECRET_KEY": secrets.token_hex(32), "ANNOTATOR_INSTANCE": str(tmp / "instance"),
                "ANNOTATOR_EXPORT_DIR": str(tmp / "exports"), "PYTHONUNBUFFERED": "1"})
    env.pop("FLASK_APP", None)
    if database_url:
        env["DATABASE_URL"] = database_url
    return env


def count_items(args: argparse.Namespace) -> int:
    with open(DEMO / "arguments_dev.csv", newline="", encoding="utf-8") as f:
        total = sum(1 for _ in csv.DictReader(f))
    return min(args.items, total) if args.items else total


def run_engine(engine: str, args: argparse.Namespace, deadline: Deadline) -> Figures:
    label = {"sqlite": "SQLite", "postgresql": "PostgreSQL"}[engine]
    print(f"\n== {label}: {args.annotators} annotators, gunicorn -w {args.workers}"
          + (f" --threads {args.threads}" if args.threads > 1 else "") + f", k={args.k}")
    tmp = Path(tempfile.mkdtemp(prefix=f"bench-{engine}-"))
    schema = None
    plain_pg = POSTGRES_URL.replace("+psycopg", "", 1)
    server: Gunicorn | None = None
    try:
        if engine == "sqlite":
            url = f"sqlite:///{tmp / 'bench.db'}"
        else:
            import psycopg
            schema = f"bench_{uuid.uuid4().hex[:10]}"
            with psycopg.connect(plain_pg, autocommit=True, connect_timeout=10) as conn:
                conn.execute(f"CREATE SCHEMA {schema}")
            url = f"{POSTGRES_URL}?options=-csearch_path%3D{schema}"
        env = base_env(tmp, url)
        t = time.perf_counter()
        tokens = setup_database(env, args, tmp, deadline)
        print(f"    set up in {time.perf_counter() - t:.1f} s ({url})")
        server = Gunicorn("annotator:create_app()", env, args, tmp / "gunicorn.log")
        first = next(iter(tokens.values()))
        server.wait_ready(f"/api/v1/projects/{SLUG}/progress", {"Authorization": f"Bearer {first}"},
                          deadline, args.workers)
        if args.wait_quiet:
            print("    " + wait_until_quiet(args.wait_quiet, deadline), flush=True)
        print(f"    gunicorn pid {server.proc.pid} on {HOST}:{server.port}; load running ...", flush=True)
        records, outcome, cpu = run_load(server.port, tokens, args, deadline, server.proc.pid)
        server.stop()
        log = server.log_tail()
        fig = figures_from(label, records, outcome)
        fig.cpu = cpu
        fig.invariants = check_invariants(engine, url, records, outcome, count_items(args), args.k)
        if "Traceback" in log or "[ERROR]" in log:
            fig.note = "gunicorn log has errors:\n" + log
        return fig
    finally:
        if server:
            server.stop()
        if schema:
            try:
                import psycopg
                with psycopg.connect(plain_pg, autocommit=True, connect_timeout=10) as conn:
                    conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
            except Exception as error:  # noqa: BLE001 - report, do not mask the run's own error
                print(f"    could not drop schema {schema}: {error}", file=sys.stderr)
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print(f"    kept {tmp}")


def run_ceiling(args: argparse.Namespace, deadline: Deadline) -> Figures:
    items = count_items(args)
    quota = math.ceil(items * args.k / args.annotators)
    print(f"\n== ceiling: empty Flask app (bench/ceiling_app.py), {args.annotators} clients x {quota} pairs, "
          f"gunicorn -w {args.workers}" + (f" --threads {args.threads}" if args.threads > 1 else ""))
    tmp = Path(tempfile.mkdtemp(prefix="bench-ceiling-"))
    server = None
    try:
        server = Gunicorn("ceiling_app:create_app()", base_env(tmp, None), args, tmp / "gunicorn.log", BENCH)
        server.wait_ready(f"/api/v1/projects/{SLUG}/progress", {}, deadline, args.workers)
        if args.wait_quiet:
            print("    " + wait_until_quiet(args.wait_quiet, deadline), flush=True)
        tokens = {f"ann{n}": "none" for n in range(1, args.annotators + 1)}
        records, outcome, cpu = run_load(server.port, tokens, args, deadline, server.proc.pid, quota=quota)
        fig = figures_from("ceiling (empty Flask)", records, outcome)
        fig.cpu = cpu
        bad = Counter(r[1] for r in records if r[1] not in (200, 201))
        fig.invariants = [("every request answered 200/201", not bad, ", ".join(f"{n}x {s}" for s, n in bad.items())
                           or "all"), ("every client did its pairs", all(o == "done" for o in outcome.values()),
                                       ", ".join(f"{n} {o}" for o, n in Counter(outcome.values()).items()))]
        return fig
    finally:
        if server:
            server.stop()
        shutil.rmtree(tmp, ignore_errors=True)


# --------------------------------------------------------------------------------------- report

def fmt_ms(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:.1f}"


def print_figures(fig: Figures) -> None:
    print(f"\n-- {fig.label} " + "-" * max(0, 70 - len(fig.label)))
    print(f"wall time of the load phase   {fig.wall:8.2f} s   ({fig.requests} requests)")
    print(f"submits answered 201          {fig.submits_201:8d}")
    print(f"submits/s (201, whole run)    {fig.submits_per_s:8.1f}   (10th-90th pct of completions: "
          f"{fig.steady_per_s:.1f}/s)")
    if fig.slices:
        print(f"submits/s per tenth of the run  {' '.join(f'{v:.0f}' for v in fig.slices)}")
    if fig.cpu:
        c = fig.cpu
        print(f"CPU s during the load (machine {c['machine_capacity_s']:.0f} s of capacity, "
              f"{100 * c['machine_busy_s'] / max(c['machine_capacity_s'], 1e-9):.0f}% busy): "
              f"gunicorn {c['server_s']:.1f}, clients {c['clients_s']:.1f}, postgres {c['postgres_s']:.1f} "
              f"(of which our {c['our_backends']:.0f} backends {c['our_postgres_s']:.1f}), other {c['other_s']:.1f}")
        pairs = fig.statuses.get("submit", Counter()).total()
        if pairs:
            print(f"CPU ms per next+submit pair     gunicorn workers {1000 * c['server_s'] / pairs:.2f}, "
                  f"our postgres backends {1000 * c['our_postgres_s'] / pairs:.2f}, "
                  f"clients {1000 * c['clients_s'] / pairs:.2f}")
    for kind, counter in sorted(fig.statuses.items()):
        print(f"{kind + ' statuses':30s}{'  '.join(f'{s}: {n}' for s, n in sorted(counter.items()))}")
    print(f"\n{'latency ms':14s}{'n':>7s}{'mean':>8s}{'p50':>8s}{'p95':>8s}{'p99':>8s}{'max':>9s}")
    for kind in ("submit", "next", "next 200", "next other"):
        if kind in fig.latency_ms:
            m = fig.latency_ms[kind]
            print(f"{kind:14s}{m['n']:7d}{m['mean']:8.1f}{fmt_ms(m['p50']):>8s}{fmt_ms(m['p95']):>8s}"
                  f"{fmt_ms(m['p99']):>8s}{fmt_ms(m['max']):>9s}")
    print("\ninvariants")
    for name, passed, detail in fig.invariants:
        print(f"  [{'PASS' if passed else 'FAIL'}] {name}: {detail}")
    if fig.note:
        print(fig.note)


def print_summary(figs: list[Figures], args: argparse.Namespace) -> None:
    print("\n== summary: " + machine_line(args))
    head = (f"{'run':22s}{'submits/s':>10s}{'steady/s':>9s}{'sub p50':>9s}{'sub p95':>9s}{'sub p99':>9s}"
            f"{'next p50':>9s}{'next p95':>9s}{'next p99':>9s}  invariants")
    print(head)
    print("-" * len(head))
    for f in figs:
        s, n = f.latency_ms.get("submit", {}), f.latency_ms.get("next", {})
        cells = [fmt_ms(s.get(p, math.nan)) for p in ("p50", "p95", "p99")] + \
                [fmt_ms(n.get(p, math.nan)) for p in ("p50", "p95", "p99")]
        print(f"{f.label:22s}{f.submits_per_s:10.1f}{f.steady_per_s:9.1f}" + "".join(f"{c:>9s}" for c in cells)
              + f"  {'PASS' if f.ok else 'FAIL'}")
    for f in figs:
        if f.label == "PostgreSQL":
            p99 = f.latency_ms.get("submit", {}).get("p99", math.nan)
            met = f.submits_per_s >= AIM_SUBMITS_PER_S and p99 < AIM_P99_MS
            print(f"aim on PostgreSQL (>= {AIM_SUBMITS_PER_S:.0f} submits/s, submit p99 < {AIM_P99_MS:.0f} ms): "
                  f"{'met' if met else 'NOT met'} ({f.submits_per_s:.1f}/s, p99 {fmt_ms(p99)} ms)")


def source_line() -> str:
    """The commit the server code comes from, and whether its files differ from it."""
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, check=False,
                             text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "annotator", "migrations", "config.py"],
                               cwd=ROOT, capture_output=True, text=True, check=False, timeout=10).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return f"code at {ROOT} (no git)"
    if not rev:
        return f"code at {ROOT} (not a git checkout)"
    return f"code at commit {rev}" + (" with uncommitted changes to the server code" if dirty else "")


def machine_line(args: argparse.Namespace) -> str:
    return (f"nproc {os.cpu_count()}, Python {platform.python_version()}, gunicorn -w {args.workers}"
            + (f" --threads {args.threads}" if args.threads > 1 else " (sync)")
            + f", {args.annotators} annotators in {min(args.client_procs, args.annotators)} client processes "
            f"on the same machine")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", choices=["sqlite", "postgresql", "both", "ceiling", "all"], default="both",
                        help="both = sqlite then postgresql; all = ceiling, sqlite, postgresql")
    parser.add_argument("--annotators", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--threads", type=int, default=1, help="gunicorn threads per worker (>1: gthread)")
    parser.add_argument("--k", type=int, default=8)
    parser.add_argument("--items", type=int, default=0, help="only the first N arguments of the dev split")
    parser.add_argument("--seed", type=int, default=2021)
    parser.add_argument("--client-procs", type=int, default=4,
                        help="client processes the annotator threads are spread over (not GIL-bound)")
    parser.add_argument("--timeout", type=float, default=600, help="global time budget in seconds")
    parser.add_argument("--wait-quiet", type=float, default=0, metavar="SECONDS",
                        help="before each load phase wait up to SECONDS for the machine to be idle (shared machines)")
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directories (logs, SQLite file)")
    args = parser.parse_args(argv)
    if not 1 <= args.k <= args.annotators:
        parser.error("--k must be between 1 and --annotators (each item needs k distinct annotators)")
    if args.items < 0 or args.annotators < 1 or args.workers < 1 or args.client_procs < 1:
        parser.error("--items, --annotators, --workers and --client-procs must be positive")

    engines = {"both": ["sqlite", "postgresql"], "all": ["ceiling", "sqlite", "postgresql"]}.get(
        args.engine, [args.engine])
    deadline = Deadline(args.timeout)

    def stop_now(signum: int, _frame: Any) -> None:
        # SIGTERM: unwind so that the `finally` blocks stop gunicorn and drop the schema.
        # SIGALRM: the hard backstop of the global timeout, for a wait that does not watch the deadline.
        raise Timeout("global timeout (hard stop)") if signum == signal.SIGALRM else SystemExit(128 + signum)
    signal.signal(signal.SIGTERM, stop_now)
    signal.signal(signal.SIGALRM, stop_now)
    signal.alarm(int(args.timeout) + 60)
    print(f"bench/load.py: {machine_line(args)}; items {count_items(args)} x k {args.k}; seed {args.seed}; "
          f"timeout {args.timeout:.0f} s; {source_line()}")
    figs: list[Figures] = []
    status = 0
    try:
        for engine in engines:
            fig = run_ceiling(args, deadline) if engine == "ceiling" else run_engine(engine, args, deadline)
            print_figures(fig)
            figs.append(fig)
            if not fig.ok:
                status = 1
    except (SetupError, Timeout) as error:
        print(f"\nERROR: {error}", file=sys.stderr)
        status = 2
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        status = 2
    except Exception:  # noqa: BLE001 - a bug in the benchmark itself: report it, clean up, exit 2
        import traceback
        traceback.print_exc()
        status = 2
    finally:
        signal.alarm(0)
    if figs:
        print_summary(figs, args)
    if args.json and figs:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({
            "date": time.strftime("%Y-%m-%d %H:%M:%S %z"), "source": source_line(),
            "machine": machine_line(args), "args": {k: str(v) for k, v in vars(args).items()},
            "runs": [{"label": f.label, "wall_s": f.wall, "submits_201": f.submits_201,
                      "submits_per_s": f.submits_per_s, "steady_submits_per_s": f.steady_per_s,
                      "submits_per_s_by_tenth": f.slices, "cpu_s": f.cpu,
                      "latency_ms": f.latency_ms, "statuses": {k: dict(v) for k, v in f.statuses.items()},
                      "invariants": f.invariants, "ok": f.ok} for f in figs]}, indent=2, default=str))
    if status == 1:
        print("\nFAIL: an invariant does not hold (see above)", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
