"""`flask export emphasis2020`: the annotated file exactly as the task's, the words-only file and a
submission file, all from the votes; byte-identical round trips on the excerpts."""
from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Assignment, Item, Project, utcnow
from annotator.engine import assignment as engine
from annotator.lookups.scorers import score_files
from annotator.shared_tasks.emphasis2020.files import read_file, words_only_text
from tests.conftest import DATA

EXCERPTS = DATA / "emphasis2020"


def _import(app, name: str, *args: str, slug: str = "emph") -> None:  # type: ignore[no-untyped-def]
    result = app.test_cli_runner().invoke(args=["import", "emphasis2020", str(EXCERPTS / name),
                                                "--project", slug, *args])
    assert result.exit_code == 0, result.output


def _export(app, tmp_path: Path, *args: str, slug: str = "emph"):  # type: ignore[no-untyped-def]
    out = tmp_path / "out"
    result = app.test_cli_runner().invoke(args=["export", "emphasis2020", "--project", slug, "--out", str(out),
                                                *args])
    return out, result


@pytest.mark.parametrize("name", ["train_excerpt.txt", "dev_excerpt.txt"])
def test_importing_with_votes_and_exporting_gives_the_same_bytes(app, tmp_path, name):
    _import(app, name, "--with-votes")
    out, result = _export(app, tmp_path)
    assert result.exit_code == 0, result.output
    assert (out / name).read_bytes() == (EXCERPTS / name).read_bytes()


def test_the_words_only_layout_round_trips_byte_identical(app, tmp_path):
    _import(app, "test_excerpt.txt")
    out, _ = _export(app, tmp_path)
    assert (out / "test_excerpt_words_only.txt").read_bytes() == (EXCERPTS / "test_excerpt.txt").read_bytes()


def test_the_words_only_file_of_an_annotated_split_is_the_test_layout_of_its_sentences(app, tmp_path):
    _import(app, "dev_excerpt.txt", "--with-votes")
    out, _ = _export(app, tmp_path)
    expected = words_only_text(read_file(EXCERPTS / "dev_excerpt.txt"))
    assert (out / "dev_excerpt_words_only.txt").read_text(encoding="utf-8") == expected


def test_the_default_submission_holds_the_gold_probabilities_and_scores_1(app, tmp_path):
    _import(app, "dev_excerpt.txt", "--with-votes")
    out, _ = _export(app, tmp_path)
    lines = (out / "dev_excerpt_submission.txt").read_text(encoding="utf-8").split("\n")
    assert lines[:2] == ["", "Q_0_0\tLife\t0.4444444444444444\t"]
    report = score_files("emphasis2020", EXCERPTS / "dev_excerpt.txt", out / "dev_excerpt_submission.txt")
    assert report.metrics["score"] == 1.0


def test_a_submission_from_given_scores_is_written_in_the_projects_order(app, tmp_path):
    _import(app, "test_excerpt.txt")
    sentences = read_file(EXCERPTS / "test_excerpt.txt")
    scores = tmp_path / "scores.txt"
    scores.write_text("\n" + "".join(
        "".join(f"{t.word_id}\t{t.word}\t{n / 100}\t\n" for n, t in enumerate(s.tokens)) + "\n"
        for s in sentences), encoding="utf-8")
    out, result = _export(app, tmp_path, "--scores", str(scores))
    assert result.exit_code == 0, result.output
    assert (out / "test_excerpt_submission.txt").read_bytes() == scores.read_bytes()


def test_scores_missing_a_word_are_refused_with_the_word(app, tmp_path):
    _import(app, "dev_excerpt.txt")
    scores = tmp_path / "scores.txt"
    scores.write_text("\nQ_0_0\tLife\t0.5\t\n\n", encoding="utf-8")
    _, result = _export(app, tmp_path, "--scores", str(scores))
    assert result.exit_code != 0 and "no score for Q_0_1" in result.output


def test_without_votes_the_annotated_file_is_empty_and_there_is_no_gold_submission(app, tmp_path):
    _import(app, "dev_excerpt.txt")
    out, result = _export(app, tmp_path)
    assert sorted(p.name for p in out.iterdir()) == ["dev_excerpt.txt", "dev_excerpt_words_only.txt"]
    assert (out / "dev_excerpt.txt").read_bytes() == b""  # the 7-field layout has no header
    assert "3 of 3 sentences have no vote yet" in result.output


def _vote(project: Project, user, external_id: str, tags: list[str]) -> None:  # type: ignore[no-untyped-def]
    """A live vote on a chosen item (leased by hand: the engine would pick the item itself)."""
    item = db.session.scalar(select(Item).where(Item.external_id == external_id))
    lease = Assignment(project_id=project.id, item_id=item.id, user_id=user.id,
                       expires_at=utcnow() + timedelta(minutes=5))
    db.session.add(lease)
    db.session.commit()
    engine.submit(lease.id, user, {"tags": tags})


def _two_votes_on_q1(app, make_user) -> int:  # type: ignore[no-untyped-def]
    """Project emph (k = 3) with two live votes on Q_1: pending; returns Q_1's number of words."""
    _import(app, "test_excerpt.txt", "--k", "3")
    project = db.session.scalar(select(Project))
    words = len(db.session.scalar(select(Item).where(Item.external_id == "Q_1")).payload["words"])
    _vote(project, make_user("ann"), "Q_1", ["B", "I"] + ["O"] * (words - 2))
    _vote(project, make_user("bob"), "Q_1", ["B"] + ["O"] * (words - 1))
    return words


def test_a_pending_sentence_is_left_out_of_the_export_by_default(app, tmp_path, make_user):
    _two_votes_on_q1(app, make_user)
    out, result = _export(app, tmp_path)
    assert result.exit_code == 0, result.output
    assert (out / "test_excerpt.txt").read_bytes() == b"" and not (out / "README.txt").exists()
    assert "3 of 3 items are pending" in result.output


def test_live_votes_export_with_n_their_number_and_an_underscore_for_the_missing_pos(app, tmp_path, make_user):
    words = _two_votes_on_q1(app, make_user)
    out, result = _export(app, tmp_path, "--include-incomplete")
    assert result.exit_code == 0, result.output
    assert "INCOMPLETE ITEMS INCLUDED" in (out / "README.txt").read_text(encoding="utf-8")
    lines = (out / "test_excerpt.txt").read_text(encoding="utf-8").split("\n")
    assert lines[1] == f"Q_1_0\t{read_file(EXCERPTS / 'test_excerpt.txt')[1].tokens[0].word}\tB|B\t2|0|0\t1.0\t_\t "
    assert lines[2].split("\t")[2:5] == ["I|O", "0|1|1", "0.5"]
    assert len([line for line in lines if line.startswith("Q_1_")]) == words
    assert not any(line.startswith(("S_0_", "S_341_")) for line in lines)
    assert "2 of 3 sentences have no vote yet" in result.output
    assert "1 sentence has fewer than k = 3 votes" in result.output


def test_a_leaderboard_takes_its_gold_from_the_votes(app, tmp_path):
    from annotator.campaigns.leaderboard import gold_set_from_project, score_submission
    _import(app, "dev_excerpt.txt", "--with-votes")
    gold_set = gold_set_from_project(db.session.scalar(select(Project)))
    assert (gold_set.task, gold_set.filename) == ("emphasis2020", "dev_excerpt.txt")
    assert gold_set.content == (EXCERPTS / "dev_excerpt.txt").read_bytes()
    out, _ = _export(app, tmp_path)
    submission = score_submission(gold_set, "team", "gold copy", "submission.txt",
                                  (out / "dev_excerpt_submission.txt").read_bytes())
    assert submission.metrics["score"] == 1.0
