"""`flask import emphasis2020 --declared`: a declared project of selection.yaml, served by the one engine, gives what
a built-in emphasis project gives: the imported votes as the definition's answers and label rows, the three official
files byte for byte, the scoring gold of a leaderboard, the dataset table and the agreement figures.

The built-in type is gone (docs/one-engine.md): where a built-in project of the same excerpt was the reference, the
expected values are now the released files themselves or worked out from them by hand, and `--no-declared` is
refused, saying why. The whole released train and dev files go through the declared project (the only kind there
is) in tests/cli/test_emphasis2020_official_data.py: imported with votes once per file and engine, their kappa
and their export checked there.
"""
from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from annotator.analysis.results import project_agreement
from annotator.core.extensions import db
from annotator.core.models import Assignment, Item, Label, Project, User, utcnow
from annotator.declared.items import load_definition
from annotator.engine import assignment as engine
from annotator.lookups.scorers import score_files
from annotator.shared_tasks.emphasis2020.bridge import DEFINITION
from annotator.shared_tasks.emphasis2020.files import read_file
from tests.conftest import DATA, load_project
from tests.support.nominal_figures import fleiss_kappa, krippendorff_alpha

EXCERPTS = DATA / "emphasis2020"


def _import(app, name: str, *args: str, slug: str = "emph", path: Path | None = None) -> None:  # type: ignore[no-untyped-def]
    result = app.test_cli_runner().invoke(args=["import", "emphasis2020", str(path or EXCERPTS / name),
                                                "--project", slug, *args])
    assert result.exit_code == 0, result.output


def _export(app, out: Path, slug: str = "emph", *args: str) -> Path:  # type: ignore[no-untyped-def]
    result = app.test_cli_runner().invoke(args=["export", "emphasis2020", "--project", slug, "--out", str(out), *args])
    assert result.exit_code == 0, result.output
    return out


def _project(slug: str) -> Project:
    db.session.remove()
    return db.session.scalars(select(Project).where(Project.slug == slug)).one()


def test_the_declared_import_makes_a_project_of_the_definition_with_k_9_and_the_file_as_its_split(app):
    _import(app, "train_excerpt.txt", "--declared")
    project = _project("emph")
    assert (project.task_type, project.k, project.source) == ("custom", 9, {"format": "emphasis2020",
                                                                             "split": "train_excerpt"})
    assert project.definition == json.loads(json.dumps(load_definition(DEFINITION).to_data()))


def test_the_items_are_the_sentences_with_word_ids_and_pos_as_in_a_built_in_project(app):
    """Was: equal to a built-in project's items; now the file's sentences, word ids, words and POS tags."""
    _import(app, "dev_excerpt.txt", "--declared", slug="declared")
    sentences = read_file(EXCERPTS / "dev_excerpt.txt")
    assert [item.payload for item in _project("declared").items] == [
        {"id": s.sentence_id, "words": [{"id": t.word_id, "text": t.word, "pos": t.pos} for t in s.tokens]}
        for s in sentences]
    assert _project("declared").items[0].payload["words"][0] == {"id": "Q_0_0", "text": "Life", "pos": "NNP"}


def test_annotator_j_votes_column_j_stored_as_the_definitions_answer_and_rows(app):
    _import(app, "dev_excerpt.txt", "--declared", "--with-votes")
    sentence = read_file(EXCERPTS / "dev_excerpt.txt")[0]
    tags = [token.tags[2] for token in sentence.tokens]   # column 3 of Q_0
    db.session.remove()
    vote = db.session.execute(select(Assignment).join(User).join(Item)
                              .where(User.username == "emph-annotator-3", Item.external_id == "Q_0")).scalar_one()
    assert vote.answer == {"emphasis": tags}
    rows = sorted((label.unit, label.field, label.value)
                  for label in db.session.scalars(select(Label).where(Label.assignment_id == vote.id)))
    assert rows == sorted([(t.word_id, "emphasis", "0" if tag == "O" else "1") for t, tag in zip(sentence.tokens, tags)]
                          + [(t.word_id, "emphasis.bio", tag) for t, tag in zip(sentence.tokens, tags)])


@pytest.mark.parametrize("name", ["train_excerpt.txt", "dev_excerpt.txt"])
def test_importing_with_votes_and_exporting_gives_the_same_bytes(app, tmp_path, name):
    _import(app, name, "--declared", "--with-votes")
    out = _export(app, tmp_path / "out")
    assert (out / name).read_bytes() == (EXCERPTS / name).read_bytes()


def test_the_three_files_are_the_released_gold_its_words_and_a_submission_that_scores_1(app, tmp_path):
    """Was: the same bytes as a built-in project's of the same votes; now each file against the released one."""
    _import(app, "dev_excerpt.txt", "--declared", "--with-votes", slug="declared")
    declared = _export(app, tmp_path / "d", "declared")
    names = ["dev_excerpt.txt", "dev_excerpt_words_only.txt", "dev_excerpt_submission.txt"]
    assert sorted(p.name for p in declared.iterdir()) == sorted(names)
    assert (declared / "dev_excerpt.txt").read_bytes() == (EXCERPTS / "dev_excerpt.txt").read_bytes()
    released = [line.split("\t")[:2] for line in (EXCERPTS / "dev_excerpt.txt").read_text(encoding="utf-8").split("\n")]
    words_only = (declared / "dev_excerpt_words_only.txt").read_text(encoding="utf-8").split("\n")
    assert [line.split("\t")[:2] for line in words_only if line] == [fields for fields in released if fields != [""]]
    assert score_files("emphasis2020", EXCERPTS / "dev_excerpt.txt",
                       declared / "dev_excerpt_submission.txt").metrics["score"] == 1.0


def test_live_votes_in_todays_answer_shape_export_with_n_and_an_underscore_for_the_missing_pos(app, tmp_path,
                                                                                               make_user):
    _import(app, "test_excerpt.txt", "--declared", "--k", "3")
    project = _project("emph")
    item = db.session.scalar(select(Item).where(Item.external_id == "Q_1"))
    words = len(item.payload["words"])
    for name, tags in (("ann", ["B", "I"] + ["O"] * (words - 2)), ("bob", ["B"] + ["O"] * (words - 1))):
        user = make_user(name)
        lease = Assignment(project_id=project.id, item_id=item.id, user_id=user.id,
                           expires_at=utcnow() + timedelta(minutes=5))
        db.session.add(lease)
        db.session.commit()
        engine.submit(lease.id, user, {"tags": tags})
    out = _export(app, tmp_path / "out", "emph", "--include-incomplete")
    lines = (out / "test_excerpt.txt").read_text(encoding="utf-8").split("\n")
    assert lines[1] == f"Q_1_0\t{read_file(EXCERPTS / 'test_excerpt.txt')[1].tokens[0].word}\tB|B\t2|0|0\t1.0\t_\t "
    assert lines[2].split("\t")[2:5] == ["I|O", "0|1|1", "0.5"]


def test_a_leaderboard_takes_its_gold_from_the_declared_votes(app):
    from annotator.campaigns.leaderboard import gold_set_from_project
    _import(app, "dev_excerpt.txt", "--declared", "--with-votes")
    gold_set = gold_set_from_project(_project("emph"))
    assert (gold_set.task, gold_set.filename) == ("emphasis2020", "dev_excerpt.txt")
    assert gold_set.content == (EXCERPTS / "dev_excerpt.txt").read_bytes()


def test_the_dataset_table_counts_the_files_sentences_and_words(app):
    """Was: equal to a built-in project's table; now the combined row worked out from the file."""
    _import(app, "train_excerpt.txt", "--declared", slug="declared")
    result = app.test_cli_runner().invoke(args=["stats", "declared", "--json"])
    assert result.exit_code == 0, result.output
    combined = json.loads(result.stdout)["tables"][0]["rows"][-1]
    lengths = [len(s.tokens) for s in read_file(EXCERPTS / "train_excerpt.txt")]
    assert (combined["data set"], combined["sentences"], combined["words"], combined["max length"]) == \
        ("combined", len(lengths), sum(lengths), max(lengths))
    assert combined["mean length"] == pytest.approx(sum(lengths) / len(lengths))


@pytest.mark.parametrize("field", ["emphasis", "emphasis.bio"])
def test_the_agreement_of_the_files_votes_is_the_textbook_figure(app, field):
    """Was: equal to a built-in project's "emphasis" and "bio" figures; now the formulas' values over the file's
    nine columns (selected or not, and the three tags)."""
    _import(app, "train_excerpt.txt", "--declared", "--with-votes", slug="declared")
    ratings: dict[str, list[str]] = {}
    for sentence in read_file(EXCERPTS / "train_excerpt.txt"):
        for token in sentence.tokens:
            tags = list(token.tags or ())
            ratings[token.word_id] = tags if field == "emphasis.bio" else ["0" if t == "O" else "1" for t in tags]
    found = {f.field: f for f in project_agreement(_project("declared"))}[field]
    assert (found.fleiss_kappa.value, found.krippendorff_alpha.value, found.units) == pytest.approx(
        (fleiss_kappa(ratings), krippendorff_alpha(ratings), len(ratings)), abs=1e-9)


def _halves(tmp_path: Path) -> tuple[Path, Path]:
    """The train excerpt's sentences in two files of the same name (the same split): first, then the rest."""
    sentences = (EXCERPTS / "train_excerpt.txt").read_text(encoding="utf-8").strip("\n").split("\n\n")
    paths = (tmp_path / "first" / "train_excerpt.txt", tmp_path / "rest" / "train_excerpt.txt")
    for path, part in zip(paths, (sentences[:1], sentences[1:])):
        path.parent.mkdir()
        path.write_text("\n\n".join(part) + "\n\n", encoding="utf-8")
    return paths


def test_no_declared_is_refused_saying_the_built_in_type_is_gone_and_imports_nothing(app):
    """Was: a built-in project made with --no-declared kept its type; the built-in type is gone."""
    refused = app.test_cli_runner().invoke(args=["import", "emphasis2020", str(EXCERPTS / "dev_excerpt.txt"),
                                                 "--project", "emph", "--no-declared"])
    assert refused.exit_code != 0
    assert "the built-in emphasis HIT type is gone" in refused.output and "Nothing was imported." in refused.output
    db.session.remove()
    assert db.session.scalars(select(Project).where(Project.slug == "emph")).first() is None


def test_more_sentences_go_into_a_declared_project_only_as_declared_ones(app, tmp_path):
    first, rest = _halves(tmp_path)
    _import(app, "", "--declared", slug="emph", path=first)
    refused = app.test_cli_runner().invoke(args=["import", "emphasis2020", str(rest), "--project", "emph",
                                                 "--no-declared"])
    assert refused.exit_code != 0 and "the built-in emphasis HIT type is gone" in refused.output
    assert len(_project("emph").items) == 1
    _import(app, "", "--declared", slug="emph", path=rest)
    assert len(_project("emph").items) == len(read_file(EXCERPTS / "train_excerpt.txt"))


def test_another_declared_project_is_not_exported_as_emphasis_files(app, tmp_path):
    """The format's task is the declared type now; it still writes only the projects imported from its files."""
    load_project("custom", DATA / "declared" / "items.jsonl", "other", definition=DATA / "declared" / "every_kind.yaml")
    result = app.test_cli_runner().invoke(args=["export", "emphasis2020", "--project", "other", "--out",
                                                str(tmp_path / "out")])
    assert result.exit_code != 0 and "project 'other' holds" in result.output
    assert not (tmp_path / "out").exists()
