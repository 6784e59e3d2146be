"""A ranking of n options or shown fields: the `ranking` question kind of a declared campaign.

The annotator puts every option in order, best first, each once (a permutation: no two options share a rank, none
is left out). It is the kind "rank these three responses" campaigns need; a pairwise question compares two.

The options are declared (`options: [...]`, as a choice's) or are shown fields of the item (`fields: [response_a,
response_b, response_c]`: each field's name is its value and the label `show` gives it, else its name, is what the
HIT says). The answer (the API's and the form's) is the list of option values in order, best first:
`["response_b", "response_a", "response_c"]`; a repeated option, a missing one or an unknown one is refused with a
422 naming it. (A map {option: rank} was the other possible shape; a list cannot hold a tie by construction.)

Label rows: one per option, unit = the option's value, value = its rank as text ("1" the best, ... "n"). Gold, per
(item, option), by the question's rule (docs/declared-ranking.md):

  mean_rank   each option's mean rank over the annotators who ranked the item (score: the mean rank, lower is better)
  borda       each option's Borda count: n - rank points per annotator (n - 1 for first, 0 for last), summed
              (score: the points, higher is better)

and gold is the option's place in the order those scores give ("1" .. "n"). Ties are broken the same way by both
rules, so the order never depends on the order of the votes: more first places wins, then more second places, and
so on; then the option declared (or listed in `fields`) earlier. With complete rankings by the same annotators the
two rules order the options alike (an option's Borda count is m * n - its rank sum); they differ in the score.

Agreement is Krippendorff's alpha on the ranks (ordinal by default: units "<item> / <option>") and Kendall's W per
item (annotator/analysis/concordance.py, through the agreement frame's `block` column, the item). A control item's
known answer is a ranking; an answer scores the share of option pairs it puts in the known order ((1 + Kendall's
tau) / 2: 1 for the same ranking, 0 for the reverse).
"""
from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from annotator.core.columns import cells
from annotator.core.hit_values import AnswerError, LabelIn
from annotator.declared.definition import NOT_ASKED, UNDECIDED, DefinitionError, OptionSpec, Question, Shown

if TYPE_CHECKING:
    import pandas as pd

    from annotator.declared.keys import Keys

KIND = "ranking"
KEYS = ("options", "fields")
RULES = ("mean_rank", "borda")
MAX_RANKED = 20                 # a HIT with more than 20 options to order is a different task (best-worst scaling)
BLOCK = "block"                 # the agreement frame's column naming each row's item: Kendall's W is per item


def kind_parts(keys: Keys, fields: Mapping[str, Shown],
               declared: Callable[[Keys, Mapping[str, Shown]], dict[str, Any]]) -> dict[str, Any]:
    """`options` (read by `declared`, definition_checks' reader of a choice's options) or `fields`, one of the two,
    2 to MAX_RANKED of them."""
    if keys.has("options") == keys.has("fields"):
        raise DefinitionError(keys.path, "give the options to rank (options: [...]) or the shown fields to rank "
                                         "(fields: [response_a, response_b]), one of the two")
    if keys.has("options"):
        parts = declared(keys, fields)
        if len(parts["options"]) > MAX_RANKED:
            raise DefinitionError(keys.at("options"), f"lists {len(parts['options'])} options; a ranking orders at "
                                                      f"most {MAX_RANKED}")
        return {"options": parts["options"]}
    names = keys.listed("fields")
    path = keys.at("fields")
    if not 2 <= len(names) <= MAX_RANKED:
        raise DefinitionError(path, f"must list 2 to {MAX_RANKED} shown fields, not {len(names)}")
    options: list[OptionSpec] = []
    for index, name in enumerate(names):
        if not isinstance(name, str) or name not in fields:
            raise DefinitionError(f"{path}[{index}]", f"{str(name)[:40]!r} must be one of the shown fields "
                                                      f"({', '.join(fields)})")
        if any(o.value == name for o in options):
            raise DefinitionError(f"{path}[{index}]", f"{name!r} is listed twice")
        options.append(OptionSpec(name, fields[name].label or name))
    return {"options": tuple(options), "ranked": tuple(names)}


def gold_rule(gold: Keys, rule: str) -> str:
    """The rule's name, checked: neither rule has keys of its own (their ties are broken as the module says)."""
    for key in gold.data:
        if key != "rule":
            raise DefinitionError(gold.at(key), f"the {rule} rule of a ranking question has no {key!r} (ties are "
                                                "broken by first places, then second places, then the options' "
                                                "order: docs/declared-ranking.md)")
    return rule


# --- the answer -----------------------------------------------------------------------------------------------

def check(question: Question, value: Any) -> tuple[list[str], list[LabelIn]]:
    """The answer as stored (the option values, best first) and its label rows; AnswerError names what is wrong."""
    values = list(question.option_values())
    listed = ", ".join(map(repr, values))
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise AnswerError(f"{question.id}: must be a list of the option values in order, best first ({listed})")
    unknown = [v for v in value if v not in values]
    if unknown:
        raise AnswerError(f"{question.id}: {unknown[0][:40]!r} is not an option (options: {listed})")
    seen: set[str] = set()
    for place, option in enumerate(value, start=1):
        if option in seen:
            raise AnswerError(f"{question.id}: {option[:40]!r} is ranked twice (again at place {place}); a ranking "
                              "lists each option once")
        seen.add(option)
    missing = [v for v in values if v not in seen]
    if missing:
        raise AnswerError(f"{question.id}: {', '.join(map(repr, missing))} "
                          f"{'is' if len(missing) == 1 else 'are'} not ranked; a ranking lists every option "
                          f"({listed})")
    return list(value), [LabelIn(option, question.id, str(rank)) for rank, option in enumerate(value, start=1)]


def ranks_from_form(question: Question, chosen: Mapping[str, str]) -> list[str] | None:
    """The answer from the HIT's selects ({option value: rank chosen, "" for none}); None when no rank was chosen.
    ValueError says what is wrong in the annotator's words (the page shows it beside the question)."""
    labels = {o.value: o.label for o in question.options}
    given = {option: rank for option, rank in chosen.items() if rank}
    if not given:
        return None
    n = len(question.options)
    for option, rank in given.items():
        if not rank.isdigit() or not 1 <= int(rank) <= n:
            raise ValueError(f"{rank[:10]!r} is not a rank from 1 to {n} ({labels.get(option, option)}).")
    holders: dict[int, list[str]] = {}
    for option, rank in given.items():
        holders.setdefault(int(rank), []).append(labels.get(option, option))
    for place, names in sorted(holders.items()):
        if len(names) > 1:
            raise ValueError(f"Rank {place} is given to {' and '.join(names)}; give each rank once.")
    missing = [labels[v] for v in question.option_values() if v not in given]
    if missing:
        raise ValueError(f"Give every option a rank: {', '.join(missing)} {'has' if len(missing) == 1 else 'have'} "
                         "none.")
    return [option for option, _ in sorted(given.items(), key=lambda pair: int(pair[1]))]


def example_answer(question: Question, rng: random.Random) -> list[str]:
    order = list(question.option_values())
    rng.shuffle(order)
    return order


def public_question(question: Question) -> dict[str, Any]:
    """What an API client needs: the options (with `fields`, the item fields they are) and the answer's shape."""
    entry: dict[str, Any] = {"options": [{"value": o.value, "label": o.label} for o in question.options],
                             "answer": "the option values in order, best first, each once"}
    if question.ranked:
        entry["fields"] = list(question.ranked)
    return entry


# --- gold -----------------------------------------------------------------------------------------------------

def _by_item(votes: pd.DataFrame) -> dict[str, dict[Any, dict[str, int]]]:
    """item -> annotator -> {option: rank}, in label order."""
    found: dict[str, dict[Any, dict[str, int]]] = {}
    users = votes["user_id"].tolist() if "user_id" in votes else list(range(len(votes)))
    for item, unit, value, user in zip(cells(votes["item"]), cells(votes["unit"]), cells(votes["value"]), users):
        try:
            found.setdefault(item, {}).setdefault(user, {})[str(unit)] = int(value)
        except ValueError:
            continue
    return found


def consensus(rule: str, options: Sequence[str], rankings: Sequence[Mapping[str, int]]) -> list[tuple[str, float]]:
    """(option, score) in the consensus order by `rule` (mean_rank or borda) over complete rankings ({option:
    rank}); ties broken by more first places, then more second places, ..., then the order of `options`."""
    n = len(options)
    m = len(rankings)
    sums = {o: sum(r[o] for r in rankings if o in r) for o in options}
    score = {o: (sums[o] / m if m else math.nan) if rule == "mean_rank" else float(m * n - sums[o])
             for o in options}
    places = {o: tuple(-sum(1 for r in rankings if r.get(o) == place) for place in range(1, n + 1)) for o in options}
    key_of = {o: (score[o] if rule == "mean_rank" else -score[o], places[o], index)
              for index, o in enumerate(options)}
    return [(o, score[o]) for o in sorted(options, key=lambda o: key_of[o])]


def question_gold(question: Question, votes: pd.DataFrame, asked: Callable[[str], bool],
                  items: Sequence[str]) -> list[tuple[Any, ...]]:
    """(item, question, unit, gold, n, score, votes) rows, one per option of each item, items in label order: gold
    the option's place in the consensus ("1" first), score its mean rank or Borda count, votes its ranks given
    ("1: 2, 3: 1"). An item where the question was not asked (`when`) has "n/a" rows, also when nobody answered."""
    assert question.gold is not None
    options = question.option_values()
    found: list[tuple[Any, ...]] = []
    by_item = _by_item(votes)
    for item, by_user in by_item.items():
        rankings = [r for r in by_user.values() if set(r) == set(options)]
        n = len(rankings)
        said = {o: Counter(r[o] for r in rankings) for o in options}
        text = {o: ", ".join(f"{rank}: {count}" for rank, count in sorted(said[o].items())) for o in options}
        if not asked(item):
            found += [(item, question.id, o, NOT_ASKED, n, math.nan, text[o]) for o in options]
            continue
        order = consensus(question.gold.rule, options, rankings) if n else []
        place = {o: (str(p), s) for p, (o, s) in enumerate(order, start=1)}
        for o in options:
            gold, score = place.get(o, (UNDECIDED, math.nan))
            found.append((item, question.id, o, gold, n, score, text[o]))
    if question.when:
        for item in items:
            if item not in by_item and not asked(item):
                found += [(item, question.id, o, NOT_ASKED, 0, math.nan, "") for o in options]
    return found


def gold_ranking(rows: pd.DataFrame) -> list[str] | None:
    """One item's gold rows of a ranking question as an answer (the options by their gold place), or None when a
    row is undecided or not asked."""
    placed = []
    for unit, gold in zip(rows["unit"], rows["gold"]):
        if not str(gold).isdigit():
            return None
        placed.append((int(gold), str(unit)))
    return [unit for _, unit in sorted(placed)] or None


def gold_counts(question: Question, rows: pd.DataFrame) -> dict[str, int]:
    """The admin's summary: how many items each option is first on (then undecided and not-asked items)."""
    counts = {f"{question.id}: {o.value} first": 0 for o in question.options}
    items_undecided: set[Any] = set()
    not_asked: set[Any] = set()
    if not rows.empty:
        for item, unit, gold in zip(rows["item"], rows["unit"], rows["gold"]):
            if gold == "1":
                counts[f"{question.id}: {unit} first"] = counts.get(f"{question.id}: {unit} first", 0) + 1
            elif gold == UNDECIDED:
                items_undecided.add(item)
            elif gold == NOT_ASKED:
                not_asked.add(item)
    counts[f"{question.id}: {UNDECIDED}"] = len(items_undecided)
    if question.when:
        counts[f"{question.id}: {NOT_ASKED}"] = len(not_asked)
    return counts


# --- agreement, control items and words -----------------------------------------------------------------------

def rank_order(question: Question) -> list[str]:
    """The ranks as agreement orders them, "1" (best) to "n"."""
    return [str(rank) for rank in range(1, len(question.options) + 1)]


def pair_score(given: Any, known: Any) -> float:
    """The share of option pairs the answer orders as the known ranking does: (1 + Kendall's tau) / 2 over the
    options both list (1 when they are the same ranking, 0 when reversed; 1 with fewer than two in common)."""
    if not isinstance(given, list) or not isinstance(known, list):
        return 0.0
    at = {str(o): i for i, o in enumerate(given)}
    common = [str(o) for o in known if str(o) in at]
    pairs = [(a, b) for i, a in enumerate(common) for b in common[i + 1:]]
    if not pairs:
        return 1.0 if common else 0.0
    return sum(1 for a, b in pairs if at[a] < at[b]) / len(pairs)


def reference_words(question: Question, known: Any) -> str:
    """A known ranking in words: "Response B > Response A > Response C"."""
    labels = {o.value: o.label for o in question.options}
    return " > ".join(labels.get(str(v), str(v)) for v in known) if isinstance(known, list) else str(known)


def unit_words(question: Question, unit: str) -> str | None:
    """A row's unit (an option) in words: its label."""
    return next((f"{o.label} ({o.value})" if o.label != o.value else o.value
                 for o in question.options if o.value == unit), None)


def value_words(question: Question) -> dict[str, str]:
    """A rank in words: "1" is "ranked 1st"."""
    return {rank: f"ranked {_ordinal(int(rank))}" for rank in rank_order(question)}


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
