"""Where the machine's CPU went during a load phase, read from /proc (Linux; NaN elsewhere).

Why: on a shared 2-core machine the clients, gunicorn and PostgreSQL compete for the same cores,
and other people's jobs take their share; the split per pair and the "other" column say how far a
figure can be trusted.
"""
from __future__ import annotations

import math
import os
import subprocess
import time
from pathlib import Path

from sqlalchemy.engine import make_url

from .common import POSTGRES_URL, Deadline

POSTGRES_PORT = make_url(POSTGRES_URL).port or 5432

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


def _unix_peers() -> dict[int, int]:
    """socket inode -> its peer's inode, for every connected Unix socket (`ss -x`: /proc does not say
    who a Unix socket's peer is). Empty without `ss` (iproute2)."""
    try:
        listing = subprocess.run(["ss", "-xan"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    peers = {}
    for line in listing.splitlines()[1:]:
        cols = line.split()  # Netid State Recv-Q Send-Q Local-address Local-inode Peer-address Peer-inode
        if len(cols) >= 8 and cols[5].isdigit() and cols[7].isdigit():
            peers[int(cols[5])] = int(cols[7])
    return peers


def postgres_backends_of(client_pids: list[int], procs: dict[int, tuple[int, str, float]]) -> list[int]:
    """The PostgreSQL server processes whose client sockets belong to `client_pids` (our workers), over
    TCP (the benchmark URL's port) or a Unix socket (the URL's `host=/var/run/postgresql`)."""
    tcp = _tcp_table()
    ours = {i for pid in client_pids for i in _socket_inodes(pid)}
    ports = {tcp[i][0] for i in ours if i in tcp and tcp[i][1] == POSTGRES_PORT}
    unix = _unix_peers()
    peers = {unix[i] for i in ours if i in unix}
    return [pid for pid, (_, comm, _) in procs.items() if comm.startswith("postgres")
            and any(tcp.get(i, (0, 0))[1] in ports or i in peers for i in _socket_inodes(pid))]


class CpuMeter:
    """Where the machine's CPU went during the load phase: our server, our clients, PostgreSQL, the rest.

    The machine may be shared (other people's test runs); the "other" column shows how much.
    """

    def __init__(self, server_pids: list[int]) -> None:
        self.server_pids = set(server_pids)  # gunicorn masters (one per server)
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
        clients = self._children_cpu() - self.children0 + self._self_cpu() - self.self0  # before `ss` runs

        def delta(select) -> float:  # type: ignore[no-untyped-def]
            return sum(cpu - (self.procs0[pid][2] if pid in self.procs0 else 0.0)
                       for pid, (ppid, comm, cpu) in procs.items() if select(pid, ppid, comm))
        server = delta(lambda pid, ppid, comm: pid in self.server_pids or ppid in self.server_pids)
        postgres = delta(lambda pid, ppid, comm: comm.startswith("postgres"))
        workers = [pid for pid, (ppid, _, _) in procs.items() if ppid in self.server_pids]
        ours = set(postgres_backends_of(workers, procs))
        our_postgres = delta(lambda pid, ppid, comm: pid in ours)
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


