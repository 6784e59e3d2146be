"""A declared KPA-2021 project's API item carries today's keys beside the definition's: an API client that reads the
built-in item (a check's `key_point` with its id and text, a comparison's `summary_a` / `summary_b` in the order its
lease shows them) keeps working when the project is declared.

Each set-up of tests/data/api_answer_shapes (kp_match_check.json, kp_set_compare.json) is imported as a declared
project; every annotator the file names, and eight more, leases the item through the API. Expected: the item the
built-in types gave (removed since: docs/one-engine.md), written out here from the payload as they built it (the
check: id, topic, stance, argument and the key point's id and text; the comparison: the summaries of the systems
shown as A and B, each key point's text and prevalence), in the order the declared lease drew ({"swapped": [...]}:
field b, the second system, shown as A).
"""
from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Assignment, Item
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


def _todays_check(payload: dict[str, Any]) -> dict[str, Any]:
    """The built-in kp_match_check type's API item of the payload."""
    return {"id": payload["id"], "topic": payload["topic"], "stance": payload["stance"],
            "argument": payload["argument"],
            "key_point": {"id": payload["key_point"]["id"], "text": payload["key_point"]["text"]}}


def _todays_comparison(payload: dict[str, Any], shown_a: str, shown_b: str) -> dict[str, Any]:
    """The built-in kp_set_compare type's API item of the payload, `shown_a`'s summary as A."""
    def summary(system: str) -> list[dict[str, Any]]:
        return [{"text": text, "prevalence": prevalence} for text, prevalence in payload["summaries"][system]]
    return {"id": payload["id"], "topic": payload["topic"], "stance": payload["stance"],
            "summary_a": summary(shown_a), "summary_b": summary(shown_b)}


def test_a_declared_checks_api_item_has_todays_key_point_with_its_id_and_text(app, api_client):
    declared_project(CHECK)
    item, payload, _ = _leased(api_client, _annotators(CHECK)[0])
    today = _todays_check(payload)
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
    today = _todays_comparison(payload, *((second, first) if swapped else (first, second)))
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
