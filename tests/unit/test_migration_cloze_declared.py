"""Migration 0021_cloze_declared carries frozen copies of the ReCAM definition and of the bridge's mapping (a
migration must not change with the app); while the app's own are those of the switch, the copies equal them: the
definition a declared import stores (with and without selection settings), each kept vote's rows and answer as the
declared engine checks the converted answer, the API shapes' answers (evidence inside a word, with white space at
an edge, between a letter and its combining mark), and a known answer."""
from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from annotator.declared.items import load_definition
from annotator.shared_tasks.recam2021 import bridge
from annotator.shared_tasks.recam2021.exchange import selection_definition
from annotator.shared_tasks.recam2021.selection_rule import RECAM_SELECTION
from tests.support.api_answer_shapes import first_item_payload, shapes_of
from tests.support.before_one_engine_projects import kept_votes

MIGRATION = Path(__file__).resolve().parents[2] / "migrations" / "versions" / "0021_cloze_declared.py"
DEFINITION = load_definition(bridge.DEFINITION)
SHAPES = shapes_of("cloze")["projects"][0]


def in_order(rows: list) -> list[tuple[str, str, str]]:
    """Label rows as (unit, field, value), in the order the declared engine gives them (the order they are stored)."""
    return [(row.unit, row.field, row.value) for row in rows]


@pytest.fixture(scope="module")
def migration() -> ModuleType:
    spec = importlib.util.spec_from_file_location("cloze_declared_migration", MIGRATION)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _frozen_rows(migration: ModuleType, payload: dict, answer: dict) -> list[tuple[str, str, str]]:
    def span(value: list[int] | None) -> str:
        return "" if value is None else f"{value[0]}:{value[1]}"
    fields = {"option": str(answer["option"]), "difficulty": answer["difficulty"],
              "passage_span": span(answer["passage_span"]), "question_span": span(answer["question_span"])}
    return migration.vote_rows(fields, payload)


def test_the_frozen_definition_is_the_one_a_new_declared_import_stores(migration: ModuleType) -> None:
    assert migration.DEFINITION == DEFINITION.to_data()
    assert migration.definition_for({}) == selection_definition({})


def test_selection_settings_become_the_rule_parameters_as_a_declared_import_makes_them(migration: ModuleType) -> None:
    settings = {"min_accuracy": 0.6, "require_spans": False, "easy_must_be_right": True, "keep_share": 0.5,
                "majority_share": 0.5}
    frozen = migration.definition_for(settings)
    assert frozen == selection_definition(settings)
    assert frozen["questions"][0]["gold"]["min_accuracy"] == 0.6 and "keep_share" not in frozen["questions"][0]["gold"]
    # the downgrade reads the parameters back as the built-in's settings
    assert migration.selection_settings(frozen) == {"min_accuracy": 0.6, "require_spans": False}
    assert migration.selection_settings(migration.DEFINITION) == {}


def test_the_frozen_selection_defaults_are_the_rule_s(migration: ModuleType) -> None:
    assert migration.SELECTION_DEFAULTS == {p.key: p.default for p in RECAM_SELECTION.parameters}


def test_each_kept_vote_s_frozen_rows_and_answer_are_the_bridge_s(app, migration: ModuleType) -> None:
    votes = kept_votes("cloze-demo")
    assert len(votes) > 10 and any(answer["passage_span"] is None for _, answer, _ in votes)
    for payload, answer, rows in votes:
        stored, checked = bridge.map_vote(DEFINITION, payload, answer)
        fields = {field: value for _, field, value in rows}
        assert migration.vote_rows(fields, payload) == in_order(checked), payload["id"]
        assert migration.declared_answer(answer) == stored


@pytest.mark.parametrize("case", SHAPES["accepted"], ids=[c["why"] for c in SHAPES["accepted"]])
def test_an_accepted_api_answer_s_frozen_rows_are_the_bridge_s(app, migration: ModuleType, case: dict) -> None:
    payload = first_item_payload(SHAPES)
    stored, checked = bridge.map_vote(DEFINITION, payload, case["answer"])
    assert _frozen_rows(migration, payload, case["answer"]) == in_order(checked)
    assert migration.declared_answer(case["answer"]) == stored


def test_evidence_by_a_combining_mark_or_white_space_maps_as_the_bridge_maps_it(app, migration: ModuleType) -> None:
    question = "The cafe\u0301 \U0001f44d\U0001f3fd opened its @placeholder ."   # an accent, a thumb with its tone
    payload = {**first_item_payload(SHAPES), "question": question}
    accent = payload["question"].index("\u0301")
    for span in ([4, accent], [3, accent + 3], [accent + 1, accent + 3]):
        answer = {"option": 2, "passage_span": None, "question_span": span, "difficulty": "easy"}
        _, checked = bridge.map_vote(DEFINITION, payload, answer)
        assert _frozen_rows(migration, payload, answer) == in_order(checked), span


def test_the_frozen_known_answer_mapping_is_the_bridge_s(migration: ModuleType) -> None:
    for known in ({"label": 0}, {"label": 3}):
        assert migration.declared_reference(known) == bridge.map_reference(known)


def test_the_downgrade_reads_each_mapped_vote_back_as_the_built_in_stored_it(migration: ModuleType) -> None:
    for payload, answer, rows in kept_votes("cloze-demo"):
        fields = {field: value for _, field, value in rows}
        mapped = migration.vote_rows(fields, payload)
        assert migration.built_in_fields(mapped) == fields
        assert migration.built_in_answer(migration.declared_answer(answer)) == answer
