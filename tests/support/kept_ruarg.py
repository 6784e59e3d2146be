"""The kept RuArg-2022 projects made again as today's code makes them: imported, voted and decided anew.

Why: the built-in stance_premise type is gone (docs/one-engine.md), so a test can no longer import a built-in project
beside a declared one and compare their files. What the built-in type gave out for a given set of votes is kept
instead: tests/data/before_one_engine_ruarg (a 3-of-4 project with an admin's decision and a control item, a
Russian stance stage with a control, its premise stage with a decision, a project about other claims) and the demo
database's `stance-demo` (tests/data/before_one_engine: stage "both", m 2). `remake` imports the project's file
with the kept project's settings as import options (`flask import ruarg2022 --stage ... --agree ...`), or makes the
premise stage from its remade stance stage (`flask premise-stage`), marks the kept control items, sends every kept
vote again in the answer shape the built-in type took (the bridge converts it) by an annotator of the kept name, and
takes the kept decisions; its outputs can then be held to the kept ones byte for byte.

The decisions and known answers go in as the definition takes them, written out here from the paper's terms (the
data set's -1 is "irrelevant", a code its text), not by the product's mapping.
"""
from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from sqlalchemy import select

from annotator.core.audit import who
from annotator.core.extensions import db
from annotator.core.models import Adjudication, Assignment, Item, Project, User
from annotator.engine import assignment as engine
from annotator.shared_tasks.ruarg2022.stages import create_premise_stage
from tests.conftest import DATA, TESTS, load_project
from tests.support.before_one_engine import ROWS, read_manifest

KEPT_RUARG = DATA / "before_one_engine_ruarg"
KEPT_DEMO = DATA / "before_one_engine"
DEMO_FILES = TESTS.parent / "annotator" / "campaigns" / "demo"
FOLDERS = {"ru-m3": KEPT_RUARG, "ru-claims": KEPT_RUARG, "ru-stance": KEPT_RUARG, "ru-premise": KEPT_RUARG,
           "stance-demo": KEPT_DEMO}
FILES = {"ru-m3": DATA / "ruarg2022" / "train_excerpt.tsv", "ru-claims": DATA / "ruarg2022" / "train_excerpt.tsv",
         "ru-stance": DATA / "ruarg2022" / "val_excerpt.tsv", "stance-demo": DEMO_FILES / "ruarg2022" / "demo.tsv"}


@functools.cache
def _rows(folder: Path) -> dict[str, list[Any]]:
    data: dict[str, list[Any]] = json.loads((folder / ROWS).read_text(encoding="utf-8"))
    return data


def kept_rows(slug: str, table: str) -> list[dict[str, Any]]:
    """The kept rows of `table` that belong to project `slug`."""
    return [row for row in _rows(FOLDERS[slug]).get(table, [])
            if row.get("slug") == slug or row.get("project") == slug
            or (isinstance(row.get("item"), list) and row["item"][0] == slug)]


def kept_project(slug: str) -> dict[str, Any]:
    [project] = kept_rows(slug, "projects")
    return project


def kept_steps(slug: str) -> list[dict[str, Any]]:
    """The outputs kept of project `slug`: each step with its exit code or status and its files."""
    steps: list[dict[str, Any]] = read_manifest(FOLDERS[slug])["projects"][slug]
    return steps


def kept_file(slug: str, step: str, path: str) -> bytes:
    return (FOLDERS[slug] / "exports" / slug / step / path).read_bytes()


def stage_of(slug: str) -> str:
    return str(kept_project(slug)["settings"].get("stage", "both"))


def _claim(codes: dict[str, int]) -> dict[str, str]:
    """A claim's codes as RuArg's questions: irrelevant (-1), or relevant with its codes as text."""
    if -1 in codes.values():
        return {"relevance": "irrelevant"}
    return {"relevance": "relevant", **{field: str(code) for field, code in codes.items()}}


def in_definition_terms(slug: str, answer: dict[str, Any]) -> dict[str, Any]:
    """A built-in decision or known answer as the definition's: per claim its relevance and codes as text, or at the
    premise stage one answer per claim's question."""
    claims = answer.get("claims", answer)
    if stage_of(slug) == "premise":
        return {f"{claim}_premise": str(codes["premise"]) for claim, codes in claims.items()}
    return {"claims": {claim: _claim(codes) for claim, codes in claims.items()}}


def _user(name: str) -> User:
    found = db.session.scalar(select(User).where(User.username == name))
    if found is None:
        found = User(username=name, role="annotator")
        db.session.add(found)
        db.session.commit()
    return found


def _vote(project: Project, user: User, external_id: str, answer: dict[str, Any]) -> None:
    """A vote of `user` on the item, leased and submitted through the engine as the API does."""
    item = db.session.scalars(select(Item).where(Item.project_id == project.id,
                                                 Item.external_id == external_id)).one()
    lease = Assignment(project_id=project.id, item_id=item.id, user_id=user.id,
                       expires_at=engine.utcnow() + engine.timedelta(minutes=5))
    db.session.add(lease)
    db.session.commit()
    engine.submit(lease.id, user, answer)


def _import(slug: str) -> Project:
    spec = kept_project(slug)
    settings = spec["settings"]
    if stage_of(slug) == "premise":
        stance = settings["stance_project"]
        if db.session.scalar(select(Project).where(Project.slug == stance)) is None:
            remake(stance)
        create_premise_stage(stance, slug, name=spec["name"], k=spec["k"], agree=settings.get("agree"), by=who())
        return db.session.scalars(select(Project).where(Project.slug == slug)).one()
    options = {key: settings[key] for key in ("stage", "agree", "relevant_votes", "language") if key in settings}
    if "claims" in settings:
        options["claims"] = "\n".join(f"{c['key']} | {c['en']} | {c['ru']}" for c in settings["claims"])
    return load_project("ruarg2022", FILES[slug], slug, name=spec["name"], k=spec["k"], **options)


def remake(slug: str) -> Project:
    """The kept project `slug` made again (see the module's docstring), committed."""
    project = _import(slug)
    items = {item.external_id: item for item in project.items}
    assert sorted(items) == sorted(row["external_id"] for row in kept_rows(slug, "items")), slug
    for row in kept_rows(slug, "items"):
        if row["is_control"]:
            items[row["external_id"]].is_control = True
            items[row["external_id"]].reference = in_definition_terms(slug, row["reference"])
    db.session.commit()
    votes = sorted(kept_rows(slug, "assignments"), key=lambda row: row["submitted_at"] or "")
    for row in votes:
        assert row["status"] == "submitted" and not row["excluded"], row
        _vote(project, _user(row["user"]), row["item"][1], row["answer"])
    for row in kept_rows(slug, "adjudications"):
        db.session.add(Adjudication(project_id=project.id, item_id=items[row["item"][1]].id,
                                    answer=in_definition_terms(slug, row["answer"])))
    db.session.commit()
    db.session.remove()
    return db.session.scalars(select(Project).where(Project.slug == slug)).one()
