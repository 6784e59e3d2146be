"""The load: N annotators, threads spread over forked client processes, each looping next + submit.

Why processes: one Python process cannot drive 20 clients at several hundred requests per second
(the GIL), and the clients must not be what limits the figure. They use the standard library's
http.client and answer each HIT with the task type's `example_answer` (seeded per annotator).
Every request becomes one Record; the load phase's CPU is measured around it (cpu.py).
"""
from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing as mp
import random
import threading
import time
from typing import Any, NamedTuple

from annotator.tasks import TaskType

from .common import HOST, SLUG, Deadline
from .cpu import CpuMeter

ERRORS_IN_A_ROW = 20  # a client gives up after this many connection errors or 5xx in a row


class Record(NamedTuple):
    """One request. kind is "next" or "submit"; status 0 means no HTTP answer (error or client timeout)."""

    kind: str
    status: int
    start: float
    end: float
    assignment_id: int
    username: str
    answer: Any  # the answer sent (submit only)


class Annotator:
    """One annotator: next, submit, ... until next answers 204 (or `quota` pairs, for the ceiling)."""

    def __init__(self, port: int, username: str, token: str, task: TaskType, seed: int, deadline_at: float,
                 quota: int | None, records: list[Record], pace: float = 0.0) -> None:
        self.username, self.task, self.quota, self.records = username, task, quota, records
        self.pace = pace  # at least this many seconds per next + submit pair (0: as fast as answers come)
        self.deadline_at = deadline_at
        self.rng = random.Random(f"{seed}:{username}")
        self.conn = http.client.HTTPConnection(HOST, port, timeout=30)
        self.headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        self.errors_in_a_row = self.pairs = 0

    def call(self, kind: str, path: str, body: bytes, aid: int = 0, answer: Any = None) -> tuple[int, bytes]:
        start = time.perf_counter()
        try:
            self.conn.request("POST", path, body=body, headers=self.headers)
            resp = self.conn.getresponse()
            status, data = resp.status, resp.read()
        except (OSError, http.client.HTTPException):
            self.conn.close()
            status, data = 0, b""
        self.records.append(Record(kind, status, start, time.perf_counter(), aid, self.username, answer))
        self.errors_in_a_row = self.errors_in_a_row + 1 if status == 0 or status >= 500 else 0
        return status, data

    def stop_reason(self) -> str | None:
        if time.monotonic() > self.deadline_at:
            return "timeout"
        if self.errors_in_a_row >= ERRORS_IN_A_ROW:
            return f"gave up after {ERRORS_IN_A_ROW} errors in a row"
        if self.quota is not None and self.pairs >= self.quota:
            return "done"
        return None

    def run(self) -> str:
        """Loop until done; returns the outcome ("done", or why it stopped)."""
        while (reason := self.stop_reason()) is None:
            began = time.perf_counter()
            status, data = self.call("next", f"/api/v1/projects/{SLUG}/next", b"")
            if status == 204:
                return "done"
            if status != 200:
                time.sleep(0.05)
                continue
            lease = json.loads(data)["assignment"]
            answer = self.task.example_answer(lease["item"], self.rng)
            status, _ = self.call("submit", f"/api/v1/assignments/{lease['id']}/submit",
                                  json.dumps({"answer": answer}).encode(), lease["id"], answer)
            self.pairs += 1
            if status >= 500 or status == 0:
                time.sleep(0.05)
            elif self.pace:
                time.sleep(max(0.0, began + self.pace - time.perf_counter()))
        return reason


def client_process(port: int, users: list[tuple[str, str]], task: TaskType, seed: int, deadline_at: float,
                   quota: int | None, barrier: Any, results: Any, pace: float = 0.0) -> None:
    """Runs its share of the annotators as threads; all processes start together at the barrier."""
    records: list[Record] = []
    outcome: dict[str, str] = {}

    def work(name: str, token: str) -> None:
        try:
            outcome[name] = Annotator(port, name, token, task, seed, deadline_at, quota, records, pace).run()
        except Exception as error:  # noqa: BLE001 - a client bug ends that annotator, and the run says why
            outcome[name] = f"crashed: {error!r}"
    threads = [threading.Thread(target=work, args=pair, daemon=True) for pair in users]
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


def run_load(ports: list[int], tokens: dict[str, str], task: TaskType, args: argparse.Namespace, deadline: Deadline,
             server_pids: list[int], quota: int | None = None) -> tuple[list[Record], dict[str, str], dict[str, float]]:
    """The load phase; returns every request record, each annotator's outcome and where the CPU went.

    With several servers (ports), client process n talks to ports[n % len(ports)]: the annotators are
    split between them as evenly as the client processes allow.
    """
    ctx = mp.get_context("fork")
    procs = max(1, min(args.client_procs, len(tokens)))
    shares: list[list[tuple[str, str]]] = [[] for _ in range(procs)]
    for n, pair in enumerate(tokens.items()):
        shares[n % procs].append(pair)
    barrier, results = ctx.Barrier(procs + 1), ctx.Queue()
    deadline_at = deadline.at - 20  # leave time to check invariants and clean up
    workers = [ctx.Process(target=client_process, daemon=True,
                           args=(ports[n % len(ports)], share, task, args.seed, deadline_at, quota, barrier,
                                 results, getattr(args, "pace", 0.0)))
               for n, share in enumerate(shares)]
    for w in workers:
        w.start()
    records: list[Record] = []
    outcome: dict[str, str] = {}
    try:
        meter = CpuMeter(server_pids)
        barrier.wait(timeout=60)
        for _ in workers:
            recs, outs = results.get(timeout=max(deadline_at - time.monotonic(), 0) + 40)
            records.extend(recs)
            outcome.update(outs)
    finally:
        _join(workers)
    cpu = meter.stop()
    for name in tokens:
        outcome.setdefault(name, "no result from its client process")
    return records, outcome, cpu


def _join(workers: list[Any]) -> None:
    for w in workers:
        w.join(timeout=5)
        if w.is_alive():
            w.terminate()
            w.join(timeout=5)
