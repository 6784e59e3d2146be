"""Declared-campaign projects for tests, made straight in the database (no import path involved).

Tests of the HIT, the gold rules and the exports use these; the import commands and pages have tests of their
own. `EVERY_KIND` (tests/data/declared/) uses every question kind.
"""
from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from annotator.campaigns.projects import add_items
from annotator.core.extensions import db
from annotator.core.models import Item, Project
from annotator.declared.definition import Definition
from annotator.declared.definition_reader import definition_from_file, definition_from_text
from annotator.tasks import NewItem
from tests.conftest import DATA

DECLARED = DATA / "declared"
EVERY_KIND = DECLARED / "every_kind.yaml"
EVERY_KIND_ITEMS = DECLARED / "items.jsonl"


def jsonl_bytes(rows: list[dict[str, Any]]) -> bytes:
    """Rows as an items file's bytes (JSON Lines, UTF-8)."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("utf-8")


def project_and_item_counts() -> tuple[int, int]:
    """How many projects and items the database holds, read in a fresh session (what a refusal must not change)."""
    db.session.remove()
    return (db.session.scalar(select(func.count()).select_from(Project)),
            db.session.scalar(select(func.count()).select_from(Item)))


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def read_definition(definition: str | Path) -> Definition:
    """The definition of a file or of YAML text, read once per process for the same text: PyYAML's pure-Python
    loader took 0.05-0.1 s a definition, which every declared project of a shared task's definition paid (a
    module comparing them made dozens). A file is known by its path and bytes, so an edited file is read again.
    The parse itself has tests of its own (tests/unit/test_declared_*.py, the definition-file tests)."""
    if isinstance(definition, Path):
        return _read_file(definition.resolve(), definition.read_bytes())
    return _read_text(definition)


@functools.cache
def _read_file(path: Path, content: bytes) -> Definition:
    return definition_from_file(path)


@functools.cache
def _read_text(text: str) -> Definition:
    return definition_from_text(text)


def make_declared_project(slug: str, definition: Definition | str | Path = EVERY_KIND,
                          items: list[dict[str, Any]] | None = None, k: int | None = None) -> Project:
    """A committed project of a declared campaign: `definition` is a Definition, YAML text or a file."""
    if not isinstance(definition, Definition):
        definition = read_definition(definition)
    rows = read_jsonl(EVERY_KIND_ITEMS) if items is None else items
    project = Project(slug=slug, name=definition.name, task_type="custom", k=k or definition.k or 3,
                      lease_minutes=30, guidelines=definition.guidelines, settings={},
                      source={"format": "custom"}, definition=copy.deepcopy(definition.to_data()))
    db.session.add(project)
    db.session.flush()
    add_items(project, [NewItem(str(row["id"]), {k: v for k, v in row.items()}) for row in rows])
    db.session.commit()
    return project
