"""Migration 0018_emphasis_declared carries frozen copies of the emphasis definition and of the bridge's mapping (a
migration must not change with the app); while the app's own are those of the switch, the copies equal them."""
from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from annotator.declared.bridge_base import LabelRow
from annotator.declared.items import load_definition
from annotator.shared_tasks.emphasis2020 import bridge

MIGRATION = Path(__file__).resolve().parents[2] / "migrations" / "versions" / "0018_emphasis_declared.py"


@pytest.fixture(scope="module")
def migration() -> ModuleType:
    spec = importlib.util.spec_from_file_location("emphasis_declared_migration", MIGRATION)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_frozen_definition_is_the_one_a_new_declared_import_stores(migration: ModuleType) -> None:
    assert migration.DEFINITION == load_definition(bridge.DEFINITION).to_data()


@pytest.mark.parametrize("tag", ["B", "I", "O"])
def test_the_frozen_label_mapping_is_the_bridges(migration: ModuleType, tag: str) -> None:
    expected = bridge.map_label("S_0_0", "bio", tag)
    frozen = (LabelRow("S_0_0", migration.QUESTION, migration.selected(tag)),
              LabelRow("S_0_0", migration.TAG_FIELD, tag))
    assert frozen == expected and migration.BUILT_IN_FIELD == bridge.BUILT_IN_FIELD


def test_the_frozen_answer_mapping_is_the_bridges(migration: ModuleType) -> None:
    tags = ["B", "I", "O", "B"]
    assert bridge.convert_answer({"tags": tags}, {"words": [{}] * 4}) == {migration.QUESTION: tags}
