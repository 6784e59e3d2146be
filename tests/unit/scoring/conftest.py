"""Shared fixtures of the scoring tests: where the public data and the excerpts are, and small file writers."""
from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SHARED_DATA, missing

REPO = Path(__file__).resolve().parents[3]

EXCERPTS = REPO / "tests" / "data" / "scoring"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "machine_dependent: the pinned value depends on numpy's sort kernels (CPU family, numpy build)")


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The public data of formats-and-scorers.md; reference tests skip when the folder is not there (under CI
    they fail: CI has it)."""
    if not SHARED_DATA.is_dir():
        missing(f"the shared data folder {SHARED_DATA} is absent (it sits next to the repository)")
    return SHARED_DATA


def avx2_sort_problem() -> str | None:
    """Why numpy here does not sort with the AVX2 kernels the pinned numbers came from, or None when it does."""
    import platform

    import numpy as np
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return f"numpy's AVX2 sort kernels are x86-64 only; this machine is {platform.machine()}"
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features
    except ImportError:
        return f"numpy {np.__version__} does not say which CPU features it dispatches to"
    # numpy 2.4 dispatches by level: the AVX2 kernels are its X86_V3 target, which can be off with AVX2 on.
    if not features.get("AVX2") or not features.get("X86_V3", True):
        return "this CPU (or NPY_DISABLE_CPU_FEATURES) gives numpy no AVX2, so its sort takes another kernel"
    return None


@pytest.fixture(scope="session")
def excerpts() -> Path:
    return EXCERPTS


def write_kpa_gold(folder: Path, arguments: list[tuple[str, str, int]], key_points: list[tuple[str, str, int]],
                   labels: list[tuple[str, str, int]], split: str = "dev") -> Path:
    """Write a KPA gold folder from (id, topic, stance) rows and (arg_id, key_point_id, label) rows."""
    folder.mkdir(parents=True, exist_ok=True)
    tables = {
        "arguments": (("arg_id", "argument", "topic", "stance"), [(a, f"text of {a}", t, s) for a, t, s in arguments]),
        "key_points": (("key_point_id", "key_point", "topic", "stance"),
                       [(k, f"text of {k}", t, s) for k, t, s in key_points]),
        "labels": (("arg_id", "key_point_id", "label"), labels),
    }
    for kind, (header, rows) in tables.items():
        with (folder / f"{kind}_{split}.csv").open("w", encoding="utf-8", newline="") as f:
            writer = csv.writer(f, lineterminator="\n")
            writer.writerow(header)
            writer.writerows(rows)
    return folder


def write_json(path: Path, obj: Any) -> Path:
    path.write_text(json.dumps(obj), encoding="utf-8")
    return path


@pytest.fixture
def kpa_gold(tmp_path: Path):
    """``kpa_gold(arguments, key_points, labels, split="dev")`` -> a gold folder in tmp_path."""
    return lambda *args, **kwargs: write_kpa_gold(tmp_path / "gold", *args, **kwargs)


@pytest.fixture
def json_file(tmp_path: Path):
    """``json_file(obj, name="predictions.json")`` -> the path of ``obj`` written as JSON."""
    return lambda obj, name="predictions.json": write_json(tmp_path / name, obj)
