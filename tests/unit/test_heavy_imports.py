"""A server worker starts without the heavy libraries: only the pages that compute agreement,
Bradley-Terry or a score load the statistics libraries, only the pages that build frames load pandas,
and only `flask db` loads Flask-Migrate and Alembic (issue 12: each worker held ~200 MB; < 120 MB wanted)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STATISTICS = ("scipy", "statsmodels", "sklearn", "krippendorff")
MIGRATIONS = ("flask_migrate", "alembic")
FRAMES = ("pandas", "numpy")
ARROW = ("pyarrow", "adbc_driver_manager", "adbc_driver_postgresql")


def _loaded_by_create_app(modules: tuple[str, ...], tmp_path: Path) -> list[str]:
    code = ("import json, sys\nfrom annotator import create_app\ncreate_app()\n"
            f"print(json.dumps([m for m in {modules!r} if m in sys.modules]))")
    env = {**os.environ, "SECRET_KEY": "x", "DATABASE_URL": f"sqlite:///{tmp_path / 'a.db'}",
           "ANNOTATOR_INSTANCE": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout.splitlines()[-1])


def test_create_app_imports_no_statistics_library(tmp_path: Path) -> None:
    assert _loaded_by_create_app(STATISTICS, tmp_path) == []


def test_create_app_imports_no_migration_library(tmp_path: Path) -> None:
    assert _loaded_by_create_app(MIGRATIONS, tmp_path) == []


def test_create_app_imports_neither_pandas_nor_numpy(tmp_path: Path) -> None:
    assert _loaded_by_create_app(FRAMES, tmp_path) == []


def test_create_app_imports_neither_arrow_nor_its_database_driver(tmp_path: Path) -> None:
    """Only reading a project's labels loads them (annotator/analysis/label_reader.py)."""
    assert _loaded_by_create_app(ARROW, tmp_path) == []
