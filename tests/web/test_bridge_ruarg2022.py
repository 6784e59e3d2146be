"""The bridge from the built-in "stance_premise" type to stance_premise.yaml, stance.yaml and premise.yaml
(annotator/shared_tasks/ruarg2022/bridge.py).

Answers: every answer of tests/data/api_answer_shapes/stance_premise.json that today's API takes, converted, is taken
by the declared engine for the project's definition (stage "both": stance_premise.yaml; stage "stance":
stance.yaml) and gives the mapped label rows; every one it refuses is still refused with today's message.
Votes: the kept database's RuArg project (tests/data/before_one_engine), its votes mapped into a declared project of
stance_premise.yaml, gives the gold the paper's rules give for every (sentence, claim), worked out here from the
kept votes, the gold the built-in type exported, and the agreement figures `flask agreement` gave then, per claim
with "irrelevant" as a value (`not_asked`, docs/declared-not-asked.md). The built-in type itself is gone. The
premise stage's converter and row mapping are checked on a premise-stage item: it has no case in the shapes file and
no project in the kept database.
"""
from __future__ import annotations

import csv
import io
import json
from collections import Counter
from typing import Any

import pytest

from annotator.analysis.results import project_agreement
from annotator.core.extensions import db
from annotator.core.models import Project
from annotator.declared.answers import check_answer
from annotator.declared.bridge_base import Bridge, LabelRow, bridges_of
from annotator.declared.definition import NOT_ASKED, UNDECIDED
from annotator.declared.definition_reader import definition_from_data
from annotator.declared.item_view import view
from annotator.declared.items import load_definition
from annotator.figures.kept_gold import gold_frame
from annotator.plugins.registry import shared_task
from annotator.shared_tasks.ruarg2022 import bridge
from annotator.shared_tasks.ruarg2022.declared_projects import definition_for
from annotator.shared_tasks.ruarg2022.import_options import parse_claims
from annotator.tasks.base import AnswerError, LabelIn
from tests.support.api_answer_shapes import first_item_payload, row_triples, shapes_of
from tests.support.before_one_engine_projects import EXPORTS, KEPT_ROWS, kept_votes, migrate
from tests.support.declared_api_submit import submit_converted

FOLDER = bridge.FOLDER
SETUPS = shapes_of("stance_premise")["projects"]
CASES = [(setup, kind, case) for setup in SETUPS for kind in ("accepted", "refused") for case in setup[kind]]


def _case_id(setup: dict[str, Any], kind: str, case: dict[str, Any]) -> str:
    return f"{setup['options'].get('stage', 'both')}-{kind}-{case['why']}"


ACCEPTED = [pytest.param(setup, case, id=_case_id(setup, "accepted", case))
            for setup, kind, case in CASES if kind == "accepted"]
REFUSED = [pytest.param(setup, case, id=_case_id(setup, "refused", case))
           for setup, kind, case in CASES if kind == "refused"]



def _check(found: Bridge, payload: dict[str, Any], answer: Any) -> tuple[dict[str, Any], list[LabelIn]]:
    definition = load_definition(FOLDER / found.definition)
    return check_answer(definition, view(definition, payload), found.answer(answer, payload, None))


def test_the_shared_task_registers_a_bridge_per_stage_with_a_definition():
    task = shared_task("ruarg2022")
    assert bridges_of(task) == [bridge.STANCE_PREMISE, bridge.STANCE_STAGE, bridge.PREMISE_STAGE]
    assert [b.definition for b in bridges_of(task)] == list(task.definitions)
    assert bridge.bridge_for({}) is bridge.STANCE_PREMISE
    assert bridge.bridge_for({"stage": "stance"}) is bridge.STANCE_STAGE
    assert bridge.bridge_for({"stage": "premise", "stance_project": "st"}) is bridge.PREMISE_STAGE


def test_a_built_in_projects_own_claims_bind_its_bridge_to_the_definition_of_those_claims():
    settings = {"claims": "masks | Masks help. | Маски помогают.\nlockdown | Lockdowns help. | Локдауны помогают."}
    found = bridge.bridge_for(settings)
    definition = definition_from_data(definition_for("both", claims=parse_claims(settings["claims"])))
    answer = {"claims": {"masks": {"stance": 2, "premise": 1}, "lockdown": {"stance": -1, "premise": -1}}}
    stored, rows = check_answer(definition, {"id": "1", "text": "x"}, found.answer(answer, {}, None))
    assert stored == {"claims": {"masks": {"relevance": "relevant", "stance": "2", "premise": "1"},
                                 "lockdown": {"relevance": "irrelevant"}}}
    built_in = [LabelRow("masks", "stance", "2"), LabelRow("masks", "premise", "1"),
                LabelRow("lockdown", "stance", "-1"), LabelRow("lockdown", "premise", "-1")]
    assert row_triples(rows) == row_triples(found.labels(built_in, {}))
    with pytest.raises(AnswerError, match="'vaccines' is not one of this project's claims \\(masks, lockdown\\)"):
        found.answer({"claims": {**answer["claims"], "vaccines": {"stance": -1, "premise": -1}}}, {}, None)


@pytest.mark.parametrize("setup, case", ACCEPTED)
def test_an_accepted_answer_converted_is_accepted_by_the_definition_with_the_mapped_rows(app, setup, case):
    found = bridge.bridge_for(setup["options"])
    payload = first_item_payload(setup)
    stored, rows = _check(found, payload, case["answer"])
    assert row_triples(rows) == row_triples(found.labels([LabelRow(*row) for row in case["labels"]], payload))
    assert set(stored["claims"]) == set(bridge.CLAIMS)


@pytest.mark.parametrize("setup, case", ACCEPTED)
def test_an_accepted_answer_converted_is_stored_by_the_declared_api_with_the_mapped_rows(app, api_client, setup,
                                                                                         case):
    found = bridge.bridge_for(setup["options"])
    status, rows, stored, payload = submit_converted(setup, FOLDER / found.definition, case["answer"],
                                                     lambda answer, item: found.answer(answer, item, None),
                                                     api_client)
    assert status == 201
    assert rows == row_triples(found.labels([LabelRow(*row) for row in case["labels"]], payload))
    assert stored == found.answer(case["answer"], payload, None)


@pytest.mark.parametrize("setup, case", REFUSED)
def test_a_refused_answer_is_still_refused_with_its_message(app, setup, case):
    found = bridge.bridge_for(setup["options"])
    with pytest.raises(AnswerError) as refused:
        found.answer(case["answer"], first_item_payload(setup), None)
    assert str(refused.value) == case["error"]


def test_a_premise_stage_answer_is_converted_for_the_claims_its_item_asks():
    payload = {"id": "17024", "text": "Маски носить надо.", "claims": ["masks", "vaccines"]}
    definition = load_definition(bridge.PREMISE)
    answer = {"claims": {"masks": {"premise": 2}, "vaccines": {"premise": 1}}}
    stored, rows = check_answer(definition, payload, bridge.PREMISE_STAGE.answer(answer, payload, None))
    assert stored == {"masks_premise": "2", "vaccines_premise": "1"}
    built_in = [LabelRow("masks", "premise", "2"), LabelRow("vaccines", "premise", "1")]
    assert row_triples(rows) == row_triples(bridge.PREMISE_STAGE.labels(built_in, payload))


@pytest.mark.parametrize("answer, error", [
    ({"claims": {"masks": {"premise": 2}}}, "claim 'vaccines' is missing"),
    ({"claims": {"masks": {"premise": 2}, "vaccines": {"premise": 1}, "quarantine": {"premise": 0}}},
     "'quarantine' is not one of this project's claims (masks, vaccines)"),
    ({"claims": {"masks": {"premise": -1}, "vaccines": {"premise": 1}}},
     "premise of claim 'masks' is -1; a code is 2 (for), 0 (against), 1 (other / no argument) (the stance stage "
     "found this claim relevant)"),
])
def test_a_premise_stage_answer_today_refuses_is_still_refused(answer, error):
    payload = {"id": "17024", "text": "Маски носить надо.", "claims": ["masks", "vaccines"]}
    with pytest.raises(AnswerError) as refused:
        bridge.PREMISE_STAGE.answer(answer, payload, None)
    assert str(refused.value) == error


def test_a_row_that_is_not_a_stance_premise_row_is_refused_by_the_mapping():
    with pytest.raises(ValueError, match="is not a stance_premise label row"):
        bridge.STANCE_PREMISE.labels([LabelRow("masks", "stance", "3")], {})


def test_a_premise_row_is_refused_by_the_stance_stage_mapping():
    with pytest.raises(ValueError, match="is not a stance-stage label row"):
        bridge.STANCE_STAGE.labels([LabelRow("masks", "premise", "2")], {})


def test_a_stance_stage_vote_s_rows_map_to_relevance_and_the_stance_of_each_relevant_claim():
    rows = [LabelRow("masks", "stance", "-1"), LabelRow("quarantine", "stance", "2"),
            LabelRow("vaccines", "stance", "1")]
    assert bridge.STANCE_STAGE.labels(rows, {}) == [
        LabelRow("masks", "relevance", "irrelevant"), LabelRow("quarantine", "relevance", "relevant"),
        LabelRow("quarantine", "stance", "2"), LabelRow("vaccines", "relevance", "relevant"),
        LabelRow("vaccines", "stance", "1")]


@pytest.mark.parametrize("field, declared", [
    ("all labels", "all_labels (pooled)"), ("relevance", "relevance"), ("masks stance", "stance / masks"),
    ("quarantine premise", "premise / quarantine"),
])
def test_each_built_in_agreement_field_has_its_declared_name(field, declared):
    assert bridge.agreement_field(field) == declared

def test_each_kept_vote_s_rows_mapped_row_by_row_equal_its_answer_mapped():
    """The row mapping (what a migration applies to label rows) and the answer mapping (the converter, then the
    declared check) agree on every vote the kept project holds."""
    definition = load_definition(bridge.BOTH)
    votes = kept_votes("stance-demo")
    assert len(votes) > 10
    for payload, answer, rows in votes:
        _, checked = bridge.map_vote(definition, payload, answer)
        mapped = bridge.STANCE_PREMISE.labels([LabelRow(*row) for row in rows], payload)
        assert row_triples(mapped) == row_triples(checked), payload["id"]


# --- the kept database's project ----------------------------------------------------------------------------------

def _kept_declared() -> Project:
    """The kept `stance-demo` (stage "both", its settings the defaults) mapped into a declared project."""
    definition = load_definition(bridge.BOTH)
    return migrate("stance-demo", "stance-declared", definition,
                   lambda payload, answer: bridge.map_vote(definition, payload, answer))


def _as_declared(code: Any) -> str:
    return NOT_ASKED if code == bridge.IRRELEVANT else UNDECIDED if not isinstance(code, int) else str(code)


def _paper_gold(k: int = 3, m: int = 2) -> dict[tuple[str, str, str], str]:
    """The gold of each complete sentence (k votes) of the kept project by the paper's rules, worked out from its
    votes: a claim is relevant when at least two annotators found it so (section 3.1); then each label is the one
    code at least m of the relevant votes gave (section 3.2), else undecided; an irrelevant claim's labels are not
    asked (the data set's -1)."""
    votes: dict[str, list[dict[str, dict[str, int]]]] = {}
    for payload, answer, _ in kept_votes("stance-demo"):
        votes.setdefault(payload["id"], []).append(answer["claims"])
    expected: dict[tuple[str, str, str], str] = {}
    for item, answers in votes.items():
        if len(answers) < k:
            continue
        for claim in bridge.CLAIMS:
            relevant = [a[claim] for a in answers if a[claim]["stance"] != bridge.IRRELEVANT]
            expected[(item, claim, "relevance")] = "relevant" if len(relevant) >= 2 else "irrelevant"
            for label in ("stance", "premise"):
                winners = [code for code, n in Counter(v[label] for v in relevant).items() if n >= m]
                expected[(item, claim, label)] = NOT_ASKED if len(relevant) < 2 else \
                    str(winners[0]) if len(winners) == 1 else UNDECIDED
    return expected


def test_the_kept_project_mapped_gives_the_paper_s_gold_for_every_claim(app):
    declared = _kept_declared()
    expected = _paper_gold()
    db.session.remove()
    found = {(row.item, row.unit, row.question): row.gold
             for row in gold_frame(db.session.get_one(Project, declared.id)).itertuples()}
    assert found == expected and len(expected) > 9
    assert {"relevant", "irrelevant"} <= set(expected.values())


def test_the_kept_project_mapped_gives_the_gold_exported_before_the_change(app):
    """The declared gold against the decided sentences of the file today's code wrote (pending items included):
    per claim its stance and argument (premise) code, -1 where the claim is irrelevant."""
    declared = _kept_declared()
    exported = (EXPORTS / "stance-demo" / "ruarg2022--include-incomplete" / "demo.tsv").read_text(encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO(exported), delimiter="\t"))
    expected: dict[tuple[str, str, str], str] = {}
    for row in rows:
        for claim in bridge.CLAIMS:
            stance, premise = int(row[f"{claim}_stance"]), int(row[f"{claim}_argument"])
            expected[(row["text_id"], claim, "relevance")] = \
                "irrelevant" if stance == bridge.IRRELEVANT else "relevant"
            expected[(row["text_id"], claim, "stance")] = _as_declared(stance)
            expected[(row["text_id"], claim, "premise")] = _as_declared(premise)
    gold = gold_frame(declared, include_incomplete=True)   # as the export was asked to
    found = {(row.item, row.unit, row.question): row.gold for row in gold.itertuples()}
    assert {key: found.get(key) for key in expected} == expected and len(rows) == 6


def _figures(project: Project) -> dict[str, tuple[float | None, float | None, int]]:
    return {f.field: (f.fleiss_kappa.value, f.krippendorff_alpha.value, f.units) for f in project_agreement(project)}


def _kept_figures() -> dict[str, tuple[float | None, float | None, int]]:
    """What `flask agreement --json` said of the kept project when the built-in type served it."""
    kept = json.loads((EXPORTS / "stance-demo" / "agreement" / "stdout.txt").read_text(encoding="utf-8"))
    return {f["field"]: (f["fleiss_kappa"]["value"], f["krippendorff_alpha"]["value"], f["units"])
            for f in kept["fields"]}


def test_the_kept_project_mapped_gives_the_built_in_per_claim_agreement(app):
    """Every figure the built-in type gave: "all labels", "relevance" and each claim's stance and premise,
    irrelevant (-1) a value of both, under its declared name ("masks stance" is "stance / masks")."""
    assert [p["task_type"] for p in KEPT_ROWS["projects"] if p["slug"] == "stance-demo"] == ["stance_premise"]
    declared = _kept_declared()
    expected = _kept_figures()
    found = _figures(declared)
    assert {field: found.get(bridge.agreement_field(field)) for field in expected} == \
        {field: pytest.approx(figures) for field, figures in expected.items()}
    assert {"all labels", "relevance", "masks stance", "vaccines premise"} <= set(expected)
    assert found["stance"] != found["stance / masks"]   # the pooled figure over claims stays the question's own
