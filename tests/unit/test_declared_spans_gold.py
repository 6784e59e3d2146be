"""Gold, agreement and control items of a spans question, each against a hand computation on a small case: three
annotators marking names in sentences of the named-entity example (examples/ner_spans_items.jsonl)."""
from __future__ import annotations

import json
import math

import pytest

from annotator.analysis.agreement import field_agreement
from annotator.core.errors import FormatError
from annotator.declared.definition import UNDECIDED
from annotator.declared.definition_reader import definition_from_text
from annotator.declared.gold import (
    agreement_units,
    control_reference,
    control_score,
    declared_gold,
    gold_counts,
    gold_units,
    show_reference,
)
from annotator.declared.items import iter_items
from tests.support.declared_labels import labels_of

S1 = "Ada Lovelace wrote her notes on the Analytical Engine in London."
S4 = "Nobody in the room could remember where the key had gone."


def define(gold: str = "{rule: agree, m: 2}", overlap: str = "false"):  # type: ignore[no-untyped-def]
    return definition_from_text(f"""name: names
show: [sentence]
questions:
  - id: entities
    kind: spans
    of: sentence
    labels: [{{value: PER, label: Person}}, {{value: ORG, label: Organisation}}, {{value: LOC, label: Place}}]
    required: false
    overlap: {overlap}
    gold: {gold}
""")


def at(stretch: str, label: str, text: str = S1) -> dict:
    start = text.index(stretch)
    return {"start": start, "end": start + len(stretch), "label": label}


# Three annotators on s1: two mark "Ada Lovelace" as a person, the third only "Ada"; two say London is a place,
# one an organisation. On s4 nobody marks anything.
VOTES = {"s1": [{"entities": [at("Ada Lovelace", "PER"), at("London", "LOC")]},
                {"entities": [at("Ada Lovelace", "PER"), at("London", "ORG")]},
                {"entities": [at("Ada", "PER"), at("London", "LOC")]}],
         "s4": [{"entities": []}, {"entities": []}, {"entities": []}]}
PAYLOADS = {"s1": {"sentence": S1}, "s4": {"sentence": S4}}


def gold_of(definition, votes=VOTES):  # type: ignore[no-untyped-def]
    return declared_gold(definition, labels_of(definition, votes, PAYLOADS))


def rows(gold, item: str = "s1") -> dict[str, tuple]:  # type: ignore[no-untyped-def]
    mine = gold[gold["item"] == item]
    return {unit: (g, n, s, v) for unit, g, n, s, v in zip(mine["unit"], mine["gold"], mine["n"], mine["score"],
                                                            mine["votes"])}


def test_a_span_is_gold_when_m_annotators_marked_exactly_it():
    found = rows(gold_of(define()))
    assert found["0:12:PER"] == ("1", 3, pytest.approx(2 / 3), "1: 2, 0: 1")
    assert found["57:63:LOC"] == ("1", 3, pytest.approx(2 / 3), "1: 2, 0: 1")
    assert found["0:3:PER"][0] == "0"            # one annotator's shorter mark
    assert found["57:63:ORG"][0] == "0"          # the label one annotator gave London


def test_spans_come_first_in_text_order_then_every_word():
    units = list(gold_of(define())["unit"][:6])
    assert units == ["0:3:PER", "0:12:PER", "57:63:LOC", "57:63:ORG", "0:3", "4:12"]


def test_each_word_gets_the_label_of_the_gold_span_covering_it_scored_by_agreeing_annotators():
    found = rows(gold_of(define()))
    assert found["0:3"] == ("PER", 3, 1.0, "PER: 3")           # all three put "Ada" in a person
    assert found["4:12"] == ("PER", 3, pytest.approx(2 / 3), "O: 1, PER: 2")
    assert found["57:63"] == ("LOC", 3, pytest.approx(2 / 3), "ORG: 1, LOC: 2")
    assert found["13:18"] == ("O", 3, 1.0, "O: 3")


def test_an_item_where_nobody_marked_anything_has_every_word_O_and_no_span_rows():
    found = rows(gold_of(define()), "s4")
    assert set(found) == {f"{s}:{e}" for s, e in ((0, 6), (7, 9), (10, 13), (14, 18), (19, 24), (25, 33), (34, 39),
                                                  (40, 43), (44, 47), (48, 51), (52, 56), (56, 57))}
    assert {g for g, *_ in found.values()} == {"O"}


def test_the_share_rule_counts_the_share_of_annotators():
    found = rows(gold_of(define("{rule: share, positive: 0.7}")))
    assert found["0:12:PER"][0] == "0"                          # 2/3 is below 0.7
    assert rows(gold_of(define("{rule: share, positive: 0.6}")))["0:12:PER"][0] == "1"


def test_of_two_overlapping_spans_the_one_more_annotators_marked_wins():
    votes = {"s1": [{"entities": [at("Ada Lovelace", "PER")]}, {"entities": [at("Ada Lovelace", "PER")]},
                    {"entities": [at("Ada", "PER")]}, {"entities": [at("Ada", "PER")]},
                    {"entities": [at("Ada Lovelace", "PER")]}]}
    found = rows(gold_of(define(), votes))
    assert (found["0:12:PER"][0], found["0:3:PER"][0]) == ("1", "0")   # 3 against 2, both reaching m = 2


def test_a_tie_of_overlapping_spans_leaves_both_and_their_words_undecided():
    votes = {"s1": [{"entities": [at("London", "LOC")]}, {"entities": [at("London", "ORG")]},
                    {"entities": [at("London", "LOC"), at("Ada", "PER")]}, {"entities": [at("London", "ORG")]}]}
    found = rows(gold_of(define(), votes))
    assert (found["57:63:LOC"][0], found["57:63:ORG"][0]) == (UNDECIDED, UNDECIDED)
    assert found["57:63"][0] == UNDECIDED and math.isnan(found["57:63"][2])
    assert found["0:3:PER"][0] == "0" and found["0:3"][0] == "O"


def test_where_spans_may_overlap_every_span_reaching_the_rule_is_gold():
    definition = define(overlap="true")
    votes = {"s1": [{"entities": [at("Ada Lovelace", "PER"), at("Lovelace", "ORG")]},
                    {"entities": [at("Ada Lovelace", "PER"), at("Lovelace", "ORG")]}, {"entities": []}]}
    found = rows(gold_of(definition, votes))
    assert (found["0:12:PER"][0], found["4:12:ORG"][0], found["4:12"][0]) == ("1", "1", "PER+ORG")


def test_the_admin_summary_counts_gold_spans_and_words_per_label():
    definition = define()
    counts = gold_counts(definition, gold_of(definition))
    assert {k: v for k, v in counts.items() if "spans" in k} == {"entities: gold spans": 2,
                                                                 "entities: spans not gold": 2,
                                                                 "entities: undecided spans": 0}
    assert (counts["entities: words PER"], counts["entities: words LOC"], counts["entities: words O"]) == (2, 1, 21)


# --- agreement ------------------------------------------------------------------------------------------------

def test_agreement_is_per_word_nominal_and_matches_a_hand_computation():
    """Two annotators, one four-word sentence: PER PER O LOC against PER O O LOC. The coincidences are PER-PER 2,
    PER-O 1, O-PER 1, O-O 2, LOC-LOC 2 (n = 8; n_PER = 3, n_O = 3, n_LOC = 2), so alpha = 1 - (n - 1) * 2 /
    (n^2 - 9 - 9 - 4) = 1 - 7 * 2 / 42 = 2/3."""
    definition = define()
    text = "Ada Lovelace visited Paris"
    votes = {"x": [{"entities": [at("Ada Lovelace", "PER", text), at("Paris", "LOC", text)]},
                   {"entities": [at("Ada", "PER", text), at("Paris", "LOC", text)]}]}
    units = agreement_units(definition, labels_of(definition, votes, {"x": {"sentence": text}}))["entities"]
    assert list(units["unit"]) == ["x / 0:3", "x / 4:12", "x / 13:20", "x / 21:26"] * 2
    assert list(units["value"]) == ["PER", "PER", "O", "LOC", "PER", "O", "O", "LOC"]
    result = field_agreement("entities", units)
    assert result.krippendorff_alpha.value == pytest.approx(2 / 3)


def test_gold_units_give_each_word_its_gold_label():
    definition = define()
    units = gold_units(definition, gold_of(definition))["entities"]
    assert units["s1 / 0:3"] == "PER" and units["s1 / 57:63"] == "LOC" and units["s4 / 0:6"] == "O"
    assert not any(name.count(":") == 2 for name in units.index)   # span rows are gold's, not agreement's


# --- control items --------------------------------------------------------------------------------------------

def test_a_control_scores_the_overlap_of_exact_spans():
    definition = define()
    known = {"entities": [at("Ada Lovelace", "PER"), at("London", "LOC")]}
    payload = {"sentence": S1}
    assert control_score(definition, payload, known, known) == 1.0
    assert control_score(definition, payload, {"entities": [at("Ada", "PER"), at("London", "LOC")]}, known) == \
        pytest.approx(1 / 3)                                    # "Ada" alone is a miss: 1 in common of 3
    assert control_score(definition, payload, {"entities": []}, {"entities": []}) == 1.0


def test_the_decided_gold_of_an_item_is_its_known_answer_and_reads_in_words():
    definition = define()
    gold = gold_of(definition)
    assert control_reference(definition, "s1", gold) == {"entities": [at("Ada Lovelace", "PER"),
                                                                       at("London", "LOC")]}
    assert control_reference(definition, "s4", gold) == {"entities": []}
    assert show_reference(definition, {"sentence": S1}, control_reference(definition, "s1", gold)) == \
        "entities “Ada Lovelace” (Person), “London” (Place)"


def test_an_item_with_an_undecided_span_has_no_known_answer():
    definition = define()
    votes = {"s1": [{"entities": [at("London", "LOC")]}, {"entities": [at("London", "ORG")]},
                    {"entities": [at("London", "LOC")]}, {"entities": [at("London", "ORG")]}]}
    assert control_reference(definition, "s1", gold_of(definition, votes)) is None


def test_a_project_without_votes_has_an_empty_agreement_field_and_no_gold():
    definition = define()
    labels = labels_of(definition, {})
    assert list(agreement_units(definition, labels)["entities"].columns) == ["unit", "coder", "value"]
    assert declared_gold(definition, labels).empty


def test_an_items_file_gives_a_control_item_its_known_spans_checked_like_an_answer(tmp_path):
    definition = define()
    path = tmp_path / "items.jsonl"
    known = [at("London", "LOC"), at("Ada Lovelace", "PER")]
    path.write_text(json.dumps({"id": "s1", "sentence": S1, "known.entities": known}) + "\n"
                    + json.dumps({"id": "s4", "sentence": S4, "known.entities": []}) + "\n", encoding="utf-8")
    items = list(iter_items(path, definition))
    assert [item.reference for item in items] == [{"entities": [at("Ada Lovelace", "PER"), at("London", "LOC")]},
                                                  {"entities": []}]
    inside_a_word = [{"start": 1, "end": 12, "label": "PER"}]
    path.write_text(json.dumps({"id": "s1", "sentence": S1, "known.entities": inside_a_word}) + "\n", encoding="utf-8")
    with pytest.raises(FormatError) as caught:
        list(iter_items(path, definition))
    assert "items.jsonl, line 1" in str(caught.value) and "start 1 is not at the start of a word" in str(caught.value)


def test_where_the_earlier_questions_gold_does_not_ask_it_every_row_is_not_asked():
    definition = definition_from_text("""name: names
show: [sentence]
questions:
  - {id: has_names, kind: choice, options: ["yes", "no"]}
  - {id: entities, kind: spans, of: sentence, labels: [PER, LOC], when: {has_names: "yes"}, gold: {rule: agree, m: 1}}
""")
    votes = {"s1": [{"has_names": "no"}, {"has_names": "no"},
                    {"has_names": "yes", "entities": [at("London", "LOC")]}]}
    gold = declared_gold(definition, labels_of(definition, votes, PAYLOADS))
    found = rows(gold[gold["question"] == "entities"])
    assert found["57:63:LOC"][0] == "n/a" and found["57:63"][0] == "n/a" and math.isnan(found["57:63:LOC"][2])
    assert {g for g, *_ in found.values()} == {"n/a"}
    assert gold_counts(definition, gold)["entities: n/a"] == len(found)
