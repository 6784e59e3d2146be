"""A RuArg-2022 project imported today and given the votes and decisions of a kept project gives the files the
built-in stance_premise type gave for them, byte for byte.

This is what the tests that imported a built-in project beside a declared one compared (tests/cli/
test_ruarg2022_declared_projects.py, test_ruarg2022_declared_parity.py, test_ruarg2022_declared_claims.py), now that
the built-in type is gone (docs/one-engine.md): the kept outputs of tests/data/before_one_engine_ruarg and of the demo
database's `stance-demo` (tests/data/before_one_engine) stand in for the built-in project. Each kept project is made
again (tests/support/kept_ruarg.py: its file imported with its settings as import options, its premise stage made
from its stance stage, its votes sent in the built-in answer shape, its decisions taken) and asked for the task's
three files (with and without --include-incomplete), the scoring gold and `flask stats`: the stage "both" with m 2
and with the test set's 3 of 4 and an admin's decision, other claims, a Russian stance stage with its premise stage
joined (either stage exported), and control items. `flask agreement` is held to the kept figures in the built-in's
names as the upgrade test reads them (tests/lifecycle/test_upgrade_keeps_ruarg_exports.py).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from tests.support.before_one_engine import Step, run_step
from tests.support.kept_ruarg import KEPT_RUARG, kept_file, kept_steps, remake

PROJECTS = ("stance-demo", "ru-m3", "ru-claims", "ru-stance", "ru-premise")
COMPARED = ("ruarg2022", "ruarg2022--include-incomplete", "scoring", "stats")
CASES = [(slug, step["name"]) for slug in PROJECTS for step in kept_steps(slug) if step["name"] in COMPARED]
# what else was there when the kept project gave its outputs: a stance stage's export joins its premise stage
MADE_WITH = {"ru-stance": "ru-premise"}


def _step(slug: str, name: str) -> dict[str, Any]:
    return next(step for step in kept_steps(slug) if step["name"] == name)


def _run(app: Flask, slug: str, name: str, out: Path) -> dict[str, Any]:
    return run_step(app, app.test_client(), slug, Step.from_json(_step(slug, name)), out)


@pytest.mark.parametrize(("slug", "name"), CASES, ids=[f"{slug}-{name}" for slug, name in CASES])
def test_each_output_is_the_one_the_built_in_type_gave_for_the_same_votes(app: Flask, tmp_path: Path, slug: str,
                                                                          name: str) -> None:
    remake(MADE_WITH.get(slug, slug))
    kept = _step(slug, name)
    result = _run(app, slug, name, tmp_path / "out")
    files = result.pop("files")
    assert result == {k: v for k, v in kept.items() if k not in ("name", "kind", "args", "files")}
    assert sorted(files) == sorted(kept["files"])
    for path, content in files.items():
        assert content == kept_file(slug, name, path), f"{slug} {name} {path}"


def test_either_stage_of_the_kept_pair_exports_the_two_joined(app: Flask, tmp_path: Path) -> None:
    """The premise stage's kept files are the two stages joined; the stance stage, asked, writes the same."""
    remake("ru-premise")
    result = run_step(app, app.test_client(), "ru-stance",
                      Step("ruarg2022", "cli", ("export", "ruarg2022", "--project", "ru-stance")), tmp_path / "out")
    assert result["exit_code"] == 0
    assert {path: content for path, content in result["files"].items()} == \
        {path: kept_file("ru-premise", "ruarg2022", path) for path in _step("ru-premise", "ruarg2022")["files"]}


@pytest.mark.parametrize("slug", ["ru-m3", "ru-claims", "ru-stance", "ru-premise"])
def test_the_agreement_is_the_kept_one_in_the_built_in_s_names(app: Flask, tmp_path: Path, slug: str) -> None:
    from tests.lifecycle.test_upgrade_keeps_ruarg_exports import _agreement_in_built_in_terms
    remake(MADE_WITH.get(slug, slug))
    result = _run(app, slug, "agreement", tmp_path / "out")
    assert result["exit_code"] == 0
    said = _agreement_in_built_in_terms(slug, result["files"]["stdout.txt"])
    assert json.loads(said) == json.loads((KEPT_RUARG / "exports" / slug / "agreement" / "stdout.txt")
                                          .read_text(encoding="utf-8"))
