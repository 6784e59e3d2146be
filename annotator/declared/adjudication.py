"""An admin's decision of a declared project's item that its rules leave undecided (adjudication).

Why: a built-in type with a rule that can leave items undecided (RuArg-2022's m of n) lets an admin decide them on
the review pages (web/review.py), and the decision wins over the rule in gold and in every export. Declared
projects replace those types (docs/one-engine.md), so they take the same pages: an item is left to an admin when
a gold row of it is "undecided", and the admin answers through the project's own HIT form, checked like any vote
(models.Adjudication keeps one answer per item).

How the answer wins: every gold row of an adjudicated item is the admin's. A unit the answer gives a label row
of a question with a gold rule has that row's value as its gold (a number where the rule's gold is one, e.g. a
probability); a unit it gives none (a question its own answers hide by `when`) is "n/a". The row's `votes` says
"adjudicated" (ADJUDICATED), which is how a reader tells the decision from the rule's; `n` is still how many
annotators answered, and the score is 1. A distribution question's hard label (its row whose unit is the question)
is the largest of the admin's shares (declared/distribution.py). A question the admin's answer gives rows of that
the rule gave none (nobody answered it) gets its rows too, after the item's others. A best-worst tuple's rows take
the admin's picks in the gold's words (best, worst, neither) and keep their score, each item's campaign-wide one
(best_worst.py). A relations question's rows are "1" for each relation the admin gave and "0" for the others, "n/a"
where the admin's answer has no marks of its spans question (relations.py).
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from annotator.declared import best_worst, distribution, relations, span_attributes
from annotator.declared.definition import NOT_ASKED, UNDECIDED, Definition, DefinitionError

if TYPE_CHECKING:
    import pandas as pd

ADJUDICATED = "adjudicated"


def undecided(gold: pd.DataFrame) -> list[str]:
    """The items (external ids, in gold order) with a gold row the rules leave undecided."""
    if gold.empty:
        return []
    return list(dict.fromkeys(gold.loc[gold["gold"].astype(str) == UNDECIDED, "item"]))


def adjudicated(definition: Definition, gold: pd.DataFrame, decided: pd.DataFrame) -> pd.DataFrame:
    """`gold` with each adjudicated item's rows the admin's answer (`decided`: its label rows, item, unit, field,
    value), as the module says."""
    import pandas as pd
    if decided.empty:
        return gold
    ruled = {q.id for q in definition.questions if q.gold is not None}
    picked = {q.id for q in definition.questions if q.kind == best_worst.KIND}   # gold in words, score kept
    ruled |= {f for q in definition.questions for f in span_attributes.gold_fields(q)}   # a mark's severity, mqm
    related = {q.id: relations.rules_of(q).of for q in definition.questions
               if q.kind == relations.KIND and q.gold is not None}
    answers: dict[Any, dict[tuple[str, str], str]] = {}
    answered = set(zip(decided["item"], decided["field"].astype(str)))   # (item, question) the admin's answer has
    for item, unit, field, value in zip(decided["item"], decided["unit"], decided["field"], decided["value"]):
        if field in related:   # a relation's gold row names its type in its unit; the admin's relation is gold
            answers.setdefault(item, {})[(str(field), f"{unit}:{value}")] = relations.RELATED
        elif field in ruled:
            answers.setdefault(item, {})[(str(field), str(unit))] = str(value)
    gold = gold.copy()
    for index in gold.index[gold["item"].isin(list(answers))]:
        given = answers[gold.at[index, "item"]].pop((str(gold.at[index, "question"]), str(gold.at[index, "unit"])),
                                                     None)
        current = gold.at[index, "gold"]
        of = related.get(str(gold.at[index, "question"]))
        if of is not None and given is None:   # a relation the admin did not give: not gold, where marks were given
            given = relations.NOT_RELATED if (gold.at[index, "item"], of) in answered else None
        if str(gold.at[index, "question"]) in picked:
            gold.at[index, "gold"] = NOT_ASKED if given is None else best_worst.gold_word(given)
        else:
            gold.at[index, "gold"] = NOT_ASKED if given is None else _like(current, given)
            gold.at[index, "score"] = 1.0
        gold.at[index, "votes"] = ADJUDICATED
    extra = [{"item": item, "question": question, "unit": unit,
              "gold": best_worst.gold_word(value) if question in picked else value, "n": 0,
              "score": math.nan if question in picked else 1.0,   # a pick alone is no score
              "votes": ADJUDICATED} for item, rest in answers.items() for (question, unit), value in rest.items()]
    gold = pd.concat([gold, pd.DataFrame(extra)], ignore_index=True) if extra else gold
    for question in definition.questions:   # a distribution's hard label: the largest of the admin's shares
        if question.kind == "distribution" and question.gold is not None:
            gold = distribution.adjudicated_hard_label(question, gold, list(answers), ADJUDICATED)
    return gold


def _like(current: Any, given: str) -> Any:
    """The admin's value as the rule's gold is kept: a number where the rule's is one (a probability, a mean)."""
    if isinstance(current, (int, float)) and not isinstance(current, bool):
        try:
            return float(given)
        except ValueError:
            return given
    return given


SUMMARY_KEY = "summary_items"   # a definition's `summary_items: true`: the gold summary starts with item_counts


def summary_items(data: Mapping[str, Any]) -> bool:
    """Whether the definition's gold summary starts with its items by status (`summary_items: true`); checked:
    DefinitionError for another value. Opt-in, so that the summary (and `flask agreement`'s output) of a project
    made before stays the same bytes."""
    value = data.get(SUMMARY_KEY, False)
    if not isinstance(value, bool):
        raise DefinitionError(SUMMARY_KEY, "must be true or false")
    return value


def item_counts(gold: pd.DataFrame) -> dict[str, int]:
    """Items by where their gold stands, first on the admin's gold summary of a definition that asks for them
    (`summary_items: true`): decided by the votes, left undecided (a row undecided: for adjudication), or decided by
    an admin (a row's votes say so): the counts a campaign's admin reads before the per-question values
    (RuArg-2022's "sentences decided", "for adjudication", "adjudicated")."""
    if gold.empty:
        return {"items decided": 0, "items for adjudication": 0, "items adjudicated": 0}
    by_admin = set(gold.loc[gold["votes"] == ADJUDICATED, "item"])
    undecided = set(gold.loc[gold["gold"] == UNDECIDED, "item"]) - by_admin
    items = set(gold["item"])
    return {"items decided": len(items - undecided - by_admin), "items for adjudication": len(undecided),
            "items adjudicated": len(by_admin)}
