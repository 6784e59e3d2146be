"""`flask import emphasis2020`: one item per sentence, optionally the nine annotators' votes; bad input
named by line, and then nothing at all is imported.

A new project is a declared project of selection.yaml (docs/one-engine.md): a vote is the definition's answer
`{"emphasis": [tags]}` and two label rows per word, `emphasis` (selected or not) and `emphasis.bio` (the tag, the
built-in type's `bio`)."""
from __future__ import annotations

import json
from pathlib import Path

import krippendorff
import pytest
from sqlalchemy import func, select
from statsmodels.stats.inter_rater import fleiss_kappa

from annotator.analysis.results import project_agreement
from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, Item, Label, Project, User
from annotator.shared_tasks.emphasis2020.files import kappa_table, read_file
from tests.conftest import DATA

EXCERPTS = DATA / "emphasis2020"
TRAIN = EXCERPTS / "train_excerpt.txt"  # S_0, Q_1, S_546 (one word), Q_1582: 29 words x 9 annotators


def _import(app, path: Path, *args: str, slug: str = "emph"):  # type: ignore[no-untyped-def]
    return app.test_cli_runner().invoke(args=["import", "emphasis2020", str(path), "--project", slug, *args])


def _count(model) -> int:  # type: ignore[no-untyped-def]
    return db.session.scalar(select(func.count()).select_from(model))


def _nothing_imported() -> bool:
    return all(_count(model) == 0 for model in (Project, Item, User, Assignment, Label))


def _item(external_id: str) -> Item:
    return db.session.scalar(select(Item).where(Item.external_id == external_id))


# --- items -------------------------------------------------------------------------------------------

def test_the_annotated_layout_gives_one_item_per_sentence_with_word_ids_words_and_pos(app):
    result = _import(app, TRAIN)
    assert result.exit_code == 0, result.output
    assert "Imported 4 sentences into project 'emph' (k=9)" in result.output
    assert [i.external_id for i in db.session.scalars(select(Item).order_by(Item.position))] == \
        ["S_0", "Q_1", "S_546", "Q_1582"]
    assert _item("S_0").payload == {"id": "S_0", "words": [
        {"id": "S_0_0", "text": "Save", "pos": "VB"}, {"id": "S_0_1", "text": "the", "pos": "DT"},
        {"id": "S_0_2", "text": "Date", "pos": "NN"}]}


def test_the_words_only_layout_gives_items_without_pos(app):
    assert _import(app, EXCERPTS / "test_excerpt.txt").exit_code == 0
    words = _item("S_0").payload["words"]
    assert words[0] == {"id": "S_0_0", "text": "We"} and len(words) == 16


def test_a_new_project_is_a_declared_project_of_the_definition_with_k_9_and_the_file_as_its_split(app):
    result = _import(app, TRAIN)   # no option: declared is the default, and the output says so
    assert "Created project 'emph' (Declared campaign: Emphasis selection (SemEval-2020 Task 10))." in result.output
    db.session.remove()
    project = db.session.scalar(select(Project))
    assert (project.task_type, project.k, project.source) == (
        "custom", 9, {"format": "emphasis2020", "split": "train_excerpt"})
    assert project.definition["name"] == "Emphasis selection (SemEval-2020 Task 10)"
    assert [(q["id"], q["kind"], q["boundaries"]) for q in project.definition["questions"]] == \
        [("emphasis", "span", True)]


def test_without_with_votes_no_vote_is_imported(app):
    _import(app, TRAIN)
    assert _count(Assignment) == 0 and _count(Label) == 0 and _count(User) == 0


def test_non_ascii_words_are_kept(app):
    _import(app, TRAIN)
    assert _item("Q_1582").payload["words"][11]["text"] == "─"


# --- votes -------------------------------------------------------------------------------------------

def test_with_votes_each_column_is_an_imported_annotator_who_cannot_log_in(app):
    result = _import(app, TRAIN, "--with-votes")
    assert "with 36 votes of imported annotators" in result.output
    users = db.session.scalars(select(User).order_by(User.id)).all()
    assert [u.username for u in users] == [f"emph-annotator-{j}" for j in range(1, 10)]
    assert all(u.password_hash is None and not u.active and u.role == "annotator" for u in users)


def test_with_votes_every_sentence_has_nine_submitted_votes_without_a_duration(app):
    _import(app, TRAIN, "--with-votes")
    assert [i.done_count for i in db.session.scalars(select(Item))] == [9, 9, 9, 9]
    votes = db.session.scalars(select(Assignment)).all()
    assert len(votes) == 36 and {v.status for v in votes} == {SUBMITTED}
    assert {v.seconds_spent for v in votes} == {None}
    assert _count(Label) == 2 * 29 * 9   # per word and vote: selected or not, and the tag


def test_annotator_j_votes_the_tags_of_column_j(app):
    _import(app, TRAIN, "--with-votes")
    item = _item("S_0")
    answers = db.session.execute(select(User.username, Assignment.answer).join(User)
                                 .where(Assignment.item_id == item.id).order_by(Assignment.id)).all()
    # S_0_0 O|B|B|B|B|B|B|B|B, S_0_1 O|I|O|O|I|I|O|O|I, S_0_2 B|I|O|O|I|I|B|B|I
    assert answers[0] == ("emph-annotator-1", {"emphasis": ["O", "O", "B"]})
    assert answers[1] == ("emph-annotator-2", {"emphasis": ["B", "I", "I"]})
    assert answers[8] == ("emph-annotator-9", {"emphasis": ["B", "I", "I"]})


def test_labels_are_a_selected_row_and_a_tag_row_per_word_and_vote(app):
    _import(app, TRAIN, "--with-votes")
    rows = db.session.execute(select(Label.unit, Label.field, Label.value).join(Assignment)
                              .join(User, User.id == Assignment.user_id)
                              .where(User.username == "emph-annotator-1", Label.unit.like("S_0_%"))
                              .order_by(Label.id)).all()
    assert sorted(rows) == [("S_0_0", "emphasis", "0"), ("S_0_0", "emphasis.bio", "O"),
                            ("S_0_1", "emphasis", "0"), ("S_0_1", "emphasis.bio", "O"),
                            ("S_0_2", "emphasis", "1"), ("S_0_2", "emphasis.bio", "B")]


def test_the_pipeline_agreement_equals_statsmodels_and_krippendorff_on_the_file(app):
    _import(app, TRAIN, "--with-votes")
    sentences = read_file(TRAIN)
    fields = {f.field: f for f in project_agreement(db.session.scalar(select(Project)))}
    for field, categories in (("emphasis", ("BI", "O")), ("emphasis.bio", ("B", "I", "O"))):
        table = kappa_table(sentences, categories)
        assert fields[field].fleiss_kappa.value == pytest.approx(fleiss_kappa(table, method="fleiss"), abs=1e-12)
        assert fields[field].krippendorff_alpha.value == pytest.approx(
            krippendorff.alpha(value_counts=table, level_of_measurement="nominal"), abs=1e-12)
        assert (fields[field].units, fields[field].coders, fields[field].ratings) == (29, 9, 261)


def test_the_agreement_command_reports_both_fields(app):
    _import(app, TRAIN, "--with-votes")
    report = json.loads(app.test_cli_runner().invoke(args=["agreement", "--project", "emph", "--json"]).output)
    assert [f["field"] for f in report["fields"]] == ["emphasis", "emphasis.bio"]
    assert sum(report["gold"].values()) == 29   # the words in three classes by probability


def test_with_votes_on_the_words_only_layout_is_refused(app):
    result = _import(app, EXCERPTS / "test_excerpt.txt", "--with-votes")
    assert result.exit_code != 0 and "needs the annotated layout" in result.output
    assert _nothing_imported()


def test_a_k_below_the_files_annotators_is_refused(app):
    result = _import(app, TRAIN, "--with-votes", "--k", "5")
    assert result.exit_code != 0 and "would have 9 votes but the project takes k = 5" in result.output
    assert _nothing_imported()


def test_a_k_above_the_files_annotators_leaves_room_for_more_votes(app):
    _import(app, TRAIN, "--with-votes", "--k", "10")
    assert db.session.scalar(select(func.sum(Item.done_count))) == 36
    assert db.session.scalar(select(Project.k)) == 10


def test_an_account_people_log_in_with_is_not_taken_over(app, make_user):
    make_user("emph-annotator-3")
    result = _import(app, TRAIN, "--with-votes")
    assert result.exit_code != 0 and "'emph-annotator-3' that people can log in with" in result.output
    assert _count(Item) == 0 and _count(Assignment) == 0


def test_importing_the_same_file_twice_is_refused_and_changes_nothing(app):
    _import(app, TRAIN, "--with-votes")
    result = _import(app, TRAIN, "--with-votes")
    assert result.exit_code != 0 and "already has item Q_1 (4 of these items" in result.output
    assert _count(Item) == 4 and _count(Assignment) == 36


# --- bad input ---------------------------------------------------------------------------------------

def _edited(tmp_path: Path, line: int, edit) -> Path:  # type: ignore[no-untyped-def]
    """The train excerpt with physical line `line` (1-based) replaced by edit(line)."""
    lines = TRAIN.read_text(encoding="utf-8").split("\n")
    lines[line - 1] = edit(lines[line - 1])
    path = tmp_path / "train.txt"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


@pytest.mark.parametrize("line, edit, expected", [
    (3, lambda t: t.replace("\tDT\t ", "\t "), "line 3: expected 7 fields like line 2"),
    (3, lambda t: t.replace("0|4|5", "0|5|4"), "line 3, column BIO_frequencies: frequencies '0|5|4'"),
    (4, lambda t: t.replace("B|I|O|O|I|I|B|B|I\t3|4|2", "B|I|I|O|I|I|B|B|I\t3|5|1")
     .replace("0.7777777777777778", "0.8888888888888888"),
     "line 4, column BIO_annotations: annotator 3: I after O on line 3"),
    (7, lambda t: t.replace("0.3333333333333333", "0.33"),
     "line 7, column emphasis_probability: probability '0.33' is not repr((#B+#I)/9)"),
])
def test_bad_lines_are_named_and_nothing_is_imported(app, tmp_path, line, edit, expected):
    result = _import(app, _edited(tmp_path, line, edit), "--with-votes")
    assert result.exit_code != 0
    assert f"train.txt, {expected}" in result.output and "Nothing was imported" in result.output
    assert _nothing_imported()


def test_a_bad_line_late_in_the_file_stops_the_whole_import(app, tmp_path):
    last = len(TRAIN.read_text(encoding="utf-8").split("\n")) - 3  # the file ends with "\t \n\n"
    result = _import(app, _edited(tmp_path, last, lambda t: t.rsplit("\t", 1)[0]))
    assert result.exit_code != 0 and f"line {last}" in result.output
    assert _nothing_imported()
