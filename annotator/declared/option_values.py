"""Options numbered by position, and the ordinal choice: what an option's stored value is, and its order.

Two features of choice (and multi) questions that campaigns such as ReCAM (SemEval-2021 Task 4) need:

`values: index` on a question with `options_from`: the item's field is a list of plain texts (or {id, text}
objects), and each option's value is its position in that list, "0", "1", ... (its label the text). The answer,
the label rows, gold, agreement and the exports then hold the position, as ReCAM's own files do (`label: 3`),
and agreement pools positions across items (five categories) instead of every item's words. `values: text`
(the default) keeps the option's text (or an object's id) as its value.

`agreement: ordinal` on a choice with declared options: the options are listed lowest first (easy, medium,
hard) and Krippendorff's alpha is the ordinal one over that order (annotator/analysis/agreement.py reads the
frame's attrs `level` and `order`). Such a choice may take the `median` gold rule: the option in the middle of
the answers sorted by the declared order. With an even count whose two middle answers differ there is no middle
option (a medium-and-a-half is not an answer), so gold is undecided; its score is the median position counted
from 1 (1.5 between the first and the second option), so the admin sees where it fell. A nominal choice has
no order, so a median means nothing there and is refused; so is interval agreement on a choice (options are
named steps, not evenly spaced numbers: use a scale for that).

definition_checks.py calls `values_part`, `check_level` and `check_rule`; answers.py calls `numbered_options`
(through item_options), agreement.py `ordinal_order`, gold.py `median`.
"""
from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from annotator.declared.definition import UNDECIDED, DefinitionError, OptionSpec, Question

if TYPE_CHECKING:
    from annotator.declared.keys import Keys

KEYS = ("values",)
VALUES = ("text", "index")


def values_part(keys: Keys) -> dict[str, Any]:
    """`values: index | text` of a choice or multi question: `numbered` when index; index needs options_from."""
    if not keys.has("values"):
        return {}
    chosen = keys.text("values")
    if chosen not in VALUES:
        raise DefinitionError(keys.at("values"), f"{chosen[:40]!r} is not one of {', '.join(VALUES)} (index: "
                                                 "each option's value is its position in the item's list, from 0)")
    if chosen == "index" and not keys.has("options_from"):
        raise DefinitionError(keys.at("values"), "index numbers the options an item gives (options_from: field); "
                                                 "declared options have their own values")
    return {"numbered": chosen == "index"}


def numbered_options(entries: Sequence[Any]) -> tuple[OptionSpec, ...]:
    """An item's list of options as positions: value "0", "1", ...; label the text (an object's text or id)."""
    options = []
    for position, entry in enumerate(entries):
        if isinstance(entry, Mapping):
            label = entry.get("text", entry.get("label", entry.get("id", entry.get("value", ""))))
        else:
            label = entry
        options.append(OptionSpec(str(position), str(label)))
    return tuple(options)


def check_level(keys: Keys, question: Question, level: str, path: str) -> str:
    """The agreement level of a question, with ordinal allowed on a choice whose options are declared in order."""
    if level == "nominal" or question.kind in ("scale", "ranking", "best_worst", "distribution"):   # ranks; shares
        return level
    if question.kind == "choice" and level == "ordinal":
        if question.options_from is not None:
            raise DefinitionError(path, "ordinal agreement needs the options in their order in the definition "
                                        "(options: [lowest, ..., highest]); an item's own options have no declared "
                                        "order")
        return level
    if question.kind == "choice":
        raise DefinitionError(path, "interval needs evenly spaced numbers; a choice's options are named steps, so "
                                    "its agreement is nominal or ordinal (use a scale question for numbers)")
    raise DefinitionError(path, f"{level} needs ordered answers; a {question.kind} question's are not, so its "
                                "agreement is nominal")


def check_rule(keys: Keys, gold: Keys, question: Question, rule: str) -> None:
    """A choice's median needs `agreement: ordinal` (an order to take the middle of)."""
    if question.kind != "choice" or rule != "median":
        return
    raw = keys.data.get("agreement")
    level = raw.get("level") if isinstance(raw, Mapping) else raw
    if level != "ordinal":
        raise DefinitionError(gold.at("rule"), "the median of a choice needs an order: declare the options lowest "
                                               "first and write agreement: ordinal (or use majority)")
    if question.options_from is not None:
        raise DefinitionError(gold.at("rule"), "the median needs the options declared in their order, not read "
                                               "from the item")


def ordinal_order(question: Question) -> list[str] | None:
    """The order (lowest first) an ordinal choice's agreement uses; None for any other question."""
    if question.kind == "choice" and question.agreement == "ordinal":
        return list(question.option_values())
    return None


def median(question: Question, counts: Mapping[str, int], n: int) -> tuple[str, float]:
    """The middle answer in the options' order; undecided when an even count's two middle answers differ.

    The score is the median position counted from 1 (2.5: between the second and the third option)."""
    order = question.option_values()
    positions = sorted(order.index(value) + 1 for value, count in counts.items() if value in order
                       for _ in range(count))
    if not positions or n == 0:
        return UNDECIDED, math.nan
    middle = float(statistics.median(positions))
    if not middle.is_integer():
        return UNDECIDED, middle
    return order[int(middle) - 1], middle


def describe(question: Question) -> str:
    """The data card's words for what an option's value is, when it is not the option itself."""
    if question.numbered:
        return f"each item's own, from its field `{question.options_from}`, stored by position (0 is the first)"
    return ""
