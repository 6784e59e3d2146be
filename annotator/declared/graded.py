"""Graded pairwise preference: a pairwise question with `grades`, words for each step from "A much better" to
"B much better".

    - id: preference
      kind: pairwise
      a: response_a
      b: response_b
      grades: [A is much better, A is better, A is slightly better, About the same,
               B is slightly better, B is better, B is much better]

The grades are listed from the strongest preference for A to the strongest for B. An odd number has a tie in the
middle, in the definition's own words ("About the same"); an even number has none. 3 to 11 grades; `allow_equal`
is not given with them (the count says whether there is a tie).

Answer values (the API's, in the terms shown, as a plain pairwise question's "A" / "B" / "equal"): "A3", "A2",
"A1", "equal", "B1", "B2", "B3" for seven grades, the digit the strength (1 the weakest). A plain question's
answers and API shape are unchanged: only a question with `grades` takes these.

Label rows: the question's own row keeps its collapsed value in the item's terms, "A", "B" or "equal" (a win, a
loss or a tie), so every rule of a pairwise question (bradley_terry, majority, dawid_skene), its agreement, a
`when` on it and a control item read it as they read a plain one. A second row in field "<id>.grade" holds the
signed grade in the item's terms, "-3" (A much better) .. "0" (the tie) .. "3" (B much better): agreement on that
field is Krippendorff's alpha at the ordinal level.

Two readings of the grades (docs/declared-graded-pairwise.md):
  gold rule `mean_grade`  per pair (unit), the mean signed grade; gold "A" / "B" / "equal" by its sign, score the
                          mean itself (-3 .. 3)
  graded Bradley-Terry    with `players`, strengths fitted with each answer a fractional win: grade g of G steps
                          gives A (G - g) / 2G of a win and B the rest (A much better: 1, the tie: 1/2, B much
                          better: 0), the Bradley-Terry likelihood with fractional outcomes (fitted in
                          gold.py); the `strengths` table's `graded_strength` column, beside the collapsed
                          fit's `strength`
"""
from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from annotator.core.columns import cells
from annotator.declared.definition import NOT_ASKED, UNDECIDED, DefinitionError, Question
from annotator.declared.keys import add_once, plain_text

if TYPE_CHECKING:
    import pandas as pd

    from annotator.declared.keys import Keys

KEY = "grades"
SUFFIX = ".grade"           # the signed grade rows' field: "<question id>.grade"
TIE = "equal"
MIN_GRADES, MAX_GRADES = 3, 11


def key_part(keys: Keys) -> dict[str, Any]:
    """`grades`: 3 to 11 words, different and not blank; never with `allow_equal`."""
    if not keys.has(KEY):
        return {}
    if keys.has("allow_equal"):
        raise DefinitionError(keys.at("allow_equal"), "a graded question's grades say whether there is a tie (an "
                                                      "odd number has one in the middle); leave allow_equal out")
    listed = keys.listed(KEY)
    if not MIN_GRADES <= len(listed) <= MAX_GRADES:
        raise DefinitionError(keys.at(KEY), f"lists {len(listed)} grades; give {MIN_GRADES} to {MAX_GRADES}, from "
                                            "the strongest preference for A to the strongest for B")
    words: list[str] = []
    for index, entry in enumerate(listed):
        path = f"{keys.at(KEY)}[{index}]"
        text = plain_text(entry, path, 100, "the words of a grade")
        if not text.strip():
            raise DefinitionError(path, "a grade's words must not be blank")
        add_once(words, text, path)
    return {"grades": tuple(words), "allow_equal": len(words) % 2 == 1}


def field(question: Question) -> str:
    return question.id + SUFFIX


def values(question: Question) -> tuple[str, ...]:
    """The answer values, left (A strongest) to right (B strongest): A3 A2 A1 equal B1 B2 B3."""
    half = len(question.grades) // 2
    tie = (TIE,) if len(question.grades) % 2 else ()
    return (*(f"A{k}" for k in range(half, 0, -1)), *tie, *(f"B{k}" for k in range(1, half + 1)))


def signed(value: str) -> int:
    """An answer value as a signed grade: A3 is -3, equal 0, B2 is 2."""
    if value == TIE:
        return 0
    return -int(value[1:]) if value[0] == "A" else int(value[1:])


def value_of(grade: int) -> str:
    """A signed grade as an answer value in the item's terms: -3 is A3, 0 equal, 2 is B2."""
    return TIE if grade == 0 else f"A{-grade}" if grade < 0 else f"B{grade}"


def collapsed(value: str) -> str:
    """A win, a loss or a tie: "A", "B" or "equal"."""
    return TIE if value == TIE else value[0]


def flipped(value: Any) -> Any:
    """A value of either kind of pairwise question with A and B swapped (the other side's terms)."""
    if isinstance(value, str) and value[:1] in ("A", "B") and (len(value) == 1 or value[1:].isdigit()):
        return {"A": "B", "B": "A"}[value[0]] + value[1:]
    return value


def grade_order(question: Question) -> list[str]:
    """The signed grades as ordinal agreement orders them, "-3" to "3"."""
    return [str(signed(v)) for v in values(question)]


def grade_words(question: Question) -> dict[str, str]:
    """Each answer value and signed grade in the definition's words ("A3" and "-3": "A is much better")."""
    found = dict(zip(values(question), question.grades))
    found.update(zip(grade_order(question), question.grades))
    return found


def example_answer(question: Question, rng: random.Random) -> str:
    return rng.choice(values(question))


def public_part(question: Question) -> dict[str, Any]:
    """The API's description: the answer values with their words, left to right."""
    return {"answers": list(values(question)),
            "grades": [{"value": v, "label": w} for v, w in zip(values(question), question.grades)]}


def gold_rule_check(path: str, question: Question, rule: str) -> None:
    """`mean_grade` reads the grades: only a graded question has them."""
    if rule == "mean_grade" and not question.grades:
        raise DefinitionError(path, "mean_grade needs graded answers (grades: [...]); a plain pairwise question "
                                    "uses bradley_terry, majority or dawid_skene")


# --- agreement and gold ---------------------------------------------------------------------------------------

def agreement_fields(question: Question, labels: pd.DataFrame, names: Any) -> dict[str, pd.DataFrame]:
    """"<id>.grade": the signed grades at the ordinal level, units as the question's own (item / pair)."""
    import pandas as pd

    if not question.grades:
        return {}
    rows = labels[labels["field"] == field(question)]
    frame = pd.DataFrame({"unit": names(rows["item"], rows["unit"]), "coder": rows["user_id"],
                          "value": rows["value"].astype(str)}, index=rows.index)
    frame.attrs.update(level="ordinal", order=grade_order(question))
    return {field(question): frame}


def mean_grade_gold(question: Question, graded: pd.DataFrame, asked: Any, items: Sequence[str],
                    known_units: Sequence[str]) -> list[tuple[Any, ...]]:
    """(item, question, unit, gold, n, score, votes) per (item, pair): score the mean signed grade, gold its side
    ("A" below 0, "B" above, "equal" at 0), votes the grades given as answer values in the item's terms, A's
    strongest first ("A3: 1, B1: 2": a tally starting with "-" would be taken for a formula in a spreadsheet)."""
    grouped: dict[tuple[Any, Any], list[int]] = {}
    for item, unit, value in zip(cells(graded["item"]), cells(graded["unit"]), cells(graded["value"])):
        try:
            grouped.setdefault((item, unit), []).append(int(value))
        except ValueError:
            continue
    found: list[tuple[Any, ...]] = []
    seen: set[Any] = set()
    for (item, unit), grades in grouped.items():
        seen.add(item)
        counts: dict[int, int] = {}
        for g in grades:
            counts[g] = counts.get(g, 0) + 1
        said = ", ".join(f"{value_of(g)}: {c}" for g, c in sorted(counts.items()))
        if not asked(item):
            found.append((item, question.id, unit, NOT_ASKED, len(grades), math.nan, said))
            continue
        mean = sum(grades) / len(grades)
        side = "A" if mean < -1e-12 else "B" if mean > 1e-12 else TIE
        found.append((item, question.id, unit, side if grades else UNDECIDED, len(grades), mean, said))
    if question.when:
        for item in items:
            if item not in seen and not asked(item):
                found += [(item, question.id, unit, NOT_ASKED, 0, math.nan, "") for unit in known_units]
    return found


def fractional_wins(pairs: Sequence[tuple[str, str, int]], steps: int) -> dict[tuple[str, str], tuple[float, float]]:
    """(first, second) -> their wins, from (A player, B player, signed grade) answers on a scale of `steps` grades
    each way: A gets (steps - grade) / (2 steps) of a win, B the rest; summed per pair of players, the pair in
    sorted order (gold.py fits Bradley-Terry to them: this module reads no analysis)."""
    totals: dict[tuple[str, str], list[float]] = {}
    for first, second, grade in pairs:
        share_a = (steps - grade) / (2 * steps)
        key, flip = ((first, second), False) if first <= second else ((second, first), True)
        wins = totals.setdefault(key, [0.0, 0.0])
        wins[0] += 1 - share_a if flip else share_a
        wins[1] += share_a if flip else 1 - share_a
    return {pair: (wins[0], wins[1]) for pair, wins in totals.items()}


def steps(question: Question) -> int:
    """The strongest grade each way (3 for seven grades)."""
    return len(question.grades) // 2


def value_words(question: Question, said: str) -> str | None:
    return grade_words(question).get(said)
