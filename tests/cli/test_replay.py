"""`flask replay`: a declared project's stored votes replayed under a stopping rule, figures worked out by hand."""
from __future__ import annotations

import json
from pathlib import Path

import krippendorff
import pytest
from flask import Flask
from sqlalchemy import func, select

from annotator.campaigns.votes_import import import_votes
from annotator.core.extensions import db
from annotator.core.models import Assignment, Project

DEFINITION = """\
name: Review sentiment
k: 3
show:
  - {field: text, label: Review}
questions:
  - {id: sentiment, kind: choice, prompt: "Is the review positive or negative?", options: [positive, negative],
     gold: majority}
  - {id: note, kind: text, prompt: "Anything unclear?", required: false}
"""
ITEMS = [  # reference.sentiment: the known answer, the "truth" the replay measures accuracy against
    {"id": "i1", "text": "Great value, works as described.", "reference.sentiment": "positive"},
    {"id": "i2", "text": "Arrived late but the staff were kind.", "reference.sentiment": "positive"},
    {"id": "i3", "text": "Broke after a day.", "reference.sentiment": "negative"},
]
VOTES = {"i1": "ppn", "i2": "pnn", "i3": "nnn"}   # in the order they came


def cli(app: Flask, *args: str):  # type: ignore[no-untyped-def]
    return app.test_cli_runner().invoke(args=list(args))


@pytest.fixture
def reviews(app: Flask, tmp_path: Path) -> str:
    (tmp_path / "task.yaml").write_text(DEFINITION, encoding="utf-8")
    (tmp_path / "items.jsonl").write_text("".join(json.dumps(i) + "\n" for i in ITEMS), encoding="utf-8")
    result = cli(app, "import", "custom", str(tmp_path / "items.jsonl"), "--definition", str(tmp_path / "task.yaml"),
                 "--project", "reviews")
    assert result.exit_code == 0, result.output
    with app.app_context():
        project = db.session.scalar(select(Project).where(Project.slug == "reviews"))
        words = {"p": "positive", "n": "negative"}
        import_votes(project, {item: [{"sentiment": words[v]} for v in given] for item, given in VOTES.items()})
        db.session.commit()
    return "reviews"


def test_decided_saves_the_votes_that_could_not_change_gold(app: Flask, reviews: str) -> None:
    # k = 3, majority. i1: positive positive | negative (two of three decide), i2: positive negative negative
    # (a tie after two: every vote needed), i3: negative negative | negative. 7 of 9 votes, 2/9 saved, no change.
    # Alpha, full: coincidences pp 1, pn 2, np 2, nn 4 (n_p 3, n_n 6, n 9): 1 - 4 / (3*6*2/8) = 1/9.
    # Used (i1 p p, i2 p n n, i3 n n): pp 2, pn 1, np 1, nn 3 (n_p 3, n_n 4, n 7): 1 - 2 / (3*4*2/6) = 1/2.
    # Truth: i1 positive (gold positive), i2 positive (gold negative), i3 negative (negative): 2 of 3 either way.
    result = cli(app, "replay", "--project", reviews, "--stopping", "decided", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert {key: report[key] for key in ("votes_full", "votes_used", "gold_changed", "gold_changed_share")} == \
        {"votes_full": 9, "votes_used": 7, "gold_changed": 0, "gold_changed_share": 0.0}
    assert report["saved_share"] == pytest.approx(2 / 9)
    assert (report["alpha_before"], report["alpha_after"]) == (pytest.approx(1 / 9), pytest.approx(0.5))
    assert (report["accuracy_full"], report["accuracy_used"]) == (pytest.approx(2 / 3), pytest.approx(2 / 3))
    assert report["questions"] == ["sentiment"] and "note" in report["left_out"]


def test_the_report_in_words(app: Flask, reviews: str) -> None:
    result = cli(app, "replay", "--project", reviews, "--stopping", "decided")
    assert result.exit_code == 0, result.output
    assert "votes used 7 of 9: 22.2% saved" in result.output
    assert "gold changed on 0 units (0.00%)" in result.output
    assert "not replayed: note" in result.output


def test_routing_replays_the_votes_in_the_order_the_routing_takes_them(app: Flask, reviews: str) -> None:
    # The three columns' accounts (u0, u1, u2) ask as their votes came: u0 u1 u2 per item, i1 to i3. Routed
    # (unvoted items first, then the least certain, ties to the first item): u0 i1 p; u1 i2 n; u2 i3 n; u0 i2 p
    # (1-1); u1 i1 p (2-0: stops); u2 i2 n (1-2, its last); u0 i3 n (0-2: stops); u1 and u2 find nothing open.
    # 7 of 9 used, as without routing, in another order; no gold changed.
    result = cli(app, "replay", "--project", reviews, "--stopping", "decided", "--routing", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert (report["routing"], report["votes_used"], report["votes_full"], report["gold_changed"]) == (True, 7, 9, 0)
    words = cli(app, "replay", "--project", reviews, "--stopping", "decided", "--routing").output
    assert "reviews: decided, routed, k = 3" in words


def test_a_smaller_k_leaves_the_later_votes_out(app: Flask, reviews: str) -> None:
    # k = 2: each item's first two votes. i1 p p: decided after two; i2 p n: tie; i3 n n. 6 used of 6, 3 beyond k.
    report = json.loads(cli(app, "replay", "--project", reviews, "--stopping", "decided", "--k", "2", "--json").output)
    assert (report["votes_full"], report["votes_used"], report["votes_beyond_k"]) == (6, 6, 3)


@pytest.mark.parametrize("args, words", [
    (("--project", "reviews", "--stopping", "soon"), "is not a stopping rule"),
    (("--project", "reviews", "--stopping", "confidence:2:3"), "P must be above 0 and below 1"),
    (("--project", "nowhere", "--stopping", "decided"), "nowhere"),
    (("--project", "reviews", "--stopping", "confidence:0.9:2:txt"),
     "'txt' is not an item field the definition of project 'reviews' declares, so it cannot group the items' priors; "
     "its item fields: text"),
])
def test_a_wrong_request_is_refused_in_words_and_changes_nothing(app: Flask, reviews: str, args: tuple[str, ...],
                                                                 words: str) -> None:
    before = db.session.scalar(select(func.count()).select_from(Assignment))
    result = cli(app, "replay", *args)
    assert result.exit_code != 0 and words in result.output
    db.session.remove()
    assert db.session.scalar(select(func.count()).select_from(Assignment)) == before


def test_confidence_never_stops_an_item_before_its_least_number_of_votes(app: Flask, reviews: str) -> None:
    # confidence:0.6:3 with k = 3: whatever the model says, an item may stop only after its third vote, the last.
    report = json.loads(cli(app, "replay", "--project", reviews, "--stopping", "confidence:0.6:3", "--json").output)
    assert (report["stopping"], report["votes_used"], report["votes_full"], report["gold_changed"]) == \
        ("confidence:0.6:3", 9, 9, 0)


def test_a_prior_per_group_is_replayed_and_named_in_the_report(app: Flask, reviews: str) -> None:
    # The same least number of votes as above (3 = k): nothing stops, whatever the prior; the rule is reported as
    # written, its weight left out at 5 and given otherwise.
    for rule in ("confidence:0.6:3:text", "confidence:0.6:3:text:2"):
        report = json.loads(cli(app, "replay", "--project", reviews, "--stopping", rule, "--json").output)
        assert (report["stopping"], report["votes_used"], report["votes_full"]) == (rule, 9, 9)


SCALE = """\
name: Ratings
k: 3
show:
  - {field: text, label: Text}
questions:
  - {id: rating, kind: scale, prompt: "How good is it?", min: 1, max: 10, gold: median, agreement: interval}
"""


def test_alpha_of_a_scale_question_is_measured_on_its_points_in_order(app: Flask, tmp_path: Path) -> None:
    # The points 1..10 sorted as text would put 10 before 2; the interval alpha is that of the numbers, as the
    # krippendorff package computes it on the votes as numbers (units x annotators).
    votes = {"a": [9, 10, 10], "b": [2, 3, 2], "c": [10, 9, 5], "d": [1, 2, 2]}
    (tmp_path / "task.yaml").write_text(SCALE, encoding="utf-8")
    (tmp_path / "items.jsonl").write_text("".join(json.dumps({"id": i, "text": i}) + "\n" for i in votes),
                                          encoding="utf-8")
    assert cli(app, "import", "custom", str(tmp_path / "items.jsonl"), "--definition", str(tmp_path / "task.yaml"),
               "--project", "ratings").exit_code == 0
    with app.app_context():
        project = db.session.scalar(select(Project).where(Project.slug == "ratings"))
        import_votes(project, {item: [{"rating": v} for v in given] for item, given in votes.items()})
        db.session.commit()
    report = json.loads(cli(app, "replay", "--project", "ratings", "--stopping", "decided", "--json").output)
    expected = krippendorff.alpha(reliability_data=list(zip(*votes.values())), level_of_measurement="interval")
    assert report["alpha_before"] == pytest.approx(expected)


def test_a_graded_comparison_s_known_grade_is_truth_as_its_side(app: Flask, tmp_path: Path) -> None:
    """A graded pairwise question (docs/declared-graded-pairwise.md) is replayed on its sides, the rows its rule
    reads: i1 A1 A1 B1 (gold A), i2 B1 equal B1 (gold B); the items' known grades A1 and B2 are the sides A and B,
    so both golds are right (a grade compared as it is would be right on neither)."""
    (tmp_path / "task.yaml").write_text("""\
name: Graded
k: 3
show: [left, right]
questions:
  - {id: pref, kind: pairwise, a: left, b: right, grades: [A better, Same, B better], gold: majority}
""", encoding="utf-8")
    items = [{"id": "i1", "left": "x", "right": "y", "reference.pref": "A1"},
             {"id": "i2", "left": "u", "right": "v", "reference.pref": "B1"}]
    (tmp_path / "items.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    result = cli(app, "import", "custom", str(tmp_path / "items.jsonl"), "--definition", str(tmp_path / "task.yaml"),
                 "--project", "graded")
    assert result.exit_code == 0, result.output
    with app.app_context():
        project = db.session.scalar(select(Project).where(Project.slug == "graded"))
        import_votes(project, {"i1": [{"pref": g} for g in ("A1", "A1", "B1")],
                               "i2": [{"pref": g} for g in ("B1", "equal", "B1")]})
        db.session.commit()
    result = cli(app, "replay", "--project", "graded", "--stopping", "decided", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert (report["accuracy_full"], report["accuracy_used"]) == (pytest.approx(1.0), pytest.approx(1.0))
