"""Migration 0023_kpa_declared carries frozen copies of KPA-2021's three definitions and of the bridges' mappings (a
migration must not change with the app); while the app's own are those of the switch, the copies equal them: the
definition a declared import stores (with and without the rule settings), each kept vote's rows, answer and drawn
order as the declared engine checks the bridge's converted answer (every vote of the kept database's three
projects, and every answer the API took of each type), a comparison's known answer scored as the built-in scored
it, and the downgrade reading each back as the built-in stored it."""
from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

from annotator.declared.answers import check_answer
from annotator.declared.bridge_base import Bridge, bridges_of
from annotator.declared.controls import control_score
from annotator.declared.definition import Definition
from annotator.declared.item_view import viewed
from annotator.declared.items import load_definition
from annotator.plugins.registry import shared_task
from annotator.shared_tasks.kpa2021 import declared_rules
from tests.support.api_answer_shapes import first_item_payload, shapes_of
from tests.support.before_one_engine_projects import kept

MIGRATION = Path(__file__).resolve().parents[2] / "migrations" / "versions" / "0023_kpa_declared.py"
KPA = Path(__file__).resolve().parents[2] / "annotator" / "shared_tasks" / "kpa2021"
PROJECTS = {"kp_match": "kpa-demo", "kp_match_check": "kpa-check-demo", "kp_set_compare": "kpa-compare-demo"}
FROZEN = {"kp_match": "MATCH_DEFINITION", "kp_match_check": "CHECK_DEFINITION",
          "kp_set_compare": "COMPARE_DEFINITION"}


@pytest.fixture(scope="module")
def migration() -> ModuleType:
    spec = importlib.util.spec_from_file_location("kpa_declared_migration", MIGRATION)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _bridge(task_type: str) -> Bridge:
    return {bridge.task_type: bridge for bridge in bridges_of(shared_task("kpa2021"))}[task_type]


def _definition(task_type: str) -> Definition:
    return load_definition(KPA / _bridge(task_type).definition)


def _declared(task_type: str, payload: dict[str, Any], answer: Any,
              presentation: Any) -> tuple[dict[str, Any], list[tuple[str, str, str]], Any]:
    """The bridge's conversion checked by the declared engine: the stored answer, its rows in the order the engine
    gives (and stores) them, and the drawn order it is read with."""
    definition = _definition(task_type)
    converted, shown = _bridge(task_type).declared_answer(answer, payload, presentation)
    item = viewed(definition, SimpleNamespace(external_id=str(payload.get("id")), payload=payload))
    stored, rows = check_answer(definition, item.payload, converted, shown)
    return stored, [(row.unit, row.field, row.value) for row in rows], shown


def _kept_votes(slug: str) -> list[tuple[dict[str, Any], Any, Any, list[tuple[str, str, str]]]]:
    """Every submitted vote of a kept project: (payload, stored answer, presentation, its rows in stored order)."""
    payloads = {row["external_id"]: row["payload"] for row in kept("items", slug)}
    rows: dict[tuple[str, str], list[tuple[str, str, str]]] = {}
    for label in kept("labels", slug):
        rows.setdefault((label["item"][1], label["user"]), []).append((label["unit"], label["field"], label["value"]))
    return [(payloads[row["item"][1]], row["answer"], row["presentation"], rows[(row["item"][1], row["user"])])
            for row in kept("assignments", slug) if row["answer"] is not None]


def _frozen(migration: ModuleType, task_type: str, payload: dict[str, Any], answer: Any, presentation: Any,
            rows: list[tuple[str, str, str]]) -> tuple[Any, list[tuple[str, str, str]], Any]:
    """What the migration makes of one vote: the answer, the rows and the drawn order."""
    mapped = migration.declared_rows(task_type, [tuple(row) for row in rows], payload, presentation)
    if task_type == "kp_match":
        return migration.match_answer(answer, payload), mapped, presentation
    if task_type == "kp_set_compare":
        return migration.compare_answer(answer), mapped, migration.compare_presentation(presentation, payload)
    return answer, mapped, presentation


@pytest.mark.parametrize("task_type", sorted(FROZEN))
def test_the_frozen_definition_is_the_one_a_new_declared_import_stores(migration: ModuleType, task_type: str) -> None:
    assert getattr(migration, FROZEN[task_type]) == _definition(task_type).to_data()
    assert migration.definition_for(task_type, {}) == _definition(task_type).to_data()


def test_the_match_thresholds_become_the_share_rule_as_a_declared_import_writes_them(migration: ModuleType) -> None:
    settings = {"positive_threshold": 0.7, "negative_threshold": 0.2}
    frozen = migration.definition_for("kp_match", settings)
    assert frozen == declared_rules.match_definition(_definition("kp_match").to_data(), settings)
    assert frozen["questions"][0]["gold"] == {"rule": "share", "positive": 0.7, "negative": 0.2}
    # the downgrade reads the parameters back as the built-in's settings; the defaults as no settings
    assert migration.built_in_of(frozen) == ("kp_match", settings)
    assert migration.built_in_of(migration.MATCH_DEFINITION) == ("kp_match", {})


def test_the_check_s_tie_becomes_the_majority_s_ties_as_a_declared_import_writes_it(migration: ModuleType) -> None:
    frozen = migration.definition_for("kp_match_check", {"tie": "match", "map_variant": "plain-ap"})
    assert frozen == declared_rules.check_definition(_definition("kp_match_check").to_data(), {"tie": "match"})
    assert frozen["questions"][0]["gold"]["ties"] == "yes"
    assert migration.built_in_of(frozen) == ("kp_match_check", {"tie": "match"})
    assert migration.built_in_of(migration.CHECK_DEFINITION) == ("kp_match_check", {})


def test_a_tie_setting_the_built_in_did_not_know_is_refused_by_name(migration: ModuleType) -> None:
    with pytest.raises(ValueError, match="its tie setting 'sometimes' is not one of no_match, match"):
        migration.definition_for("kp_match_check", {"tie": "sometimes"})


def test_another_definition_is_not_taken_for_one_of_the_three(migration: ModuleType) -> None:
    edited = {**migration.COMPARE_DEFINITION, "k": 5}
    assert migration.built_in_of(edited) is None
    assert migration.built_in_of(load_definition(KPA.parent / "recam2021" / "cloze.yaml").to_data()) is None


@pytest.mark.parametrize("task_type", sorted(PROJECTS))
def test_each_kept_vote_s_frozen_rows_answer_and_order_are_the_bridge_s(app, migration: ModuleType,
                                                                         task_type: str) -> None:
    votes = _kept_votes(PROJECTS[task_type])
    assert len(votes) >= 9
    for payload, answer, presentation, rows in votes:
        stored, declared_rows, shown = _declared(task_type, payload, answer, presentation)
        assert _frozen(migration, task_type, payload, answer, presentation, rows) == (stored, declared_rows, shown)


def _api_cases(task_type: str) -> list[dict[str, Any]]:
    return list(shapes_of(task_type)["projects"][0]["accepted"])


@pytest.mark.parametrize(("task_type", "number"), [(t, n) for t in sorted(PROJECTS) for n in range(len(_api_cases(t)))])
def test_an_accepted_api_answer_s_frozen_rows_are_the_bridge_s(app, migration: ModuleType, task_type: str,
                                                               number: int) -> None:
    """Every answer the API took of the type, with the rows and drawn order the built-in stored for it; a kp_match
    answer ticking key points out of the item's order among them."""
    case = _api_cases(task_type)[number]
    payload = first_item_payload(shapes_of(task_type)["projects"][0])
    rows = [tuple(row) for row in case["labels"]]
    stored, declared_rows, shown = _declared(task_type, payload, case["stored_answer"], case.get("presentation"))
    frozen = _frozen(migration, task_type, payload, case["stored_answer"], case.get("presentation"), rows)
    assert frozen == (stored, declared_rows, shown), case["why"]


def test_a_match_answer_out_of_the_item_s_order_is_stored_in_it(migration: ModuleType) -> None:
    payload = {"key_points": [{"id": "kp_1"}, {"id": "kp_2"}, {"id": "kp_3"}]}
    assert migration.match_answer({"matches": ["kp_3", "kp_1"]}, payload) == {"matches": ["kp_1", "kp_3"]}
    assert migration.match_answer({"matches": []}, payload) == {"matches": []}


def test_a_vote_of_another_key_point_is_refused_naming_it(migration: ModuleType) -> None:
    payload = {"key_points": [{"id": "kp_1"}, {"id": "kp_2"}]}
    with pytest.raises(ValueError, match=r"not one \(key point, 'match', 1 / 0\) row for each of the item's key "
                                         r"points \(kp_1, kp_2\)"):
        migration.match_rows([("kp_1", "match", "1"), ("kp_9", "match", "0")], payload)


COMPARE_ITEM = {"id": "t1pro:alpha:beta", "topic": "We should abandon the use of school uniform", "stance": 1,
                "systems": ["alpha", "beta"],
                "summaries": {"alpha": [["Uniforms stop students expressing themselves", 0.6]],
                              "beta": [["Freedom matters", 0.6], ["Children dislike uniforms", 0.2]]}}


def _built_in_score(answer: dict[str, str], known: dict[str, Any], presentation: dict[str, str]) -> float:
    """The built-in comparison's control score: each known stance and comparison right or wrong, in system names."""
    system = {"A": presentation["a"], "B": presentation["b"], "equal": "equal"}
    checks = [answer[f"stance_{side}"] == known["stance"][presentation[side]] for side in ("a", "b")]
    checks += [system[answer[key]] == known[key] for key in ("less_redundant", "more_central")]
    return sum(checks) / len(checks)


@pytest.mark.parametrize("presentation", [{"a": "alpha", "b": "beta"}, {"a": "beta", "b": "alpha"}])
def test_a_comparison_s_known_answer_scores_each_answer_as_the_built_in_scored_it(app, migration: ModuleType,
                                                                                  presentation: dict) -> None:
    """The known answer in system names becomes the definition's in the item's terms; every answer the built-in
    could take scores as the built-in scored it, on either drawn order: the share of the known questions answered
    as known, each side read as the system shown on it (worked out here, `_built_in_score`)."""
    known = {"stance": {"alpha": "all_support", "beta": "most_support"}, "less_redundant": "beta",
             "more_central": "equal"}
    declared_known = migration.compare_reference(known, COMPARE_ITEM)
    assert declared_known == {"each_summary": {"A": {"stance": "all_support"}, "B": {"stance": "most_support"}},
                              "less_redundant": "B", "more_central": "equal"}
    definition = _definition("kp_set_compare")
    shown = migration.compare_presentation(presentation, COMPARE_ITEM)
    for stance_a in ("all_support", "most_support"):
        for less_redundant in ("A", "B", "equal"):
            answer = {"stance_a": stance_a, "stance_b": "most_support", "less_redundant": less_redundant,
                      "more_central": "equal"}
            expected = _built_in_score(answer, known, presentation)
            assert control_score(definition, COMPARE_ITEM, migration.compare_answer(answer), declared_known,
                                 shown) == pytest.approx(expected), (answer, presentation)
    assert migration.built_in_reference("kp_set_compare", declared_known, COMPARE_ITEM) == known


def test_a_comparison_s_known_answer_naming_another_system_is_refused(migration: ModuleType) -> None:
    with pytest.raises(ValueError, match="the known less_redundant 'gamma' is none of 'alpha', 'beta', 'equal'"):
        migration.compare_reference({"less_redundant": "gamma"}, COMPARE_ITEM)


@pytest.mark.parametrize("task_type", sorted(PROJECTS))
def test_the_downgrade_reads_each_mapped_vote_back_as_the_built_in_stored_it(migration: ModuleType,
                                                                              task_type: str) -> None:
    for payload, answer, presentation, rows in _kept_votes(PROJECTS[task_type]):
        new_answer, new_rows, new_presentation = _frozen(migration, task_type, payload, answer, presentation, rows)
        back = migration.built_in_rows(task_type, new_rows, payload, new_presentation)
        assert sorted(back) == sorted(tuple(row) for row in rows)
        assert migration.built_in_answer(task_type, new_answer, payload) == answer
        if task_type == "kp_set_compare":
            assert migration.built_in_presentation(new_presentation, payload) == presentation


def test_a_declared_match_control_s_known_answer_goes_back_as_every_key_point_s_label(migration: ModuleType) -> None:
    """A control item made on a declared project knows the ticked key points (its decided gold); the built-in knew
    each key point's 1 / 0, as the labels file gives it."""
    payload = {"key_points": [{"id": "kp_1"}, {"id": "kp_2"}, {"id": "kp_3"}]}
    assert migration.built_in_reference("kp_match", {"matches": ["kp_2"]}, payload) == \
        {"kp_1": 0, "kp_2": 1, "kp_3": 0}
    assert migration.built_in_reference("kp_match", {"kp_1": 1, "kp_2": 0}, payload) == {"kp_1": 1, "kp_2": 0}
