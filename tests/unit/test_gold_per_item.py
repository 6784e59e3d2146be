"""`TaskType.gold_per_item`: a type that says its gold of an item comes from that item's votes alone gives,
for any set of items, the same gold from their labels as from the whole project's (the items page of a big
project relies on it: annotator/figures/kept_figures.py). Checked on each such type's test project, voted
through the engine, both engines."""
from __future__ import annotations

from annotator.tasks import TASK_TYPES

PER_ITEM = sorted(name for name, task in TASK_TYPES.items() if task.gold_per_item)


def test_the_types_whose_gold_is_per_item_are_those_whose_rule_reads_one_items_votes() -> None:
    # Cloze validation judges annotators by their accuracy across items, and a declared campaign may ask for
    # Dawid-Skene or Bradley-Terry: their gold of an item depends on other items' votes.
    # Every built-in type that claimed it (emphasis, KPA-2021's three, stance_premise) left with the switch to one
    # engine (docs/one-engine.md). The declared type does not claim it, as a definition may ask for Dawid-Skene or
    # Bradley-Terry; claiming it per definition (every rule one item's) is not done, so the kept figures compute a
    # declared project's gold whole.
    assert PER_ITEM == []
