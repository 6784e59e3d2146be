"""The JSON API keeps taking the answers clients send today, storing the same label rows, and refusing the same
wrong answers with the same message (tests/data/api_answer_shapes/README.md).

One test per answer of the files: it is posted through the API (`next`, then `submit`) to a fresh project of its
set-up, and the vote's label rows and stored answer are read back in a fresh session; a refused answer must get
its status and message and leave the lease as it was. The files were filled from the code before the built-in
HIT types became definitions of one engine; that change must pass these as they are.
"""
from __future__ import annotations

from typing import Any

import pytest

from tests.support.api_answer_shapes import TYPES, case_id, every_case, expected, run_case, shapes_of

CASES = every_case()


@pytest.mark.parametrize(("task", "index", "kind", "number"), CASES, ids=[case_id(*case) for case in CASES])
def test_an_answer_gives_what_it_gave_before_the_change(app: Any, api_client: Any, task: str, index: int, kind: str,
                                                          number: int) -> None:
    setup = shapes_of(task)["projects"][index]
    case = setup[kind][number]
    assert run_case(setup, kind, case, api_client) == expected(kind, case), case["why"]


@pytest.mark.parametrize("task", TYPES)
def test_every_built_in_type_has_answers_taken_and_refused(task: str) -> None:
    """Each file covers its type: accepted answers that store label rows, and refusals that say why."""
    shapes = shapes_of(task)
    assert shapes["type"] == task
    accepted = [case for setup in shapes["projects"] for case in setup["accepted"]]
    refused = [case for setup in shapes["projects"] for case in setup["refused"]]
    assert len(accepted) >= 3 and len(refused) >= 5
    assert all(case["status"] == 201 and case["labels"] for case in accepted)
    assert all(case["status"] == 422 and case["error"] for case in refused if "body" not in case)
