"""KPA-2021 projects imported as declared projects of their definitions take from the JSON API what the built-in
projects take: every answer of tests/data/api_answer_shapes/<type>.json for the three campaigns, posted for real.

An accepted answer (today's shape) is stored as the definition's answer with the definition's label rows, which are
the built-in rows the file lists mapped by the bridge (shared_tasks/kpa2021/bridge.py); a refused one gets today's
status and leaves the lease as it was, with today's message for a match or a verdict (the bridges run today's checks
on what the definition refuses), and for a set comparison a message naming the question or key that is wrong (the
declared check's words, not always today's).
"""
from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Assignment, Item, Label
from annotator.declared.bridge_base import LabelRow
from annotator.shared_tasks.kpa2021 import bridge
from tests.support.api_answer_shapes import SLUG, declared_project, expected, run_case, shapes_of

MATCH = shapes_of("kp_match")["projects"][0]
CHECK = shapes_of("kp_match_check")["projects"][0]


def _mapped(mapping: bridge.Bridge, setup: dict[str, Any], case: dict[str, Any]) -> list[list[str]]:
    payload = db.session.scalars(select(Item.payload).where(Item.external_id == setup["item"])).one()
    return sorted(list(row) for row in mapping.labels([LabelRow(*row) for row in case["labels"]], payload))


def _refused_as_today(got: dict[str, Any], case: dict[str, Any], questions: set[str]) -> None:
    """Today's status and message; or, for an answer object the API reads, today's status and a message naming one
    of its keys or of the definition's questions."""
    if got == expected("refused", case):
        return
    answer = case.get("answer")
    if "body" in case:
        try:
            answer = json.loads(case["body"]).get("answer")
        except (ValueError, AttributeError):
            answer = None
    assert isinstance(answer, dict), (case["why"], got)
    named = {str(key) for key in answer} | questions
    assert got["status"] == case["status"] and any(name in got["error"] for name in named), (case["why"], got)


@pytest.mark.parametrize("case", MATCH["accepted"], ids=[c["why"] for c in MATCH["accepted"]])
def test_a_match_answer_taken_today_is_stored_as_the_definitions_answer_and_rows(app, api_client, case):
    got = run_case(MATCH, "accepted", case, api_client, make=declared_project)
    ticked = set(case["answer"]["matches"])
    in_item_order = [row[0] for row in sorted(case["labels"]) if row[0] in ticked]   # kp_1_0 ... kp_1_4
    assert got == {"status": 201, "stored_answer": {"matches": in_item_order},
                   "labels": _mapped(bridge.MATCH, MATCH, case), "presentation": None}


@pytest.mark.parametrize("case", MATCH["refused"], ids=[c["why"] for c in MATCH["refused"]])
def test_a_match_answer_refused_today_is_refused_with_todays_status_and_message(app, api_client, case):
    assert run_case(MATCH, "refused", case, api_client, make=declared_project) == expected("refused", case)


@pytest.mark.parametrize("case", CHECK["accepted"], ids=[c["why"] for c in CHECK["accepted"]])
def test_a_verdict_taken_today_is_stored_as_the_definitions_answer_and_row(app, api_client, case):
    got = run_case(CHECK, "accepted", case, api_client, make=declared_project)
    assert got == {"status": 201, "stored_answer": case["answer"], "labels": _mapped(bridge.MATCH_CHECK, CHECK, case),
                   "presentation": None}


@pytest.mark.parametrize("case", CHECK["refused"], ids=[c["why"] for c in CHECK["refused"]])
def test_a_verdict_refused_today_is_refused_with_todays_status_and_message(app, api_client, case):
    assert run_case(CHECK, "refused", case, api_client, make=declared_project) == expected("refused", case)


# --- the set comparison: today's "A" is the side the lease shows as A ----------------------------------------------

COMPARE = shapes_of("kp_set_compare")["projects"][0]
COMPARE_QUESTIONS = {"each_summary", "stance", "less_redundant", "more_central"}


def _post_compare(api_client, case: dict[str, Any], shown: dict[str, str] | None) -> tuple[int, Any, int]:
    """Lease the set-up's item of a fresh declared project through the API; with `shown` (today's presentation),
    store the lease in that order as the bridge maps it (as a migration does); post today's answer. (status, body,
    lease id)."""
    declared_project(COMPARE)
    client = api_client(case.get("annotator", "shape-annotator"))
    leased = client.post(f"/api/v1/projects/{SLUG}/next").get_json()["assignment"]
    assert leased["item"]["id"] == COMPARE["item"]
    if shown is not None:
        lease = db.session.get_one(Assignment, int(leased["id"]))
        lease.presentation = bridge.SET_COMPARE.presentation(shown, lease.item.payload)
        db.session.commit()
    response = client.post(f"/api/v1/assignments/{leased['id']}/submit", json={"answer": case["answer"]})
    return response.status_code, response.get_json(), int(leased["id"])


def _stored_rows(lease: int) -> list[list[str]]:
    db.session.remove()
    return sorted([row.unit, row.field, row.value] for row in db.session.scalars(select(Label).where(
        Label.assignment_id == lease)))


@pytest.mark.parametrize("case", COMPARE["accepted"], ids=[c["why"] for c in COMPARE["accepted"]])
def test_a_comparison_taken_today_is_stored_as_the_definitions_rows_in_the_order_shown(app, api_client, case):
    status, body, lease = _post_compare(api_client, case, case["presentation"])
    assert status == 201, body
    assert _stored_rows(lease) == _mapped(bridge.SET_COMPARE, COMPARE, case)
    answer = case["answer"]
    assert body["assignment"]["answer"] == {
        "each_summary": {"A": {"stance": answer["stance_a"]}, "B": {"stance": answer["stance_b"]}},
        "less_redundant": answer["less_redundant"], "more_central": answer["more_central"]}


@pytest.mark.parametrize("case", COMPARE["refused"], ids=[c["why"] for c in COMPARE["refused"]])
def test_a_comparison_refused_today_is_refused_naming_what_is_wrong(app, api_client, case):
    status, body, lease = _post_compare(api_client, case, {"a": "beta", "b": "alpha"})
    named = {str(key) for key in case["answer"]} | COMPARE_QUESTIONS
    assert status == case["status"] and any(name in body["error"] for name in named), (case["why"], body)
    assert _stored_rows(lease) == []


def test_a_comparison_on_the_order_the_declared_lease_drew_names_the_system_shown_as_a(app, api_client):
    case = COMPARE["accepted"][3]   # A less redundant, B more central
    status, _, lease = _post_compare(api_client, case, None)
    assert status == 201
    drawn = db.session.get_one(Assignment, lease).presentation
    first, second = db.session.get_one(Assignment, lease).item.payload["systems"]
    shown_a = second if drawn["swapped"] else first
    rows = {(field, value) for _, field, value in _stored_rows(lease)}
    assert ("less_redundant", "A" if shown_a == first else "B") in rows   # the item's terms: A is the first system
    assert ("more_central", "B" if shown_a == first else "A") in rows


def test_the_definitions_own_comparison_answer_is_taken_too(app, api_client):
    own = {"each_summary": {"A": {"stance": "all_contest"}, "B": {"stance": "most_contest"}},
           "less_redundant": "A", "more_central": "equal"}
    status, body, lease = _post_compare(api_client, {"answer": own}, {"a": "alpha", "b": "beta"})
    assert status == 201 and body["assignment"]["answer"] == own
    rows = _stored_rows(lease)
    assert ["alpha", "stance", "all_contest"] in rows and ['["alpha", "beta"]', "less_redundant", "A"] in rows
