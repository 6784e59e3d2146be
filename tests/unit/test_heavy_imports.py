"""A server worker starts without the heavy libraries: only the pages that compute agreement,
Bradley-Terry or a score load the statistics libraries, only the pages that build frames load pandas,
and only `flask db` loads Flask-Migrate and Alembic (issue 12: each worker held ~200 MB; < 120 MB wanted)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STATISTICS = ("scipy", "statsmodels", "sklearn", "krippendorff")
MIGRATIONS = ("flask_migrate", "alembic")
FRAMES = ("pandas", "numpy")
ARROW = ("pyarrow", "adbc_driver_manager", "adbc_driver_postgresql")


@pytest.fixture(scope="module")
def loaded_by_create_app(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    """The modules a fresh interpreter holds after `create_app()`, as a server worker starts (one process
    for the whole module: the interpreter's start is what costs)."""
    tmp_path = tmp_path_factory.mktemp("worker")
    code = "import json, sys\nfrom annotator import create_app\ncreate_app()\nprint(json.dumps(sorted(sys.modules)))"
    env = {**os.environ, "SECRET_KEY": "x", "DATABASE_URL": f"sqlite:///{tmp_path / 'a.db'}",
           "ANNOTATOR_INSTANCE": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          check=True)
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_create_app_imports_no_statistics_library(loaded_by_create_app: set[str]) -> None:
    assert [m for m in STATISTICS if m in loaded_by_create_app] == []


def test_create_app_imports_no_migration_library(loaded_by_create_app: set[str]) -> None:
    assert [m for m in MIGRATIONS if m in loaded_by_create_app] == []


def test_create_app_imports_neither_pandas_nor_numpy(loaded_by_create_app: set[str]) -> None:
    assert [m for m in FRAMES if m in loaded_by_create_app] == []


def test_create_app_imports_neither_arrow_nor_its_database_driver(loaded_by_create_app: set[str]) -> None:
    """Only reading a project's labels loads them (annotator/analysis/label_reader.py)."""
    assert [m for m in ARROW if m in loaded_by_create_app] == []


def test_the_check_sees_what_a_worker_loads(loaded_by_create_app: set[str]) -> None:
    """The list is of a started app, not an empty interpreter: Flask and SQLAlchemy are in it."""
    assert {"flask", "sqlalchemy", "annotator.web"} <= loaded_by_create_app
