"""Migration 0022_stance_premise_declared carries frozen copies of RuArg-2022's three definitions and of the
bridge's mapping (a migration must not change with the app); while the app's own are those of the switch, the
copies equal them: the definition a declared import of the same settings stores (each stage, m, claims, language),
each kept vote's rows and answer as the declared engine checks the converted answer, the recorded API answers of
both stages, premise-stage votes, and the file's known answers. The downgrade's readers give each back."""
from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from annotator.declared.definition_reader import definition_from_data
from annotator.shared_tasks.ruarg2022 import bridge
from annotator.shared_tasks.ruarg2022.claims import file_data
from annotator.shared_tasks.ruarg2022.declared_projects import definition_for, known_answer, premise_known_answer
from annotator.shared_tasks.ruarg2022.files import read_file
from tests.conftest import DATA
from tests.support.api_answer_shapes import first_item_payload, shapes_of
from tests.support.before_one_engine_projects import kept_votes

MIGRATION = Path(__file__).resolve().parents[2] / "migrations" / "versions" / "0022_stance_premise_declared.py"
SHAPES = shapes_of("stance_premise")["projects"]
OTHER_CLAIMS = [{"key": "masks", "en": "Masks help", "ru": "Маски помогают"},
                {"key": "school", "en": "Schools should stay open", "ru": "Школы должны работать"}]


@pytest.fixture(scope="module")
def migration() -> ModuleType:
    spec = importlib.util.spec_from_file_location("stance_premise_declared_migration", MIGRATION)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def in_order(rows: list[Any]) -> list[tuple[str, str, str]]:
    return [(row.unit, row.field, row.value) for row in rows]


def app_definition(settings: dict[str, Any]) -> dict[str, Any]:
    """What a declared import of these built-in settings stores (declared_projects.definition_for)."""
    return definition_for(settings.get("stage", "both"), settings.get("agree", 2), settings.get("relevant_votes", 2),
                          settings.get("language", "en"), settings.get("claims"))


@pytest.mark.parametrize("stage", ["both", "stance", "premise"])
def test_the_frozen_definitions_are_the_files(migration: ModuleType, stage: str) -> None:
    assert migration.FILES[stage] == file_data(stage)
    assert migration.definition_for({"stage": stage}) == app_definition({"stage": stage})


SETTINGS = [{"stage": stage, "agree": agree, "relevant_votes": votes, "language": language, "claims": claims}
            for stage in ("both", "stance", "premise") for agree, votes in ((2, 2), (3, 2), (3, 3))
            for language in ("en", "ru") for claims in (None, OTHER_CLAIMS)]


@pytest.mark.parametrize("settings", SETTINGS, ids=[
    f"{s['stage']}-m{s['agree']}-r{s['relevant_votes']}-{s['language']}-{'own' if s['claims'] else 'file'}-claims"
    for s in SETTINGS])
def test_the_settings_make_the_definition_a_declared_import_makes(migration: ModuleType, settings: dict) -> None:
    given = {key: value for key, value in settings.items() if value is not None}
    frozen = migration.definition_for(given)
    assert frozen == app_definition(settings)
    # the downgrade reads the settings back: the same definition again
    back = migration.built_in_settings(frozen)
    assert back is not None and migration.definition_for(back) == frozen
    assert back.get("stage", "both") == settings["stage"] and back.get("agree", 2) == settings["agree"]


def test_claims_given_as_the_settings_page_s_text_are_read_as_the_list(migration: ModuleType) -> None:
    text = "masks | Masks help | Маски помогают\nschool | Schools should stay open"
    assert migration.claim_settings(text) == [OTHER_CLAIMS[0], {"key": "school", "en": "Schools should stay open",
                                                                "ru": "Schools should stay open"}]


def test_a_definition_of_another_campaign_is_not_read_as_a_built_in_one(migration: ModuleType) -> None:
    edited = migration.definition_for({})
    edited["k"] = 5
    assert migration.built_in_settings(edited) is None
    assert migration.built_in_settings({"name": "x", "questions": [{"id": "q", "kind": "choice"}]}) is None


def test_each_kept_vote_s_frozen_rows_and_answer_are_the_bridge_s(app, migration: ModuleType) -> None:
    votes = kept_votes("stance-demo")
    definition = definition_from_data(app_definition({}))
    assert len(votes) > 10
    for payload, answer, rows in votes:
        stored, checked = bridge.map_vote(definition, payload, answer, {})
        assert migration.vote_rows("both", rows, ["masks", "quarantine", "vaccines"]) == in_order(checked)
        assert migration.declared_answer("both", answer, ["masks", "quarantine", "vaccines"]) == stored


@pytest.mark.parametrize("setup", range(len(SHAPES)))
def test_each_recorded_api_answer_s_frozen_rows_and_answer_are_the_bridge_s(app, migration: ModuleType,
                                                                            setup: int) -> None:
    shapes = SHAPES[setup]
    stage = "stance" if any(list(c) == ["stance"] for case in shapes["accepted"]
                            for c in case["answer"]["claims"].values()) else "both"
    definition = definition_from_data(app_definition({"stage": stage}))
    payload = first_item_payload(shapes)
    for case in shapes["accepted"]:
        stored, checked = bridge.map_vote(definition, payload, case["answer"], {"stage": stage})
        rows = [tuple(row) for row in case["labels"]]
        claims = ["masks", "quarantine", "vaccines"]   # the project's, whatever order the answer gives them in
        assert migration.vote_rows(stage, rows, claims) == in_order(checked), case["why"]
        assert migration.declared_answer(stage, case["answer"], claims) == stored, case["why"]


def test_a_premise_stage_vote_maps_as_the_bridge_maps_it_on_the_item_s_claims(app, migration: ModuleType) -> None:
    settings = {"stage": "premise", "stance_project": "st", "claims": OTHER_CLAIMS}
    definition = definition_from_data(app_definition(settings))
    payload = {"id": "17024", "text": "Маски помогают.", "claims": ["school"]}
    answer = {"claims": {"school": {"premise": 0}}}
    stored, checked = bridge.map_vote(definition, payload, answer, settings)
    asked = migration.asked_claims("premise", payload, migration.claim_keys(settings))
    assert asked == ["school"]
    assert migration.vote_rows("premise", [("school", "premise", "0")], ["masks", "school"]) == in_order(checked)
    assert migration.declared_answer("premise", answer, asked) == stored == {"school_premise": "0"}


def test_the_file_s_known_answers_map_as_a_declared_import_stores_them(migration: ModuleType) -> None:
    rows = [row for row in read_file(DATA / "ruarg2022" / "train_excerpt.tsv").rows if row.labels]
    assert len(rows) > 5
    for row in rows:
        reference = {claim: {"stance": stance, "premise": premise}
                     for claim, (stance, premise) in row.labels.items()}
        assert migration.declared_reference("both", reference) == known_answer(reference)
        assert migration.declared_reference("stance", reference) == known_answer(reference)
        assert migration.built_in_reference("both", known_answer(reference)) == reference
        relevant = {claim: codes["premise"] for claim, codes in reference.items() if codes["stance"] != -1}
        if relevant:
            premises = {claim: {"premise": code} for claim, code in relevant.items()}
            assert migration.declared_reference("premise", premises) == premise_known_answer(relevant)
            assert migration.built_in_reference("premise", premise_known_answer(relevant)) == premises


def test_a_stance_stage_control_s_known_answer_comes_back_without_premises(migration: ModuleType) -> None:
    drawn = {"masks": {"stance": 2}, "quarantine": {"stance": -1}, "vaccines": {"stance": -1}}
    declared = migration.declared_reference("stance", drawn)
    assert declared == {"claims": {"masks": {"relevance": "relevant", "stance": "2"},
                                   "quarantine": {"relevance": "irrelevant"}, "vaccines": {"relevance": "irrelevant"}}}
    assert migration.built_in_reference("stance", declared, labelled=False) == drawn
    every_irrelevant = {claim: {"stance": -1} for claim in drawn}   # a project of a file without labels
    assert migration.built_in_reference("stance", migration.declared_reference("stance", every_irrelevant),
                                        labelled=False) == every_irrelevant


def test_the_downgrade_reads_each_mapped_vote_back_as_the_built_in_stored_it(migration: ModuleType) -> None:
    claims = ["masks", "quarantine", "vaccines"]
    for _, answer, rows in kept_votes("stance-demo"):
        # rows.json keeps a vote's rows sorted; the built-in stored them claim by claim, stance then premise
        assert sorted(migration.built_in_rows("both", migration.vote_rows("both", rows, claims))) == sorted(rows)
        assert migration.built_in_answer("both", migration.declared_answer("both", answer, claims)) == answer


def test_a_claim_irrelevant_for_one_label_only_refuses_the_vote(migration: ModuleType) -> None:
    with pytest.raises(ValueError, match="claim 'masks' is irrelevant \\(-1\\) for one label but not the other"):
        migration.declared_answer("both", {"claims": {"masks": {"stance": -1, "premise": 2}}}, ["masks"])
    with pytest.raises(ValueError, match="is not a label row of stage 'stance'"):
        migration.vote_rows("stance", [("masks", "premise", "2")], ["masks"])
