"""What every part of the benchmark shares: paths, the one time budget, and running a command in it."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = Path(__file__).resolve().parent
SLUG = "bench"
HOST = "127.0.0.1"
POSTGRES_URL = os.environ.get("BENCH_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
POSTGRES_LIBPQ_URL = POSTGRES_URL.replace("+psycopg", "", 1)  # the same, as psycopg.connect takes it
AIM_SUBMITS_PER_S, AIM_P99_MS = 300.0, 100.0


def with_search_path(url: str, schema: str) -> str:
    """`url` with `schema` as its search_path, keeping the query it has: `?host=/var/run/postgresql` (a Unix
    socket) stays, and `options` of its own get the search_path added. Shared with the test suite's
    fixtures (tests/conftest.py), which make their private schemas the same way."""
    from sqlalchemy.engine import make_url
    parsed = make_url(url)
    options = " ".join(filter(None, [parsed.query.get("options"), f"-csearch_path={schema}"]))
    return parsed.update_query_dict({"options": options}).render_as_string(hide_password=False)


class SetupError(RuntimeError):
    """Something the benchmark needs could not be set up (exit status 2)."""


class Timeout(RuntimeError):
    """The global time budget ran out (exit status 2)."""


class Deadline:
    """One global time budget; every wait in the script takes what is left of it."""

    def __init__(self, seconds: float) -> None:
        self.at = time.monotonic() + seconds

    def left(self, what: str = "the benchmark") -> float:
        left = self.at - time.monotonic()
        if left <= 0:
            raise Timeout(f"global timeout reached during {what}")
        return left


def venv_tool(name: str) -> list[str]:
    """The console script next to this Python (the project's venv), else `python -m name`."""
    script = Path(sys.executable).parent / name
    return [str(script)] if script.exists() else [sys.executable, "-m", name]


def run(cmd: list[str], env: dict[str, str], deadline: Deadline, what: str) -> str:
    """Run a set-up command from the repository root; its stdout, or SetupError with its output."""
    try:
        done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=False,
                              timeout=deadline.left(what))
    except subprocess.TimeoutExpired:
        raise Timeout(f"global timeout reached during {what}") from None
    if done.returncode != 0:
        raise SetupError(f"{what} failed ({' '.join(cmd)}):\n{done.stdout}{done.stderr}")
    return done.stdout
