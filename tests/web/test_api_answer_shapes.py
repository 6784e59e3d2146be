"""The JSON API keeps taking the answers clients send today, storing the same label rows, and refusing the same
wrong answers with the same message (tests/data/api_answer_shapes/README.md).

Every answer of the files is posted through the API (`next`, then `submit`) to a fresh declared project of its
set-up by tests/web/test_api_answer_shapes_declared_<type>.py, and the vote's label rows and stored answer are read
back in a fresh session; a refused answer must get its status and message and leave the lease as it was. The files
were filled from the code before the built-in HIT types became definitions of one engine, and every built-in type
is gone since: here, that each file still covers its type.
"""
from __future__ import annotations

import pytest

from tests.support.api_answer_shapes import TYPES, shapes_of


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
