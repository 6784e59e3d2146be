"""gunicorn for a test, on a socket the test has bound itself (bench/server.py's `listening_socket`).

Why not "find a free port, close it, start gunicorn on it": between the close and gunicorn's bind (after it
has loaded the app) another process of the run can take the port, another worker's browser-test server or a
client connection's ephemeral port; the test then talks to that other server (a run's annotators all got 401
from a server on another database, bench/results/2026-11-28-test-suite-times.md). A socket handed down (`--bind fd://N`)
leaves no gap.
"""
from __future__ import annotations

import http.client
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def start_gunicorn(sock: socket.socket, workers: int, env: dict[str, str], log: Path,
                   options: Sequence[str] = ()) -> subprocess.Popen:
    """gunicorn with `workers` sync workers serving `annotator:create_app()` on `sock`, its output in `log`;
    `options`: more of gunicorn's command-line options (e.g. an access log).

    --preload: the master makes the app once and forks it into each worker, instead of each worker
    importing it anew on a machine the rest of the suite keeps busy; the app opens no database connection
    while it is made (tests/web/test_crowd_path.py), so a replaced worker serves at once.
    """
    with open(log, "w") as out:
        return subprocess.Popen(
            [str(Path(sys.executable).with_name("gunicorn")), "--workers", str(workers), "--preload",
             "--bind", f"fd://{sock.fileno()}", *options, "annotator:create_app()"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, pass_fds=(sock.fileno(),))


def wait_until_serving(port: int, process: subprocess.Popen, log: Path, seconds: float = 60) -> None:
    """Until the server answers an HTTP request (any status). The port accepts connections from the start
    (the test's socket listens), so only an answer tells that a worker is up."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"gunicorn exited with {process.returncode}: {log.read_text()}")
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        try:
            conn.request("GET", "/login")
            conn.getresponse().read()
            return
        except OSError:
            time.sleep(0.1)
        finally:
            conn.close()
    pytest.fail(f"gunicorn did not answer within {seconds:.0f} s: {log.read_text()}")
