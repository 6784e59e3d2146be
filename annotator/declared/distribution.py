"""A soft label: the `distribution` question kind of a declared campaign (a constant sum).

The annotator shares a declared total (`total: 100` by default) among the declared options: how much of the item
is sarcastic, how likely each reading is. A single choice forces one option when annotators (or the item) are
really split; a soft label keeps the split, which is what "learning from disagreement" work trains on.

The answer (the API's and the form's) is a map {option value: share}, every option once, each share a whole number
from 0 to the total, the shares adding up to the total: `{"positive": 70, "neutral": 20, "negative": 10}`. A
missing, unknown, negative, fractional or wrongly summed share is refused with a 422 naming it. Whole numbers:
the HIT asks for points out of 100 (the usual constant-sum scale), and whole points keep the sum exact.

Label rows: one per option, unit = the option's value, value = its share as text ("70").

Gold (rule `mean`, the only one), per item:
  one row per option   unit = the option, gold = its mean share over the annotators who answered (rounded to
                       4 decimals; the mean distribution also adds up to the total), score = that mean / total
                       (the soft label as a probability)
  one row, the hard label   unit = the question's id, gold = the option with the largest mean share (the argmax),
                       "undecided" when two options share the largest, score = its mean / total
so a campaign that trains on soft labels reads the option rows and one that wants a single class reads the
question's row. An item whose `when` fails has "n/a" rows.

Agreement is Krippendorff's alpha at the interval level over the shares, each (item, option) a unit (its values
0 .. total): it asks whether annotators give an option the same share of an item. The shares of one item are not
independent (they add up to the total), so alpha over them is a summary, not a test; docs/declared-soft-labels.md
says so. A control item's known answer is a distribution; an answer scores 1 - the total variation distance
between the two (1 for the same shares, 0 for shares on disjoint options).
"""
from __future__ import annotations

import math
import random
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from annotator.core.columns import cells
from annotator.core.hit_values import AnswerError, LabelIn
from annotator.declared.definition import NOT_ASKED, UNDECIDED, DefinitionError, Question, Shown, number_text

if TYPE_CHECKING:
    import pandas as pd

    from annotator.declared.keys import Keys

KIND = "distribution"
KEYS = ("options", "total")
RULES = ("mean",)
MAX_OPTIONS = 20        # more numbers to balance than a person can keep in mind (the HIT shows the running sum)
MAX_TOTAL = 1000
DECIMALS = 4            # a mean share in the gold file
WHOLE = re.compile(r"^-?[0-9]{1,9}\Z")   # a number typed on the HIT (its input is type=number, but any text may come)


def kind_parts(keys: Keys, fields: Mapping[str, Shown],
               declared: Callable[[Keys, Mapping[str, Shown]], dict[str, Any]]) -> dict[str, Any]:
    """The declared `options` (read by `declared`, definition_checks' reader of a choice's options; never an
    item's own: the shares are compared option by option across items) and `total`."""
    if not keys.has("options"):
        raise DefinitionError(keys.at("options"), "is required: the options the total is shared among")
    parts = declared(keys, fields)
    count = len(parts["options"])
    if count > MAX_OPTIONS:   # at least two: the choice's reader says so
        raise DefinitionError(keys.at("options"), f"lists {count} options; a distribution shares its total among "
                                                  f"at most {MAX_OPTIONS}")
    for index, option in enumerate(parts["options"]):   # the hard label's gold row is the question's own unit
        if option.value == keys.data.get("id"):
            raise DefinitionError(f"{keys.at('options')}[{index}]", f"{option.value!r} is the question's id, the "
                                                                    "unit of its hard label's gold row; name the "
                                                                    "option otherwise")
    total = int(keys.number("total", 100, low=1, high=MAX_TOTAL, integer=True))
    return {"options": parts["options"], "total": total}


def gold_rule(gold: Keys, rule: str) -> str:
    """The rule's name, checked: `mean` has no keys of its own."""
    for key in gold.data:
        if key != "rule":
            raise DefinitionError(gold.at(key), f"the {rule} rule of a distribution question has no {key!r} (the "
                                                "mean shares and their largest: docs/declared-soft-labels.md)")
    return rule


# --- the answer -----------------------------------------------------------------------------------------------

def check(question: Question, value: Any) -> tuple[dict[str, int], list[LabelIn]]:
    """The answer as stored (every option's share, in the options' order) and its label rows; AnswerError names
    the option and what is wrong with it."""
    values = question.option_values()
    listed = ", ".join(map(repr, values))
    if not isinstance(value, Mapping):
        raise AnswerError(f"{question.id}: must be an object {{option: share}} giving each of {listed} a whole "
                          f"number, the shares adding up to {question.total}")
    unknown = [str(k) for k in value if k not in values]
    if unknown:
        raise AnswerError(f"{question.id}: {unknown[0][:40]!r} is not an option (options: {listed})")
    missing = [v for v in values if v not in value]
    if missing:
        raise AnswerError(f"{question.id}: {', '.join(map(repr, missing))} {'has' if len(missing) == 1 else 'have'} "
                          f"no share; give every option one (0 for none)")
    shares: dict[str, int] = {}
    for option in values:
        share = value[option]
        whole = isinstance(share, int) and not isinstance(share, bool) or \
            isinstance(share, float) and math.isfinite(share) and share.is_integer()   # never float() a big int
        if not whole:
            raise AnswerError(f"{question.id}: the share of {option!r} must be a whole number from 0 to "
                              f"{question.total}, not {str(share)[:20]!r}")
        if share < 0:
            raise AnswerError(f"{question.id}: the share of {option!r} is negative ({int(share)}); a share is 0 to "
                              f"{question.total}")
        if share > question.total:
            raise AnswerError(f"{question.id}: the share of {option!r} is more than the total, {question.total}")
        shares[option] = int(share)
    added = sum(shares.values())
    if added != question.total:
        raise AnswerError(f"{question.id}: the shares add up to {added}, not {question.total} "
                          f"({'add' if added < question.total else 'take away'} {abs(question.total - added)})")
    return shares, [LabelIn(option, question.id, str(share)) for option, share in shares.items()]


def shares_from_form(question: Question, given: Mapping[str, str]) -> dict[str, int] | None:
    """The answer from the HIT's number inputs ({option value: text typed}); None when none was filled. An empty
    input beside filled ones is 0. ValueError says what is wrong in the annotator's words."""
    labels = {o.value: o.label for o in question.options}
    typed = {option: text.strip() for option, text in given.items()}
    if not any(typed.values()):
        return None
    shares: dict[str, int] = {}
    for option, text in typed.items():
        if text and not WHOLE.match(text):   # at most 9 digits: int() of thousands would be refused, or slow
            raise ValueError(f"{text[:10]!r} is not a whole number ({labels.get(option, option)}).")
        number = int(text) if text else 0
        if number < 0:
            raise ValueError(f"{labels.get(option, option)} has {number}; a share cannot be below 0.")
        if number > question.total:
            raise ValueError(f"{labels.get(option, option)} has {number}; a share is at most {question.total}.")
        shares[option] = number
    added = sum(shares.values())
    if added != question.total:
        gap = question.total - added
        raise ValueError(f"The shares add up to {added}, not {question.total}: "
                         f"{'add' if gap > 0 else 'take away'} {abs(gap)}.")
    return shares


def example_answer(question: Question, rng: random.Random) -> dict[str, int]:
    """Shares drawn at random that add up to the total (cuts of 0 .. total, sorted)."""
    cuts = sorted(rng.randint(0, question.total) for _ in range(len(question.options) - 1))
    bounds = [0, *cuts, question.total]
    return {o.value: bounds[i + 1] - bounds[i] for i, o in enumerate(question.options)}


def public_question(question: Question) -> dict[str, Any]:
    """What an API client needs: the options, the total and the answer's shape."""
    return {"options": [{"value": o.value, "label": o.label, **({"description": o.description}
                                                                if o.description else {})}
                        for o in question.options],
            "total": question.total,
            "answer": f"an object giving every option a whole number from 0 to {question.total}, the numbers "
                      f"adding up to {question.total}"}


# --- gold -----------------------------------------------------------------------------------------------------

def _by_item(votes: pd.DataFrame) -> dict[str, dict[Any, dict[str, int]]]:
    """item -> annotator -> {option: share}, in label order."""
    found: dict[str, dict[Any, dict[str, int]]] = {}
    users = votes["user_id"].tolist() if "user_id" in votes else list(range(len(votes)))
    for item, unit, value, user in zip(cells(votes["item"]), cells(votes["unit"]), cells(votes["value"]), users):
        try:
            found.setdefault(item, {}).setdefault(user, {})[str(unit)] = int(value)
        except ValueError:
            continue
    return found


def mean_distribution(options: Sequence[str], answers: Sequence[Mapping[str, int]]) -> dict[str, float]:
    """Each option's mean share over `answers` (complete distributions); empty when there are none."""
    if not answers:
        return {}
    return {o: sum(a[o] for a in answers) / len(answers) for o in options}


def hard_label(mean: Mapping[str, float]) -> str:
    """The option with the largest mean share, UNDECIDED when two or more share it (or there is no answer)."""
    if not mean:
        return UNDECIDED
    top = max(mean.values())
    best = [o for o, share in mean.items() if math.isclose(share, top, abs_tol=1e-9)]
    return best[0] if len(best) == 1 else UNDECIDED


def question_gold(question: Question, votes: pd.DataFrame, asked: Callable[[str], bool],
                  items: Sequence[str]) -> list[tuple[Any, ...]]:
    """(item, question, unit, gold, n, score, votes) rows: per item one per option (gold its mean share, score
    that as a share of the total), then the hard label's (unit the question's id); votes the shares given to the
    option ("70: 2, 40: 1"), on the hard label's row each annotator's largest option. "n/a" rows where the
    question was not asked, also when nobody answered."""
    assert question.gold is not None
    options = question.option_values()
    total = float(question.total)
    found: list[tuple[Any, ...]] = []
    by_item = _by_item(votes)
    for item, by_user in by_item.items():
        answers = [a for a in by_user.values() if set(a) == set(options)]
        n = len(answers)
        said = {o: _tally(str(a[o]) for a in answers) for o in options}
        tops = _tally(hard_label({o: float(s) for o, s in a.items()}) for a in answers)
        if not asked(item):
            found += [(item, question.id, o, NOT_ASKED, n, math.nan, said[o]) for o in options]
            found.append((item, question.id, question.id, NOT_ASKED, n, math.nan, tops))
            continue
        mean = mean_distribution(options, answers)
        for o in options:
            share = mean.get(o)
            found.append((item, question.id, o, UNDECIDED if share is None else number_text(round(share, DECIMALS)),
                          n, math.nan if share is None else share / total, said[o]))
        label = hard_label(mean)
        found.append((item, question.id, question.id, label, n,
                      mean[label] / total if label in mean else math.nan, tops))
    if question.when:
        for item in items:
            if item not in by_item and not asked(item):
                found += [(item, question.id, unit, NOT_ASKED, 0, math.nan, "") for unit in (*options, question.id)]
    return found


def _tally(values: Any) -> str:
    counts: dict[str, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    ordered = sorted(counts.items(), key=lambda pair: (not pair[0].isdigit(), int(pair[0]) if pair[0].isdigit()
                                                       else 0, pair[0]))
    return ", ".join(f"{value}: {count}" for value, count in ordered)


def gold_distribution(question: Question, rows: pd.DataFrame) -> dict[str, float] | None:
    """One item's gold rows of a distribution question as an answer (the mean shares), or None when a row is
    undecided or not asked."""
    found: dict[str, float] = {}
    for unit, gold in zip(rows["unit"], rows["gold"]):
        if str(unit) == question.id:
            continue
        try:
            found[str(unit)] = float(gold)
        except ValueError:
            return None
    return found if set(found) == set(question.option_values()) else None


def adjudicated_hard_label(question: Question, gold: pd.DataFrame, items: Sequence[Any], said: str) -> pd.DataFrame:
    """`gold` with the hard label of each adjudicated item (`items`) the largest of the admin's shares: the admin's
    answer gives label rows per option only, so adjudication.py fills the option rows and leaves the question's own
    row to this (`said`: the rows' votes, "adjudicated"). An item whose option rows are not all numbers keeps its
    rows as they are."""
    import pandas as pd

    options = set(question.option_values())
    extra = []
    for item in items:
        mine = gold[(gold["item"] == item) & (gold["question"] == question.id)]
        shares: dict[str, float] = {}
        for unit, value in zip(mine["unit"], mine["gold"]):
            if str(unit) in options:
                try:
                    shares[str(unit)] = float(value)
                except (TypeError, ValueError):
                    break
        if set(shares) != options:
            continue
        ordered = {o: shares[o] for o in question.option_values()}
        label = hard_label(ordered)
        own = mine.index[mine["unit"].astype(str) == question.id]
        if len(own):
            gold.loc[own, ["gold", "score", "votes"]] = [label, 1.0, said]
        else:
            extra.append({"item": item, "question": question.id, "unit": question.id, "gold": label, "n": 0,
                          "score": 1.0, "votes": said})
    return pd.concat([gold, pd.DataFrame(extra)], ignore_index=True) if extra else gold


def gold_counts(question: Question, rows: pd.DataFrame) -> dict[str, int]:
    """The admin's summary: how many items each option is the hard label of, then undecided and not-asked items."""
    counts = {f"{question.id}: {o}": 0 for o in question.option_values()}
    counts[f"{question.id}: {UNDECIDED}"] = 0
    not_asked = 0
    if not rows.empty:
        for unit, gold in zip(rows["unit"], rows["gold"]):
            if str(unit) != question.id:
                continue
            if gold == NOT_ASKED:
                not_asked += 1
            else:
                key = f"{question.id}: {gold}"
                counts[key] = counts.get(key, 0) + 1
    if question.when:
        counts[f"{question.id}: {NOT_ASKED}"] = not_asked
    return counts


# --- agreement, control items and words -----------------------------------------------------------------------

def share_order(question: Question) -> list[str]:
    """The shares as interval agreement orders them, "0" to the total: their positions are their values."""
    return [str(share) for share in range(question.total + 1)]


def total_variation(a: Mapping[str, Any], b: Mapping[str, Any], total: int) -> float:
    """The total variation distance between two distributions over the same options: half the summed absolute
    differences of the shares, as a share of the total (an option one of them leaves out counts 0); 0 for the same
    shares, 1 for disjoint ones. A control answer's score is 1 minus it; the agreement's distributions' distance
    (analysis/distribution_match.py) averages it over pairs of annotators."""
    options = set(a) | set(b)
    return sum(abs(float(a.get(o, 0)) - float(b.get(o, 0))) for o in options) / (2 * total)


def distance_score(given: Any, known: Any, total: int) -> float:
    """1 - the total variation distance between two distributions over the same options: 1 for the same shares,
    0 for disjoint ones (0 for an answer that is no distribution)."""
    if not isinstance(given, Mapping) or not isinstance(known, Mapping) or total <= 0:
        return 0.0
    try:
        return max(0.0, 1.0 - total_variation(given, known, total))
    except (TypeError, ValueError):
        return 0.0


def reference_words(question: Question, known: Any) -> str:
    """A known distribution in words: "Positive 70, Neutral 20, Negative 10 (of 100)"."""
    if not isinstance(known, Mapping):
        return str(known)
    return ", ".join(f"{o.label} {_share_text(known.get(o.value, 0))}" for o in question.options) + \
        f" (of {question.total})"


def _share_text(value: Any) -> str:
    try:
        return number_text(round(float(value), 2))
    except (TypeError, ValueError):
        return str(value)


def unit_words(question: Question, unit: str) -> str | None:
    """A row's unit in words: an option's label, or "the largest share" for the hard label's row."""
    if unit == question.id:
        return "the option with the largest mean share"
    return next((f"{o.label} ({o.value})" if o.label != o.value else o.value
                 for o in question.options if o.value == unit), None)


def value_words(question: Question) -> dict[str, str]:
    """An option's value in words (the hard label's gold is one)."""
    return {o.value: o.label for o in question.options}
