"""Faults during an import: interrupted half way (after the items, before the rest), nothing is left."""
from __future__ import annotations

import pytest
from sqlalchemy import func, select

from annotator.campaigns import imports
from annotator.core.extensions import db
from annotator.core.models import Item, Project
from tests.conftest import DATA, load_project


@pytest.mark.parametrize("fault", [KeyboardInterrupt, MemoryError, OSError])
def test_an_import_interrupted_after_its_items_leaves_nothing(app, monkeypatch, fault):
    def interrupted(*args, **kwargs):  # type: ignore[no-untyped-def]
        db.session.flush()  # the items are in the database's transaction by now
        assert db.session.scalar(select(func.count()).select_from(Item)) > 0
        raise fault("interrupted")
    monkeypatch.setattr(imports, "add_data", interrupted)
    with pytest.raises(fault):
        load_project("kpa2021", DATA / "kpa2021", "kpa", split="test")
    db.session.remove()
    assert db.session.scalar(select(func.count()).select_from(Project)) == 0
    assert db.session.scalar(select(func.count()).select_from(Item)) == 0


def test_the_same_import_runs_again_after_an_interruption(app, monkeypatch):
    with monkeypatch.context() as patch:
        patch.setattr(imports, "add_data", lambda *a, **k: (_ for _ in ()).throw(KeyboardInterrupt()))
        with pytest.raises(KeyboardInterrupt):
            load_project("kpa2021", DATA / "kpa2021", "kpa", split="test")
    db.session.remove()
    project = load_project("kpa2021", DATA / "kpa2021", "kpa", split="test")
    assert db.session.scalar(select(func.count()).where(Item.project_id == project.id)) == 26


def test_an_import_interrupted_between_its_batches_leaves_nothing(app, monkeypatch):
    """A large import is stored in batches, all in one transaction: stopped after some of them, none is kept."""
    from annotator.campaigns import projects
    monkeypatch.setattr(projects, "ITEM_BATCH", 5)
    stored_batches = []
    add_batch = projects._add_batch

    def interrupted_after_two(*args, **kwargs):  # type: ignore[no-untyped-def]
        if len(stored_batches) == 2:
            db.session.flush()
            assert db.session.scalar(select(func.count()).select_from(Item)) == 10
            raise KeyboardInterrupt()
        add_batch(*args, **kwargs)
        stored_batches.append(1)
    monkeypatch.setattr(projects, "_add_batch", interrupted_after_two)
    with pytest.raises(KeyboardInterrupt):
        load_project("kpa2021", DATA / "kpa2021", "kpa", split="test")
    db.session.remove()
    assert db.session.scalar(select(func.count()).select_from(Project)) == 0
    assert db.session.scalar(select(func.count()).select_from(Item)) == 0
