"""A HIT type without adjudication has no review page.

The built-in stance_premise type's own page tests that were here went with the type (docs/one-engine.md, RuArg's
removal); the declared RuArg HIT's are tests/web/test_ruarg2022_declared_stages_hit.py and
test_ruarg2022_declared_upload.py. This test of the built-in kp_match type stays until that type goes too.
"""
from __future__ import annotations


def test_a_type_without_adjudication_has_no_review_page(kpa_project, make_user, login):
    kpa_project(declared=False)   # the built-in kp_match type adjudicates nothing (every declared campaign may)
    make_user("boss", role="admin")
    assert login("boss").get("/admin/projects/kpa/review/").status_code == 404
