"""Each HIT type, file format and scorer lives in its own modules; shared code reads their declarations.

These tests are the `grep` of the recipe of docs/architecture.md ("Adding a HIT type"): no shared Python module,
template, script or stylesheet names a registered task type, format or scorer, so adding one never needs a shared file
to change. A type's own files are: tasks/<type>.py and tasks/<type>_*.py, templates/hits/<type>.html,
templates/admin/items/<type>.html, static/js/<type>.js, static/css/<type>.css; a shared task's own files
are its folder, shared_tasks/<task>/, which holds its formats and its scorer.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from annotator.declared.named_rules import named_rules
from annotator.lookups.formats import FORMATS
from annotator.lookups.scorers import SCORERS
from annotator.plugins.registry import SHARED_TASKS
from annotator.tasks import TASK_TYPES, task_type

ROOT = Path(__file__).resolve().parents[2]
SHARED_SUFFIXES = (".py", ".html", ".js", ".css")


def own_files() -> set[Path]:
    files: set[Path] = set()
    for name in TASK_TYPES:
        files |= set((ROOT / "annotator" / "tasks").glob(f"{name}_*.py"))
        files |= {ROOT / "annotator" / "tasks" / f"{name}.py", ROOT / "templates" / "hits" / f"{name}.html",
                  ROOT / "templates" / "admin" / "items" / f"{name}.html", ROOT / "static" / "js" / f"{name}.js",
                  ROOT / "static" / "css" / f"{name}.css"}
    files |= set((ROOT / "annotator" / "declared").rglob("*.py"))  # the custom type's package (declared campaigns)
    files.add(ROOT / "annotator" / "web" / "declared_projects.py")  # and its admin pages (a project from a definition)
    for folder in shared_task_folders():
        files |= set(folder.rglob("*.py"))
    return files


def shared_task_folders() -> set[Path]:
    """The folders under annotator/shared_tasks/ that declare a registered format or scorer."""
    modules = [fmt.load.__module__ for fmt in FORMATS.values()] + [s.read_gold.__module__ for s in SCORERS.values()]
    return {ROOT.joinpath(*module.split(".")[:3]) for module in modules}


def shared_files() -> list[Path]:
    own = own_files()
    found = [p for folder in ("annotator", "templates", "static") for p in (ROOT / folder).rglob("*")
             if p.suffix in SHARED_SUFFIXES and p.is_file() and p not in own and "__pycache__" not in p.parts
             and "vendor" not in p.parts]  # third-party code served as is (static/vendor), not the app's
    return sorted(found)


def test_no_shared_file_names_a_task_type_format_or_scorer() -> None:
    names = sorted({*TASK_TYPES, *FORMATS, *SCORERS, *SHARED_TASKS, *named_rules()})
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b", re.IGNORECASE)
    offenders = [f"{path.relative_to(ROOT)}:{n}: {line.strip()[:100]}"
                 for path in shared_files()
                 for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]
    assert offenders == [], "shared code names a type:\n" + "\n".join(offenders)


def test_the_check_reads_the_shared_code_it_means() -> None:
    shared = {p.relative_to(ROOT).as_posix() for p in shared_files()}
    assert {"annotator/engine/assignment.py", "annotator/web/admin.py", "annotator/cli/data.py", "templates/base.html",
            "static/js/hit.js", "static/style.css"} <= shared
    assert not any(p.startswith("annotator/tasks/") and not p.endswith(("base.py", "__init__.py")) for p in shared)
    assert {"annotator/lookups/formats.py", "annotator/lookups/scorers.py"} <= shared


def test_every_format_and_scorer_lives_in_a_shared_task_folder() -> None:
    modules = [fmt.load.__module__ for fmt in FORMATS.values()] + [s.read_gold.__module__ for s in SCORERS.values()]
    assert all(m.startswith("annotator.shared_tasks.") and m.count(".") == 3 for m in modules), modules


@pytest.mark.parametrize("name", sorted(TASK_TYPES))
def test_every_task_type_has_its_template_and_a_format_that_feeds_it(name: str) -> None:
    task = task_type(name)
    assert (ROOT / "templates" / task.template).is_file()
    assert any(f.task == name for f in FORMATS.values()), f"no file format imports {name} projects"
    assert task.default_k >= 1 and task.title


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_every_format_names_a_registered_task_type_and_scorer(name: str) -> None:
    fmt = FORMATS[name]
    assert fmt.task in TASK_TYPES
    assert fmt.reads in ("file", "folder")
    assert fmt.scorer is None or (fmt.scorer in SCORERS and fmt.scoring_gold is not None)
