"""A RuArg-2022 project, a declared one since the built-in type went, gives what only the built-in type gave before:
the stance stage's check of its gold against the file's stances, the admin's gold summary (decided, undecided,
adjudicated sentences), a control item's score over the six codes, and more files imported into it without
repeating its settings. Each expected value is worked out here from the votes by the paper's rules; the files of a
Russian project are held to the kept outputs of the built-in type's Russian stages too
(tests/cli/test_ruarg2022_kept_outputs.py).

Votes are the three annotators' of tests/cli/test_ruarg2022_declared_projects.py (`_votes`): the file's labels
decided on most sentences of the train excerpt, other labels decided on the 1st and 7th, nothing decided on the
4th and 10th.
"""
from __future__ import annotations

from sqlalchemy import select

from annotator.analysis.results import gold_summary, labels_frame, project_checks
from annotator.core.extensions import db
from annotator.core.models import Adjudication, ControlAnswer, Item, Project, User
from annotator.figures.kept_gold import gold_frame
from annotator.quality.controls import make_control
from tests.cli.test_ruarg2022 import _cli, _import
from tests.cli.test_ruarg2022_declared_projects import (
    CLAIMS,
    TRAIN,
    _both_voted,
    _export,
    _file_labels,
    _halves,
    _vote_all,
    check_the_files_decide_as_the_paper_s_rules,
)
from tests.cli.test_ruarg2022_stages import _vote

REFERENCE_CHECK = "gold differs from the imported reference labels"


def _project(slug: str) -> Project:
    db.session.remove()
    return db.session.scalars(select(Project).where(Project.slug == slug)).one()


def _checks(slug: str) -> dict[str, tuple[int, int]]:
    """The project page's checks, read back in a fresh session: name -> (flagged, of)."""
    project = _project(slug)
    labels = labels_frame(project)
    return {c.name: (c.flagged, c.of) for c in project_checks(project, labels, gold_frame(project, labels))}


def test_the_stance_stage_checks_its_gold_against_the_files_stances(app, make_user):
    for n in range(3):
        make_user(f"a{n}")
    _import(app, TRAIN, "--stage", "stance", slug="declared")
    _vote_all("declared", ("stance",))
    # counted from the votes: the 4th and 10th sentences undecided on every claim (three different stances, or two
    # annotators finding an irrelevant claim relevant with different stances), so 9 sentences x 3 claims decided;
    # on the 1st and 7th two annotators agree on other stances than the file's for all three claims: 6 differ
    assert len(_file_labels()) == 11
    assert _checks("declared") == {REFERENCE_CHECK: (6, 27)}


def test_more_files_go_into_a_declared_project_with_only_the_settings_that_change(app, tmp_path):
    first, rest = _halves(tmp_path)
    _import(app, first, "--stage", "stance", "--agree", "3")
    made = _project("ru").definition
    # --agree 3 again, without --stage: the project's own stage (stance) and relevance m (2), not the defaults
    _import(app, rest, "--agree", "3")
    project = _project("ru")
    assert project.definition == made and len(project.items) == len(_file_labels())
    group = project.definition["questions"][0]["questions"]
    assert [(q["id"], q["gold"]["m"]) for q in group] == [("relevance", 2), ("stance", 3)]


def test_a_control_item_scores_an_answer_over_the_six_codes(app, make_user):
    """17024 in the file: masks -1 -1, quarantine 1 1, vaccines -1 -1. Scored over the six codes, "irrelevant"
    (-1) one of them: all right 6 of 6; quarantine found irrelevant, 4 of 6 (its stance and premise wrong); masks
    relevant with the stance 2 and premise 1, 4 of 6 (both of its codes wrong), though only one relevance is."""
    irrelevant = {"stance": -1, "premise": -1}
    answers = {"right": {"masks": irrelevant, "quarantine": {"stance": 1, "premise": 1}, "vaccines": irrelevant},
               "missed": {"masks": irrelevant, "quarantine": irrelevant, "vaccines": irrelevant},
               "added": {"masks": {"stance": 2, "premise": 1}, "quarantine": {"stance": 1, "premise": 1},
                         "vaccines": irrelevant}}
    _import(app, TRAIN, slug="declared")
    project = _project("declared")
    item = db.session.scalar(select(Item).where(Item.project_id == project.id, Item.external_id == "17024"))
    make_control(item, project)
    db.session.commit()
    for name, claims in answers.items():
        _vote(_project("declared"), make_user(f"declared-{name}"), "17024", {"claims": claims})
    db.session.remove()
    scores = dict(db.session.execute(select(User.username, ControlAnswer.score).join(User)).all())
    assert {name: scores[f"declared-{name}"] for name in answers} == {"right": 1.0, "missed": 4 / 6, "added": 4 / 6}


def test_the_gold_summary_counts_decided_undecided_and_adjudicated_sentences(app, make_user):
    _both_voted(app, make_user)
    text_id = list(_file_labels())[3]     # the 4th sentence, left undecided by the votes, decided by an admin
    decision = {"claims": {c: {"relevance": "irrelevant"} for c in CLAIMS}}
    project = _project("declared")
    item = db.session.scalar(select(Item).where(Item.project_id == project.id, Item.external_id == text_id))
    db.session.add(Adjudication(project_id=project.id, item_id=item.id, answer=decision))
    db.session.commit()
    declared = gold_summary(_project("declared")).counts
    # 11 sentences: the 4th and 10th undecided by the votes, the 4th then adjudicated
    assert (declared["items decided"], declared["items for adjudication"], declared["items adjudicated"]) == (9, 1, 1)


def test_a_russian_project_takes_todays_answers_and_its_files_decide_by_the_paper_s_rules(app, make_user,
                                                                                          tmp_path):
    _both_voted(app, make_user, "--language", "ru")    # votes in today's answer shape, through the bridge
    assert _project("declared").definition["questions"][0]["elements"][0]["text"] == \
        "Ношение масок полезно для общества"
    check_the_files_decide_as_the_paper_s_rules(_export(app, "declared", tmp_path / "d"))


def test_a_further_import_without_the_language_keeps_the_projects_russian_wording(app, tmp_path):
    first, rest = _halves(tmp_path)
    _import(app, first, "--language", "ru")
    made = _project("ru").definition
    _import(app, rest, "--agree", "2")    # read over the project's own settings: ru, stage both
    project = _project("ru")
    assert project.definition == made and len(project.items) == len(_file_labels())


def test_the_premise_stage_of_a_russian_stance_stage_asks_in_russian(app, make_user):
    for n in range(3):
        make_user(f"a{n}")
    _import(app, TRAIN, "--stage", "stance", "--language", "ru", slug="st")
    _vote_all("st", ("stance",))
    made = _cli(app, "premise-stage", "--from", "st", "--project", "pr")
    assert made.exit_code == 0, made.output
    questions = _project("pr").definition["questions"]
    # the built-in's Russian claim and its premise label ("Довод"), the options its words
    assert questions[0]["prompt"] == "Ношение масок полезно для общества. Довод"
    assert [o["label"] for o in questions[0]["options"]] == ["за", "против", "нет довода"]
