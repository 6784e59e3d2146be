"""Gold and agreement of a declared campaign, from its label rows (annotator/declared/answers.py gives their shape).

`declared_gold` applies each question's rule (the per-unit ones are in rules.py; Dawid-Skene and Bradley-Terry,
which look across units, are here) and gives one row per (item, question, unit) with labels:

  item, question, unit   the item's external id, the question's id, the label rows' unit
  gold                   the decision as text: an option's value (a choice's share rule: `value`, or the other
                         option of two, or "not <value>"; definition.share_words),
                         "1" / "0" (an option of a multi question, a word of a span), "A" / "B" / "equal" (pairwise),
                         a number (median, mean); a float for a span's probability; or "undecided" / "n/a"
  n                      how many annotators answered the unit
  score                  the rule's number: the share, probability, winning count / n, median or mean,
                         the Dawid-Skene posterior of the gold class, or the Bradley-Terry probability that A beats B
  votes                  the counts in words, in the question's option order ("negative: 1, positive: 2")

A relations question's rows (one per relation given, "1" only where both ends are gold spans: relations.py), a
ranking's rows (ranking.py), a distribution's (its mean shares and hard label: distribution.py) and a graded
pairwise question's under `mean_grade` (graded.py) come from their own modules; a graded question's other rules read
its collapsed A / B / equal rows as a plain one's.

A question shown `when` an earlier answer is given has gold "n/a" (NOT_ASKED) on an item whose decided gold of a
parent question does not meet the condition (the question is shown only when every condition holds, so one
parent decidedly not meeting its condition is enough); otherwise its rule applies over those who answered it.
An item where nobody answered such a question gets "n/a" rows too, when its units are known from the definition
(choice, scale, pairwise without players, multi with declared options).

A parent's gold meets the condition when it is one of the wanted answers (choice, scale, pairwise); a scale's
median or mean between two points meets what either point meets (4.5 meets 4 and 5); a share-ruled choice meets
it with `value` when that is wanted, or with the other of two options when that is wanted; a multi
question when a wanted option is decided "1". Undecided gold never fails a condition.

Agreement (`agreement_units`) and the per-field gold for comparing with Dawid-Skene (`gold_units`) are in
declared/agreement.py, control items in declared/controls.py; this module re-exports them for tasks/custom.py.
"""
from __future__ import annotations

import functools
import json
import math
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from annotator.core.columns import cells
from annotator.declared import (
    also,
    best_worst,
    distribution,
    extractive,
    graded,
    groups,
    option_values,
    ranking,
    relations,
    repeat,
    rules,
    span_attributes,
    spans,
)
from annotator.declared.agreement import agreement_fields, agreement_units, gold_units
from annotator.declared.controls import control_reference, control_score, show_reference
from annotator.declared.definition import (
    NOT_ASKED,
    PAIRWISE_VALUES,
    UNDECIDED,
    Definition,
    Question,
    number_text,
    share_words,
)
from annotator.declared.named_rules import question_gold, rule_checks
from annotator.estimation import bradley_terry
from annotator.estimation.dawid_skene import dawid_skene

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["GOLD_COLUMNS", "agreement_fields", "agreement_units", "control_reference", "control_score",
           "declared_gold", "gold_counts", "gold_units", "rule_checks", "show_reference", "strengths"]

GOLD_COLUMNS = ["item", "question", "unit", "gold", "n", "score", "votes"]
# The rules that decide a unit from its own item's votes alone (a count, a share, a median, a consensus ranking):
# anything else (Dawid-Skene and Bradley-Terry, a graded model, a named rule reading annotators' records, a
# best-worst score counted over the tuples an item appears in) looks across items.
PER_ITEM_RULES = frozenset({"majority", "share", "agree", "median", "mean", "probability", *ranking.RULES})
STRENGTH_COLUMNS = ["player", "strength", "rank", "wins", "losses", "ties"]
Units = Mapping[tuple[str, str], tuple[list[str], set[Any]]]   # (item, unit) -> (values given, annotators)
Decided = dict[tuple[str, str], tuple[Any, float]]              # (item, unit) -> (gold, score)


def declared_gold(definition: Definition, labels: pd.DataFrame,
                  references: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """Gold per (item, question, unit), items in label order, then questions in the definition's order.

    `references` are the items' known answers ({item: {question id: answer}}), which a named rule may read."""
    import pandas as pd

    rows: list[tuple[Any, ...]] = []
    by_question: dict[str, dict[str, dict[str, Any]]] = {}   # question -> item -> unit -> gold
    items = list(dict.fromkeys(cells(labels["item"]))) if not labels.empty else []
    for position, question in enumerate(definition.questions):
        if question.gold is None:
            continue
        votes = labels[labels["field"] == question.id]
        found = question_gold(definition, question, labels, references or {})   # a named rule (named_rules.py)
        if found is None and question.kind == "spans":
            found = spans.question_gold(question, votes, functools.partial(_asked, definition, question, by_question))
        elif found is None and question.kind == "best_worst":
            found = best_worst.question_gold(question, votes, functools.partial(_asked, definition, question,
                                                                                by_question))
        elif found is None and question.kind == "ranking":
            found = ranking.question_gold(question, votes, functools.partial(_asked, definition, question,
                                                                             by_question), items)
        elif found is None and question.kind == "extractive":
            found = extractive.question_gold(question, votes, functools.partial(_asked, definition, question,
                                                                                by_question), items)
        elif found is None and question.kind == "distribution":   # the mean shares and their argmax
            found = distribution.question_gold(question, votes, functools.partial(_asked, definition, question,
                                                                                  by_question), items)
        elif found is None and question.kind == "relations":   # its ends' gold is its spans question's
            of = relations.rules_of(question).of
            found = relations.question_gold(question, votes, labels[labels["field"] == of], by_question.get(of, {}))
        elif found is None and question.gold.rule == "mean_grade":   # a graded pairwise question (graded.py)
            found = graded.mean_grade_gold(question, labels[labels["field"] == graded.field(question)],
                                           functools.partial(_asked, definition, question, by_question), items,
                                           _known_units(question))
        elif found is None:
            found = _question_gold(definition, question, votes, by_question, items)
        by_question[question.id] = {}
        for row in found:
            by_question[question.id].setdefault(row[0], {})[row[2]] = row[3]
        further = _decisions(question, votes, found)     # gold.also (also.py): {} without
        rows += [(*row, position, further.get(n)) for n, row in enumerate(found)]
        if question.kind == "spans" and question.spans is not None:   # its marks' attributes (span_attributes.py)
            rows += [(*row, position, None)
                     for row in span_attributes.question_gold(question, question.spans, labels, found)]
    columns = [d.name for d in definition.decisions()]
    if not rows:
        return pd.DataFrame({column: pd.Series(dtype=object) for column in GOLD_COLUMNS + columns})
    order = {item: n for n, item in enumerate(items)}
    rows.sort(key=lambda row: (order.get(row[0], len(order)), row[-2]))  # stable: units keep their label order
    frame = pd.DataFrame([row[:-2] for row in rows], columns=GOLD_COLUMNS)
    frame["n"] = frame["n"].astype(int)
    frame["score"] = frame["score"].astype(float)
    for name in columns:   # a further decision's column: its question's rows hold it, the others nothing
        frame[name] = pd.Series([(row[-1] or {}).get(name) for row in rows], index=frame.index, dtype=object)
    return frame


def _decisions(question: Question, votes: pd.DataFrame, found: list[tuple[Any, ...]]) -> dict[int, dict[str, str]]:
    """Row number in `found` -> the question's further decisions on that row's unit (also.py)."""
    if not question.decisions():
        return {}
    units = _units(votes)
    decided = {}
    for number, (item, _, unit, gold, *_rest) in enumerate(found):
        values, users = units.get((item, unit), ([], set()))
        decided[number] = also.unit_values(question, gold, Counter(values), len(users))
    return decided


def _question_gold(definition: Definition, question: Question, votes: pd.DataFrame,
                   decided: Mapping[str, Mapping[str, Mapping[str, Any]]], items: list[str]) -> list[tuple[Any, ...]]:
    """(item, question, unit, gold, n, score, votes) rows of one question, in label order."""
    assert question.gold is not None
    rows: list[tuple[Any, ...]] = []
    units = _units(votes)
    whole = _across_units(question, votes, units)   # Dawid-Skene, Bradley-Terry
    numeric = is_numeric(question)
    asked: dict[str, bool] = {}
    order = _value_order(question)
    for (item, unit), (values, users) in units.items():
        counts = Counter(values)
        n = len(users)
        said = _votes_text(order, counts)
        key = f"{item}\x00{unit}" if question.group else item   # a group's question: asked per element
        if key not in asked:
            asked[key] = _asked(definition, question, decided, item, str(unit) if question.group else None)
        if not asked[key]:
            rows.append((item, question.id, unit, NOT_ASKED, n, math.nan, said))
            continue
        if (item, unit) in whole:
            gold, score = whole[(item, unit)]
        else:
            gold, score = unit_gold(question, counts, n, unit, [float(v) for v in values] if numeric else ())
        rows.append((item, question.id, unit, gold, n, score, said))
    if question.when and question.group:
        for item in items:
            rows += [(item, question.id, unit, NOT_ASKED, 0, math.nan, "")
                     for unit in repeat.candidate_units(definition, question, decided, item)
                     if f"{item}\x00{unit}" not in asked and not _asked(definition, question, decided, item, unit)]
    elif question.when:
        for item in items:
            if item not in asked and not _asked(definition, question, decided, item):
                rows += [(item, question.id, unit, NOT_ASKED, 0, math.nan, "") for unit in _known_units(question)]
    return rows


def per_item(definition: Definition) -> bool:
    """Whether every question's gold of an item comes from that item's votes alone, so that the gold of some items
    can be computed from their labels and a big project's kept gold folded forward item by item
    (TaskType.gold_per_item; tests/unit/test_gold_per_item.py checks it on each shared task's definition)."""
    return all(question.gold is None or (question.kind != "best_worst" and question.gold.rule in PER_ITEM_RULES)
               for question in definition.questions)


def is_numeric(question: Question) -> bool:
    """Whether the question's per-unit rule reads the values as numbers (a scale's median or mean)."""
    return question.kind == "scale" and question.gold is not None and question.gold.rule in ("median", "mean")


def unit_gold(question: Question, counts: Mapping[str, int], n: int, unit: Any,
              numbers: list[float] | tuple[float, ...] = ()) -> tuple[Any, float]:
    """(gold, score) of one unit by the question's per-unit rule, from its counts of values and its n annotators
    (`numbers`: the values as numbers when `is_numeric`). Also read by the replay of stopping rules
    (annotator/analysis/replay.py), so that it decides exactly as gold does."""
    assert question.gold is not None
    if (grouped := groups.unit_gold(question, counts, n)) is not None:   # groups, strict (groups.py)
        return grouped
    if question.kind == "choice" and question.gold.rule == "median":      # ordinal (option_values.py)
        return option_values.median(question, counts, n)
    return rules.unit_gold(question.kind, question.gold, counts, n, str(unit), numbers, share_words(question))


UNITS_CHUNK = 50_000


def _units(votes: pd.DataFrame) -> dict[tuple[str, str], tuple[list[str], set[Any]]]:
    """(item, unit) -> (the values given, in vote order; the annotators who gave them), in label order.

    A plain loop over the columns: a pandas group per unit costs a frame each, most of the time on a big project.
    The columns are made Python objects UNITS_CHUNK rows at a time, and each value's text is kept once: at a million
    labels a question's half million rows made lists of a text object per cell, some 120 MB at the peak of every
    group of kept figures that computes gold (bench/results/2026-11-28-kept-figures-memory.md).
    """
    units: dict[tuple[str, str], tuple[list[str], set[Any]]] = {}
    texts: dict[str, str] = {}   # each value's text once
    for start in range(0, len(votes), UNITS_CHUNK):
        part = votes.iloc[start:start + UNITS_CHUNK]
        users = part["user_id"].tolist() if "user_id" in part else range(start, start + len(part))
        for item, unit, value, user in zip(cells(part["item"]), cells(part["unit"]), cells(part["value"]),
                                           users):
            entry = units.get((item, unit))
            if entry is None:
                entry = units[(item, unit)] = ([], set())
            text = str(value)
            entry[0].append(texts.setdefault(text, text))
            entry[1].add(user)
    return units


def _known_units(question: Question) -> list[str]:
    """The units a question's label rows have whatever the item, when the definition alone says them."""
    if question.kind in ("choice", "scale") or question.kind == "pairwise" and not question.players:
        return [question.id]
    if question.kind == "multi" and question.options:
        return list(question.option_values())
    return []


def _asked(definition: Definition, question: Question, decided: Mapping[str, Mapping[str, Mapping[str, Any]]],
           item: str, element: str | None = None) -> bool:
    """False when a parent's decided gold on the item fails the question's `when`; True when it may be met.
    A group's question (`element` given) looks at the parent's gold on the same element only."""
    for parent_id, wanted in question.when:
        parent = definition.question(parent_id)
        golds = decided.get(parent_id, {}).get(item)
        if element is not None and golds is not None:
            golds = {element: golds[element]} if element in golds else None
        if golds is None:
            continue                      # nobody answered the parent: nothing decided
        if _fails(parent, golds, set(wanted)):
            return False
    return True


def _fails(parent: Question, golds: Mapping[str, Any], wanted: set[str]) -> bool:
    """Whether the parent's gold (unit -> gold) decidedly does not give one of the wanted answers."""
    values = list(golds.values())
    if values and all(v == NOT_ASKED for v in values):
        return True
    if parent.kind == "multi":  # met when any wanted option is ticked: fails when each is decidedly not
        return all(golds.get(option, rules.NOT_TICKED) in (rules.NOT_TICKED, NOT_ASKED) for option in wanted)
    gold = values[0] if values else UNDECIDED
    if gold == UNDECIDED:
        return False
    assert parent.gold is not None
    if parent.kind == "choice" and parent.gold.rule == "share":
        value = parent.gold.value
        if gold == share_words(parent)[0]:
            return value not in wanted
        others = set(parent.option_values()) - {value}
        if len(parent.options) == 2:          # negative on two options: the other one
            return not others & wanted
        return wanted <= {value}              # negative: not `value`, whichever other option it is
    if parent.kind == "scale":  # a number between two points (a median of 4.5) meets what either point meets
        try:
            number = float(gold)
        except ValueError:
            return False
        return not any(abs(number - float(w)) < parent.step - 1e-9 for w in wanted)
    return str(gold) not in wanted


def _value_order(question: Question) -> tuple[str, ...]:
    """The order votes are counted in: options as declared, scale points up, A B equal, 1 before 0."""
    if question.kind in ("multi", "span"):
        return rules.BINARY
    if question.kind == "pairwise":
        return PAIRWISE_VALUES
    if question.kind == "scale":
        return tuple(number_text(v) for v in question.scale_values())
    return question.option_values()


def _votes_text(order: tuple[str, ...], counts: Counter[str]) -> str:
    """"value: count" in `order`, then values outside it (options read from the item) as they came."""
    shown = [f"{value}: {counts[value]}" for value in order if value in counts]
    if len(shown) < len(counts):
        shown += [f"{value}: {count}" for value, count in counts.items() if value not in order]
    return ", ".join(shown)


# --- rules across units -----------------------------------------------------------------------------------

def _across_units(question: Question, votes: pd.DataFrame, units: Units) -> Decided:
    """Gold and score of every unit by a rule that looks at all of them: Dawid-Skene, Bradley-Terry.

    Dawid-Skene runs once over all the question's units (a multi question's options and items pooled, classes
    "1" / "0"), so each annotator's confusion is learnt from all their answers to it.
    """
    assert question.gold is not None
    if votes.empty or question.gold.rule not in ("dawid_skene", "bradley_terry"):
        return {}
    if question.gold.rule == "dawid_skene":
        return _dawid_skene(votes)
    return _bradley_terry(votes, units)


def _dawid_skene(votes: pd.DataFrame) -> Decided:
    """The posterior's most probable class per unit (undecided when two classes are equally probable)."""
    import pandas as pd


    keys = list(zip(cells(votes["item"]), cells(votes["unit"])))
    result = dawid_skene(pd.DataFrame({"unit": pd.Series(keys, index=votes.index, dtype=object),
                                       "coder": votes["user_id"], "value": votes["value"].astype(str)}))
    found: Decided = {}
    for key, posterior in zip(result.units, result.posteriors):
        best = int(posterior.argmax())
        top = float(posterior[best])
        tied = sum(1 for p in posterior if abs(float(p) - top) < 1e-9) > 1
        found[key] = (UNDECIDED if tied else result.classes[best], top)
    return found


def _pair(unit: Any) -> tuple[str, str] | None:
    """The (A player, B player) a pairwise label's unit names (asked.pair_unit), or None."""
    try:
        pair = json.loads(str(unit))
    except ValueError:
        return None
    if isinstance(pair, list) and len(pair) == 2 and all(isinstance(p, str) for p in pair) and pair[0] != pair[1]:
        return pair[0], pair[1]
    return None


def _outcomes(votes: pd.DataFrame) -> list[tuple[str, str, str | None]]:
    """(A player, B player, winner or None for "equal") of every pairwise vote whose unit names the pair."""
    found = []
    for unit, value in zip(cells(votes["unit"]), cells(votes["value"])):
        pair = _pair(unit)
        if pair is not None and value in PAIRWISE_VALUES:
            found.append((pair[0], pair[1], {"A": pair[0], "B": pair[1]}.get(str(value))))
    return found


def _fit(votes: pd.DataFrame) -> Any:
    outcomes = _outcomes(votes)
    players = list(dict.fromkeys(p for first, second, _ in outcomes for p in (first, second)))
    return bradley_terry.fit(players, bradley_terry.tally(outcomes)), outcomes


def _bradley_terry(votes: pd.DataFrame, units: Units) -> Decided:
    """Per item the majority of A / B / equal; the score is the fitted probability that A beats B (else NaN)."""
    fitted, _ = _fit(votes)
    found: Decided = {}
    for (item, unit), (values, _users) in units.items():
        gold, _ = rules.majority(Counter(values), len(values), UNDECIDED)
        pair = _pair(unit)
        score = math.nan
        if pair is not None and fitted.defined:
            a, b = fitted.strength[pair[0]], fitted.strength[pair[1]]
            score = a / (a + b)
        found[(item, unit)] = (gold, score)
    return found


def strengths(definition: Definition, labels: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Per pairwise question with `players`: player, strength (sums to 100), rank, wins, losses, ties.

    Strengths are fitted by Bradley-Terry (annotator/estimation/bradley_terry.py; "equal" is half a win to each).
    A graded question's frame has one more column, `graded_strength`: the fit with each answer a fractional win
    by its grade (graded.py), NaN where that fit does not exist.
    When no fit exists the strengths and ranks are empty and the frame's attrs["undefined_because"] says why
    in words; otherwise that attribute is None.
    """
    import pandas as pd

    found: dict[str, pd.DataFrame] = {}
    for question in definition.questions:
        if question.kind != "pairwise" or not question.players:
            continue
        fitted, outcomes = _fit(labels[labels["field"] == question.id] if not labels.empty else labels)
        record: dict[str, list[int]] = {p: [0, 0, 0] for p in fitted.players}
        for first, second, winner in outcomes:
            for player in (first, second):
                record[player][2 if winner is None else 0 if winner == player else 1] += 1
        if not fitted.players:
            why = "no comparison has been made yet"
        else:
            why = fitted.undefined_because
        frame = pd.DataFrame([(p, fitted.strength.get(p, math.nan), fitted.rank.get(p), *record[p])
                              for p in fitted.players], columns=STRENGTH_COLUMNS)
        frame["strength"] = frame["strength"].astype(float)
        if question.grades:
            frame["graded_strength"] = _graded_fit(question, labels, fitted.players)
        if why is None:
            frame = frame.sort_values(["rank", "player"], kind="stable").reset_index(drop=True)
        frame.attrs["undefined_because"] = why
        found[question.id] = frame
    return found


def _graded_fit(question: Question, labels: pd.DataFrame, players: list[str]) -> list[float]:
    """Each player's graded Bradley-Terry strength (sums to 100), in `players`' order; NaN when undefined."""
    rows = labels[labels["field"] == graded.field(question)] if not labels.empty else labels
    answers = []
    for unit, value in zip(cells(rows["unit"]) if not rows.empty else [], cells(rows["value"]) if not rows.empty
                           else []):
        pair = _pair(unit)
        if pair is not None and str(value).lstrip("-").isdigit():
            answers.append((pair[0], pair[1], int(value)))
    wins = graded.fractional_wins(answers, graded.steps(question))
    fitted = bradley_terry.fit(players, [bradley_terry.Comparison(a, b, *won) for (a, b), won in wins.items()])
    return [fitted.strength.get(p, math.nan) if fitted.defined else math.nan for p in players]


# --- the admin's summary ----------------------------------------------------------------------------------

def gold_counts(definition: Definition, gold: pd.DataFrame) -> dict[str, int]:
    """Units per gold value, question by question in the definition's order ("sentiment: positive": 3).

    The classes a rule can give are listed even at 0, then undecided and (for a `when` question) n/a; a span's
    probability is counted in three bands, as the emphasis HIT's summary does.
    """
    counts: dict[str, int] = {}
    for question in definition.questions:
        if question.gold is None:
            continue
        rows = gold[gold["question"] == question.id] if not gold.empty else gold
        if question.kind == "spans":
            counts.update(spans.gold_counts(question, rows))
            continue
        if question.kind == "ranking":
            counts.update(ranking.gold_counts(question, rows))
            continue
        if question.kind == "best_worst":
            counts.update(best_worst.gold_counts(question, rows))
            continue
        if question.kind == "extractive":
            counts.update(extractive.gold_counts(question, rows))
            continue
        if question.kind == "distribution":
            counts.update(distribution.gold_counts(question, rows))
            continue
        if question.kind == "relations":
            counts.update(relations.gold_counts(question, rows,
                                                bool(definition.question(relations.rules_of(question).of).when)))
            continue
        values = list(rows["gold"]) if not rows.empty else []
        rule = question.gold.rule
        if rule == "probability":
            numbers = [float(v) for v in values if v != NOT_ASKED]
            counts[f"{question.id}: p > 0.5"] = sum(p > 0.5 for p in numbers)
            counts[f"{question.id}: 0 < p ≤ 0.5"] = sum(0 < p <= 0.5 for p in numbers)
            counts[f"{question.id}: p = 0"] = sum(p == 0 for p in numbers)
        else:
            tally = Counter(str(v) for v in values)
            for value in _classes(question, tally):
                counts[f"{question.id}: {value}"] = tally.get(value, 0)
            if rule not in ("median", "mean"):
                counts[f"{question.id}: {UNDECIDED}"] = tally.get(UNDECIDED, 0)
        if question.when:
            counts[f"{question.id}: {NOT_ASKED}"] = sum(v == NOT_ASKED for v in values)
        for decision in question.decisions():   # gold.also (also.py): "faulty_majority: 1"
            said = Counter(str(v) for v in rows[decision.name]) if decision.name in rows else Counter()
            counts.update({f"{decision.name}: {value}": said.get(value, 0) for value in also.OUTCOMES})
    return counts


def _classes(question: Question, tally: Counter[str]) -> list[str]:
    assert question.gold is not None
    if question.kind in ("multi", "span"):
        known = list(rules.BINARY)
    elif question.kind == "pairwise":
        known = list(PAIRWISE_VALUES if question.allow_equal else PAIRWISE_VALUES[:2])
    elif question.kind == "choice" and question.gold.rule == "share":
        known = list(share_words(question))
    elif question.kind == "scale":
        known = [] if question.gold.rule in ("median", "mean") else [number_text(v) for v in question.scale_values()]
        known += sorted((v for v in tally if v not in known and v not in (UNDECIDED, NOT_ASKED)), key=float)
    else:
        known = [v for v in question.option_values() if v not in groups.never_gold(question)]   # groups.py
    return known + [v for v in tally if v not in known and v not in (UNDECIDED, NOT_ASKED)]
