"""An admin's decision of a declared item is its gold (declared/adjudication.py): the decided units take the admin's
values, a unit the decision does not answer is n/a, and the other items keep the rule's gold. The gold is
computed by the declared rules from label rows as votes store them; the expected values are written out from the
votes."""
from __future__ import annotations

import pandas as pd

from annotator.declared.adjudication import ADJUDICATED, adjudicated, undecided
from annotator.declared.definition_reader import definition_from_text
from annotator.declared.gold import declared_gold

DEFINITION = definition_from_text("""name: review
show: [text]
questions:
  - {id: sarcastic, kind: choice, options: ["yes", "no"], gold: majority}
  - {id: target, kind: choice, options: [person, thing], when: {sarcastic: "yes"}, gold: majority}
  - {id: intensity, kind: scale, min: 1, max: 5, gold: mean}
""")


def _labels(votes: list[tuple[str, int, dict[str, str]]]) -> pd.DataFrame:
    rows = [(item, question, question, value, user, 10 * user + n)
            for n, (item, user, answer) in enumerate(votes) for question, value in answer.items()]
    return pd.DataFrame(rows, columns=["item", "unit", "field", "value", "user_id", "assignment_id"])


LABELS = _labels([
    ("q1", 1, {"sarcastic": "yes", "target": "person", "intensity": "2"}),
    ("q1", 2, {"sarcastic": "no", "intensity": "4"}),                        # a tie: q1 undecided
    ("q2", 1, {"sarcastic": "no", "intensity": "5"}),
    ("q2", 2, {"sarcastic": "no", "intensity": "3"}),
])
GOLD = declared_gold(DEFINITION, LABELS)


def _rows(gold: pd.DataFrame, item: str) -> list[tuple[str, object, str]]:
    part = gold[gold["item"] == item]
    return list(zip(part["question"], part["gold"], part["votes"]))


def test_an_item_with_an_undecided_row_is_left_to_an_admin():
    assert undecided(GOLD) == ["q1"]


def test_the_decision_is_the_items_gold_and_a_unit_it_hides_is_not_asked():
    decided = pd.DataFrame([("q1", "sarcastic", "sarcastic", "no"), ("q1", "intensity", "intensity", "4")],
                           columns=["item", "unit", "field", "value"])
    gold = adjudicated(DEFINITION, GOLD, decided)
    assert _rows(gold, "q1") == [("sarcastic", "no", ADJUDICATED), ("target", "n/a", ADJUDICATED),
                                 ("intensity", "4", ADJUDICATED)]
    assert _rows(gold, "q2") == _rows(GOLD, "q2") and _rows(gold, "q2")[2][1] == "4"   # the mean of 5 and 3
    assert undecided(gold) == []
