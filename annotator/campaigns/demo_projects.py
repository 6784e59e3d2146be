"""The demo campaigns' manifest (annotator/campaigns/demo/projects.json): what `flask demo` loads and what the
admin's demo page lists, one project per built-in HIT type."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Project

DEMO = Path(__file__).resolve().parent / "demo"
DEMO_ANNOTATORS = ("annotator1", "annotator2", "annotator3")


def demo_projects() -> list[dict[str, Any]]:
    """Each demo project's entry: slug, name, format, path, options, k, guidelines, purpose, complete, notice."""
    projects: list[dict[str, Any]] = json.loads((DEMO / "projects.json").read_text(encoding="utf-8"))["projects"]
    return projects


def loaded_demo_projects() -> list[tuple[dict[str, Any], Project]]:
    """The demo projects that exist in the database, in the manifest's order, each with its entry."""
    specs = demo_projects()
    found = {p.slug: p for p in db.session.scalars(select(Project).where(Project.slug.in_([s["slug"] for s in specs])))}
    return [(spec, found[spec["slug"]]) for spec in specs if spec["slug"] in found]
