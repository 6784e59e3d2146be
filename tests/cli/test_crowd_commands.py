"""`flask crowd-link` and `flask mturk-question`."""
from __future__ import annotations

import xml.etree.ElementTree as ET

from annotator.core.extensions import db
from annotator.core.models import CrowdLink
from annotator.people.crowd import link_token
from tests.conftest import stored

NS = "{http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2006-07-14/ExternalQuestion.xsd}"


def _cli(app, *args: str):  # type: ignore[no-untyped-def]
    return app.test_cli_runner().invoke(args=list(args))


def test_crowd_link_prints_the_prolific_url_with_its_placeholders(app, kpa_project):
    kpa_project()
    result = _cli(app, "crowd-link", "--project", "kpa", "--platform", "prolific", "--hits", "10",
                  "--completion-code", "C0DE1", "--base-url", "https://annotate.example.org/")
    assert result.exit_code == 0, result.output
    link = stored(CrowdLink, platform="prolific")
    assert (link.hits, link.completion_code) == (10, "C0DE1")
    assert result.output.splitlines()[-1] == (
        f"https://annotate.example.org/crowd/kpa/prolific/{link_token(link)}"
        "?PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}")


def test_crowd_link_changes_a_link_and_keeps_its_secret_unless_asked(app, kpa_project):
    kpa_project()
    base = ["crowd-link", "--project", "kpa", "--platform", "mturk", "--base-url", "https://a.example.org"]
    first = _cli(app, *base, "--hits", "3", "--completion-code", "X1").output.splitlines()[-1]
    same = _cli(app, *base, "--hits", "5").output.splitlines()[-1]
    assert same == first and stored(CrowdLink, platform="mturk").hits == 5
    assert _cli(app, *base, "--new-secret").output.splitlines()[-1] != first


def test_crowd_link_refuses_bad_input_and_saves_nothing(app, kpa_project):
    kpa_project()
    base = ["crowd-link", "--project", "kpa", "--platform", "prolific", "--base-url", "https://a.example.org"]
    assert "a study needs at least 1 HIT" in _cli(app, *base, "--completion-code", "X").output
    assert "letters, digits" in _cli(app, *base, "--hits", "2", "--completion-code", "a b").output
    assert "--base-url" in _cli(app, "crowd-link", "--project", "kpa", "--platform", "prolific", "--hits", "2",
                                "--completion-code", "X").output
    assert db.session.query(CrowdLink).count() == 0


def test_mturk_question_is_an_external_question_with_url_and_frame_height(app, kpa_project):
    kpa_project()
    _cli(app, "crowd-link", "--project", "kpa", "--platform", "mturk", "--hits", "3", "--completion-code", "X1",
         "--base-url", "https://a.example.org")
    result = _cli(app, "mturk-question", "--project", "kpa", "--base-url", "https://a.example.org")
    assert result.exit_code == 0, result.output
    root = ET.fromstring(result.output.encode())
    assert root.tag == f"{NS}ExternalQuestion"
    assert [child.tag for child in root] == [f"{NS}ExternalURL", f"{NS}FrameHeight"]
    link = stored(CrowdLink, platform="mturk")
    assert root.find(f"{NS}ExternalURL").text == f"https://a.example.org/crowd/kpa/mturk/{link_token(link)}"
    assert root.find(f"{NS}FrameHeight").text == "800"


def test_mturk_question_needs_a_link_and_https(app, kpa_project):
    kpa_project()
    assert "has no mturk link yet" in _cli(app, "mturk-question", "--project", "kpa", "--base-url",
                                           "https://a.example.org").output
    _cli(app, "crowd-link", "--project", "kpa", "--platform", "mturk", "--hits", "3", "--completion-code", "X1",
         "--base-url", "https://a.example.org")
    result = _cli(app, "mturk-question", "--project", "kpa", "--base-url", "http://a.example.org")
    assert result.exit_code != 0 and "not https" in result.output
