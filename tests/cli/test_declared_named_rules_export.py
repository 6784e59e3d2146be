"""Named rules in a running project: `flask export custom` of the ReCAM example writes the selection rule's
verdicts in gold.csv, and a declared RuArg project's consistency checks are the project's checks.

Projects come from the examples (examples/recam2021_selection.yaml with its items, examples/ruarg2022_consistency.yaml
with sentences of tests/data/ruarg2022/train_excerpt.tsv); annotators vote through the engine, as the HIT does.
"""
from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from annotator.analysis.results import labels_frame, project_checks
from annotator.core.extensions import db
from annotator.core.models import Project
from annotator.engine import assignment as engine
from annotator.figures.kept_gold import gold_frame
from annotator.shared_tasks.ruarg2022 import files as ruarg_files
from tests.conftest import DATA, load_project
from tests.support.declared_projects import make_declared_project

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

# per annotator: item -> answer
CLOZE_ANSWERS: list[dict[str, dict[str, Any]]] = [
    {"c1": {"answer": "1", "passage_evidence": [9, 10], "question_evidence": [1], "difficulty": "easy"},
     "c2": {"answer": "0", "passage_evidence": [20], "question_evidence": [8], "difficulty": "medium"},
     "c3": {"answer": "2", "passage_evidence": [5, 6], "question_evidence": [6], "difficulty": "medium"}},
    {"c1": {"answer": "1", "passage_evidence": [10], "question_evidence": [2], "difficulty": "medium"},
     "c2": {"answer": "0", "question_evidence": [8], "difficulty": "medium"},       # no passage evidence: rule b
     "c3": {"answer": "4", "passage_evidence": [7], "question_evidence": [6], "difficulty": "hard"}},
    {"c1": {"answer": "1", "passage_evidence": [9], "question_evidence": [1], "difficulty": "easy"},
     "c2": {"answer": "0", "passage_evidence": [21], "question_evidence": [7], "difficulty": "hard"},
     "c3": {"answer": "1", "passage_evidence": [1], "question_evidence": [6], "difficulty": "hard"}},
]


def _vote(project: Project, make_user, answers: list[dict[str, dict[str, Any]]]) -> None:  # type: ignore[no-untyped-def]
    for n, mine in enumerate(answers):
        user = make_user(f"annotator{n}")
        while (lease := engine.next_for(user, project)) is not None:
            engine.submit(lease.id, user, mine[lease.item.external_id])


def test_the_export_writes_the_selection_rules_verdicts_in_gold_csv(app, make_user, tmp_path) -> None:  # type: ignore[no-untyped-def]
    project = load_project("custom", EXAMPLES / "recam2021_selection_items.jsonl", "cloze",
                           definition=EXAMPLES / "recam2021_selection.yaml", k=3)
    _vote(project, make_user, CLOZE_ANSWERS)
    result = app.test_cli_runner().invoke(args=["export", "custom", "--project", "cloze", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO((tmp_path / "gold.csv").read_text("utf-8"))))
    answer = {row["item"]: (row["gold"], row["n"], row["votes"]) for row in rows if row["question"] == "answer"}
    assert answer == {
        "c1": ("1", "3", "1: 3; kept: 3 of 3 valid annotations chose option 1 (1.00 > 0.50)"),
        "c2": ("0", "3", "0: 3; kept: 2 of 2 valid annotations chose option 0 (1.00 > 0.50)"),
        "c3": ("undecided", "3", "1: 1, 2: 1, 4: 1; dropped: no single most chosen option among 3 valid annotations"),
    }
    # the other questions keep their own rules: a span's words by probability, the difficulty by majority
    assert {row["question"] for row in rows} == {"answer", "passage_evidence", "question_evidence", "difficulty"}
    assert [row["gold"] for row in rows if row["question"] == "difficulty"] == ["easy", "medium", "hard"]
    card = (tmp_path / "dataset" / "README.md").read_text("utf-8")
    assert ("recam_selection: ReCAM's selection rules: which validated cloze questions are kept (Zheng et al. "
            "(2021), SemEval-2021 Task 4: Reading Comprehension of Abstract Meaning, section 3)") in card


def test_reference_answers_in_the_items_file_are_read_by_the_selection_rules(app, make_user, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The same items and votes with each question's known answer as `reference.answer` (ordinary items, their votes
    counted): a question is kept when enough valid annotations chose its known answer."""
    project = load_project("custom", EXAMPLES / "recam2021_selection_references.jsonl", "cloze",
                           definition=EXAMPLES / "recam2021_selection.yaml", k=3)
    _vote(project, make_user, CLOZE_ANSWERS)
    result = app.test_cli_runner().invoke(args=["export", "custom", "--project", "cloze", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO((tmp_path / "gold.csv").read_text("utf-8"))))
    assert {row["item"]: (row["gold"], row["votes"]) for row in rows if row["question"] == "answer"} == {
        "c1": ("1", "1: 3; kept: 3 of 3 valid annotations chose the known answer (1.00 ≥ 0.50)"),
        "c2": ("0", "0: 3; kept: 2 of 2 valid annotations chose the known answer (1.00 ≥ 0.50)"),
        "c3": ("undecided", "1: 1, 2: 1, 4: 1; dropped: 1 of 3 valid annotations chose the known answer (0.33 < 0.50)"),
    }


def _ruarg_items() -> list[dict[str, Any]]:
    rows = ruarg_files.read_file(DATA / "ruarg2022" / "train_excerpt.tsv").rows[:2]
    return [{"id": str(row.text_id), "text": row.text} for row in rows]


def test_a_declared_ruarg_projects_checks_are_the_consistency_rules(app, make_user) -> None:  # type: ignore[no-untyped-def]
    items = _ruarg_items()
    project = make_declared_project("ruarg", EXAMPLES / "ruarg2022_consistency.yaml", items, k=3)
    masks_for_against = {"masks_relevance": "relevant", "masks_stance": "2", "masks_premise": "0",
                         "quarantine_relevance": "irrelevant", "vaccines_relevance": "irrelevant"}
    none_relevant = {"masks_relevance": "irrelevant", "quarantine_relevance": "irrelevant",
                     "vaccines_relevance": "irrelevant"}
    _vote(project, make_user, [{items[0]["id"]: masks_for_against, items[1]["id"]: none_relevant}] * 2
          + [{items[0]["id"]: none_relevant, items[1]["id"]: none_relevant}])
    db.session.remove()
    project = db.session.get(Project, project.id)
    assert project is not None
    labels = labels_frame(project)
    checks = {check.name: (check.flagged, check.of, check.examples) for check in
              project_checks(project, labels, gold_frame(project, labels))}
    first = items[0]["id"]
    assert checks == {
        "votes: irrelevant for one label only": (0, 18, ()),
        "votes: stance and premise of opposite polarity": (2, 18, (f"{first} (masks)",)),
        "gold: irrelevant for one label only": (0, 6, ()),
        "gold: stance and premise of opposite polarity": (1, 6, (f"{first} (masks)",)),
    }
