"""`flask crowd-filters` and `flask mturk-hit`: the crowd page's settings and download on the command line."""
from __future__ import annotations

import json

from annotator.core.extensions import db
from annotator.core.models import Project
from annotator.people.crowd import save_link
from annotator.people.crowd_filters import crowd_settings
from tests.conftest import stored
from tests.support.mturk_shape import problems

BASE = ["--base-url", "https://a.example.org"]


def _cli(app, *args: str):  # type: ignore[no-untyped-def]
    return app.test_cli_runner().invoke(args=list(args))


def _mturk_link(project: Project) -> None:
    save_link(project, "mturk", 4, "DONE1")
    db.session.commit()


def test_crowd_filters_sets_the_recam_papers_filters_and_prints_them_for_both_platforms(app, kpa_project):
    kpa_project()
    result = _cli(app, "crowd-filters", "--project", "kpa", "--approval-rate-above", "90",
                  "--countries", "US", "--countries", "GB", "--reward", "0.50")
    assert result.exit_code == 0, result.output
    assert "approval rate above 90%; living in United States (US), United Kingdom (GB)" in result.output
    assert "Prolific screeners: Approval Rate: above 90%" in result.output
    settings = crowd_settings(stored(Project, slug="kpa"))
    assert (settings["approval_rate_above"], settings["countries"], settings["reward"]) == (90, ("US", "GB"), "0.50")


def test_crowd_filters_changes_only_what_it_is_given_and_clears_on_request(app, kpa_project):
    kpa_project()
    _cli(app, "crowd-filters", "--project", "kpa", "--masters", "--approval-rate-above", "90")
    _cli(app, "crowd-filters", "--project", "kpa", "--min-approved", "500", "--clear", "approval_rate_above")
    settings = crowd_settings(stored(Project, slug="kpa"))
    assert (settings["masters"], settings["approval_rate_above"], settings["min_approved"]) == (True, None, 500)


def test_crowd_filters_refuses_bad_input_by_name_and_saves_nothing(app, kpa_project):
    kpa_project()
    result = _cli(app, "crowd-filters", "--project", "kpa", "--masters", "--approval-rate-above", "100")
    assert result.exit_code != 0 and "approval_rate_above must be between 0 and 99" in result.output
    result = _cli(app, "crowd-filters", "--project", "kpa", "--masters", "--countries", "UK")
    assert result.exit_code != 0 and "the United Kingdom's code is GB" in result.output
    assert crowd_settings(stored(Project, slug="kpa"))["masters"] is False


def test_mturk_hit_prints_the_create_hit_request_with_the_emphasis_papers_masters(app, kpa_project):
    _mturk_link(kpa_project())
    _cli(app, "crowd-filters", "--project", "kpa", "--masters", "--reward", "0.50")
    result = _cli(app, "mturk-hit", "--project", "kpa", *BASE)
    assert result.exit_code == 0, result.output
    request = json.loads(result.output)
    assert problems(request) == []
    assert request["QualificationRequirements"] == [
        {"QualificationTypeId": "2F1QJWKUDD8XADTFD2Q0G6UTO95ALH", "Comparator": "Exists"}]


def test_mturk_hit_writes_the_file_the_aws_command_line_reads(app, kpa_project, tmp_path):
    _mturk_link(kpa_project())
    _cli(app, "crowd-filters", "--project", "kpa", "--reward", "0.50")
    out = tmp_path / "create-hit.json"
    result = _cli(app, "mturk-hit", "--project", "kpa", "--environment", "sandbox", "--out", str(out), *BASE)
    assert result.exit_code == 0 and f"--cli-input-json file://{out}" in result.output
    assert problems(json.loads(out.read_text(encoding="utf-8"))) == []


def test_mturk_hit_needs_a_link_a_reward_and_https(app, kpa_project):
    kpa_project()
    assert "has no MTurk link yet" in _cli(app, "mturk-hit", "--project", "kpa", *BASE).output
    _mturk_link(stored(Project, slug="kpa"))
    assert "set the MTurk reward" in _cli(app, "mturk-hit", "--project", "kpa", *BASE).output
    _cli(app, "crowd-filters", "--project", "kpa", "--reward", "0.50")
    assert "not https" in _cli(app, "mturk-hit", "--project", "kpa", "--base-url", "http://a.example.org").output
