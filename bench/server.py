"""gunicorn for one run: started in its own session on a free port, stopped by its process group."""
from __future__ import annotations

import argparse
import http.client
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

from .common import HOST, ROOT, Deadline, SetupError, venv_tool


def listening_socket() -> socket.socket:
    """A socket bound to a free port and listening, handed to gunicorn (`--bind fd://N`): a port found free,
    closed and then bound by gunicorn can be taken in between by another process, a client connection's
    ephemeral port among them, and the run would then measure whatever answers there."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((HOST, 0))
    sock.listen(1024)
    return sock


def _status_mb(pid: int, key: str) -> float:
    """A /proc/<pid>/status memory figure (VmRSS, VmHWM) in MB; NaN when the process is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def children_of(pid: int) -> list[int]:
    """The direct children of a process (gunicorn's workers), from /proc/<n>/stat."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return sorted(found)


def memory_of(master: int) -> dict[str, object]:
    """RSS of a gunicorn master and of each worker now (VmRSS), and each worker's peak so far (VmHWM), in MB."""
    workers = children_of(master)
    return {"master_rss_mb": round(_status_mb(master, "VmRSS"), 1),
            "workers_rss_mb": [round(_status_mb(w, "VmRSS"), 1) for w in workers],
            "workers_peak_mb": [round(_status_mb(w, "VmHWM"), 1) for w in workers]}


def request_once(port: int, method: str, path: str, headers: dict[str, str]) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection(HOST, port, timeout=5)
    try:
        conn.request(method, path, headers=headers)
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


class Gunicorn:
    """gunicorn in its own session, stopped (TERM, then KILL) by its process group id."""

    def __init__(self, app: str, env: dict[str, str], args: argparse.Namespace, log: Path,
                 pythonpath: Path | None = None) -> None:
        self.sock = listening_socket()
        self.port = self.sock.getsockname()[1]
        cmd = venv_tool("gunicorn") + ["--workers", str(args.workers), "--bind", f"fd://{self.sock.fileno()}",
                                       "--log-level", "warning", "--error-logfile", str(log)]
        if args.threads > 1:
            cmd += ["--worker-class", "gthread", "--threads", str(args.threads)]
        if pythonpath:
            cmd += ["--pythonpath", str(pythonpath)]
        self.log = log
        self.proc = subprocess.Popen(cmd + [app], cwd=ROOT, env=env, start_new_session=True,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     pass_fds=(self.sock.fileno(),))

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

    def memory(self) -> dict[str, object]:
        return memory_of(self.proc.pid)

    def log_tail(self) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-30:])
        except OSError:
            return "(no gunicorn log)"

    def log_errors(self) -> str:
        """The log's tail when it shows an error, else ''."""
        log = self.log_tail()
        return log if "Traceback" in log or "[ERROR]" in log else ""

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
        self.sock.close()
