"""Property: any crowd entry URL (the link's path and every query parameter Prolific or MTurk sends, missing,
repeated, empty, awkward or plausible) is answered with a page, never a 500; and a visit that is not let
in (anything but the redirect to the study) adds no account and no study session (both engines)."""
from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select

from annotator.core.extensions import db
from annotator.core.models import CrowdLink, CrowdSession, CrowdWorker
from annotator.people.crowd import MTURK_PREVIEW, link_token, save_link
from tests.support.property_checks import SETTINGS, TEXT

# The ids' own alphabet: some too long for a worker id (64), some about the columns' 200 characters.
PLAUSIBLE_ID = st.from_regex(r"[A-Za-z0-9_-]{1,70}", fullmatch=True) | st.text("0123456789abcdef", min_size=190,
                                                                              max_size=260)
VALUE = PLAUSIBLE_ID | TEXT | st.sampled_from(["5f1a2b3c4d5e6f7a8b9c0d1e", "{{%PROLIFIC_PID%}}", MTURK_PREVIEW])
SUBMIT_TO = VALUE | st.sampled_from(["https://www.mturk.com", "https://workersandbox.mturk.com",
                                     "https://workersandbox.mturk.com/", "http://www.mturk.com",
                                     "https://www.mturk.com.example.org", "https://www.mturk.com/x?y=1",
                                     "https://[::1", "javascript:alert(1)"])
NAMES = {"prolific": ["PROLIFIC_PID", "STUDY_ID", "SESSION_ID"],
         "mturk": ["workerId", "assignmentId", "hitId", "turkSubmitTo"]}


@st.composite
def queries(draw: Any, platform: str) -> list[tuple[str, str]]:
    """The platform's parameters, each plausible most often, else left out, awkward or repeated; plus stray
    ones, in any order."""
    pairs: list[tuple[str, str]] = []
    for name in NAMES[platform]:
        awkward = SUBMIT_TO if name == "turkSubmitTo" else VALUE
        plausible = st.just("https://workersandbox.mturk.com") if name == "turkSubmitTo" else PLAUSIBLE_ID
        how = draw(st.sampled_from(["plausible"] * 5 + ["left out", "awkward", "repeated"]))
        if how == "plausible":
            pairs.append((name, draw(plausible)))
        elif how == "awkward":
            pairs.append((name, draw(awkward)))
        elif how == "repeated":
            pairs += [(name, draw(awkward)), (name, draw(plausible))]
    pairs += draw(st.lists(st.tuples(TEXT | st.sampled_from(NAMES[platform]), VALUE), max_size=2))
    return draw(st.permutations(pairs))


SEGMENT = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="/?#"), min_size=1, max_size=12)


@pytest.mark.parametrize("platform", ["prolific", "mturk"])
@given(data=st.data())
@settings(SETTINGS, max_examples=60)
def test_any_crowd_entry_url_is_answered_without_a_500_and_a_refusal_adds_no_account(app, kpa_project, platform,
                                                                                      data):
    app.config.update(CROWD_NEW_ACCOUNTS_PER_ADDRESS=10_000, CROWD_ACCOUNTS_PER_LINK_MIN=10_000)
    link = db.session.scalar(select(CrowdLink))  # once per test, not per example
    if link is None:
        project = kpa_project()
        for each in ("prolific", "mturk"):
            save_link(project, each, 2, "C0DE77")
        db.session.commit()
    token = {each: link_token(found) for each, found in (
        (row.platform, row) for row in db.session.scalars(select(CrowdLink)))}
    segments = {"slug": "kpa", "platform": platform, "token": token[platform]}
    broken = data.draw(st.sampled_from([None] * 5 + list(segments)), label="broken path segment")
    if broken is not None:
        segments[broken] = data.draw(SEGMENT, label=broken)
    slug, path_platform, secret = segments.values()
    query = data.draw(queries(platform), label="query")
    before = _accounts_and_sessions()
    path = "/crowd/" + "/".join(quote(segment, safe="") for segment in (slug, path_platform, secret))
    response = app.test_client().get(path, query_string=query,
                                     base_url="https://localhost")
    event(f"answered {response.status_code}")
    assert response.status_code < 500, response.get_data(as_text=True)[:300]
    if response.status_code != 302:
        assert _accounts_and_sessions() == before


def _accounts_and_sessions() -> tuple[int, int]:
    db.session.remove()
    return (db.session.scalar(select(func.count()).select_from(CrowdWorker)),
            db.session.scalar(select(func.count()).select_from(CrowdSession)))
