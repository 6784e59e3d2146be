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


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


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
