"""RuArg-2022's figures computed on codes and positions rather than on copies of the label rows (the kept figures'
memory, bench/results/2026-11-29-kept-figures-memory.md), held to what the votes say, counted here vote by vote.

A crowd of eight answers sixty sentences, three annotators each, in the order results.labels_frame gives the rows
(sentence, then vote): each claim relevant or not, and a relevant claim's stance and premise codes.
"""
from __future__ import annotations

import random
from collections import Counter
from types import SimpleNamespace
from typing import Any

import pandas as pd

from annotator.declared.definition_reader import definition_from_data
from annotator.declared.named_rules import bindings
from annotator.shared_tasks.ruarg2022.consistency_rule import (
    checks,
    stance_gold,
    stance_labels,
    stance_references,
    stance_votes,
)
from annotator.shared_tasks.ruarg2022.declared_projects import definition_for
from annotator.shared_tasks.ruarg2022.rules import consistency_checks, votes_frame
from annotator.tasks import settings_with_defaults
from annotator.tasks.custom import DeclaredTask

CLAIMS = ("masks", "quarantine", "vaccines")
CODES = ("2", "0", "1")


def _crowd(seed: int = 2022) -> tuple[DeclaredTask, list[tuple[str, int, dict[str, Any]]], pd.DataFrame]:
    """The task, each vote (sentence, annotator, answer) in row order, and the label rows."""
    kind = DeclaredTask(definition_from_data(definition_for("both")))
    rng = random.Random(seed)
    votes = []
    for sentence in range(60):
        for user in rng.sample(range(1, 9), 3):
            claims = {}
            for claim in CLAIMS:
                if rng.random() < 0.45:
                    claims[claim] = {"relevance": "irrelevant"}
                else:
                    stance = rng.choice(CODES)
                    premise = stance if rng.random() < 0.6 else rng.choice(CODES)
                    claims[claim] = {"relevance": "relevant", "stance": stance, "premise": premise}
            votes.append((f"s{sentence}", user, {"claims": claims}))
    rows = [(item, 0, label.unit, label.field, label.value, user, vote)
            for vote, (item, user, answer) in enumerate(votes, 1)
            for label in kind.labels(SimpleNamespace(payload={"id": item, "text": "..."}, external_id=item), answer)]
    labels = pd.DataFrame(rows, columns=["item", "position", "unit", "field", "value", "user_id", "assignment_id"])
    return kind, votes, labels.astype({"item": "str", "unit": "str", "field": "str", "value": "str"})


def _said(answer: dict[str, Any], claim: str, label: str) -> str:
    """A claim's stance or premise as its agreement field counts it: "irrelevant" for a claim found irrelevant."""
    given = answer["claims"][claim]
    return given[label] if given["relevance"] == "relevant" else "irrelevant"


def test_the_votes_per_value_of_each_field_are_the_votes_counted_one_by_one() -> None:
    kind, votes, labels = _crowd()
    expected: dict[str, Counter[str]] = {"relevance": Counter(answer["claims"][c]["relevance"]
                                                              for _, _, answer in votes for c in CLAIMS)}
    for label in ("stance", "premise"):
        expected[label] = Counter(_said(answer, c, label) for _, _, answer in votes for c in CLAIMS)
        for claim in CLAIMS:
            expected[f"{label} / {claim}"] = Counter(_said(answer, claim, label) for _, _, answer in votes)
    expected["all_labels (pooled)"] = expected["stance"] + expected["premise"]
    found = kind.label_distribution(labels, kind.gold(labels, settings_with_defaults(kind, None)))
    assert list(found) == [f"{name}: votes per value" for name in
                           ["relevance", "stance", *(f"stance / {c}" for c in CLAIMS), "premise",
                            *(f"premise / {c}" for c in CLAIMS), "all_labels (pooled)"]]
    for name, counts in expected.items():
        assert found[f"{name}: votes per value"] == {value: counts[value] for value in sorted(counts)}
        assert list(found[f"{name}: votes per value"]) == sorted(counts)


def test_the_agreement_fields_one_at_a_time_are_the_fields_made_together() -> None:
    kind, _, labels = _crowd()
    together = kind.agreement_units(labels)
    one_by_one = list(kind.agreement_fields(labels))
    assert [name for name, _ in one_by_one] == list(together)
    for name, frame in one_by_one:
        assert frame.equals(together[name]) and frame.attrs == together[name].attrs
        assert frame.index.equals(together[name].index)   # each row traced back to its label row


def test_the_pooled_field_is_each_votes_stance_and_premise_under_their_questions_names() -> None:
    # made after the stance and premise fields were let go, from their unit names held as codes
    kind, votes, labels = _crowd(5)
    pooled = dict(kind.agreement_fields(labels))["all_labels (pooled)"]
    expected = Counter((f"{label}: {item} / {claim}", user, _said(answer, claim, label))
                       for label in ("stance", "premise") for item, user, answer in votes for claim in CLAIMS)
    assert Counter(zip(pooled["unit"], pooled["coder"], pooled["value"])) == expected
    assert pooled["unit"].dtype == object and all(isinstance(unit, str) for unit in pooled["unit"])
    assert pooled["unit"].str.startswith("stance: ").sum() == len(votes) * len(CLAIMS)


def test_the_votes_frame_made_from_the_pairs_is_the_pivot_of_the_label_rows() -> None:
    kind, votes, labels = _crowd(7)
    [bound] = [b for b in bindings(kind.definition) if b.rule.name == "ruarg_consistency"]
    made = stance_votes(bound, labels)
    assert made.equals(votes_frame(stance_labels(bound, labels)))
    assert list(made.columns) == ["item", "unit", "assignment_id", "user_id", "stance", "premise"]
    # one row per vote and claim, with the codes the annotator gave (-1: irrelevant)
    code = {(item, claim, user): (-1, -1) if answer["claims"][claim]["relevance"] != "relevant"
            else (int(answer["claims"][claim]["stance"]), int(answer["claims"][claim]["premise"]))
            for item, user, answer in votes for claim in CLAIMS}
    assert {(r.item, r.unit, r.user_id): (r.stance, r.premise) for r in made.itertuples()} == code
    assert len(made) == len(code)


def test_the_checks_read_from_the_pairs_are_those_of_the_label_rows() -> None:
    kind, _, labels = _crowd(11)
    [bound] = [b for b in bindings(kind.definition) if b.rule.name == "ruarg_consistency"]
    gold = kind.gold(labels, settings_with_defaults(kind, None))
    by_rows = consistency_checks(stance_labels(bound, labels), stance_gold(bound, gold), stance_references(bound, {}))
    found = checks(bound, labels, gold, {})
    assert found == by_rows
    opposite = next(c for c in found if c.name == "votes: stance and premise of opposite polarity")
    assert opposite.flagged > 0 and opposite.examples   # the crowd gives some, so the comparison is not empty
