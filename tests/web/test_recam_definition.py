"""The ReCAM cloze validation wholly as a definition (annotator/shared_tasks/recam2021/cloze_selection.yaml) against
ReCAM's selection rules as the paper states them, worked out from the same seeded votes (tests/support/recam_rules.py).

Each annotator's answer is drawn from a generator seeded with (item, annotator): an option, a difficulty and each
evidence as one mark or none (`[]`). The project is imported from an items file giving each known answer as its
`reference.option` column (item references {"option": "n"}, not control items: docs/declared-references.md), read
from the released file here. Then the definition's option gold must be the paper's selection: the same questions
kept, with the same answer, the same dropped. The votes include annotations with no evidence (rule b) and "easy"
with a wrong answer (rule c), counted by the worked-out rules so that the comparison is known to cover them. How the
votes get in is the shared-task definitions' `Annotators` (tests/web/test_shared_task_definitions.py): a bulk import
through the project's answer check, and one test through the live engine.
"""
from __future__ import annotations

import csv
import functools
import io
import json
import random
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Label, Project
from annotator.declared.definition import UNDECIDED, DefinitionError
from annotator.declared.definition_reader import definition_from_text
from annotator.declared.spans import word_bounds
from annotator.figures.kept_gold import gold_frame
from annotator.tasks.base import HitItem
from tests.conftest import DATA, load_project
from tests.support.declared_projects import make_declared_project
from tests.support.recam_rules import Selection, Vote, paper_selection
from tests.web.conftest import submitted_by
from tests.web.test_shared_task_definitions import Annotators, Shown

DEFINITION = Path(__file__).resolve().parents[2] / "annotator" / "shared_tasks" / "recam2021" / "cloze_selection.yaml"
DEV = DATA / "recam2021" / "Task_1_dev_excerpt.jsonl"     # known answers: rules a and c and the known-answer keep
TEST = DATA / "recam2021" / "Task_1_test_excerpt.jsonl"   # none: kept by a clear majority of valid annotations
DIFFICULTIES = ("easy", "medium", "hard")


# --- the evidence questions the rule can read -------------------------------------------------------------------

@pytest.mark.parametrize("change, said", [
    (("    max: 1                   # one stretch", "    max: 3                   # one stretch"),
     "max: 1 (one evidence span, or none) (it has max: 3, 1 label(s), edges: code_points)"),
    (("    labels: [{value: evidence, label: Evidence}]\n    max: 1                   #",
      "    labels: [evidence, distractor]\n    max: 1                   #"),
     "a single label (it has max: 1, 2 label(s), edges: code_points)"),
    (("    edges: code_points       # any offset",
      "    whole_words: false       # any offset"),
     "whole_words: true or edges: characters (it has max: 1, 1 label(s), whole_words: false)"),
])
def test_an_evidence_spans_question_the_rule_cannot_read_as_one_span_is_refused_with_path_and_line(change, said):
    text = DEFINITION.read_text(encoding="utf-8")
    assert change[0] in text
    with pytest.raises(DefinitionError) as refused:
        definition_from_text(text.replace(change[0], change[1], 1))
    assert refused.value.path == "questions[0].gold.passage_span" and refused.value.line is not None
    assert refused.value.message == f"'passage_span' marks evidence as a spans question, which needs {said}"


def _evidence(item: str, annotator: int, field: str, text: str) -> tuple[int, int] | None:
    """One to three whole words of the text, or (one time in four) no mark: rule b's case."""
    rng = random.Random(f"{item}/{annotator}/{field}")
    words = word_bounds(text)
    if rng.random() < 0.25 or not words:
        return None
    first = rng.randrange(len(words))
    last = min(len(words) - 1, first + rng.randrange(3))
    return words[first][0], words[last][1]


def _vote(item: HitItem, annotator: int) -> tuple[int, str, tuple[int, int] | None, tuple[int, int] | None]:
    """(option, difficulty, passage evidence, question evidence). Annotators favour one option per question, more or
    less strongly: the known answer where there is one (so that rule a's accuracy passes, as a fair crowd's would),
    else one drawn per question."""
    payload, key = item.payload, item.external_id
    rng = random.Random(f"{key}/{annotator}")
    reference = getattr(item, "reference", None) or {}   # an Item's known answer, in either shape
    known = reference.get("label", reference.get("option", _known_in_dev().get(key)))   # a lease's item has none
    options = len(payload["options"])
    favourite = int(known) if known is not None else random.Random(f"{key}/favourite").randrange(options)
    strength = random.Random(f"{key}/strength").choice((0.4, 0.6, 0.9))
    option = favourite if rng.random() < strength else rng.randrange(options)
    difficulty = DIFFICULTIES[rng.choices(range(3), weights=(3, 2, 1))[0]]
    return (option, difficulty, _evidence(key, annotator, "article", payload["article"]),
            _evidence(key, annotator, "question", payload["question"]))


@functools.cache
def _known_in_dev() -> dict[str, int]:
    return {row["id"]: row["reference.option"] for row in released_items(DEV) if "reference.option" in row}


def _built_in_answer(item: HitItem, shown: Shown, annotator: int) -> dict[str, Any]:
    """The vote in the API shape of before the switch (evidence as [start, end] or null), which the declared
    project still takes through the task's bridge."""
    option, difficulty, passage, question = _vote(item, annotator)
    return {"option": option, "difficulty": difficulty, "passage_span": None if passage is None else list(passage),
            "question_span": None if question is None else list(question)}


def _declared_answer(item: HitItem, shown: Shown, annotator: int) -> dict[str, Any]:
    option, difficulty, passage, question = _vote(item, annotator)

    def marks(span: tuple[int, int] | None) -> list[dict[str, Any]]:
        return [] if span is None else [{"start": span[0], "end": span[1], "label": "evidence"}]
    return {"option": option, "difficulty": difficulty, "passage_span": marks(passage),
            "question_span": marks(question)}


def released_items(path: Path) -> list[dict[str, Any]]:
    """The file's questions as items, read here from the released lines: id (the test file's own, else the line's
    number), article, question, the five options, and the label as `reference.option` where there is one."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [{"id": str(row.get("id", n)), "article": row["article"], "question": row["question"],
             "options": [row[f"option_{i}"] for i in range(5)],
             **({"reference.option": row["label"]} if "label" in row else {})} for n, row in enumerate(rows)]


def _project(path: Path, annotators: Annotators) -> Project:
    """The declared project of the file's questions, imported (`flask import custom`) from an items file whose
    `reference.option` column gives each known answer, answered by the annotators."""
    rows = released_items(path)
    assert any("reference.option" in row for row in rows) == (path == DEV)   # the test split has no known answer
    with tempfile.TemporaryDirectory() as folder:
        items_file = Path(folder) / "questions.jsonl"
        items_file.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
        declared = load_project("custom", items_file, "cz-declared", definition=DEFINITION, k=annotators.k)
    assert annotators.answer_all(declared, _declared_answer) == annotators.k * len(rows)
    return declared


def _selection(path: Path, k: int) -> Selection:
    """The paper's verdicts on the votes _vote draws for k annotators (annotator n is one person across items)."""
    rows = released_items(path)
    votes = {}
    for row in rows:
        item = SimpleNamespace(external_id=row["id"], payload=row,
                               reference={"option": str(row["reference.option"])} if "reference.option" in row
                               else None)
        votes[row["id"]] = [Vote(n, *_vote_shape(_vote(item, n))) for n in range(k)]   # type: ignore[arg-type]
    known = {row["id"]: int(row["reference.option"]) for row in rows if "reference.option" in row}
    return paper_selection(votes, known)


def _vote_shape(vote: tuple[int, str, Any, Any]) -> tuple[int, str, bool, bool]:
    option, difficulty, passage, question = vote
    return option, difficulty, passage is not None, question is not None


def _declared_option_gold(declared: Project) -> dict[str, str]:
    project_id = declared.id
    db.session.remove()   # a fresh session: what was committed
    gold = gold_frame(db.session.get(Project, project_id))
    return {str(row.item): str(row.gold) for row in gold[gold["question"] == "option"].itertuples()}


@pytest.mark.parametrize("path, k", [(DEV, 4), (DEV, 7), (TEST, 4), (TEST, 5)])
def test_the_definition_keeps_and_drops_the_questions_the_paper_s_rules_do(app, path, k):
    declared, expected = _project(path, Annotators(k)), _selection(path, k)
    assert expected.failed_b > 0   # annotations without evidence were dropped
    if path == DEV:
        assert expected.failed_c > 0   # "easy" with a wrong answer was dropped
    assert _declared_option_gold(declared) == expected.verdicts
    assert set(expected.verdicts.values()) - {UNDECIDED} and len(expected.verdicts) == len(released_items(path))


def test_a_question_dropped_by_the_rules_is_undecided_with_the_reason_in_its_votes(app):
    declared, expected = _project(DEV, Annotators(4)), _selection(DEV, 4)
    gold = gold_frame(declared)
    option = gold[gold["question"] == "option"]
    dropped = option[option["gold"] == UNDECIDED]
    assert sorted(dropped["item"]) == sorted(i for i, v in expected.verdicts.items() if v == UNDECIDED) != []
    for row in dropped.itertuples():
        assert "; dropped: " in row.votes


def test_the_definition_decides_as_the_paper_s_rules_on_votes_submitted_through_the_live_engine(app, make_user):
    declared = _project(DEV, Annotators.live(make_user, 4))
    expected = _selection(DEV, 4).verdicts
    assert _declared_option_gold(declared) == expected and len(expected) == 4


# --- the JSON API -------------------------------------------------------------------------------------------------

@pytest.fixture
def cloze(app):  # type: ignore[no-untyped-def]
    """The declared project of the ReCAM dev excerpt's items, as the released file gives them."""
    items = [{key: value for key, value in row.items() if key != "reference.option"} for row in released_items(DEV)]
    return make_declared_project("cloze", DEFINITION, items=items, k=3)


def test_the_api_gives_the_evidence_questions_with_the_words_of_their_text(api_client, cloze):
    assignment = api_client("bot").post("/api/v1/projects/cloze/next").get_json()["assignment"]
    option, passage, question, difficulty = assignment["questions"]
    assert [option["id"], difficulty["id"]] == ["option", "difficulty"]
    for asked, field in ((passage, "article"), (question, "question")):
        assert (asked["kind"], asked["of"], asked["max"], asked["required"]) == ("spans", field, 1, False)
        assert asked["labels"] == [{"value": "evidence", "label": "Evidence"}]
        text = assignment["item"][field]
        assert [(w["start"], w["end"]) for w in asked["words"]] == word_bounds(text)
    assert "@placeholder" in [w["text"] for w in question["words"]]


def test_the_api_stores_an_answer_with_one_evidence_mark_and_none(api_client, cloze):
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/cloze/next").get_json()["assignment"]
    words = assignment["questions"][1]["words"]
    mark = {"start": words[0]["start"], "end": words[2]["end"], "label": "evidence"}
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit", json={"answer": {
        "option": 2, "passage_span": [mark], "question_span": [], "difficulty": "medium"}})
    assert response.status_code == 201, response.get_json()
    [kept] = submitted_by("bot")
    assert kept.answer == {"option": "2", "passage_span": [mark], "question_span": [], "difficulty": "medium"}
    rows = {(label.field, label.unit): label.value
            for label in db.session.scalars(select(Label).where(Label.assignment_id == kept.id))}
    assert rows[("passage_span", f"{mark['start']}:{mark['end']}:evidence")] == "1"
    assert {v for (field, _), v in rows.items() if field == "question_span"} == {"O"}


def test_the_api_refuses_two_evidence_marks_with_a_422_and_stores_nothing(api_client, cloze):
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/cloze/next").get_json()["assignment"]
    words = assignment["questions"][1]["words"]
    marks = [{"start": w["start"], "end": w["end"], "label": "evidence"} for w in words[:3:2]]
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit", json={"answer": {
        "option": 1, "passage_span": marks, "question_span": [], "difficulty": "easy"}})
    assert response.status_code == 422
    assert "passage_span: marks 2 spans; at most 1" in response.get_json()["error"]
    assert submitted_by("bot") == []


# --- the export -------------------------------------------------------------------------------------------------

def test_flask_export_gives_the_selection_gold_with_its_verdicts_and_the_evidence_votes(app, tmp_path):
    declared, expected = _project(DEV, Annotators(4)), _selection(DEV, 4).verdicts
    out = tmp_path / "out"
    result = app.test_cli_runner().invoke(args=["export", "custom", "--project", declared.slug, "--out", str(out)])
    assert result.exit_code == 0, result.output
    gold = [g for g in csv.DictReader(io.StringIO((out / "gold.csv").read_text(encoding="utf-8")))
            if g["question"] == "option"]
    assert {g["item"]: g["gold"] for g in gold} == expected
    assert all(("; kept: " in g["votes"]) == (g["gold"] != UNDECIDED) for g in gold)
    votes = list(csv.DictReader(io.StringIO((out / "votes.csv").read_text(encoding="utf-8"))))
    assert len(votes) == 4 * len(expected)
    assert {json.loads(v["passage_span"]) == [] for v in votes} == {True, False}   # marked, and not
    card = (out / "dataset" / "README.md").read_text(encoding="utf-8")
    assert "recam_selection" in card
