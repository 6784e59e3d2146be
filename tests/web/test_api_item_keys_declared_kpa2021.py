"""A declared KPA-2021 project's API item carries today's keys beside the definition's: an API client that reads the
built-in item (a check's `key_point` with its id and text, a comparison's `summary_a` / `summary_b` in the order its
lease shows them) keeps working when the project is declared.

Each set-up of tests/data/api_answer_shapes (kp_match_check.json, kp_set_compare.json) is imported as a declared
project; every annotator the file names, and eight more, leases the item through the API. Expected: the built-in
type's own item (its `public_item`) of the same payload, shown in the same order: the built-in's presentation made
here from the declared lease's drawn order ({"swapped": [...]}: field b, the second system, shown as A).
"""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Assignment, Item
from annotator.tasks.kp_match_check import KeyPointMatchCheck
from annotator.tasks.kp_set_compare import KeyPointSetCompare
from tests.support.api_answer_shapes import SLUG, declared_project, shapes_of

CHECK = shapes_of("kp_match_check")["projects"][0]
COMPARE = shapes_of("kp_set_compare")["projects"][0]
READERS = [f"reader{j}" for j in range(8)]   # more annotators, so that the leases draw both orders


def _annotators(setup: dict[str, Any]) -> list[str]:
    named = {case.get("annotator", "shape-annotator") for kind in ("accepted", "refused") for case in setup[kind]}
    return sorted(named)


def _leased(api_client, name: str) -> tuple[dict[str, Any], dict[str, Any], Any]:  # type: ignore[no-untyped-def]
    """The API's item of the annotator's first lease, the item's payload and the lease's presentation."""
    response = api_client(name).post(f"/api/v1/projects/{SLUG}/next")
    assert response.status_code == 200, response.get_data(as_text=True)
    assignment = response.get_json()["assignment"]
    db.session.remove()
    lease = db.session.get_one(Assignment, assignment["id"])
    payload = db.session.scalars(select(Item.payload).where(Item.id == lease.item_id)).one()
    return assignment["item"], payload, lease.presentation


def _today(kind: Any, payload: dict[str, Any], presentation: dict[str, Any] | None) -> dict[str, Any]:
    item = SimpleNamespace(payload=payload, external_id=payload["id"])
    built_in: dict[str, Any] = kind.public_item(item, None, presentation)
    return built_in


def test_a_declared_checks_api_item_has_todays_key_point_with_its_id_and_text(app, api_client):
    declared_project(CHECK)
    item, payload, _ = _leased(api_client, _annotators(CHECK)[0])
    today = _today(KeyPointMatchCheck(), payload, None)
    assert item["id"] == CHECK["item"]
    assert {key: item[key] for key in today} == today
    assert item["key_point"] == {"id": payload["key_point"]["id"], "text": payload["key_point"]["text"]}
    assert item["key_point.text"] == payload["key_point"]["text"]   # the definition's own key stays


@pytest.mark.parametrize("name", _annotators(COMPARE) + READERS)
def test_a_declared_comparisons_api_item_has_todays_summaries_in_the_order_the_lease_shows(app, api_client, name):
    declared_project(COMPARE)
    item, payload, presentation = _leased(api_client, name)
    first, second = payload["systems"]
    swapped = bool((presentation or {}).get("swapped"))
    shown = {"a": second, "b": first} if swapped else {"a": first, "b": second}
    today = _today(KeyPointSetCompare(), payload, shown)
    assert {key: item[key] for key in today} == today
    assert "sides" in item   # the definition's own keys stay


def test_the_comparisons_annotators_see_both_orders(app, api_client):
    """The cases above cover both orders: some annotator's lease shows the second system as A, some the first."""
    declared_project(COMPARE)
    orders = set()
    for name in _annotators(COMPARE) + READERS:
        item, payload, presentation = _leased(api_client, name)
        orders.add(bool((presentation or {}).get("swapped")))
    assert orders == {True, False}
