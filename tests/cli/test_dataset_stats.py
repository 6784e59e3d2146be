"""`flask stats PROJECT...` on the excerpts in tests/data: each task's dataset table by its paper's rules, and
the seeded split of `--split-sizes`. The papers' own figures on the whole official files are in
test_dataset_stats_official.py."""
from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from annotator.campaigns.splits import UNDRAWN
from annotator.core.extensions import db
from annotator.core.models import Project, ProjectData
from tests.conftest import DATA, load_project
from tests.support.voting import vote_everywhere


def _stats(app, *args: str) -> dict:  # type: ignore[no-untyped-def]
    result = app.test_cli_runner().invoke(args=["stats", *args, "--json"])
    assert result.exit_code == 0, result.output
    return {t["name"]: t["rows"] for t in json.loads(result.stdout)["tables"]}


def _refused(app, *args: str) -> str:  # type: ignore[no-untyped-def]
    result = app.test_cli_runner().invoke(args=["stats", *args])
    assert result.exit_code == 1, result.output
    return result.output


def _split_rows() -> list:
    return list(db.session.scalars(select(ProjectData.content).where(ProjectData.name == "item_split")))


def test_kpa_table_counts_undecided_pairs_as_the_ones_without_a_label(app):
    """The excerpt: 26 arguments, 5 key points each of their topic and stance (130 pairs), 119 label rows (22
    positive, 97 negative): 11 pairs undecided; 20 arguments with a positive key point, 23 with a positive or
    undecided one, 2 with two positive ones."""
    load_project("kpa2021", DATA / "kpa2021", "kpa", split="test")
    [row] = _stats(app, "kpa")["dataset"]
    assert row == {"split": "test", "topics": 1, "arguments": 26, "key points": 10, "labelled arguments": 26,
                   "pairs": 130, "positive": 22 / 130, "negative": 97 / 130, "undecided": 11 / 130,
                   "strict coverage": 20 / 26, "relaxed coverage": 23 / 26, "several key points": 2,
                   "several key points share": 2 / 26}


def _voted_kpa(make_user) -> None:  # type: ignore[no-untyped-def]
    """Two of three annotators match each argument's first key point, the third the first two: by the 60% / 15%
    thresholds the first pair is positive, the second undecided (1 of 3), the other three negative."""
    project = load_project("kpa2021", DATA / "kpa2021", "kpa", split="test", k=3)
    users = [make_user(name) for name in ("a", "b", "c")]
    vote_everywhere(project, users, lambda item, user: {
        "matches": [kp["id"] for kp in item.payload["key_points"][:2 if user.username == "c" else 1]]})


def test_kpa_table_counts_the_gold_of_the_votes_once_there_is_gold(app, make_user):
    _voted_kpa(make_user)
    [row] = _stats(app, "kpa")["dataset"]
    assert (row["positive"], row["undecided"], row["negative"]) == (0.2, 0.2, 0.6)
    assert (row["strict coverage"], row["relaxed coverage"], row["several key points"]) == (1.0, 1.0, 0)


def test_kpa_table_can_count_the_imported_labels_of_a_voted_project(app, make_user):
    _voted_kpa(make_user)
    [row] = _stats(app, "kpa", "--labels", "reference")["dataset"]
    assert row["positive"] == 22 / 130 and row["several key points"] == 2


def test_kpa_table_without_labels_leaves_the_label_columns_empty(app, tmp_path):
    for name in ("arguments_test.csv", "key_points_test.csv"):
        (tmp_path / name).write_bytes((DATA / "kpa2021" / name).read_bytes())
    load_project("kpa2021", tmp_path, "kpa", split="test")
    [row] = _stats(app, "kpa")["dataset"]
    assert row["arguments"] == 26 and row["labelled arguments"] == 0 and row["positive"] is None


def test_emphasis_table_gives_length_by_data_set_and_by_split(app):
    """The three excerpts: train S_0 (3 words), Q_1 (10), S_546 (1), Q_1582 (15); dev 3 and test 3 sentences.
    The sentence id's prefix names the data set (S_ Spark, Q_ Quotes)."""
    for split in ("train", "dev", "test"):
        load_project("emphasis2020", DATA / "emphasis2020" / f"{split}_excerpt.txt", split)
    tables = _stats(app, "train", "dev", "test")
    train = tables["splits"][0]
    assert (train["split"], train["sentences"], train["words"], train["max length"], train["mean length"]) == \
        ("train_excerpt", 4, 29, 15, 7.25)
    assert train["SD length"] == pytest.approx((124.75 / 3) ** 0.5)  # the sample SD of 3, 10, 1, 15
    assert (train["unique word forms"], train["unique words"]) == (26, 25)  # "the" and "The" are one word
    assert [r["split"] for r in tables["splits"]] == ["train_excerpt", "dev_excerpt", "test_excerpt", "all"]
    assert [(r["data set"], r["sentences"], r["words"]) for r in tables["datasets"]] == \
        [("Spark", 6, 44), ("Quotes", 4, 50), ("combined", 10, 94)]


def test_recam_table_gives_the_questions_per_file(app):
    load_project("recam2021", DATA / "recam2021" / "Task_1_dev_excerpt.jsonl", "dev")
    load_project("recam2021", DATA / "recam2021" / "Task_1_test_excerpt.jsonl", "test")
    rows = _stats(app, "dev", "test")["sizes"]
    assert [(r["split"], r["questions"], r["with known answer"]) for r in rows] == \
        [("Task_1_dev_excerpt", 4, 4), ("Task_1_test_excerpt", 3, 0), ("all", 7, 4)]
    assert [rows[0][f"answer {n}"] for n in range(5)] == [0, 0, 1, 0, 3]  # labels 2, 4, 4, 4


def test_projects_of_different_formats_are_refused(app):
    load_project("kpa2021", DATA / "kpa2021", "kpa", split="test")
    load_project("recam2021", DATA / "recam2021" / "Task_1_dev_excerpt.jsonl", "dev")
    assert "the projects come from different formats (kpa: kpa2021, dev: recam2021)" in _refused(app, "kpa", "dev")


def test_a_format_without_a_table_is_refused_in_words(app):
    load_project("ruarg2022", DATA / "ruarg2022" / "train_excerpt.tsv", "ru")
    assert "the ruarg2022 format declares no dataset table" in _refused(app, "ru")


def test_an_unknown_project_is_refused(app):
    assert "there is no project 'nope'" in _refused(app, "nope")


def test_split_sizes_draw_the_split_and_the_table_follows_it(app):
    load_project("kpa2021", DATA / "kpa2021", "kpa", split="test")
    rows = _stats(app, "kpa", "--split-sizes", "18,4,4", "--seed", "3")["dataset"]
    assert [(r["split"], r["arguments"]) for r in rows] == [("train", 18), ("dev", 4), ("test", 4), ("all", 26)]
    [split] = _split_rows()
    assert (split["seed"], split["sizes"], split["names"]) == (3, [18, 4, 4], ["train", "dev", "test"])


def test_the_same_seed_draws_the_same_split_in_another_project(app):
    load_project("kpa2021", DATA / "kpa2021", "one", split="test")
    load_project("kpa2021", DATA / "kpa2021", "two", split="test")
    _stats(app, "one", "--split-sizes", "18,4,4", "--seed", "3")
    _stats(app, "two", "--split-sizes", "18,4,4", "--seed", "3")
    first, second = _split_rows()
    assert first["items"] == second["items"]


def test_drawing_again_replaces_the_split(app):
    load_project("kpa2021", DATA / "kpa2021", "kpa", split="test")
    _stats(app, "kpa", "--split-sizes", "18,4,4", "--seed", "3")
    _stats(app, "kpa", "--split-sizes", "20,6", "--seed", "4", "--split-names", "train,test")
    [split] = _split_rows()
    assert split["names"] == ["train", "test"] and split["seed"] == 4


def test_split_sizes_that_do_not_add_up_to_the_items_change_nothing(app):
    load_project("kpa2021", DATA / "kpa2021", "kpa", split="test")
    _stats(app, "kpa", "--split-sizes", "18,4,4", "--seed", "3")
    before = _split_rows()
    output = _refused(app, "kpa", "--split-sizes", "2741,392,743", "--seed", "3")
    assert "the split sizes 2741,392,743 add up to 3876, but the project has 26 items" in output
    assert _split_rows() == before


@pytest.mark.parametrize("args, message", [
    (["--split-sizes", "18,4,4"], "--split-sizes needs --seed N"),
    (["--seed", "3"], "--seed only goes with --split-sizes"),
    (["--split-sizes", "18,4,4", "--seed", "3", "--split-names", "a,b"], "3 split sizes for 2 splits"),
])
def test_incomplete_split_options_are_refused_and_change_nothing(app, args, message):
    load_project("kpa2021", DATA / "kpa2021", "kpa", split="test")
    assert message in _refused(app, "kpa", *args)
    assert _split_rows() == []


def test_a_split_is_drawn_for_one_project_only(app):
    load_project("kpa2021", DATA / "kpa2021", "one", split="test")
    load_project("kpa2021", DATA / "kpa2021", "two", split="test")
    assert "draws the split of one project" in _refused(app, "one", "two", "--split-sizes", "18,4,4", "--seed", "3")
    assert _split_rows() == []


def test_two_projects_of_one_split_name_keep_their_rows_apart(app):
    load_project("kpa2021", DATA / "kpa2021", "one", split="test")
    load_project("kpa2021", DATA / "kpa2021", "two", split="test")
    rows = _stats(app, "one", "two")["dataset"]
    assert [(r["split"], r["arguments"], r["key points"]) for r in rows] == \
        [("one/test", 26, 10), ("two/test", 26, 10), ("all", 52, 20)]
    assert db.session.scalar(select(Project).where(Project.slug == "one")) is not None


def test_items_loaded_after_the_split_was_drawn_get_a_row_of_their_own(app, tmp_path):
    """A split names the items it drew; the ones a later import adds (here: the train excerpt's first three
    sentences, then the rest) are in none of its parts until it is drawn again."""
    sentences = (DATA / "emphasis2020" / "train_excerpt.txt").read_text(encoding="utf-8").strip("\n").split("\n\n")
    for part, chosen in (("first", sentences[:3]), ("rest", sentences[3:])):
        (tmp_path / part).mkdir()
        (tmp_path / part / "train_excerpt.txt").write_text("\n\n".join(chosen) + "\n\n", encoding="utf-8")
    load_project("emphasis2020", tmp_path / "first" / "train_excerpt.txt", "emph")
    _stats(app, "emph", "--split-sizes", "2,1", "--seed", "3", "--split-names", "train,dev")
    load_project("emphasis2020", tmp_path / "rest" / "train_excerpt.txt", "emph")
    rows = _stats(app, "emph")["splits"]
    assert [(r["split"], r["sentences"]) for r in rows] == [("train", 2), ("dev", 1), (UNDRAWN, 1), ("all", 4)]
