"""Best-worst scaling: the `best_worst` question kind of a declared campaign (docs/declared-best-worst.md).

The organiser's items file lists the things to score (sentences, tweets, terms: "objects" below); the import
builds **tuples** of `size` of them (4 by default) with a seeded balanced design (`build_tuples`) and stores each
tuple as one of the project's items. A tuple is the unit the engine assigns, to k annotators like any item; each
annotator picks the best and the worst member of it, never the same one. An object's score is counted over every
tuple it was in:

    score = (times chosen best - times chosen worst) / times it was shown in an answered tuple,   -1 .. 1

(Orme 2009; Kiritchenko & Mohammad 2016, 2017). The tuple item's payload is {"tuple": [{"id": <object id>,
<the object's fields>...}, ...]}, members in the order the HIT shows them.

The answer (the API's and the form's) is {"best": <object id>, "worst": <object id>}, both members of the tuple,
different; anything else is refused with a 422 naming the question and what is wrong. Label rows: one per member,
unit = the object's id, value "1" (best), "-1" (worst) or "0" (neither): the mean of an object's values over all
its rows is its score. Gold, per (tuple, member): "best" / "worst" for the member most annotators chose so (a
tie is undecided), else "neither", with `score` the object's campaign-wide score. Agreement is Krippendorff's
alpha on -1 / 0 / 1 (ordinal by default) and the split-half reliability of the scores
(annotator/analysis/split_half.py), through the agreement frame's `object` column. A control tuple's known
answer is a {best, worst} pair; an answer scores the share of the two it gets right.
"""
from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from annotator.core.columns import cells
from annotator.core.errors import FormatError
from annotator.core.hit_values import AnswerError, LabelIn, NewItem
from annotator.declared.definition import (
    NOT_ASKED,
    UNDECIDED,
    BestWorst,
    Definition,
    DefinitionError,
    Question,
    Shown,
)

if TYPE_CHECKING:
    import pandas as pd

    from annotator.declared.keys import Keys

KIND = "best_worst"
KEYS = ("text", "size", "appearances", "seed", "best", "worst")
TUPLE = "tuple"                 # the tuple item's field holding its members
BEST, WORST = "best", "worst"
VALUES = {BEST: "1", WORST: "-1"}
NEITHER = "0"
GOLD_NEITHER = "neither"
OBJECT = "object"               # the agreement frame's column naming each row's object: split-half is per object
MIN_SIZE, MAX_SIZE = 3, 10      # two is a pairwise comparison; more than ten is too many to read at once
MAX_APPEARANCES = 100
TEXT_KINDS = ("text", "title", "markdown")
DESIGN_ATTEMPTS = 100           # designs drawn ("<seed>:0", "<seed>:1", ...); the most spread one is kept


# --- the definition -------------------------------------------------------------------------------------------

def kind_parts(keys: Keys, fields: Mapping[str, Shown]) -> dict[str, Any]:
    """`text` (a shown field drawn as text, title or markdown: each member is drawn by it), `size`, `appearances`,
    `seed`, and the words of the two answers `best` and `worst`."""
    text = keys.text("text")
    drawn = [name for name, s in fields.items() if s.kind in TEXT_KINDS]
    if text not in drawn:
        raise DefinitionError(keys.at("text"), f"{text[:40]!r} must be a shown field drawn as text, title or "
                                               f"markdown ({', '.join(drawn) or 'show has none'})")
    size = int(keys.number("size", 4, low=MIN_SIZE, high=MAX_SIZE, integer=True))
    appearances = int(keys.number("appearances", 8, low=1, high=MAX_APPEARANCES, integer=True))
    seed = int(keys.number("seed", 0, low=0, high=2 ** 31 - 1, integer=True))
    best, worst = keys.text("best", "Best", limit=100), keys.text("worst", "Worst", limit=100)
    if not best.strip() or not worst.strip() or best.strip() == worst.strip():
        raise DefinitionError(keys.at("worst"), "best and worst must be two different, non-blank words")
    return {"best_worst": BestWorst(text, size, appearances, seed, best, worst)}


def gold_rule(gold: Keys, rule: str) -> str:
    """The rule's name, checked: counting has no keys of its own."""
    for key in gold.data:
        if key != "rule":
            raise DefinitionError(gold.at(key), f"the {rule} rule of a best_worst question has no {key!r}")
    return rule


def question_of(definition: Definition) -> Question | None:
    """The definition's best-worst question (there is at most one: its tuples are the project's items)."""
    return next((q for q in definition.questions if q.kind == KIND), None)


def check_definition(questions: Sequence[Question], show: Sequence[Shown], where: Mapping[str, str]) -> None:
    """At most one best_worst question (its tuples are every item of the project), and no other question reading
    an item field: a tuple item holds only its members."""
    found = [q for q in questions if q.kind == KIND]
    if len(found) > 1:
        raise DefinitionError(where.get(found[1].id, "questions"), "a definition has at most one best_worst "
                              f"question (its tuples are the project's items); {found[0].id!r} is one")
    if not found:
        return
    for q in questions:
        reads = [name for name in (q.options_from, q.of, q.a, q.b, *(q.ranked or ())) if name]
        if reads or q.item_when:
            raise DefinitionError(where.get(q.id, "questions"), "with a best_worst question every item is a tuple "
                                  "of the items file's items, so no other question may read an item's field "
                                  f"({', '.join(reads) or 'an item condition'})")


# --- the design -----------------------------------------------------------------------------------------------

def design_problem(count: int, size: int, appearances: int) -> str | None:
    """Why `count` items cannot be put in tuples of `size`, each `appearances` times; None when they can."""
    if count < size:
        return f"{count} items cannot fill a tuple of {size}: give at least {size}"
    if (count * appearances) % size:
        step = size // math.gcd(count, size)
        fits = [a for a in (appearances - appearances % step, appearances - appearances % step + step) if a >= 1]
        return (f"{count} items each in {appearances} tuples of {size} make {count * appearances} places, not a "
                f"multiple of {size}; with {count} items, appearances must be a multiple of {step} (e.g. "
                f"{' or '.join(map(str, fits))})")
    return None


def build_tuples(ids: Sequence[str], size: int, appearances: int, seed: int) -> list[tuple[str, ...]]:
    """N * appearances / size tuples of `size` different ids, each id in exactly `appearances` of them.

    The design: `appearances` rounds, each a seeded shuffle of all the ids, laid end to end and cut into tuples of
    `size`. Each round holds every id once, so only a tuple that straddles two rounds can hold an id twice; such a
    repeat is swapped with the nearest later place (else earlier) whose id is in neither tuple. A swap moves places,
    never adds or removes one, so every id keeps exactly `appearances` places. Such a design is drawn with
    random.Random("<seed>:0"), random.Random("<seed>:1"), ... (`design_tries`: 100, fewer for large campaigns;
    a draw where no swap exists is dropped), and the one with the most different pairs of ids sharing a tuple is
    kept (then the lowest count of the pair most often together; then the first drawn), so no two items meet much
    more often than others. random.Random with a text seed makes it reproducible: the same ids in the same order,
    size, appearances and seed give the same tuples. ValueError says why it cannot be made.
    """
    problem = design_problem(len(ids), size, appearances)
    if problem is not None:
        raise ValueError(problem)
    if len(set(ids)) != len(ids):
        raise ValueError("an id is given twice; every item of a best-worst design must have its own id")
    best: tuple[tuple[int, int], list[tuple[str, ...]]] | None = None
    for attempt in range(design_tries(len(ids) * appearances)):
        made = _attempt(list(ids), size, appearances, random.Random(f"{seed}:{attempt}"))
        if made is None:
            continue
        _, pairs = design_counts(made)
        spread = (len(pairs), -max(pairs.values(), default=0))   # more different pairs, then a lower most-shared
        if best is None or spread > best[0]:
            best = (spread, made)
    if best is None:
        raise ValueError(f"no balanced design of {len(ids)} items in tuples of {size} was found; give more items")
    return best[1]


def design_tries(places: int) -> int:
    """How many designs are drawn to keep the best spread one: DESIGN_ATTEMPTS, fewer for a large campaign (about
    half a million places drawn in all), at least 3."""
    return max(3, min(DESIGN_ATTEMPTS, 500_000 // max(1, places)))


def _attempt(ids: list[str], size: int, appearances: int, rng: random.Random) -> list[tuple[str, ...]] | None:
    places: list[str] = []
    for _ in range(appearances):
        round_ = ids[:]
        rng.shuffle(round_)
        places += round_
    count = len(places) // size
    for block in range(count):
        start = block * size
        for at in range(start, start + size):
            if places[at] not in places[start:at]:
                continue
            swap = _swap_place(places, size, block, at)
            if swap is None:
                return None
            places[at], places[swap] = places[swap], places[at]
    return [tuple(places[b * size:(b + 1) * size]) for b in range(count)]


def _swap_place(places: list[str], size: int, block: int, at: int) -> int | None:
    """A place in another tuple whose id is not in `block`'s tuple and which can take places[at] without a repeat."""
    mine = set(places[block * size:(block + 1) * size])
    count = len(places) // size
    others: list[int] = list(range(block + 1, count)) + list(range(block - 1, -1, -1))   # later tuples first
    for other in others:
        theirs = places[other * size:(other + 1) * size]
        if places[at] in theirs:
            continue
        for offset, candidate in enumerate(theirs):
            if candidate not in mine:
                return other * size + offset
    return None


def design_counts(tuples: Iterable[Sequence[str]]) -> tuple[Counter[str], Counter[tuple[str, str]]]:
    """How often each id appears, and each pair of ids together: what the docs' guarantee is about."""
    appear: Counter[str] = Counter()
    pairs: Counter[tuple[str, str]] = Counter()
    for members in tuples:
        appear.update(members)
        ordered = sorted(members)
        pairs.update((a, b) for i, a in enumerate(ordered) for b in ordered[i + 1:])
    return appear, pairs


def tuple_items(definition: Definition, objects: Iterable[NewItem], name: str) -> Iterator[NewItem]:
    """The tuple items of a best-worst definition from the items file's items (its objects), read whole: the
    design needs all of them. FormatError names the file and line of what is wrong (an item with a known or
    reference answer, an id given twice) or, for a count the design cannot use, what would fit."""
    question = question_of(definition)
    assert question is not None and question.best_worst is not None
    spec = question.best_worst
    found: dict[str, dict[str, Any]] = {}
    lines: dict[str, int | None] = {}
    for item in objects:
        if item.reference is not None:
            raise FormatError("known.<question> and reference.<question> columns are answers about a tuple, which "
                              "the import builds: an item of a best-worst campaign has none (make a voted tuple a "
                              "control item on the items page)", file=name, line=item.line)
        if item.external_id in found:
            raise FormatError(f"the id {item.external_id[:80]!r} is also the id of line {lines[item.external_id]}",
                              file=name, line=item.line, column='"id"')
        found[item.external_id] = item.payload
        lines[item.external_id] = item.line
    try:
        tuples = build_tuples(list(found), spec.size, spec.appearances, spec.seed)
    except ValueError as error:
        raise FormatError(f"{error} (questions: {question.id}: size {spec.size}, appearances {spec.appearances})",
                          file=name) from None
    width = len(str(len(tuples)))
    for number, members in enumerate(tuples, start=1):
        yield NewItem(f"t{number:0{width}d}", {TUPLE: [{"id": oid, **found[oid]} for oid in members]}, file=name)


def members(payload: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    value = payload.get(TUPLE)
    return [m for m in value if isinstance(m, Mapping)] if isinstance(value, list) else []


def member_ids(payload: Mapping[str, Any]) -> list[str]:
    return [str(m.get("id")) for m in members(payload)]


def member_label(definition: Definition, question: Question, position: int) -> str:
    """How the HIT names a member: the shown field's label (else "Item") and its number, "Tweet 2"."""
    assert question.best_worst is not None
    shown = next((s for s in definition.show if s.field == question.best_worst.text), None)
    return f"{(shown.label if shown and shown.label else 'Item')} {position + 1}"


# --- the answer -----------------------------------------------------------------------------------------------

def check(question: Question, payload: Mapping[str, Any], value: Any) -> tuple[dict[str, str], list[LabelIn]]:
    """The answer as stored ({"best", "worst"}) and one label row per member; AnswerError names what is wrong."""
    ids = member_ids(payload)
    listed = ", ".join(map(repr, ids))
    if not isinstance(value, Mapping) or set(value) != {BEST, WORST} or \
            not all(isinstance(value[k], str) for k in (BEST, WORST)):
        raise AnswerError(f"{question.id}: must be {{\"best\": <id>, \"worst\": <id>}}, two ids of the tuple's "
                          f"items ({listed})")
    for key in (BEST, WORST):
        if value[key] not in ids:
            raise AnswerError(f"{question.id}.{key}: {value[key][:40]!r} is not in this tuple (its items: {listed})")
    if value[BEST] == value[WORST]:
        raise AnswerError(f"{question.id}: {value[BEST][:40]!r} is chosen as both best and worst; choose two "
                          "different items")
    rows = [LabelIn(oid, question.id, VALUES[BEST] if oid == value[BEST] else VALUES[WORST]
                    if oid == value[WORST] else NEITHER) for oid in ids]
    return {BEST: value[BEST], WORST: value[WORST]}, rows


def from_form(question: Question, best: str | None, worst: str | None) -> dict[str, str] | None:
    """The answer from the HIT's two radio groups; None when neither is chosen. ValueError in the annotator's
    words (the page shows it beside the question)."""
    assert question.best_worst is not None
    spec = question.best_worst
    if not best and not worst:
        return None
    if not best or not worst:
        missing = spec.best if not best else spec.worst
        raise ValueError(f"Choose one item as “{missing}” too.")
    if best == worst:
        raise ValueError(f"The same item is chosen as “{spec.best}” and “{spec.worst}”; choose two different "
                         "items.")
    return {BEST: best, WORST: worst}


def example_answer(payload: Mapping[str, Any], rng: random.Random) -> dict[str, str]:
    best, worst = rng.sample(member_ids(payload), 2)
    return {BEST: best, WORST: worst}


def public_question(question: Question, payload: Mapping[str, Any]) -> dict[str, Any]:
    """What an API client needs: the tuple's ids in the order shown, the two answers' words, the answer's shape."""
    assert question.best_worst is not None
    return {"items": member_ids(payload), "best": question.best_worst.best, "worst": question.best_worst.worst,
            "answer": "{\"best\": <id>, \"worst\": <id>}: two different ids of the tuple's items"}


# --- scores and gold ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ObjectScore:
    """One object's counts over every answered tuple it was in, and its score (best - worst) / appearances."""

    id: str
    appearances: int
    best: int
    worst: int

    @property
    def score(self) -> float:
        return (self.best - self.worst) / self.appearances if self.appearances else math.nan


def object_scores(votes: pd.DataFrame) -> dict[str, ObjectScore]:
    """Per object (the label rows' unit), its counts over the question's label rows (one per member per vote)."""
    counts: dict[str, list[int]] = {}
    for unit, value in zip(votes["unit"].astype(str), votes["value"].astype(str)):
        seen = counts.setdefault(unit, [0, 0, 0])
        seen[0] += 1
        seen[1] += value == VALUES[BEST]
        seen[2] += value == VALUES[WORST]
    return {unit: ObjectScore(unit, *c) for unit, c in counts.items()}


SCORE_COLUMNS = ["question", "item", "text", "appearances", "best", "worst", "score", "rank"]


def score_rows(definition: Definition, labels: pd.DataFrame,
               payloads: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per item of the items file (an object), highest score first (then by id): its counts over the
    counted votes, its score (None when no answered tuple showed it) and its rank ("1224": equal scores share one).
    `payloads`: the project's tuple items, whose members give every object and its text."""
    question = question_of(definition)
    if question is None or question.best_worst is None:
        return []
    field = question.best_worst.text
    texts: dict[str, Any] = {}
    for payload in payloads:
        for member in members(payload):
            texts.setdefault(str(member.get("id")), member.get(field))
    votes = labels[labels["field"] == question.id] if not labels.empty else labels
    scores = object_scores(votes) if not votes.empty else {}
    found = [scores.get(oid, ObjectScore(oid, 0, 0, 0)) for oid in texts]
    found.sort(key=lambda s: (math.isnan(s.score), -s.score if not math.isnan(s.score) else 0.0, s.id))
    scored = [s.score for s in found if not math.isnan(s.score)]
    ranks = [1 + sum(other > v for other in scored) for v in scored] + [None] * (len(found) - len(scored))   # "1224"
    return [{"question": question.id, "item": s.id, "text": texts[s.id], "appearances": s.appearances,
             "best": s.best, "worst": s.worst, "score": None if math.isnan(s.score) else s.score, "rank": rank}
            for s, rank in zip(found, ranks)]


def question_gold(question: Question, votes: pd.DataFrame, asked: Callable[[str], bool]) -> list[tuple[Any, ...]]:
    """(item, question, unit, gold, n, score, votes) rows, one per member of each tuple somebody judged: gold "best"
    / "worst" for the member chosen so by more annotators than any other (a tie: undecided), else "neither"; score
    the object's campaign-wide (best - worst) / appearances; votes "best 2, worst 0 of 3". A tuple where the
    question was not asked by its `when`'s gold has "n/a" rows. (A tuple nobody was shown the question on has no
    rows: gold reads label rows, and its members are only in its payload.)"""
    scores = object_scores(votes)
    by_item: dict[Any, dict[str, list[str]]] = {}
    for item, unit, value in zip(cells(votes["item"]), cells(votes["unit"].astype(str)),
                                 cells(votes["value"].astype(str))):
        by_item.setdefault(item, {}).setdefault(unit, []).append(value)
    found: list[tuple[Any, ...]] = []
    for item, by_unit in by_item.items():
        n = max((len(v) for v in by_unit.values()), default=0)
        best = Counter({u: v.count(VALUES[BEST]) for u, v in by_unit.items()})
        worst = Counter({u: v.count(VALUES[WORST]) for u, v in by_unit.items()})
        top_best, top_worst = _top(best), _top(worst)
        for unit, given in by_unit.items():
            said = f"best {best[unit]}, worst {worst[unit]} of {len(given)}"
            score = scores[unit].score if unit in scores else math.nan
            if not asked(item):
                found.append((item, question.id, unit, NOT_ASKED, n, math.nan, said))
                continue
            gold = GOLD_NEITHER
            if unit in top_best[0] or unit in top_worst[0]:
                both = unit in top_best[0] and unit in top_worst[0]
                tied = (unit in top_best[0] and top_best[1]) or (unit in top_worst[0] and top_worst[1])
                gold = UNDECIDED if both or tied else BEST if unit in top_best[0] else WORST
            found.append((item, question.id, unit, gold, n, score, said))
    return found


def _top(counts: Counter[str]) -> tuple[set[str], bool]:
    """The units with the most votes (none when nobody chose any), and whether more than one share it."""
    most = max(counts.values(), default=0)
    top = {u for u, c in counts.items() if c == most and most > 0}
    return top, len(top) > 1


def gold_word(value: str) -> str:
    """A label row's value in the gold's words: "1" best, "-1" worst, "0" neither."""
    return {VALUES[BEST]: BEST, VALUES[WORST]: WORST, NEITHER: GOLD_NEITHER}.get(value, value)


def gold_answer(rows: pd.DataFrame) -> dict[str, str] | None:
    """One tuple's gold rows as an answer ({best, worst}), or None unless one member is best and one worst."""
    gold = {str(g): str(u) for u, g in zip(rows["unit"], rows["gold"]) if g in (BEST, WORST)}
    return {BEST: gold[BEST], WORST: gold[WORST]} if len(gold) == 2 else None


def gold_counts(question: Question, rows: pd.DataFrame) -> dict[str, int]:
    """The admin's summary: tuples with a decided best and worst, tuples with a tie, tuples not asked."""
    decided: set[Any] = set()
    tied: set[Any] = set()
    not_asked: set[Any] = set()
    if not rows.empty:
        for item, gold in zip(rows["item"], rows["gold"]):
            (tied if gold == UNDECIDED else not_asked if gold == NOT_ASKED else decided).add(item)
    counts = {f"{question.id}: best and worst decided": len(decided - tied - not_asked),
              f"{question.id}: {UNDECIDED}": len(tied)}
    if question.when:
        counts[f"{question.id}: {NOT_ASKED}"] = len(not_asked)
    return counts


# --- agreement, control items and words -----------------------------------------------------------------------

def value_order() -> list[str]:
    """The values as ordinal agreement orders them: worst, neither, best."""
    return [VALUES[WORST], NEITHER, VALUES[BEST]]


def control_score(given: Any, known: Any) -> float:
    """The share of the two picks that match the known answer: 1, 0.5 or 0."""
    if not isinstance(given, Mapping) or not isinstance(known, Mapping):
        return 0.0
    return float(sum(given.get(k) == known.get(k) for k in (BEST, WORST))) / 2


def reference_words(definition: Definition, question: Question, payload: Mapping[str, Any], known: Any) -> str:
    """A known answer in words: "Most positive: Tweet 2; least positive: Tweet 4"."""
    assert question.best_worst is not None
    if not isinstance(known, Mapping):
        return str(known)
    ids = member_ids(payload)
    named = {oid: member_label(definition, question, n) for n, oid in enumerate(ids)}
    return (f"{question.best_worst.best}: {named.get(str(known.get(BEST)), known.get(BEST))}; "
            f"{question.best_worst.worst}: {named.get(str(known.get(WORST)), known.get(WORST))}")


def unit_words(question: Question, payload: Mapping[str, Any], unit: str) -> str | None:
    """A row's unit (an object's id) in words: its text in this tuple."""
    assert question.best_worst is not None
    for member in members(payload):
        if str(member.get("id")) == unit:
            return f"{member.get(question.best_worst.text, '')} ({unit})"
    return None


def value_words(question: Question) -> dict[str, str]:
    assert question.best_worst is not None
    return {VALUES[BEST]: question.best_worst.best, VALUES[WORST]: question.best_worst.worst, NEITHER: "neither"}
