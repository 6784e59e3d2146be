"""Extractive question answering: the `extractive` question kind of a declared campaign (SQuAD 2.0 style).

The annotator answers a question about a passage (a shown text field, `of`) by marking the one contiguous stretch
of the passage that answers it, or, where the definition allows it (`unanswerable`, on by default), by saying the
passage does not answer it. The answer is `{"start": 36, "end": 53}` (character offsets of the passage: code
points, end exclusive, as a spans question's marks) or `{"unanswerable": true}`; stored with the stretch's text,
`{"start": 36, "end": 53, "text": "Analytical Engine"}`, so that the votes read without the item beside them.

Why its own kind and not a spans question with `max: 1`: gold, agreement and controls differ. A spans question
decides each mark on its own (gold or not); here one answer per item is gold, the most chosen, and "no answer" is
an answer that competes with the stretches. Agreement is SQuAD's: exact match and token F1 of the answers' texts,
pairwise between annotators (annotator/analysis/answer_match.py); a control answer scores its token F1 against the
known answer. The HIT reuses the spans question's marking (templates/hits/_declared_spans.html's markup and
static/js/declared_spans.js with one label and at most one mark), with an "unanswerable" box beside it.

Label rows of a vote (field = the question's id, and "<id>.text" for the text):
  unit <id>, field <id>        value "<start>:<end>", or "unanswerable"        gold and exact-span agreement
  unit <id>, field <id>.text   value the stretch's text (none when unanswerable)  token F1 between annotators

Gold (`majority`, the only rule): per item the answer most annotators gave, compared exactly (the same offsets;
"unanswerable" is one answer among the stretches); a tie of the first places is undecided (the admin's
adjudication decides). The keys, the API's checks, ties and the figures are in docs/declared-extractive-qa.md.
"""
from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from annotator.core.answer_text import token_f1
from annotator.core.columns import cells
from annotator.core.hit_values import AnswerError, LabelIn
from annotator.declared import spans
from annotator.declared.definition import (
    NOT_ASKED,
    UNDECIDED,
    DefinitionError,
    GoldRule,
    OptionSpec,
    Question,
    Shown,
    SpanRules,
)
from annotator.declared.item_view import named as named_field

if TYPE_CHECKING:
    import pandas as pd

    from annotator.declared.keys import Keys

KIND = "extractive"
KEYS = ("of", "whole_words", "unanswerable")
UNANSWERABLE = "unanswerable"     # the answer (and label value) of "the passage does not answer the question"
DEFAULT_CAPTION = "The passage does not answer the question"
CAPTION_LENGTH = 200
ANSWER = OptionSpec("answer", "Answer")   # the one label of the HIT's marks (the spans markup needs one)
ANSWER_KEYS = ("start", "end", "text", UNANSWERABLE)
TEXT_SUFFIX = ".text"
NOT_ANSWERABLE_HERE = "this question has no unanswerable answer (its definition says unanswerable: false)"


def text_field(question: Question) -> str:
    """The label field holding each answer's text: "<id>.text" (an id cannot hold a dot, so it never clashes)."""
    return f"{question.id}{TEXT_SUFFIX}"


def allows_unanswerable(question: Question) -> bool:
    return question.none is not None


# --- the definition -------------------------------------------------------------------------------------------

def kind_parts(keys: Keys, fields: Mapping[str, Shown]) -> dict[str, Any]:
    """`of`, `whole_words` and `unanswerable` of an extractive question, checked (definition_checks calls it). The
    question keeps its marking rules as a spans question's (one label, one mark, never overlapping) so that the
    HIT's marking and the word edges are the spans kind's own, and the unanswerable box's caption as `none`."""
    of = named_field(keys, "of")
    texts = [name for name, s in fields.items() if s.kind in ("text", "title")]
    if of not in texts:
        raise DefinitionError(keys.at("of"), f"{of!r} must be a shown field drawn as text or title, the passage "
                                             f"the answer is marked in ({', '.join(texts) or 'show has none'})")
    caption: str | None = DEFAULT_CAPTION
    if keys.has("unanswerable"):
        given = keys.data["unanswerable"]
        if isinstance(given, bool):
            caption = DEFAULT_CAPTION if given else None
        elif isinstance(given, str) and given.strip() and len(given) <= CAPTION_LENGTH and "\x00" not in given:
            caption = given.strip()
        else:
            raise DefinitionError(keys.at("unanswerable"), "must be true (the default: an annotator may say the "
                                                           "passage does not answer the question), false, or the "
                                                           f"words of that box (at most {CAPTION_LENGTH} characters)")
    whole_words = keys.flag("whole_words", True)
    return {"of": of, "none": caption, "spans": SpanRules((ANSWER,), 1, whole_words, False, "words")}


def gold_rule(gold: Keys, rule: str) -> GoldRule:
    """The only rule, `majority`, has no key but its name: a tie is undecided (docs/declared-extractive-qa.md)."""
    for key in gold.data:
        if key != "rule":
            raise DefinitionError(gold.at(key), f"the {rule} rule of an extractive question has no {key!r}: the "
                                                "most chosen answer is gold and a tie is undecided")
    return GoldRule(rule=rule)


# --- answers --------------------------------------------------------------------------------------------------

def check(question: Question, payload: Mapping[str, Any], value: Any) -> tuple[Any, list[LabelIn]]:
    """The answer as stored and its label rows; AnswerError names the question and what is wrong (the API's 422):
    "answer: [57, 99) is out of range: the passage has 64 characters (it needs 0 <= start < end <= 64)"."""
    qid = question.id
    shape = ('an object {"start": int, "end": int} (character offsets of ' + f"{question.of}, end exclusive)" +
             (' or {"unanswerable": true}' if allows_unanswerable(question) else ""))
    if not isinstance(value, dict):
        raise AnswerError(f"{qid}: must be {shape}")
    unknown = sorted(str(key) for key in value if key not in ANSWER_KEYS)
    if unknown:
        raise AnswerError(f"{qid}: {unknown[0][:40]!r} is not a key of the answer; it is {shape} (and optionally "
                          '"text", the stretch\'s text)')
    said = value.get(UNANSWERABLE, False)
    if not isinstance(said, bool):
        raise AnswerError(f"{qid}: unanswerable must be true or false, not {str(said)[:20]!r}")
    marked = [key for key in ("start", "end", "text") if key in value]
    if said:
        if not allows_unanswerable(question):
            raise AnswerError(f"{qid}: {NOT_ANSWERABLE_HERE}; mark the answer in {question.of}")
        if marked:
            raise AnswerError(f"{qid}: has both a span ({', '.join(marked)}) and unanswerable: true; an answer is "
                              "one stretch of the passage or unanswerable, not both")
        return {UNANSWERABLE: True}, [LabelIn(qid, qid, UNANSWERABLE)]
    missing = [key for key in ("start", "end") if key not in value]
    if missing:
        raise AnswerError(f"{qid}: missing {' and '.join(missing)}; the answer is {shape}")
    text = spans.text_of(question, payload)
    start, end = value["start"], value["end"]
    for key, number in (("start", start), ("end", end)):
        if type(number) is not int:
            raise AnswerError(f"{qid}: {key} must be a whole number (a character offset), not {str(number)[:20]!r}")
    if start == end:
        raise AnswerError(f"{qid}: is empty (start and end are both {start}); an answer covers at least one "
                          "character" + (', or is {"unanswerable": true}' if allows_unanswerable(question) else ""))
    if start > end:
        raise AnswerError(f"{qid}: start {start} is after end {end}; end is the offset after the answer's last "
                          "character")
    if start < 0 or end > len(text):
        raise AnswerError(f"{qid}: [{start}, {end}) is out of range: {question.of} has {len(text)} characters (it "
                          f"needs 0 <= start < end <= {len(text)})")
    stretch = text[start:end]
    if stretch != stretch.strip():
        raise AnswerError(f"{qid}: {stretch[:40]!r} starts or ends with white space; mark the text only")
    rules = spans.rules_of(question)
    if rules.whole_words:
        bounds = spans.word_bounds(text)
        starts, ends = {s for s, _ in bounds}, {e for _, e in bounds}
        if start not in starts or end not in ends:
            edge, at = ("start", start) if start not in starts else ("end", end)
            near = sorted(sorted({s if edge == "start" else e for s, e in bounds}, key=lambda n: (abs(n - at), n))[:2])
            raise AnswerError(f"{qid}: {edge} {at} is not at the {edge} of a word of {question.of} (answers cover "
                              f"whole words: the nearest word {edge}s are {', '.join(map(str, near))})")
    if "text" in value and value["text"] != stretch:
        raise AnswerError(f"{qid}: \"text\" is {str(value['text'])[:40]!r} but characters {start} to {end} are "
                          f"{stretch[:40]!r} (offsets count code points, not UTF-16 units or bytes)")
    return ({"start": start, "end": end, "text": stretch},
            [LabelIn(qid, qid, f"{start}:{end}"), LabelIn(qid, text_field(question), stretch)])


def from_form(question: Question, marks: Any, unanswerable: bool) -> dict[str, Any] | None:
    """The answer of the HIT's fields: the marks the spans script keeps (a list of at most one {start, end,
    label}) and the unanswerable box; None when neither was given. ValueError says what is wrong in the
    annotator's words."""
    if not isinstance(marks, list):
        marks = []
    if unanswerable and marks:
        raise ValueError(f"Either mark the answer or tick “{question.none}”, not both.")
    if unanswerable:
        return {UNANSWERABLE: True}
    if not marks:
        return None
    if len(marks) > 1 or not isinstance(marks[0], dict):
        raise ValueError("Mark one stretch of the text as the answer.")
    return {"start": marks[0].get("start"), "end": marks[0].get("end")}


def example_answer(question: Question, public: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
    """A valid answer drawn at random: one to three words, or unanswerable (one in five, where it is allowed)."""
    bounds = spans.word_bounds(spans.text_of(question, public))
    if allows_unanswerable(question) and (not bounds or rng.random() < 0.2):
        return {UNANSWERABLE: True}
    if not bounds:   # an empty passage and no unanswerable: nothing is an answer; the check will say so
        return {}
    first = rng.randrange(len(bounds))
    last = min(len(bounds) - 1, first + rng.randrange(3))
    return {"start": bounds[first][0], "end": bounds[last][1]}


def public_question(question: Question, payload: Mapping[str, Any]) -> dict[str, Any]:
    """What an API client needs: the passage field, whether whole words are required, the unanswerable box's
    words (null when not allowed), the answer's shape and the words' offsets."""
    text = spans.text_of(question, payload)
    return {"of": question.of, "whole_words": spans.rules_of(question).whole_words, UNANSWERABLE: question.none,
            "answer": '{"start": int, "end": int}: character offsets (code points, end exclusive) of one stretch'
                      + (', or {"unanswerable": true}' if allows_unanswerable(question) else ""),
            "words": [{"start": s, "end": e, "text": text[s:e]} for s, e in spans.word_bounds(text)]}


# --- gold -----------------------------------------------------------------------------------------------------

def _order(value: str) -> tuple[int, int, int]:
    """Stretches in text order, unanswerable last (how a tally lists them)."""
    start, sep, end = value.partition(":")
    if sep and start.isdigit() and end.isdigit():
        return 0, int(start), int(end)
    return 1, 0, 0


def tally_text(counts: Counter[str]) -> str:
    """The votes in words: each answer given with its count, most given first, then in text order."""
    return ", ".join(f"{value}: {count}" for value, count
                     in sorted(counts.items(), key=lambda pair: (-pair[1], _order(pair[0]))))


def decide(counts: Counter[str]) -> tuple[str, float]:
    """(gold, score): the answer most annotators gave and its share; a tie of the first places is undecided."""
    n = sum(counts.values())
    if n == 0:
        return UNDECIDED, math.nan
    top = max(counts.values())
    winners = [value for value, count in counts.items() if count == top]
    return (winners[0] if len(winners) == 1 else UNDECIDED), top / n


def question_gold(question: Question, votes: pd.DataFrame, asked: Callable[[str], bool],
                  items: Sequence[str]) -> list[tuple[Any, ...]]:
    """(item, question, unit, gold, n, score, votes) rows, one per item in label order: gold "<start>:<end>",
    "unanswerable", "undecided" on a tie, or "n/a" where the question was not asked (`when`), also when nobody
    answered it there."""
    found: list[tuple[Any, ...]] = []
    by_item: dict[str, Counter[str]] = {}
    for item, unit, value in zip(cells(votes["item"]), cells(votes["unit"]), cells(votes["value"])):
        if str(unit) == question.id:
            by_item.setdefault(item, Counter())[str(value)] += 1
    for item, counts in by_item.items():
        n = sum(counts.values())
        if not asked(item):
            found.append((item, question.id, question.id, NOT_ASKED, n, math.nan, tally_text(counts)))
            continue
        gold, score = decide(counts)
        found.append((item, question.id, question.id, gold, n, score, tally_text(counts)))
    if question.when:
        found += [(item, question.id, question.id, NOT_ASKED, 0, math.nan, "") for item in items
                  if item not in by_item and not asked(item)]
    return found


def gold_answer(rows: pd.DataFrame) -> dict[str, Any] | None:
    """One item's gold row as a known answer ({start, end} or {unanswerable: true}); None when undecided or not
    asked."""
    if rows.empty:
        return None
    gold = str(rows["gold"].iloc[0])
    if gold == UNANSWERABLE:
        return {UNANSWERABLE: True}
    kind, start, end = _order(gold)
    return {"start": start, "end": end} if kind == 0 else None


def gold_counts(question: Question, rows: pd.DataFrame) -> dict[str, int]:
    """The admin's summary: items whose gold is a stretch, unanswerable, undecided (and not asked)."""
    golds = [str(g) for g in rows["gold"]] if not rows.empty else []
    counts = {f"{question.id}: a stretch of {question.of}": sum(_order(g)[0] == 0 for g in golds)}
    if allows_unanswerable(question):
        counts[f"{question.id}: {UNANSWERABLE}"] = golds.count(UNANSWERABLE)
    counts[f"{question.id}: {UNDECIDED}"] = golds.count(UNDECIDED)
    if question.when:
        counts[f"{question.id}: {NOT_ASKED}"] = golds.count(NOT_ASKED)
    return counts


# --- agreement, control items and words -----------------------------------------------------------------------

def answer_texts(question: Question, labels: pd.DataFrame, rows: pd.DataFrame) -> list[str | None]:
    """The text of each of `rows` (the question's label rows), from the "<id>.text" rows of the same vote (item and
    annotator); None for an unanswerable answer (and for a row of `agreement: {not_asked: ...}`, which is no
    stretch: it counts as the empty answer)."""
    texts = labels[labels["field"] == text_field(question)]
    said = {(item, user): value for item, user, value in zip(texts["item"], texts["user_id"], texts["value"])}
    return [said.get((item, user), "") if _order(str(value))[0] == 0 else None
            for item, user, value in zip(rows["item"], rows["user_id"], rows["value"])]


def text_of_answer(question: Question, payload: Mapping[str, Any], answer: Any) -> str | None:
    """An answer's text (None: unanswerable, or not an answer); a stored answer carries it, a known one in an
    items file may not."""
    if not isinstance(answer, Mapping) or answer.get(UNANSWERABLE) is True:
        return None
    start, end = answer.get("start"), answer.get("end")
    if type(start) is not int or type(end) is not int:
        return None
    return str(answer["text"]) if isinstance(answer.get("text"), str) else spans.text_of(question, payload)[start:end]


def control_score(question: Question, payload: Mapping[str, Any], given: Any, known: Any) -> float:
    """The token F1 of the answer against the known one (SQuAD's, core/answer_text.py): 1 for the same words, 1
    when both are unanswerable, 0 when only one is."""
    if not isinstance(given, Mapping) or not isinstance(known, Mapping):
        return 0.0
    return token_f1(text_of_answer(question, payload, given), text_of_answer(question, payload, known))


def reference_words(question: Question, payload: Mapping[str, Any], known: Any) -> str:
    """A known answer in words: “Analytical Engine” (characters 36 to 53), or the unanswerable box's words."""
    if isinstance(known, Mapping) and known.get(UNANSWERABLE) is True:
        return f"unanswerable ({question.none or DEFAULT_CAPTION})"
    text = text_of_answer(question, payload, known)
    if text is None:
        return str(known)
    return f"“{text}” (characters {known['start']} to {known['end']})"


def stored_words(question: Question, payload: Mapping[str, Any], value: str) -> str:
    """A label row's value in words (the admin's items page): “Analytical Engine” (48:65), or unanswerable."""
    kind, start, end = _order(value)
    if kind != 0:
        return value_words(question).get(value, value)
    return f"“{spans.text_of(question, payload)[start:end]}” ({value})"


def value_words(question: Question) -> dict[str, str]:
    """A gold or vote value in words where it is not a stretch: "unanswerable" in the box's words."""
    return {UNANSWERABLE: f"Unanswerable ({question.none})"} if question.none else {}
