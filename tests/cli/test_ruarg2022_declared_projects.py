"""`flask import ruarg2022`: a declared project of the task's definition for the stage asked, served by the one
engine, gives what a RuArg project gave: the task's three files for the votes, the scorer's gold, the reference file
back, and the premise stage (`flask premise-stage`) made from its gold.

The votes are three annotators' (`_votes`), sent in today's answer shape (`{"claims": {claim: {"stance": code,
"premise": code}}}`), which the project takes through the task's bridge; what they decide is worked out here from
the paper's rules (a claim relevant when two found it so, a label the code at least m gave). That the files are the
bytes the built-in stance_premise type wrote for the same votes is held against its kept outputs
(tests/cli/test_ruarg2022_kept_outputs.py), the type being gone (docs/one-engine.md).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Adjudication, Assignment, ControlAnswer, Item, Label, Project, User
from annotator.declared.items import load_definition
from annotator.quality.controls import make_control
from annotator.shared_tasks.ruarg2022.bridge import BOTH, PREMISE, STANCE
from tests.cli.test_ruarg2022 import EXCERPTS, _cli, _import, _read
from tests.cli.test_ruarg2022_stages import _vote

TRAIN = EXCERPTS / "train_excerpt.tsv"
CLAIMS = ("masks", "quarantine", "vaccines")
FILES = ("train_excerpt.tsv", "undecided.tsv", "label_statistics.tsv")


def _project(slug: str) -> Project:
    db.session.remove()
    return db.session.scalars(select(Project).where(Project.slug == slug)).one()


def _file_labels() -> dict[str, dict[str, dict[str, int]]]:
    """The train excerpt's labels, read from the file: text_id -> claim -> stance and premise code."""
    return {row["text_id"]: {c: {"stance": int(row[f"{c}_stance"]), "premise": int(row[f"{c}_argument"])}
                             for c in CLAIMS} for row in _read(TRAIN)}


def _shifted(labels: dict[str, dict[str, int]], by: int) -> dict[str, dict[str, int]]:
    """Other labels than `labels`: an irrelevant claim found relevant (stance by - 1 mod 3, premise 1), a relevant
    claim's stance moved `by` places along 2, 0, 1."""
    order = (2, 0, 1)
    return {c: ({"stance": order[(by - 1) % 3], "premise": 1} if codes["stance"] == -1 else
                {"stance": order[(order.index(codes["stance"]) + by) % 3], "premise": codes["premise"]})
            for c, codes in labels.items()}


def _votes(position: int, labels: dict[str, dict[str, int]]) -> list[dict[str, dict[str, int]]]:
    """Three annotators' labels of the sentence at `position` in the file: the file's labels decided on most
    sentences, other labels decided on the 1st and 7th (two annotators give the same other labels), and three
    different labels, so nothing decided, on the 4th and 10th."""
    second = _shifted(labels, 1) if position % 3 == 0 else labels
    third = _shifted(labels, 1) if position % 6 == 0 else _shifted(labels, 2) if position % 3 == 0 else labels
    return [labels, second, third]


def _vote_all(slug: str, fields: tuple[str, ...] = ("stance", "premise")) -> None:
    """The three annotators' votes (_votes) on every sentence of project `slug`, in today's answer shape."""
    project = _project(slug)
    users = [db.session.scalar(select(User).where(User.username == f"a{n}")) for n in range(3)]
    for position, (text_id, labels) in enumerate(_file_labels().items()):
        for user, given in zip(users, _votes(position, labels)):
            answer = {"claims": {c: {f: codes[f] for f in fields} for c, codes in given.items()}}
            _vote(project, user, text_id, answer)


def _export(app, slug: str, out: Path, *args: str) -> Path:  # type: ignore[no-untyped-def]
    result = _cli(app, "export", "ruarg2022", "--project", slug, "--out", out, *args)
    assert result.exit_code == 0, result.output
    return out


def test_the_import_makes_a_declared_project_of_the_definition_with_the_file_as_its_source(app):
    _import(app, TRAIN, slug="declared")
    project = _project("declared")
    assert (project.task_type, project.k, project.settings) == ("custom", 3, {})
    assert project.definition == json.loads(json.dumps(load_definition(BOTH).to_data()))
    assert project.source == {"format": "ruarg2022", "split": "train_excerpt", "layout": "labelled", "newline": "crlf"}
    assert [i.payload for i in project.items] == [{"id": row["text_id"], "text": row["text"]} for row in _read(TRAIN)]


def test_the_file_labels_are_the_items_known_answers_in_the_definitions_terms(app):
    _import(app, TRAIN, "--declared")
    item = db.session.scalar(select(Item).where(Item.external_id == "17024"))
    # 17024 in the file: masks -1 -1, quarantine 1 1, vaccines -1 -1
    assert item.reference == {"claims": {"masks": {"relevance": "irrelevant"},
                                         "quarantine": {"relevance": "relevant", "stance": "1", "premise": "1"},
                                         "vaccines": {"relevance": "irrelevant"}}}


def test_the_stage_and_m_given_make_the_definition_of_that_stage_with_that_m(app):
    _import(app, TRAIN, "--declared", "--stage", "stance", "--k", "4", "--agree", "3")
    project = _project("ru")
    expected = json.loads(json.dumps(load_definition(STANCE).to_data()))
    group = expected["questions"][0]["questions"]
    group[1]["gold"]["m"] = 3    # the stance: 3 of 4, as on the test set; the relevance keeps 2 (section 3.1)
    assert (project.k, project.definition) == (4, expected)
    assert group[0]["gold"]["m"] == 2


@pytest.mark.parametrize(("value", "said"), [
    ("Masks | Masks are good", "line 1: the key 'Masks' must be lower-case letters, digits or _"),
    ("masks | Masks are good\nmasks | Masks again", "give at least one claim, each key once"),
])
def test_claims_written_wrong_are_refused_saying_how_and_nothing_is_made(app, value, said):
    result = _cli(app, "import", "ruarg2022", TRAIN, "--project", "ru", "--declared", "--claims", value)
    assert result.exit_code != 0 and said in result.output
    assert db.session.scalar(select(Project).where(Project.slug == "ru")) is None


def test_the_reference_export_gives_the_imported_file_back_byte_for_byte(app, tmp_path):
    _import(app, TRAIN, "--declared")
    out = _export(app, "ru", tmp_path, "--labels", "reference")
    assert (out / "train_excerpt.tsv").read_bytes() == TRAIN.read_bytes()


def test_today_answers_are_stored_as_the_definitions_answers_and_rows(app, make_user):
    _import(app, TRAIN, "--declared")
    for n in range(3):
        make_user(f"a{n}")
    _vote_all("ru")
    db.session.remove()
    vote = db.session.execute(select(Assignment).join(User).join(Item)
                              .where(User.username == "a0", Item.external_id == "17024")).scalar_one()
    assert vote.answer == {"claims": {"masks": {"relevance": "irrelevant"},
                                      "quarantine": {"relevance": "relevant", "stance": "1", "premise": "1"},
                                      "vaccines": {"relevance": "irrelevant"}}}
    rows = sorted(db.session.execute(select(Label.unit, Label.field, Label.value)
                                     .where(Label.assignment_id == vote.id)).all())
    assert rows == [("masks", "relevance", "irrelevant"), ("quarantine", "premise", "1"),
                    ("quarantine", "relevance", "relevant"), ("quarantine", "stance", "1"),
                    ("vaccines", "relevance", "irrelevant")]


def _both_voted(app, make_user, *args: str) -> None:  # type: ignore[no-untyped-def]
    """The train excerpt as project "declared" with the three annotators' votes (`_votes`)."""
    _import(app, TRAIN, *args, slug="declared")
    for n in range(3):
        make_user(f"a{n}")
    _vote_all("declared")


def _labels_written(row: dict[str, str]) -> dict[str, dict[str, int]]:
    return {c: {"stance": int(row[f"{c}_stance"]), "premise": int(row[f"{c}_argument"])} for c in CLAIMS}


def check_the_files_decide_as_the_paper_s_rules(out: Path) -> None:
    """The three files of the votes (`_votes`) by the paper's rules with m 2, worked out here: the 4th and 10th
    sentences undecided (three different labels), their three votes each in undecided.tsv; the others decided,
    the 1st and 7th with the other labels two annotators gave, the rest with the file's; label_statistics.tsv
    counting the decided sentences' labels."""
    assert sorted(p.name for p in out.iterdir()) == sorted(FILES)
    ids, labels = list(_file_labels()), _file_labels()
    assert [r["text_id"] for r in _read(out / "undecided.tsv")] == [ids[3]] * 3 + [ids[9]] * 3
    written = {r["text_id"]: _labels_written(r) for r in _read(out / "train_excerpt.tsv")}
    expected = {text_id: _shifted(labels[text_id], 1) if position in (0, 6) else labels[text_id]
                for position, text_id in enumerate(ids) if position not in (3, 9)}
    assert written == {text_id: {c: codes if codes["stance"] != -1 else {"stance": -1, "premise": -1}
                                 for c, codes in given.items()} for text_id, given in expected.items()}
    statistics = {r["claim"]: r for r in _read(out / "label_statistics.tsv")}
    for claim in CLAIMS:
        codes = [given[claim] for given in written.values()]
        relevant = [c for c in codes if c["stance"] != -1]
        assert (int(statistics[claim]["labelled"]), int(statistics[claim]["relevant"])) == (len(codes), len(relevant))
        assert int(statistics[claim]["stance for"]) == sum(1 for c in relevant if c["stance"] == 2)
        assert int(statistics[claim]["premise no argument"]) == sum(1 for c in relevant if c["premise"] == 1)


def test_the_three_files_hold_what_the_votes_decide_by_the_paper_s_rules(app, make_user, tmp_path):
    _both_voted(app, make_user)
    check_the_files_decide_as_the_paper_s_rules(_export(app, "declared", tmp_path / "d"))


def test_the_scorers_gold_holds_the_decided_sentences_as_the_export_writes_them(app, make_user, tmp_path):
    from annotator.campaigns.leaderboard import gold_set_from_project
    _both_voted(app, make_user)
    declared = gold_set_from_project(_project("declared"))
    assert (declared.task, declared.filename) == ("ruarg2022", "gold.tsv")
    gold = tmp_path / "gold.tsv"
    gold.write_bytes(declared.content)
    ids = list(_file_labels())
    assert [r["text_id"] for r in _read(gold)] == sorted(set(ids) - {ids[3], ids[9]}, key=int)
    written = {r["text_id"]: _labels_written(r) for r in _read(_export(app, "declared", tmp_path / "d") /
                                                               "train_excerpt.tsv")}
    assert {r["text_id"]: _labels_written(r) for r in _read(gold)} == written


def test_with_3_of_4_only_a_unanimous_label_is_decided(app, make_user, tmp_path):
    # the test set's rule (section 3.2) on the same three votes: a label needs 3, so every sentence where one
    # annotator gave other labels (every third, `_votes`) is undecided; the others are unanimous
    _both_voted(app, make_user, "--agree", "3")
    out = _export(app, "declared", tmp_path / "d")
    ids = list(_file_labels())
    undecided = [ids[n] for n in (0, 3, 6, 9)]
    assert [r["text_id"] for r in _read(out / "undecided.tsv")] == [i for i in sorted(undecided, key=int)
                                                                    for _ in range(3)]
    written = {r["text_id"]: _labels_written(r) for r in _read(out / "train_excerpt.tsv")}
    assert written == {i: {c: codes if codes["stance"] != -1 else {"stance": -1, "premise": -1}
                           for c, codes in _file_labels()[i].items()} for i in ids if i not in undecided}


def test_flask_stats_says_ruarg_declares_no_dataset_table(app, make_user):
    # RuArg-2022 declares no dataset table (its table 3 is the export's label_statistics.tsv)
    _both_voted(app, make_user)
    said = _cli(app, "stats", "declared")
    assert said.exit_code == 1 and "the ruarg2022 format declares no dataset table" in said.output


def test_a_file_sentence_made_a_control_item_scores_annotators_against_the_files_labels(app, make_user):
    _import(app, TRAIN, "--declared")
    project = _project("ru")
    item = db.session.scalar(select(Item).where(Item.project_id == project.id, Item.external_id == "17024"))
    make_control(item, project)
    db.session.commit()
    labels = _file_labels()["17024"]         # masks -1 -1, quarantine 1 1, vaccines -1 -1
    for name, given in (("right", labels), ("wrong", _shifted(labels, 1))):
        _vote(_project("ru"), make_user(name), "17024", {"claims": given})
    db.session.remove()
    scores = dict(db.session.execute(select(User.username, ControlAnswer.score).join(User)).all())
    # the six codes, as the built-in type scored them (the definition's control_score): each claim's stance and
    # premise, "irrelevant" for an irrelevant claim. The wrong answer finds masks relevant, stance 2 and premise 1
    # (both wrong: -1 known), quarantine stance 2 (wrong: 1 known) and premise 1 (right), vaccines as masks (both
    # wrong): 1 of 6
    assert scores == {"right": 1.0, "wrong": 1 / 6}


# --- the two stages -------------------------------------------------------------------------------------------------

def _stages_voted(app, make_user, engine: str = "declared") -> None:  # type: ignore[no-untyped-def]
    """A stance stage `engine` of the train excerpt with the three annotators' stances, and its premise stage
    `<engine>-premise`, made by `flask premise-stage` and voted with the file's premises by two of them and other
    premises (`_shifted`'s) on every third sentence by the third."""
    _import(app, TRAIN, "--stage", "stance", slug=engine)
    _vote_all(engine, ("stance",))
    result = _cli(app, "premise-stage", "--from", engine, "--project", f"{engine}-premise")
    assert result.exit_code == 0, result.output
    premise = _project(f"{engine}-premise")
    users = [db.session.scalar(select(User).where(User.username == f"a{n}")) for n in range(3)]
    labels = _file_labels()
    for position, item in enumerate(premise.items):
        asked = item.payload["claims"]
        for n, user in enumerate(users):
            given = _shifted(labels[item.external_id], 1) if n == 2 and position % 3 == 0 else \
                labels[item.external_id]
            # a claim found relevant at the stance stage but irrelevant in the file: "no argument"
            _vote(premise, user, item.external_id, {"claims": {c: {"premise": max(given[c]["premise"], 1)}
                                                               for c in asked}})


def _relevant_at_the_stance_stage() -> dict[str, list[str]]:
    """The sentences the stance votes (`_votes`) decide, relevant to a claim, with those claims, worked out by the
    paper's rules: the 4th and 10th undecided; on the 1st and 7th two annotators give other stances (`_shifted`:
    an irrelevant claim found relevant), so every claim is relevant; elsewhere the file's relevant claims."""
    relevant = {}
    for position, (text_id, labels) in enumerate(_file_labels().items()):
        if position in (3, 9):
            continue
        claims = list(CLAIMS) if position in (0, 6) else [c for c in CLAIMS if labels[c]["stance"] != -1]
        if claims:
            relevant[text_id] = claims
    return relevant


def test_a_stance_stage_makes_a_declared_premise_stage_of_its_relevant_sentences(app, make_user):
    for n in range(3):
        make_user(f"a{n}")
    _stages_voted(app, make_user)
    stance_source = _project("declared").source
    declared = _project("declared-premise")
    assert (declared.task_type, declared.k) == ("custom", 3)
    assert declared.definition == json.loads(json.dumps(load_definition(PREMISE).to_data()))
    assert declared.source == {**stance_source, "stance_project": "declared"}
    relevant, texts = _relevant_at_the_stance_stage(), {r["text_id"]: r["text"] for r in _read(TRAIN)}
    assert [(i.external_id, i.payload) for i in declared.items] == [
        (text_id, {"id": text_id, "text": texts[text_id], "claims": claims}) for text_id, claims in relevant.items()]
    # the file's premise of each claim asked is the item's known answer (-1 where the file has it irrelevant)
    assert [i.reference for i in declared.items] == [
        {f"{claim}_premise": str(_file_labels()[text_id][claim]["premise"]) for claim in claims}
        for text_id, claims in relevant.items()]


def test_either_stage_exports_the_two_joined(app, make_user, tmp_path):
    """Relevance and stance from the stance stage, the premise from the premise stage, whose votes decide every
    premise (two of three annotators give the same): the sentences the stance stage decides are written, the 4th
    and 10th with their stance votes in undecided.tsv; the stance stage and the premise stage write the same."""
    for n in range(3):
        make_user(f"a{n}")
    _stages_voted(app, make_user)
    ids = list(_file_labels())
    written = {}
    for slug in ("declared", "declared-premise"):
        out = _export(app, slug, tmp_path / slug)
        assert [r["text_id"] for r in _read(out / "undecided.tsv")] == [ids[3]] * 3 + [ids[9]] * 3, slug
        assert sorted(r["text_id"] for r in _read(out / "train_excerpt.tsv")) == \
            sorted(set(ids) - {ids[3], ids[9]}, key=int), slug
        written[slug] = [(out / n).read_bytes() for n in FILES]
    assert written["declared"] == written["declared-premise"]


def test_the_premise_stage_takes_its_m_from_agree_and_keeps_it_when_extended(app, make_user):
    for n in range(3):
        make_user(f"a{n}")
    _import(app, TRAIN, "--declared", "--stage", "stance", slug="st")
    _vote_all("st", ("stance",))
    made = _cli(app, "premise-stage", "--from", "st", "--project", "pr", "--agree", "3")
    assert made.exit_code == 0, made.output
    questions = _project("pr").definition["questions"]
    assert [q["gold"]["m"] for q in questions] == [3, 3, 3]
    refused = _cli(app, "premise-stage", "--from", "st", "--project", "pr", "--agree", "2")
    assert refused.exit_code == 1 and "decides a premise by 3 annotators" in refused.output
    again = _cli(app, "premise-stage", "--from", "st", "--project", "pr")
    assert again.exit_code == 0 and "Added 0 sentences" in again.output


def test_a_premise_stage_is_not_made_from_a_declared_project_of_stage_both(app):
    _import(app, TRAIN, "--declared", slug="both")
    result = _cli(app, "premise-stage", "--from", "both", "--project", "pr")
    assert result.exit_code == 1 and "project 'both' is not a stance stage (stage 'both')" in result.output
    assert db.session.scalar(select(Project).where(Project.slug == "pr")) is None


# --- adjudication ---------------------------------------------------------------------------------------------------

def test_an_adjudicated_sentence_is_exported_with_the_admin_s_decision(app, make_user, tmp_path):
    _both_voted(app, make_user)
    text_id = list(_file_labels())[3]   # left undecided by the three votes
    decision = _shifted(_file_labels()[text_id], 2)
    answer = {"claims": {c: {"relevance": "irrelevant"} if codes["stance"] == -1 else
                         {"relevance": "relevant", "stance": str(codes["stance"]), "premise": str(codes["premise"])}
                         for c, codes in decision.items()}}
    project = _project("declared")
    item = db.session.scalar(select(Item).where(Item.project_id == project.id, Item.external_id == text_id))
    db.session.add(Adjudication(project_id=project.id, item_id=item.id, answer=answer))
    db.session.commit()
    declared = _export(app, "declared", tmp_path / "d")
    written = {r["text_id"]: r for r in _read(declared / "train_excerpt.tsv")}
    assert {c: {"stance": int(written[text_id][f"{c}_stance"]), "premise": int(written[text_id][f"{c}_argument"])}
            for c in CLAIMS} == {c: codes if codes["stance"] != -1 else {"stance": -1, "premise": -1}
                                 for c, codes in decision.items()}
    assert text_id not in {r["text_id"] for r in _read(declared / "undecided.tsv")}


# --- more files into a project ----------------------------------------------------------------------------------

def _halves(tmp_path: Path) -> tuple[Path, Path]:
    """The train excerpt's sentences in two files of the same name (the same split): the first five, then the rest."""
    header, *rows = TRAIN.read_bytes().decode("utf-8").split("\r\n")
    rows = [r for r in rows if r]
    paths = (tmp_path / "first" / TRAIN.name, tmp_path / "rest" / TRAIN.name)
    for path, part in zip(paths, (rows[:5], rows[5:])):
        path.parent.mkdir()
        path.write_bytes("\r\n".join([header, *part, ""]).encode("utf-8"))
    return paths


def test_more_sentences_go_into_a_declared_project_with_its_own_definition(app, tmp_path):
    first, rest = _halves(tmp_path)
    _import(app, first, "--declared", "--stage", "stance", "--agree", "3")
    made = _project("ru").definition
    refused = _cli(app, "import", "ruarg2022", rest, "--project", "ru", "--no-declared")
    assert refused.exit_code == 1 and "the built-in stance_premise HIT type is gone" in refused.output
    _import(app, rest)       # no settings given: the project's definition, stance stage with m 3
    project = _project("ru")
    assert project.definition == made and len(project.items) == len(_file_labels())
    other = _cli(app, "import", "ruarg2022", rest, "--project", "ru", "--declared", "--agree", "2")
    assert other.exit_code == 1 and "was created with another definition" in other.output
