"""Part 1: gold, agreement and exports count complete items only; the rest is pending."""
from __future__ import annotations

from pathlib import Path

from annotator.analysis.results import labels_frame, project_agreement, project_progress
from annotator.figures.kept_gold import gold_frame
from tests.quality.conftest import answer_next, vote_on

NONE = {"matches": []}


def test_an_item_with_fewer_than_k_votes_is_not_in_gold(kpa_project, make_user):
    project = kpa_project(k=2)
    answer_next(make_user("ann"), project, NONE)
    assert gold_frame(project).empty
    assert labels_frame(project).empty


def test_an_item_counts_once_it_has_its_k_votes(kpa_project, make_user):
    project = kpa_project(k=2)
    for name in ("ann", "bob"):
        vote_on(make_user(name), project, "arg_1_0", NONE)
    gold = gold_frame(project)
    assert set(gold["item"]) == {"arg_1_0"} and set(gold["n"]) == {2}   # the declared gold's annotators per unit


def test_pending_items_are_counted_in_the_progress(kpa_project, make_user):
    project = kpa_project(k=2)
    answer_next(make_user("ann"), project, NONE)
    progress = project_progress(project)
    assert (progress.items, progress.complete, progress.pending) == (26, 0, 26)


def test_pending_items_are_in_the_frame_when_asked_for(kpa_project, make_user):
    project = kpa_project(k=2)
    answer_next(make_user("ann"), project, NONE)
    assert set(labels_frame(project, include_incomplete=True)["item"]) == {"arg_1_0"}


def test_agreement_leaves_pending_items_out(kpa_project, make_user):
    project = kpa_project(k=3)
    for name in ("ann", "bob"):
        vote_on(make_user(name), project, "arg_1_0", NONE)
    assert all(f.units == 0 for f in project_agreement(project))


def test_export_leaves_pending_items_out_and_says_so(app, kpa_project, make_user, tmp_path: Path):
    project = kpa_project(k=2)
    answer_next(make_user("ann"), project, NONE)
    result = app.test_cli_runner().invoke(
        args=["export", "kpa2021", "--project", "kpa", "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert "26 of 26 items are pending" in result.output
    assert not (tmp_path / "out" / "README.txt").exists()
    assert "arg_1_0" not in (tmp_path / "out" / "votes.csv").read_text()


def test_export_with_include_incomplete_has_them_and_a_readme(app, kpa_project, make_user, tmp_path: Path):
    project = kpa_project(k=2)
    answer_next(make_user("ann"), project, NONE)
    result = app.test_cli_runner().invoke(args=["export", "kpa2021", "--project", "kpa", "--out", str(tmp_path / "out"),
                                 "--include-incomplete"])
    assert result.exit_code == 0, result.output
    assert "arg_1_0" in (tmp_path / "out" / "votes.csv").read_text()
    readme = (tmp_path / "out" / "README.txt").read_text()
    assert "INCOMPLETE ITEMS INCLUDED" in readme and "26 of 26 items" in readme


def test_the_compare_format_reads_whole_answers_by_the_same_rule(kpa_project, make_user):
    """kpa2021-compare reads whole answers (not label rows): it applies the same rule (results.counted_votes)."""
    from annotator.shared_tasks.kpa2021.compare_exchange import judgments
    from tests.conftest import DATA, load_project
    project = load_project("kpa2021-compare", DATA / "kpa2021_track2", "cmp", split="test", k=2)
    answer = {"stance_a": "all_support", "stance_b": "all_support", "less_redundant": "A", "more_central": "equal"}
    answer_next(make_user("ann"), project, answer)
    assert judgments(project) == []
    assert len(judgments(project, include_incomplete=True)) == 1
