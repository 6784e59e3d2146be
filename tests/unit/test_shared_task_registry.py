"""The shared-task registry (annotator/shared_tasks/registry.py): one SharedTask object per folder, found by one
discovery, from which every format, scorer, dataset table, named rule, command and admin page is reached.

A fake package of shared tasks written in tmp_path stands for a new shared task's folder: discovery finds it by
looking, and refuses two declarations of one name, or a part named wrongly, in words.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import click
import pytest
from flask import Flask

from annotator.core.plugins import discover
from annotator.declared.definition_reader import definition_from_file
from annotator.declared.named_rules import named_rules
from annotator.declared.rule_base import NamedRule
from annotator.lookups.formats import FORMATS, file_format, formats_of
from annotator.lookups.scorers import SCORERS, scorer
from annotator.plugins.registry import SHARED_TASKS, declared, shared_task
from annotator.plugins.shared_task import SharedTask
from annotator.shared_tasks.dataset_stats import STATS

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = sorted(p.parent.name for p in (ROOT / "annotator" / "shared_tasks").glob("*/__init__.py"))


def test_every_shared_task_folder_registers_one_object_by_its_own_name() -> None:
    assert FOLDERS == ["custom", "emphasis2020", "kpa2021", "recam2021", "ruarg2022"]
    assert list(SHARED_TASKS) == FOLDERS
    for name, task in SHARED_TASKS.items():
        assert task.package == f"annotator.shared_tasks.{name}"


def test_the_registries_hold_what_the_shared_tasks_declare() -> None:
    assert list(FORMATS) == ["custom", "emphasis2020", "kpa2021", "kpa2021-check", "kpa2021-compare", "recam2021",
                             "ruarg2022"]
    assert list(SCORERS) == ["emphasis2020", "kpa2021", "recam2021", "ruarg2022"]
    assert list(STATS) == ["emphasis2020", "kpa2021", "recam2021"]
    assert list(named_rules()) == ["recam_selection", "ruarg_consistency"]
    assert sorted(f.name for t in SHARED_TASKS.values() for f in formats_of(t)) == sorted(FORMATS)
    # the declared type: KPA's built-in types are gone
    assert {f.task for f in formats_of(shared_task("kpa2021"))} == {"custom"}


def test_the_lookups_by_name_work_and_name_the_known_ones_when_they_fail() -> None:
    assert file_format("recam2021").task == "custom"   # the declared type: the built-in cloze type is gone
    assert file_format("ruarg2022").task == "custom"   # and the built-in stance_premise type
    assert scorer("ruarg2022").metrics == ("f1_stance", "f1_premise")
    with pytest.raises(KeyError, match="unknown shared task 'recam2022'; known: custom, emphasis2020, kpa2021, "
                                       "recam2021, ruarg2022"):
        shared_task("recam2022")


def test_the_app_registers_each_shared_tasks_commands_and_pages(app: Flask) -> None:
    assert "premise-stage" in app.cli.commands
    assert {"premise_stage", "declared"} <= set(app.blueprints)
    rules = {rule.endpoint: rule.rule for rule in app.url_map.iter_rules()}
    assert rules["declared.new"] == "/admin/projects/declared/new"
    assert rules["premise_stage.show"] == "/admin/projects/<slug>/premise-stage"


def test_every_definition_a_shared_task_names_is_a_valid_definition() -> None:
    paths = [path for task in SHARED_TASKS.values() for path in task.definition_paths()]
    assert [f"{p.parent.name}/{p.name}" for p in paths] == [
        "emphasis2020/selection.yaml", "kpa2021/match.yaml", "kpa2021/match_check.yaml", "kpa2021/set_compare.yaml",
        "recam2021/cloze.yaml", "recam2021/cloze_selection.yaml", "ruarg2022/stance_premise.yaml",
        "ruarg2022/stance.yaml", "ruarg2022/premise.yaml"]
    for path in paths:
        assert definition_from_file(path).questions


def _fake_tasks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, folders: dict[str, str]) -> str:
    """A package `fake_tasks_<hex>` (a name of its own: Python keeps imported modules) in tmp_path with one
    subpackage per folder, its `__init__.py` the given text."""
    package = f"fake_tasks_{uuid.uuid4().hex}"
    root = tmp_path / package
    root.mkdir()
    (root / "__init__.py").write_text("")
    for folder, text in folders.items():
        (root / folder).mkdir()
        (root / folder / "__init__.py").write_text(textwrap.dedent(text))
    monkeypatch.syspath_prepend(str(tmp_path))
    return package


DECLARES = """\
    from annotator.plugins.shared_task import SharedTask
    SHARED_TASK = SharedTask(name={name!r}, title="A task", formats=("exchange:FORMAT",))
"""


def test_a_new_folder_is_found_by_looking_and_learns_its_package(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    package = _fake_tasks(tmp_path, monkeypatch, {"alpha": DECLARES.format(name="alpha"),
                                                  "helpers": '"""A folder that declares nothing is skipped."""\n'})
    found = discover(package, "SHARED_TASK", in_subpackages=True)
    assert list(found) == ["alpha"]
    assert found["alpha"].package == f"{package}.alpha"


def test_two_folders_declaring_one_name_are_refused_in_words(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = _fake_tasks(tmp_path, monkeypatch, {"alpha": DECLARES.format(name="twin"),
                                                  "beta": DECLARES.format(name="twin")})
    with pytest.raises(RuntimeError) as caught:
        discover(package, "SHARED_TASK", in_subpackages=True)
    assert str(caught.value) == (f"{package}.beta.SHARED_TASK and {package}.alpha.SHARED_TASK both declare the "
                                 "SHARED_TASK 'twin'; names must differ")


def test_two_shared_tasks_declaring_one_rule_name_are_refused_in_words() -> None:
    twin = SharedTask(name="other", title="Another task", package="annotator.shared_tasks.ruarg2022",
                      rules=("consistency_rule:RUARG_CONSISTENCY",))
    with pytest.raises(RuntimeError, match="shared task 'other' and shared task 'ruarg2022' both declare the named "
                                           "rule 'ruarg_consistency'; names must differ"):
        declared("named rule", [(task, r) for task in (shared_task("ruarg2022"), twin)
                                for r in task.load(task.rules, NamedRule, "named rule")])


def test_a_part_named_wrongly_is_refused_naming_the_task_and_the_reference(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    package = _fake_tasks(tmp_path, monkeypatch, {"alpha": DECLARES.format(name="alpha")})
    (tmp_path / package / "alpha" / "exchange.py").write_text("FORMAT = 'not a format'\n")
    task = discover(package, "SHARED_TASK", in_subpackages=True)["alpha"]
    with pytest.raises(RuntimeError, match=rf"shared task 'alpha': {package}.alpha.exchange:FORMAT is not a format "
                                           r"\(str\)"):
        formats_of(task)
    with pytest.raises(RuntimeError, match="shared task 'alpha': the command reference 'exchange' is not "
                                           "'module:attribute'"):
        task = SharedTask(name="alpha", title="A task", commands=("exchange",), package=f"{package}.alpha")
        task.load(task.commands, click.Command, "command")


def test_a_named_rule_gives_what_its_use_says() -> None:
    with pytest.raises(ValueError, match="named rule 'half': a gold rule gives gold, and only that"):
        NamedRule(name="half", title="Half a rule", paper="", used_as="gold", inputs=(), carrier=("choice",),
                  carrier_key="option")


# The modules an import may start from: the registries, the declared engine's hooks, the modules of each shared task
# that import the app's shared code (its package, exchanges, rules, pages, commands), the web and command-line code
# that reads the registries. Each is imported first in a forked process where no module of the project is loaded
# yet (only third-party and standard modules: the server asserts it before it forks), then the app is made.
FIRST_IMPORTS = [
    "annotator.plugins.registry", "annotator.lookups.formats", "annotator.lookups.scorers",
    "annotator.shared_tasks.dataset_stats", "annotator.declared.named_rules", "annotator.declared.definition_checks",
    "annotator.declared.gold", "annotator.web.declared_projects", "annotator.tasks", "annotator.tasks.custom",
    "annotator.campaigns.leaderboard", "annotator.campaigns.exports", "annotator.figures.kept_figures",
    "annotator.figures.kept_gold", "annotator.lookups.format_base", "annotator.web.admin",
    *(f"annotator.shared_tasks.{folder}" for folder in FOLDERS),
    *(f"annotator.shared_tasks.{folder}.{path.stem}" for folder in FOLDERS
      for path in sorted((ROOT / "annotator" / "shared_tasks" / folder).glob("*.py"))
      if path.stem.endswith(("exchange", "_rule", "_page", "_command"))),
]
CHILD = """\
import gc, importlib, os, sys
# the third-party imports, once, before the forks
import flask, flask_login, flask_sqlalchemy, flask_wtf, jinja2, numpy, pandas, sqlalchemy.orm, werkzeug.routing, yaml
PROJECT = {entry.name.removesuffix(".py") for entry in os.scandir(".")}  # annotator, config, tests, ...
failed, running = [], []


def ours(name):
    return name.split(".")[0] in PROJECT


def wait_one():
    pid, status = os.wait()
    name = dict(running)[pid]
    running.remove((pid, name))
    if status:
        failed.append(name)


def start(name, report=None):
    # Objects made before the fork stay out of the children's garbage collections (gc.freeze): a collection would
    # walk, and copy page by page, the whole heap of numpy and pandas in each child.
    gc.freeze()
    pid = os.fork()
    if pid == 0:
        try:
            before = set(sys.modules)
            importlib.import_module(name)
            import annotator
            annotator.create_app()
            if report is not None:
                with os.fdopen(report, "w") as out:
                    out.write("\\n".join(m for m in set(sys.modules) - before if not ours(m)))
        except BaseException as error:
            print(f"{name}: {type(error).__name__}: {error}", flush=True)
            os._exit(1)
        os._exit(0)
    running.append((pid, name))


# The first child also names the modules outside the project that the app loaded (the rest of the third-party
# libraries, the standard library's); they are imported here, once, so the other children only import the project.
first, *rest = sys.argv[1:]
read, write = os.pipe()
start(first, report=write)
os.close(write)
with os.fdopen(read, "rb") as pipe:
    loaded = pipe.read().decode().split()
wait_one()
for module in sorted(loaded):
    try:
        importlib.import_module(module)
    except Exception:  # a module that only imports after another one: the children import it themselves
        sys.modules.pop(module, None)
assert not [m for m in sys.modules if ours(m)], "a project module was imported before the forks"
for name in rest:
    if len(running) == 2:
        wait_one()
    start(name)
while running:
    wait_one()
print("FAILED", sorted(failed))
"""


def test_no_import_order_meets_a_cycle() -> None:
    """Whatever module of the registries, the declared engine or a shared task is imported first, the app starts."""
    assert {"annotator.shared_tasks.ruarg2022.stage_page", "annotator.shared_tasks.recam2021.selection_rule",
            "annotator.shared_tasks.kpa2021.check_exchange"} <= set(FIRST_IMPORTS)
    result = subprocess.run([sys.executable, "-c", CHILD, *FIRST_IMPORTS], capture_output=True, text=True,
                            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert result.stdout.strip().splitlines()[-1:] == ["FAILED []"], result.stdout + result.stderr
