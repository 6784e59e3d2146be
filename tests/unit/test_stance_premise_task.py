"""The stance/premise HIT type: answers, the m-of-n gold rule, adjudication, checks and agreement."""
from __future__ import annotations

import random
from types import SimpleNamespace

import krippendorff
import numpy as np
import pandas as pd
import pytest

from annotator.analysis.agreement import field_agreement
from annotator.core.options import OptionError
from annotator.tasks import AnswerError, LabelIn, checked_settings, settings_with_defaults, task_type
from annotator.tasks.stance_premise_gold import NO_AGREEMENT

TASK = task_type("stance_premise")
SETTINGS = settings_with_defaults(TASK, {})
ITEM = SimpleNamespace(payload={"id": "17024", "text": "Лучше в маске ходить, чем снова на карантин сесть"},
                       external_id="17024")
IRR = {"stance": -1, "premise": -1}


def answer(masks=IRR, quarantine=IRR, vaccines=IRR) -> dict:  # type: ignore[no-untyped-def]
    return {"claims": {"masks": masks, "quarantine": quarantine, "vaccines": vaccines}}


def test_defaults_are_the_papers() -> None:
    # Kotelnikov et al. 2022, section 3.1: relevant when "at least two annotators considered it relevant";
    # section 3.2: three annotators, labels by at least two of them (train and validation).
    assert (TASK.default_k, SETTINGS["agree"], SETTINGS["relevant_votes"], SETTINGS["language"]) == (3, 2, 2, "en")
    assert SETTINGS["stage"] == "both"
    assert [c["key"] for c in SETTINGS["claims"]] == ["masks", "quarantine", "vaccines"]
    assert SETTINGS["claims"][2]["ru"] == "Вакцинация полезна для общества"


def test_the_api_item_has_the_documented_shape_and_no_reference() -> None:
    assert TASK.public_item(ITEM, SETTINGS) == {"id": "17024", "text": ITEM.payload["text"],
                                                "claims": ["masks", "quarantine", "vaccines"]}


def test_an_answer_becomes_two_label_rows_per_claim() -> None:
    labels = TASK.labels(ITEM, answer(masks={"stance": 2, "premise": 1}, quarantine={"stance": 0, "premise": 0}))
    assert labels == [LabelIn("masks", "stance", "2"), LabelIn("masks", "premise", "1"),
                      LabelIn("quarantine", "stance", "0"), LabelIn("quarantine", "premise", "0"),
                      LabelIn("vaccines", "stance", "-1"), LabelIn("vaccines", "premise", "-1")]


@pytest.mark.parametrize("bad, message", [
    ({"claims": {"masks": IRR, "quarantine": IRR}}, "claim 'vaccines' is missing"),
    ({"claims": {**answer()["claims"], "bikes": IRR}}, "'bikes' is not one of this project's claims"),
    (answer(masks={"stance": 3, "premise": 1}), "stance of claim 'masks' is 3"),
    (answer(masks={"stance": "2", "premise": 1}), "stance of claim 'masks' is '2'"),
    (answer(masks={"stance": True, "premise": 1}), "stance of claim 'masks' is True"),
    (answer(masks={"stance": -1, "premise": 2}), "irrelevant (-1) for one label but not the other"),
    (answer(masks={"stance": 2}), 'needs exactly "stance" and "premise"'),
    (answer(masks={"stance": 2, "premise": 1, "comment": "x"}), 'needs exactly "stance" and "premise"'),
    ({**answer(), "extra": 1}, "the answer must be an object"),
    ({"claims": [1, 2]}, "the answer must be an object"),
])
def test_answers_that_do_not_fit_are_refused(bad: dict, message: str) -> None:
    with pytest.raises(AnswerError, match=None) as caught:
        TASK.labels(ITEM, bad, SETTINGS)
    assert message in str(caught.value)


def test_example_answers_are_valid_answers() -> None:
    rng = random.Random(3)
    public = TASK.public_item(ITEM, SETTINGS)
    for _ in range(50):
        assert len(TASK.labels(ITEM, TASK.example_answer(public, rng), SETTINGS)) == 6


def test_claims_are_a_setting_read_from_lines() -> None:
    settings = checked_settings(TASK, {}, {"claims": "bikes | Cycling is good | Велосипед полезен\nmasks | Masks"})
    assert settings["claims"] == ({"key": "bikes", "en": "Cycling is good", "ru": "Велосипед полезен"},
                                  {"key": "masks", "en": "Masks", "ru": "Masks"})
    assert TASK.public_item(ITEM, settings)["claims"] == ["bikes", "masks"]
    with pytest.raises(AnswerError, match="claim 'bikes' is missing"):
        TASK.labels(ITEM, answer(), settings)
    for bad in ("Bikes | x", "a | x\na | y", "just a key", ""):
        with pytest.raises(OptionError):
            checked_settings(TASK, {}, {"claims": bad})


# --- gold ------------------------------------------------------------------------------------------

def frame(votes: dict[str, list[dict]]) -> pd.DataFrame:  # type: ignore[type-arg]
    """Label rows of votes given per item as answers, one annotator per position."""
    rows = []
    for item, answers in votes.items():
        for user, given in enumerate(answers, 1):
            for label in TASK.labels(ITEM, given, SETTINGS):
                rows.append((item, 0, label.unit, label.field, label.value, user, hash((item, user))))
    return pd.DataFrame(rows, columns=["item", "position", "unit", "field", "value", "user_id", "assignment_id"])


def gold_of(votes: dict, agree: int = 2, **settings) -> pd.DataFrame:  # type: ignore[type-arg, no-untyped-def]
    return TASK.gold(frame(votes), {**SETTINGS, "agree": agree, **settings}).set_index(["item", "unit"])


FOR_OTHER, AGAINST_NONE, OTHER_OTHER = ({"stance": 2, "premise": 1}, {"stance": 0, "premise": 1},
                                        {"stance": 1, "premise": 1})


def test_a_claim_is_irrelevant_unless_two_annotators_marked_it_relevant() -> None:
    gold = gold_of({"s": [answer(masks=FOR_OTHER), answer(), answer()]})
    assert tuple(gold.loc[("s", "masks"), ["relevant", "stance", "premise", "status"]]) == (1, -1, -1, "decided")


def test_a_relevant_claim_takes_the_code_m_annotators_gave() -> None:
    gold = gold_of({"s": [answer(masks=FOR_OTHER), answer(masks=FOR_OTHER), answer(masks=AGAINST_NONE)]})
    assert tuple(gold.loc[("s", "masks"), ["stance", "premise", "stance_votes", "status"]]) == (2, 1, "2,2,0",
                                                                                                "decided")


def test_a_label_without_m_equal_codes_has_no_agreement() -> None:
    gold = gold_of({"s": [answer(masks=FOR_OTHER), answer(masks=AGAINST_NONE), answer(masks=OTHER_OTHER)]})
    row = gold.loc[("s", "masks")]
    assert (row["stance"], row["premise"], row["status"]) == (NO_AGREEMENT, 1, NO_AGREEMENT)
    assert TASK.undecided(gold.reset_index()) == ["s"]


def test_two_codes_with_m_votes_each_are_no_agreement() -> None:
    votes = [answer(masks=FOR_OTHER), answer(masks=FOR_OTHER), answer(masks=AGAINST_NONE), answer(masks=AGAINST_NONE)]
    assert gold_of({"s": votes}).loc[("s", "masks"), "stance"] == NO_AGREEMENT


def test_three_of_four_as_on_the_test_set() -> None:
    # Section 3.2: test labels "with the agreement of at least three annotators" of four.
    three = [answer(masks=FOR_OTHER)] * 3 + [answer(masks=AGAINST_NONE)]
    assert tuple(gold_of({"s": three}, agree=3).loc[("s", "masks"), ["stance", "premise"]]) == (2, 1)


def test_two_of_four_make_a_claim_relevant_even_when_labels_need_three() -> None:
    # Section 3.1: "relevant ... if at least two annotators considered it relevant", whatever the labels need:
    # relevant, so not -1; its labels lack three equal codes, so it goes to adjudication.
    two_relevant = [answer(masks=FOR_OTHER), answer(masks=FOR_OTHER), answer(), answer()]
    row = gold_of({"s": two_relevant}, agree=3).loc[("s", "masks")]
    assert (row["relevant"], row["stance"], row["premise"], row["status"]) == (2, NO_AGREEMENT, NO_AGREEMENT,
                                                                               NO_AGREEMENT)
    assert gold_of({"s": two_relevant}, agree=3, relevant_votes=3).loc[("s", "masks"), "stance"] == -1


def test_relevance_counts_annotators_not_agreeing_codes() -> None:
    split = [answer(masks=FOR_OTHER), answer(masks=AGAINST_NONE), answer()]
    row = gold_of({"s": split}).loc[("s", "masks")]
    assert (row["stance"], row["premise"]) == (NO_AGREEMENT, 1)


def test_relevance_needs_its_own_number_of_annotators() -> None:
    with pytest.raises(OptionError, match="relevant_votes must be between 1 and 100"):
        checked_settings(TASK, {}, {"relevant_votes": "0"})
    assert checked_settings(TASK, {"agree": 3}, {"relevant_votes": "3"})["relevant_votes"] == 3


def test_an_adjudication_wins_over_the_rule() -> None:
    gold = TASK.gold(frame({"s": [answer(masks=FOR_OTHER), answer(masks=AGAINST_NONE), answer(masks=OTHER_OTHER)]}),
                     SETTINGS)
    decided = pd.DataFrame([("s", label.unit, label.field, label.value)
                            for label in TASK.labels(ITEM, answer(masks={"stance": 0, "premise": 0}))],
                           columns=["item", "unit", "field", "value"])
    final = TASK.adjudicate(gold, decided).set_index(["item", "unit"])
    assert tuple(final.loc[("s", "masks"), ["stance", "premise", "status"]]) == (0, 0, "adjudicated")
    assert TASK.undecided(final.reset_index()) == []
    assert TASK.gold_summary(final.reset_index()).counts["adjudicated"] == 1


def test_consistency_checks_flag_opposite_polarity_in_votes_and_gold_and_compare_with_reference() -> None:
    opposite = {"stance": 2, "premise": 0}
    labels = frame({"s": [answer(masks=opposite), answer(masks=opposite), answer()],
                    "t": [answer(), answer(), answer()]})
    gold = TASK.gold(labels, SETTINGS)
    checks = {c.name: c for c in TASK.checks(labels, gold, {"t": {"masks": {"stance": 2, "premise": 2}}})}
    assert (checks["votes: stance and premise of opposite polarity"].flagged,
            checks["votes: stance and premise of opposite polarity"].of) == (2, 18)
    assert checks["gold: stance and premise of opposite polarity"].examples == ("s (masks)",)
    assert checks["votes: irrelevant for one label only"].flagged == 0
    reference = checks["gold differs from the imported reference labels"]
    assert (reference.flagged, reference.of, reference.examples) == (1, 1, ("t (masks)",))


def test_gold_equal_to_the_reference_is_not_flagged() -> None:
    labels = frame({"t": [answer(masks=FOR_OTHER)] * 3})
    checks = {c.name: c for c in TASK.checks(labels, TASK.gold(labels, SETTINGS),
                                             {"t": {"masks": {"stance": 2, "premise": 1}}})}
    assert checks["gold differs from the imported reference labels"].flagged == 0


def test_krippendorff_alpha_per_claim_and_label_equals_the_package_on_the_same_matrix() -> None:
    rng = random.Random(11)
    votes = {f"s{n}": [TASK.example_answer({"claims": ["masks", "quarantine", "vaccines"]}, rng) for _ in range(3)]
             for n in range(40)}
    labels = frame(votes)
    fields = TASK.agreement_units(labels)
    assert list(fields)[:2] == ["all labels", "relevance"] and "masks stance" in fields
    units = fields["masks stance"]
    matrix = units.pivot_table(index="coder", columns="unit", values="value", aggfunc="first")
    expected = krippendorff.alpha(reliability_data=matrix.to_numpy(dtype=float), level_of_measurement="nominal")
    assert field_agreement("masks stance", units).krippendorff_alpha.value == pytest.approx(expected, abs=1e-12)
    overall = fields["all labels"]
    matrix = overall.pivot_table(index="coder", columns="unit", values="value", aggfunc="first").to_numpy(dtype=float)
    assert field_agreement("all", overall).krippendorff_alpha.value == pytest.approx(
        krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal"), abs=1e-12)
    assert not np.isnan(field_agreement("all", overall).fleiss_kappa.value)


# --- the two stages ------------------------------------------------------------------------------------

STANCE = checked_settings(TASK, {}, {"stage": "stance"})
PREMISE = checked_settings(TASK, {}, {"stage": "premise", "stance_project": "ru-stance"})
RELEVANT_TO_MASKS = SimpleNamespace(payload={**ITEM.payload, "claims": ["masks", "quarantine"]}, external_id="17024")


def test_the_stance_stage_asks_relevance_and_stance_only() -> None:
    assert TASK.public_item(ITEM, STANCE)["labels"] == ["stance"]
    labels = TASK.labels(ITEM, {"claims": {"masks": {"stance": 2}, "quarantine": {"stance": -1},
                                           "vaccines": {"stance": -1}}}, STANCE)
    assert labels == [LabelIn("masks", "stance", "2"), LabelIn("quarantine", "stance", "-1"),
                      LabelIn("vaccines", "stance", "-1")]
    with pytest.raises(AnswerError, match='claim \'masks\' needs exactly "stance" codes'):
        TASK.labels(ITEM, answer(masks=FOR_OTHER), STANCE)


def test_the_premise_stage_asks_the_premise_of_the_claims_its_item_names() -> None:
    assert TASK.public_item(RELEVANT_TO_MASKS, PREMISE) == {"id": "17024", "text": ITEM.payload["text"],
                                                            "claims": ["masks", "quarantine"], "labels": ["premise"]}
    labels = TASK.labels(RELEVANT_TO_MASKS, {"claims": {"masks": {"premise": 2}, "quarantine": {"premise": 1}}},
                         PREMISE)
    assert labels == [LabelIn("masks", "premise", "2"), LabelIn("quarantine", "premise", "1")]
    with pytest.raises(AnswerError, match="the stance stage found this claim relevant"):
        TASK.labels(RELEVANT_TO_MASKS, {"claims": {"masks": {"premise": -1}, "quarantine": {"premise": 1}}}, PREMISE)
    with pytest.raises(AnswerError, match="'vaccines' is not one of this project's claims"):
        TASK.labels(RELEVANT_TO_MASKS, {"claims": {"masks": {"premise": 2}, "quarantine": {"premise": 1},
                                                   "vaccines": {"premise": 1}}}, PREMISE)


def test_the_premise_stage_needs_its_stance_project() -> None:
    with pytest.raises(OptionError, match="the premise stage needs stance_project"):
        checked_settings(TASK, {}, {"stage": "premise"})
    with pytest.raises(OptionError, match="stance_project is a setting of the premise stage only"):
        checked_settings(TASK, {}, {"stance_project": "ru-stance"})


def test_example_answers_fit_each_stage() -> None:
    rng = random.Random(5)
    for item, settings in ((ITEM, STANCE), (RELEVANT_TO_MASKS, PREMISE)):
        public = TASK.public_item(item, settings)
        for _ in range(20):
            TASK.labels(item, TASK.example_answer(public, rng), settings)


def test_stage_gold_takes_relevance_from_the_stance_stage_and_premise_by_m_of_n() -> None:
    stance_votes = [{"claims": {"masks": {"stance": s}, "quarantine": {"stance": -1}, "vaccines": {"stance": -1}}}
                    for s in (2, 2, -1, -1)]
    rows = [("s", 0, label.unit, label.field, label.value, user, user)
            for user, given in enumerate(stance_votes, 1) for label in TASK.labels(ITEM, given, STANCE)]
    labels = pd.DataFrame(rows, columns=["item", "position", "unit", "field", "value", "user_id", "assignment_id"])
    gold = TASK.gold(labels, {**STANCE, "agree": 2}).set_index(["item", "unit"])
    assert (gold.loc[("s", "masks"), "stance"], gold.loc[("s", "masks"), "premise"]) == (2, None)
    assert list(TASK.agreement_units(labels))[:2] == ["all labels", "relevance"]
    premise_votes = [{"claims": {"masks": {"premise": p}, "quarantine": {"premise": 1}}} for p in (2, 2, 2, 0)]
    rows = [("s", 0, label.unit, label.field, label.value, user, user)
            for user, given in enumerate(premise_votes, 1) for label in TASK.labels(RELEVANT_TO_MASKS, given, PREMISE)]
    labels = pd.DataFrame(rows, columns=["item", "position", "unit", "field", "value", "user_id", "assignment_id"])
    gold = TASK.gold(labels, {**PREMISE, "agree": 3}).set_index(["item", "unit"])
    assert tuple(gold.loc[("s", "masks"), ["stance", "premise", "status"]]) == (None, 2, "decided")
    assert tuple(gold.loc[("s", "quarantine"), ["premise", "status"]]) == (1, "decided")
    assert "relevance" not in TASK.agreement_units(labels) and "masks premise" in TASK.agreement_units(labels)
