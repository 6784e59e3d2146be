"""The gold rules of declared questions, one unit at a time: from the values its annotators gave to (gold, score).

Pure functions of counts, used by annotator/declared/gold.py. A unit is what one label row answers: a choice,
scale or pairwise question (one value per annotator), or one option of a multi question or one word of a span
(the binary "1" ticked / "0" not). The rules (definition.py RULES):

  majority   the value given most often; a tie gives `ties` (undecided, or the option it names). For a binary unit
             that is: chosen ("1") when more than half ticked it, not ("0") when fewer than half, `ties` at half.
  share      the KPA rule (Bar-Haim et al., 2020): `value` when its share is at or above `positive`, the other
             option (or "not <value>") at or below `negative`, undecided between; binary units give "1" / "0".
             Shares are compared exactly: count / n is rounded correctly and monotonically, so a share equal to a
             threshold as a fraction (3/5 and 0.6, 3/20 and 0.15) is the threshold's own float.
  agree      m of n (RuArg-2022): with `value`, gold is `value` when at least m gave it, else `otherwise`; without,
             the one value at least m gave, else `otherwise` (also when two values reach m).
  median     of the numbers given; of an even count, the mean of the two middle ones (so it may fall between two
             points of the scale: 2 and 3 give 2.5).
  mean       of the numbers given.
  probability  a span word's share of annotators who selected it (SemEval-2020 task 10's emphasis probability).

`score` is the rule's number: the share (share, probability, a binary majority), the winning count / n (majority
and agree), the median or mean. Dawid-Skene and Bradley-Terry work across units and live in gold.py.
"""
from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence

from annotator.declared.definition import UNDECIDED, DefinitionError, GoldRule, number_text
from annotator.declared.keys import Keys, number_words

TICKED, NOT_TICKED = "1", "0"
BINARY = (TICKED, NOT_TICKED)
NAN = math.nan


def majority(counts: Mapping[str, int], n: int, ties: str) -> tuple[str, float]:
    """The most given value (its count / n as score); a tie of the first places gives `ties`."""
    if not counts or n == 0:
        return UNDECIDED, NAN
    top = max(counts.values())
    winners = [value for value, count in counts.items() if count == top]
    return (winners[0] if len(winners) == 1 else ties), top / n


def share(count: int, n: int, positive: float, negative: float, words: tuple[str, str, str]) -> tuple[str, float]:
    """`words` (positive, negative, undecided) by the share count / n against the two thresholds."""
    if n == 0:
        return words[2], NAN
    value = count / n
    if value >= positive:
        return words[0], value
    if value <= negative:
        return words[1], value
    return words[2], value


def share_bounds(keys: Keys) -> tuple[float, float]:
    """The share rule's (positive, negative) thresholds from a gold mapping (defaults 0.6 and 0.15, the KPA rule's),
    each from 0 to 1 and negative below positive, or a DefinitionError at the key."""
    positive = keys.number("positive", 0.6, low=0, high=1)
    negative = keys.number("negative", 0.15, low=0, high=1)
    if negative >= positive:
        raise DefinitionError(keys.at("negative" if keys.has("negative") else "positive"),
                              f"negative ({number_words(negative)}) must be below positive ({number_words(positive)}):"
                              " undecided lies between them")
    return positive, negative


def agree(counts: Mapping[str, int], n: int, m: int, value: str | None, otherwise: str) -> tuple[str, float]:
    """m of n: `value` when at least m gave it, or (without value) the single value at least m gave."""
    if n == 0:
        return otherwise, NAN
    if value is not None:
        count = counts.get(value, 0)
        return (value if count >= m else otherwise), count / n
    reached = [v for v, count in counts.items() if count >= m]
    top = max(counts.values()) if counts else 0
    return (reached[0] if len(reached) == 1 else otherwise), top / n


def median(numbers: Sequence[float]) -> tuple[str, float]:
    """The median (of an even count: the mean of the two middle numbers) as text and as score."""
    if not numbers:
        return UNDECIDED, NAN
    value = float(statistics.median(numbers))
    return number_text(round(value, 10)), value


def mean(numbers: Sequence[float]) -> tuple[str, float]:
    if not numbers:
        return UNDECIDED, NAN
    value = float(statistics.fmean(numbers))
    return number_text(round(value, 10)), value


def probability(ticked: int, n: int) -> tuple[float, float]:
    """A span word's emphasis probability: gold and score are both the share of annotators who selected it."""
    value = ticked / n if n else NAN
    return value, value


def unit_gold(kind: str, rule: GoldRule, counts: Mapping[str, int], n: int, unit: str,
              numbers: Sequence[float] = (),
              decided: tuple[str, str] = ("positive", "negative")) -> tuple[str | float, float]:
    """Gold and score of one unit of a question of `kind` by its `rule` (not Dawid-Skene nor Bradley-Terry).

    `decided`: what a choice's share gold says at or above the positive share and at or below the negative
    one (definition.share_words: "yes" / "no")."""
    if kind in ("multi", "span"):
        return _binary(kind, rule, counts, n, unit)
    if rule.rule == "majority":
        return majority(counts, n, rule.ties)
    if rule.rule == "share":
        assert rule.value is not None  # the validator requires it for a choice question
        return share(counts.get(rule.value, 0), n, rule.positive, rule.negative, (*decided, UNDECIDED))
    if rule.rule == "agree":
        return agree(counts, n, rule.m, rule.value, rule.otherwise)
    if rule.rule == "median":
        return median(numbers)
    if rule.rule == "mean":
        return mean(numbers)
    raise ValueError(f"the {rule.rule} rule is not a per-unit rule of a {kind} question")


def _binary(kind: str, rule: GoldRule, counts: Mapping[str, int], n: int, unit: str) -> tuple[str | float, float]:
    """A multi question's option or a span's word: "1" / "0" / undecided (probability: the share itself).

    `ties` and `otherwise` may name an option (the validator allows an option's value): a tie or a missing
    agreement then gives that option "1", and leaves the other options undecided. An agree rule's `value`
    naming an option counts "at least m ticked it" for that option; "1" or "0" as value applies to every unit.
    """
    ticked = counts.get(TICKED, 0)
    if rule.rule == "probability":
        return probability(ticked, n)
    if rule.rule == "share":
        return share(ticked, n, rule.positive, rule.negative, (TICKED, NOT_TICKED, UNDECIDED))

    def fallback(named: str) -> str:
        if named in (UNDECIDED, *BINARY):
            return named
        return TICKED if named == unit else UNDECIDED

    if rule.rule == "majority":
        gold, score = majority({TICKED: ticked, NOT_TICKED: counts.get(NOT_TICKED, 0)}, n, fallback(rule.ties))
        return gold, (ticked / n if n else NAN)
    if rule.rule == "agree":
        value = rule.value if rule.value in BINARY else TICKED if rule.value == unit and rule.value else None
        gold, _ = agree({TICKED: ticked, NOT_TICKED: counts.get(NOT_TICKED, 0)}, n, rule.m, value,
                        fallback(rule.otherwise))
        return gold, (ticked / n if n else NAN)
    raise ValueError(f"the {rule.rule} rule does not apply to a {kind} question")
