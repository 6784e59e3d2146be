"""The project dashboard: its figures (`flask dashboard --json`) and the page's SVG charts, on the KPA excerpt.

Three annotators take all 26 HITs one after another from 10:00 UTC, each vote leased 2 minutes after the
previous one and submitted 60 s after its lease: 30 submits in each of the first two hours, 18 in the third.
`a` and `b` match each argument with its first key point, `c` with none.
"""
from __future__ import annotations

import html as html_lib
import json
import xml.etree.ElementTree as ET
from collections import Counter
from datetime import datetime

from tests.support.voting import vote_everywhere

START = datetime(2026, 1, 5, 10, 0)


def _voted(kpa_project, make_user):  # type: ignore[no-untyped-def]
    project = kpa_project(k=3)
    users = [make_user(name) for name in ("a", "b", "c")]
    vote_everywhere(project, users, lambda item, user: {
        "matches": [] if user.username == "c" else [item.payload["key_points"][0]["id"]]}, start=START, seconds=60)
    return project


def _figures(app) -> dict:  # type: ignore[no-untyped-def]
    result = app.test_cli_runner().invoke(args=["dashboard", "--project", "kpa", "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_progress_counts_submits_per_hour_cumulatively(app, kpa_project, make_user):
    _voted(kpa_project, make_user)
    progress = _figures(app)["progress"]
    assert progress["unit"] == "hour"
    assert [(p["time"], p["submits"], p["cumulative"]) for p in progress["points"]] == [
        ("2026-01-05T10:00", 30, 30), ("2026-01-05T11:00", 30, 60), ("2026-01-05T12:00", 18, 78)]


def test_votes_kappa_and_time_per_annotator(app, kpa_project, make_user):
    _voted(kpa_project, make_user)
    figures = _figures(app)
    assert figures["votes_per_annotator"] == [{"annotator": n, "votes": 26} for n in ("a", "b", "c")]
    kappa = {k["annotator"]: k["kappa"] for k in figures["kappa_per_annotator"]["annotators"]}
    assert figures["kappa_per_annotator"]["field"] == "matches"   # the definition's question
    assert kappa == {"a": 0.5, "b": 0.5, "c": 0.0}  # a-b agree fully (1), each with c is chance (0)
    assert figures["accuracy_per_annotator"] is None  # no control items yet
    time = figures["time_per_hit"]
    assert time["median"] == 60.0 and sum(b["count"] for b in time["bins"]) == 78


def test_agreement_and_label_distributions_of_the_match_question(app, kpa_project, make_user):
    """The definition's question `matches`: its agreement, and its votes per value over the 130 argument / key point
    pairs each annotator labels (a and b tick one pair of each of the 26 arguments)."""
    _voted(kpa_project, make_user)
    figures = _figures(app)
    [match] = figures["agreement"]
    assert match["field"] == "matches" and match["krippendorff_alpha"] is not None
    assert figures["label_distribution"]["matches: votes per value"] == {"0": 3 * 130 - 52, "1": 52}


def test_dashboard_text_summary(app, kpa_project, make_user):
    _voted(kpa_project, make_user)
    output = app.test_cli_runner().invoke(args=["dashboard", "--project", "kpa"]).output
    assert "78 votes, from 2026-01-05T10:00 to 2026-01-05T12:00 UTC" in output and "Median time per HIT: 60 s" in output


def test_dashboard_page_draws_every_chart_as_valid_svg(app, login, kpa_project, make_user):
    _voted(kpa_project, make_user)
    make_user("boss", role="admin")
    client = login("boss")
    assert "/admin/projects/kpa/dashboard" in client.get("/admin/projects/kpa").get_data(as_text=True)
    response = client.get("/admin/projects/kpa/dashboard")
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and "<script" not in html
    svgs = [ET.fromstring(part[:part.index("</svg>") + 6]) for part in ["<svg" + p for p in html.split("<svg")[1:]]]
    titles = [svg.find("{http://www.w3.org/2000/svg}title").text for svg in svgs]
    assert titles[:3] == ["Submits over time (cumulative)", "Votes per annotator", "Accuracy on control items"]
    assert "No control items yet." in html
    assert "matches: votes per value" in titles and titles[-1] == "Time per HIT (median 60 s)"


def test_dashboard_of_a_project_without_votes_says_so(app, login, kpa_project, make_user):
    kpa_project()
    make_user("boss", role="admin")
    html = login("boss").get("/admin/projects/kpa/dashboard").get_data(as_text=True)
    assert "No votes yet." in html
    assert json.loads(app.test_cli_runner().invoke(args=["dashboard", "--project", "kpa", "--json"]).output)[
        "progress"]["points"] == []


def test_dashboard_is_for_admins_only(app, login, kpa_project, make_user):
    kpa_project()
    make_user("ann")
    assert login("ann").get("/admin/projects/kpa/dashboard").status_code == 403


def test_accuracy_chart_draws_the_accuracy_quality_control_gives(app, kpa_project, make_user):
    from annotator.analysis.dashboard import dashboard_charts, dashboard_figures
    project = _voted(kpa_project, make_user)
    figures = dashboard_figures(project, accuracy={"b": 0.5, "a": 0.9})
    assert figures["accuracy_per_annotator"] == [{"annotator": "a", "accuracy": 0.9},
                                                 {"annotator": "b", "accuracy": 0.5}]
    svg = dict(dashboard_charts(figures))["accuracy"]
    bars = [r for r in ET.fromstring(str(svg)).iter("{http://www.w3.org/2000/svg}rect") if r.get("class") == "bar"]
    assert len(bars) == 2 and "No control items yet." not in svg


def test_accuracy_per_annotator_comes_from_their_control_answers(app, kpa_project, make_user):
    from annotator.analysis.dashboard import dashboard_figures
    from tests.quality.conftest import answer_next, make_controls, right_answer, set_quality, wrong_answer
    project = kpa_project(k=1)
    make_controls(project, "arg_1_0", "arg_1_1")
    set_quality(project, control_rate=1.0)
    good, bad = make_user("good"), make_user("bad")
    assert answer_next(good, project, right_answer).control is not None
    assert answer_next(bad, project, wrong_answer).control is not None
    assert dashboard_figures(project)["accuracy_per_annotator"] == [{"annotator": "bad", "accuracy": 0.0},
                                                                   {"annotator": "good", "accuracy": 1.0}]


def test_each_key_points_prevalence_is_the_arguments_gold_matches_with_it(app, kpa_project, make_user):
    """The key-point prevalence the built-in match type drew, now any multi question's options counted in gold:
    two of three annotators (0.67, at least ArgKP's 0.6) match each argument with its first key point, none with
    the others (0), so each key point counts the arguments it comes first for, worked out here from the items."""
    project = _voted(kpa_project, make_user)
    first = Counter(item.payload["key_points"][0]["id"] for item in project.items)
    every = dict.fromkeys(kp["id"] for item in project.items for kp in item.payload["key_points"])
    prevalence = _figures(app)["label_distribution"]["matches: items whose gold chose each option"]
    assert prevalence == {kp: first.get(kp, 0) for kp in prevalence}
    assert set(prevalence) == set(every) and sum(prevalence.values()) == 26


def test_the_prevalence_chart_says_each_key_point_in_words(app, login, kpa_project, make_user):
    project = _voted(kpa_project, make_user)
    key_point = project.items[0].payload["key_points"][0]
    make_user("boss", role="admin")
    html = login("boss").get("/admin/projects/kpa/dashboard").get_data(as_text=True)
    svgs = [ET.fromstring(part[:part.index("</svg>") + 6]) for part in ["<svg" + p for p in html.split("<svg")[1:]]]
    [chart] = [svg for svg in svgs
               if svg.find("{http://www.w3.org/2000/svg}title").text.endswith(": items whose gold chose each option")]
    said = ET.tostring(chart, encoding="unicode")
    assert key_point["text"] in html_lib.unescape(said)


def test_the_figures_keep_each_key_points_words_in_the_charts_order(app, kpa_project, make_user):
    """`flask dashboard --json` and the kept figures of a big project hold the counted units' words, so its page
    does not read thousands of items per request; in the chart's order, as a recomputation in any other process
    gives them (a kept figure must equal a recomputation, key order included)."""
    project = _voted(kpa_project, make_user)
    text = {kp["id"]: kp["text"] for item in project.items for kp in item.payload["key_points"]}
    figures = _figures(app)
    prevalence = figures["label_distribution"]["matches: items whose gold chose each option"]
    assert figures["unit_names"] == {kp: text[kp] for kp in prevalence}
    assert list(figures["unit_names"]) == list(prevalence)
