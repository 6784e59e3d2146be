"""RuArg-2022 as the declared engine serves it (stance_premise.yaml, and stance.yaml and premise.yaml for the two
stages): what a valid answer is, and gold by the paper's two rules, worked out here from the votes.

These are the behaviours of the built-in type's own tests (test_stance_premise_task.py, removed with it) set on the
declared definitions, in their answer shape (today's `{"claims": {claim: {"stance": code, ...}}}` is converted by
the bridge: tests/web/test_api_answer_shapes_declared_ruarg2022.py). The rules (Kotelnikov et al., Dialogue 2022):
a claim is relevant when at least two annotators found it so (section 3.1), whatever the labels need; a label is
the code at least m annotators gave (section 3.2: 2 of 3, 3 of 4 on the test set), otherwise undecided; an
irrelevant claim's labels are "n/a" (the data set's -1). An admin's decision wins.
"""
from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

import krippendorff
import pandas as pd
import pytest

from annotator.analysis.agreement import field_agreement
from annotator.declared.definition import NOT_ASKED, UNDECIDED
from annotator.declared.definition_reader import definition_from_data
from annotator.shared_tasks.ruarg2022.declared_projects import definition_for
from annotator.tasks import AnswerError, LabelIn, settings_with_defaults
from annotator.tasks.custom import DeclaredTask

ITEM = SimpleNamespace(payload={"id": "17024", "text": "Лучше в маске ходить, чем снова на карантин сесть"},
                       external_id="17024")
IRR = {"relevance": "irrelevant"}
FOR_OTHER = {"relevance": "relevant", "stance": "2", "premise": "1"}
AGAINST_NONE = {"relevance": "relevant", "stance": "0", "premise": "1"}
OTHER_OTHER = {"relevance": "relevant", "stance": "1", "premise": "1"}


def task(stage: str = "both", agree: int = 2, relevant_votes: int = 2) -> DeclaredTask:
    return DeclaredTask(definition_from_data(definition_for(stage, agree, relevant_votes)))


def answer(masks: dict[str, str] = IRR, quarantine: dict[str, str] = IRR,
           vaccines: dict[str, str] = IRR) -> dict[str, Any]:
    return {"claims": {"masks": masks, "quarantine": quarantine, "vaccines": vaccines}}


def frame(kind: DeclaredTask, votes: dict[str, list[dict[str, Any]]], item: Any = ITEM) -> pd.DataFrame:
    """Label rows of votes given per item, one annotator per position, as results.labels_frame gives them."""
    rows = [(name, 0, label.unit, label.field, label.value, user, hash((name, user)))
            for name, answers in votes.items() for user, given in enumerate(answers, 1)
            for label in kind.labels(item, given)]
    return pd.DataFrame(rows, columns=["item", "position", "unit", "field", "value", "user_id", "assignment_id"])


def gold_of(votes: dict[str, list[dict[str, Any]]], **rules: int) -> dict[tuple[str, str, str], Any]:
    """(item, question, claim) -> gold, by stance_premise.yaml with these m."""
    kind = task(**rules)
    gold = kind.gold(frame(kind, votes), settings_with_defaults(kind, None))
    return {(r.item, r.question, r.unit): r.gold for r in gold.itertuples()}


def test_the_definition_s_defaults_are_the_paper_s() -> None:
    definition = definition_for("both")
    [group] = definition["questions"]
    assert definition["k"] == 3
    assert {q["id"]: q["gold"]["m"] for q in group["questions"]} == {"relevance": 2, "stance": 2, "premise": 2}


def test_an_answer_becomes_a_relevance_row_per_claim_and_the_labels_of_a_relevant_one() -> None:
    assert task().labels(ITEM, answer(masks=FOR_OTHER)) == [
        LabelIn("masks", "relevance", "relevant"), LabelIn("masks", "stance", "2"), LabelIn("masks", "premise", "1"),
        LabelIn("quarantine", "relevance", "irrelevant"), LabelIn("vaccines", "relevance", "irrelevant")]


@pytest.mark.parametrize("bad", [
    {"claims": {"masks": IRR, "quarantine": IRR}},
    answer(masks={"relevance": "relevant", "stance": "5", "premise": "1"}),
    answer(masks={"relevance": "relevant", "stance": "2"}),
    {"claims": "masks"},
], ids=["a claim missing", "a code the data set has not", "a relevant claim's premise missing", "not per claim"])
def test_answers_that_do_not_fit_are_refused(bad: dict[str, Any]) -> None:
    with pytest.raises(AnswerError):
        task().labels(ITEM, bad)


def test_example_answers_are_valid_answers() -> None:
    rng = random.Random(3)
    kind = task()
    public = kind.public_item(ITEM)
    for _ in range(30):
        kind.labels(ITEM, kind.example_answer(public, rng))


def test_a_claim_is_irrelevant_unless_two_annotators_found_it_relevant() -> None:
    gold = gold_of({"s": [answer(masks=FOR_OTHER), answer(), answer()]})
    assert (gold[("s", "relevance", "masks")], gold[("s", "stance", "masks")],
            gold[("s", "premise", "masks")]) == ("irrelevant", NOT_ASKED, NOT_ASKED)


def test_a_relevant_claim_takes_the_code_m_annotators_gave() -> None:
    gold = gold_of({"s": [answer(masks=FOR_OTHER), answer(masks=FOR_OTHER), answer(masks=AGAINST_NONE)]})
    assert (gold[("s", "stance", "masks")], gold[("s", "premise", "masks")]) == ("2", "1")


def test_a_label_without_m_equal_codes_is_undecided_and_its_item_goes_to_an_admin() -> None:
    kind = task()
    labels = frame(kind, {"s": [answer(masks=FOR_OTHER), answer(masks=AGAINST_NONE), answer(masks=OTHER_OTHER)]})
    gold = kind.gold(labels, settings_with_defaults(kind, None))
    said = {(r.question, r.unit): r.gold for r in gold.itertuples()}
    assert (said[("stance", "masks")], said[("premise", "masks")]) == (UNDECIDED, "1")
    assert kind.undecided(gold) == ["s"]


def test_two_codes_with_m_votes_each_are_undecided() -> None:
    votes = [answer(masks=FOR_OTHER), answer(masks=FOR_OTHER), answer(masks=AGAINST_NONE), answer(masks=AGAINST_NONE)]
    assert gold_of({"s": votes})[("s", "stance", "masks")] == UNDECIDED


def test_three_of_four_as_on_the_test_set() -> None:
    three = [answer(masks=FOR_OTHER)] * 3 + [answer(masks=AGAINST_NONE)]
    gold = gold_of({"s": three}, agree=3)
    assert (gold[("s", "stance", "masks")], gold[("s", "premise", "masks")]) == ("2", "1")


def test_two_of_four_make_a_claim_relevant_even_when_labels_need_three() -> None:
    two_relevant = [answer(masks=FOR_OTHER), answer(masks=FOR_OTHER), answer(), answer()]
    gold = gold_of({"s": two_relevant}, agree=3)
    assert (gold[("s", "relevance", "masks")], gold[("s", "stance", "masks")]) == ("relevant", UNDECIDED)
    assert gold_of({"s": two_relevant}, agree=3, relevant_votes=3)[("s", "relevance", "masks")] == "irrelevant"


def test_relevance_counts_annotators_not_agreeing_codes() -> None:
    gold = gold_of({"s": [answer(masks=FOR_OTHER), answer(masks=AGAINST_NONE), answer()]})
    assert (gold[("s", "relevance", "masks")], gold[("s", "stance", "masks")],
            gold[("s", "premise", "masks")]) == ("relevant", UNDECIDED, "1")


def test_an_adjudication_wins_over_the_rule() -> None:
    kind = task()
    labels = frame(kind, {"s": [answer(masks=FOR_OTHER), answer(masks=AGAINST_NONE), answer(masks=OTHER_OTHER)]})
    gold = kind.gold(labels, settings_with_defaults(kind, None))
    decision = answer(masks={"relevance": "relevant", "stance": "0", "premise": "0"})
    decided = pd.DataFrame([("s", label.unit, label.field, label.value) for label in kind.labels(ITEM, decision)],
                           columns=["item", "unit", "field", "value"])
    final = kind.adjudicate(gold, decided)
    said = {(r.question, r.unit): (r.gold, r.votes) for r in final.itertuples()}
    assert said[("stance", "masks")] == ("0", "adjudicated") and said[("premise", "masks")] == ("0", "adjudicated")
    assert kind.undecided(final) == []


def test_krippendorff_alpha_of_a_claim_s_stance_equals_the_package_on_the_same_matrix() -> None:
    """Irrelevant counts as a value of the claim's stance (the paper's six labels per sentence)."""
    rng = random.Random(11)
    kind = task()
    public = kind.public_item(ITEM)
    labels = frame(kind, {f"s{n}": [kind.example_answer(public, rng) for _ in range(3)] for n in range(40)})
    fields = kind.agreement_units(labels)
    units = fields["stance / masks"]
    codes = {value: n for n, value in enumerate(sorted(set(units["value"])))}
    matrix = units.assign(code=units["value"].map(codes)).pivot_table(index="coder", columns="unit", values="code",
                                                                      aggfunc="first")
    expected = krippendorff.alpha(reliability_data=matrix.to_numpy(dtype=float), level_of_measurement="nominal")
    assert "irrelevant" in codes
    assert field_agreement("stance / masks", units).krippendorff_alpha.value == pytest.approx(expected, abs=1e-12)


def test_the_stance_stage_asks_relevance_and_stance_only() -> None:
    kind = task("stance")
    rows = kind.labels(ITEM, {"claims": {"masks": {"relevance": "relevant", "stance": "2"}, "quarantine": IRR,
                                         "vaccines": IRR}})
    assert rows == [LabelIn("masks", "relevance", "relevant"), LabelIn("masks", "stance", "2"),
                    LabelIn("quarantine", "relevance", "irrelevant"), LabelIn("vaccines", "relevance", "irrelevant")]
    with pytest.raises(AnswerError):
        kind.labels(ITEM, answer(masks=FOR_OTHER))


def test_the_premise_stage_asks_the_premise_of_the_claims_its_item_names_and_decides_by_m_of_n() -> None:
    kind = task("premise", agree=3)
    item = SimpleNamespace(payload={**ITEM.payload, "claims": ["masks", "quarantine"]}, external_id="17024")
    assert kind.labels(item, {"masks_premise": "2", "quarantine_premise": "1"}) == [
        LabelIn("masks_premise", "masks_premise", "2"), LabelIn("quarantine_premise", "quarantine_premise", "1")]
    with pytest.raises(AnswerError):
        kind.labels(item, {"masks_premise": "2", "quarantine_premise": "1", "vaccines_premise": "1"})
    votes = [{"masks_premise": p, "quarantine_premise": "1"} for p in ("2", "2", "2", "0")]
    gold = kind.gold(frame(kind, {"s": votes}, item), settings_with_defaults(kind, None))
    said = {r.question: r.gold for r in gold.itertuples()}
    assert said.get("vaccines_premise", NOT_ASKED) == NOT_ASKED   # no sentence's stance stage found it relevant
    assert (said["masks_premise"], said["quarantine_premise"]) == ("2", "1")
