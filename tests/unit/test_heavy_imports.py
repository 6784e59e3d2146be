"""A server worker starts without the statistics libraries: only the pages that compute agreement,
Bradley-Terry or a score load them (issue 12: each worker held ~200 MB, half of it these)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("scipy", "statsmodels", "sklearn", "krippendorff")


def test_create_app_imports_no_statistics_library(tmp_path: Path) -> None:
    code = ("import json, sys\nfrom annotator import create_app\ncreate_app()\n"
            f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))")
    env = {**os.environ, "SECRET_KEY": "x", "DATABASE_URL": f"sqlite:///{tmp_path / 'a.db'}",
           "ANNOTATOR_INSTANCE": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          check=True)
    assert json.loads(done.stdout.splitlines()[-1]) == []
