"""Labelled spans kept as units: the `spans` question kind of a declared campaign.

The annotator marks zero or more contiguous stretches of a shown text field, each with a label from the
question's declared set; a span is stored as character offsets of the field's text (code points, end exclusive)
and its label, `{"start": 0, "end": 10, "label": "PER"}`. It is the kind named-entity campaigns and ReCAM's
evidence spans (SemEval-2021 Task 4: one optional span in the article, one in the question) need; the older
`span` kind (a set of selected words, the emphasis task's probability per word) stays as it is.

Why a span is a unit and not a set of words: "John Smith" as one person and "John" and "Smith" as two select
the same words; gold, controls and the exported answers must tell them apart. So a vote gives label rows of two
shapes (field = the question's id), told apart by their unit:

  one per word of the field   unit "<start>:<end>" (the word's offsets), value: the label of the span that covers
                              it, "O" when none does; where spans may overlap, the labels of every span covering
                              it, in the declared order, joined by "+" ("LOC+ORG"). Agreement is measured on these.
  one per span marked         unit "<start>:<end>:<label>", value "1". Gold is decided on these.

Words are the field's runs of letters and digits (with inner hyphens, apostrophes and dots: "O'Brien", "U.S",
"3.5"; a leading @ or # kept: "@placeholder") and each other non-space character on its own ("Paris." is "Paris"
and "."), so a span never has to take in the full stop after a name. A list of tokens in the item is shown and
counted joined by single spaces.

With `edges: characters` (docs/declared-span-edges.md) a mark may start and end at any character, and the rows of
the first shape are one per character instead of one per word: unit "<start>:<end>" of the character, which is a
code point with the marks that combine with it ("é" written as e and U+0301 is one character; so is an emoji
sequence joined by U+200D), white space left out. An offset inside such a character is refused, and so is white
space at a mark's edge. `edges: code_points` takes both (any offset of the text, as an earlier tool's API did), with
the same rows: a character is in a mark when the mark covers any of it.

The definition keys, the API answer's checks, the gold rules and their ties are in docs/declared-spans.md; this
module is their code: the kind's keys (`kind_parts`, `gold_rule`, called by definition_checks), the answer check
and its label rows (`check`, by answers.py), gold (`question_gold`, by gold.py), agreement (`word_rows`,
`gold_units`), control items (`reference`, `overlap_score`, `reference_words`) and the HIT's view (`view`).
"""
from __future__ import annotations

import math
import random
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from annotator.core.columns import cells
from annotator.core.hit_values import AnswerError, LabelIn
from annotator.declared import markdown_text, span_attributes
from annotator.declared import shown as shown_kinds
from annotator.declared.definition import (
    NOT_ASKED,
    SPANS_DEFAULT_MAX,
    UNDECIDED,
    DefinitionError,
    GoldRule,
    OptionSpec,
    Question,
    Shown,
    SpanRules,
)
from annotator.declared.item_view import named as named_field
from annotator.declared.shown import DialogueSpec

if TYPE_CHECKING:
    import pandas as pd

    from annotator.declared.keys import Keys

KIND = "spans"
OUTSIDE = "O"                   # a word's value when no span covers it (the O of BIO tagging)
JOIN = "+"                      # the labels of overlapping spans that cover one word, in declared order
MAX_LABELS = 50
LABEL_LENGTH = 40
MAX_SPANS = 500                 # the most `max` may allow
DEFAULT_SHARE = 0.5
KEYS = ("of", "labels", "max", "whole_words", "overlap", "edges", *span_attributes.KEYS)
EDGES = ("words", "characters", "code_points")   # what a mark's edges fall on; the units of agreement
GOLD_KEYS = {"share": ("rule", "positive"), "agree": ("rule", "m")}
RESERVED_LABELS = (OUTSIDE, UNDECIDED, NOT_ASKED)
ANSWER_KEYS = ("start", "end", "label")
TURN_BREAK = "\n"              # between two turns of a dialogue field's text (docs/declared-spans.md, "Dialogue")
_WORD = re.compile(r"[@#]?\w+(?:['’.\-]\w+)*|[^\w\s]")


@dataclass(frozen=True, order=True)
class Span:
    """One marked stretch: character offsets (code points, end exclusive) and its label."""

    start: int
    end: int
    label: str

    @property
    def unit(self) -> str:
        return f"{self.start}:{self.end}:{self.label}"

    def as_answer(self) -> dict[str, Any]:
        return {"start": self.start, "end": self.end, "label": self.label}

    def overlaps(self, other: Span) -> bool:
        return self.start < other.end and other.start < self.end


def rules_of(question: Question) -> SpanRules:
    assert question.spans is not None, "a spans question always has its rules"
    return question.spans


# --- the text and its words -----------------------------------------------------------------------------------

def text_of(question: Question, payload: Mapping[str, Any]) -> str:
    """The field's text as the page shows it: a list of tokens joined by single spaces; a dialogue's turns, their
    texts joined by a line feed (TURN_BREAK: the offsets count it, and no mark may take it in); a Markdown field's
    blocks as a reader sees them (declared/markdown_text.py), joined the same way."""
    value = payload.get(question.of or "")
    if value is None:
        return ""
    rules = question.spans
    if rules is not None and rules.turns is not None:
        return TURN_BREAK.join(text for _, text in dialogue_turns(rules.turns, value))
    if rules is not None and rules.markdown:
        return TURN_BREAK.join(markdown_text.blocks(str(value)))
    if isinstance(value, list):
        return " ".join(str(token) for token in value)
    return str(value)


def dialogue_turns(turns: tuple[str, str], value: Any) -> list[tuple[str | None, str]]:
    """(speaker or None, text) of each turn of a dialogue field's value, as the display draws them; none for a
    value that is not a dialogue (the item's check refuses it at import: declared/shown.py)."""
    try:
        return shown_kinds.dialogue_turns(DialogueSpec(*turns), value)
    except ValueError:
        return []


def turn_of(text: str, at: int) -> int:
    """The 0-based turn (or Markdown block) of a joined text that offset `at` falls in."""
    return text.count(TURN_BREAK, 0, at)


def word_bounds(text: str) -> list[tuple[int, int]]:
    """(start, end) of every word of the text, in order (see the module's docstring for what a word is)."""
    return [(m.start(), m.end()) for m in _WORD.finditer(text)]


def _joins(char: str) -> bool:
    """Does this code point belong to the character before it (a combining mark, a variation selector, a skin tone,
    a zero-width joiner)?"""
    return unicodedata.category(char) in ("Mn", "Me", "Mc") or char == "\u200d" or "\ufe00" <= char <= "\ufe0f" \
        or "\U0001f3fb" <= char <= "\U0001f3ff"


def character_bounds(text: str) -> list[tuple[int, int]]:
    """(start, end) of every character of the text but white space: a code point with the code points that join it
    (combining marks, variation selectors, skin tones, and whatever follows a zero-width joiner)."""
    found: list[tuple[int, int]] = []
    at, size = 0, len(text)
    while at < size:
        if text[at].isspace():
            at += 1
            continue
        end = at + 1
        while end < size and (_joins(text[end]) or text[end - 1] == "\u200d" and not text[end].isspace()):
            end += 1
        found.append((at, end))
        at = end
    return found


def unit_bounds(question: Question, text: str) -> list[tuple[int, int]]:
    """The units a vote gives a row each (agreement's units): the words, or the characters with `edges: characters`."""
    return character_bounds(text) if rules_of(question).characters else word_bounds(text)


@dataclass(frozen=True)
class Piece:
    """A stretch of the shown text: a word (its offsets and index) or the white space between two words."""

    text: str
    start: int
    end: int
    index: int | None       # the word's position; None for the space between words
    chars: tuple[tuple[str, int, int], ...] = ()   # `edges: characters`: the word's characters (text, start, end)


@dataclass(frozen=True)
class TurnPieces:
    """One turn of a dialogue field, drawn as the display draws it (its speaker on one of two sides), or one block
    of a Markdown field (no speaker), in pieces."""

    speaker: str | None
    side: int
    pieces: tuple[Piece, ...]


@dataclass(frozen=True)
class SpansView:
    """What the HIT's partial (templates/hits/_declared_spans.html) draws of one spans question: the text in pieces,
    or, for a dialogue field, each turn's pieces (`turns`; the pieces of the whole text then too)."""

    pieces: tuple[Piece, ...]
    labels: tuple[OptionSpec, ...]
    rules: SpanRules
    turns: tuple[TurnPieces, ...] | None = None

    @property
    def attributes(self) -> list[dict[str, Any]]:
        """The declared attributes as the script reads them: [{id, label, values: [[value, label], ...]}]."""
        return [{"id": a.id, "label": a.label, "values": [[v.value, v.label] for v in a.values]}
                for a in self.rules.attributes]


def view(question: Question, payload: Mapping[str, Any]) -> SpansView:
    text = text_of(question, payload)
    rules = rules_of(question)
    characters = character_bounds(text) if rules.characters else []
    pieces: list[Piece] = []
    at = 0
    for index, (start, end) in enumerate(word_bounds(text)):
        if start > at:
            pieces.append(Piece(text[at:start], at, start, None))
        chars = tuple((text[s:e], s, e) for s, e in characters if start <= s and e <= end)
        pieces.append(Piece(text[start:end], start, end, index, chars))
        at = end
    if at < len(text):
        pieces.append(Piece(text[at:], at, len(text), None))
    if rules.parts is None:
        return SpansView(tuple(pieces), rules.labels, rules)
    turns = (dialogue_turns(rules.turns, payload.get(question.of or "")) if rules.turns is not None
             else [(None, block) for block in text.split(TURN_BREAK)] if text else [])
    speakers = list(dict.fromkeys(speaker for speaker, _ in turns if speaker is not None))
    drawn, start = [], 0
    for speaker, turn in turns:
        end = start + len(turn)
        # a gap piece holding TURN_BREAK lies between two turns: it is drawn as the turns' own edges instead
        inside = tuple(piece for piece in pieces if start <= piece.start and piece.end <= end)
        drawn.append(TurnPieces(speaker, speakers.index(speaker) % 2 if speaker is not None else 0, inside))
        start = end + len(TURN_BREAK)
    return SpansView(tuple(pieces), rules.labels, rules, tuple(drawn))


# --- the definition -------------------------------------------------------------------------------------------

def kind_parts(keys: Keys, fields: Mapping[str, Shown]) -> dict[str, Any]:
    """`of`, `labels`, `max`, `whole_words`, `overlap` of a spans question, checked (definition_checks calls it)."""
    of = named_field(keys, "of")
    # blanks: ReCAM's evidence; dialogue, markdown: marks within a turn, a block (TURN_BREAK)
    texts = [name for name, s in fields.items() if s.kind in ("text", "title", "blanks", "dialogue", "markdown")]
    if of not in texts:
        raise DefinitionError(keys.at("of"), f"{of!r} must be a shown field drawn as text, title, markdown or "
                                             f"dialogue ({', '.join(texts) or 'show has none'})")
    spec = fields[of].spec
    turns = (spec.text, spec.speaker) if isinstance(spec, DialogueSpec) else None
    entries = keys.listed("labels", required=True)
    if not entries:
        raise DefinitionError(keys.at("labels"), "must list at least one label (a single one is fine: "
                                                 "labels: [evidence])")
    if len(entries) > MAX_LABELS:
        raise DefinitionError(keys.at("labels"), f"lists {len(entries)} labels; at most {MAX_LABELS}")
    labels: list[OptionSpec] = []
    for index, entry in enumerate(entries):
        path = f"{keys.at('labels')}[{index}]"
        value, caption, path = _label(entry, path)
        if any(label.value == value for label in labels):
            raise DefinitionError(path, f"{value!r} is listed twice")
        labels.append(OptionSpec(value, caption or value))
    most = int(keys.number("max", SPANS_DEFAULT_MAX, low=1, high=MAX_SPANS, integer=True))
    edges = keys.text("edges", "words")
    if edges not in EDGES:
        raise DefinitionError(keys.at("edges"), f"{edges[:40]!r} is not what a mark's edges fall on: words (the "
                                                "default), characters or code_points")
    if edges != "words" and keys.has("whole_words"):
        raise DefinitionError(keys.at("whole_words"), f"is a key of edges: words; with edges: {edges} a mark "
                                                      "starts and ends at any character already")
    whole_words = keys.flag("whole_words", True) if edges == "words" else False
    return {"of": of, "spans": SpanRules(tuple(labels), most, whole_words, keys.flag("overlap", False), edges,
                                         **span_attributes.parts(keys),   # attributes, score: span_attributes.py
                                         turns=turns, markdown=fields[of].kind == "markdown")}


def _label(entry: Any, path: str) -> tuple[str, str, str]:
    """(value, caption, key path of the value) of one entry of `labels`: text, or {value, label}."""
    caption = ""
    if isinstance(entry, dict):
        unknown = [key for key in entry if key not in ("value", "label")]
        if unknown:
            raise DefinitionError(f"{path}.{unknown[0]}", "unknown key; known here: value, label")
        if entry.get("label") is not None:
            caption = _plain(entry["label"], f"{path}.label", 200)
        path = f"{path}.value"
        if entry.get("value") is None:
            raise DefinitionError(path, "is required")
        entry = entry["value"]
    value = _plain(entry, path, LABEL_LENGTH)
    if not value.strip() or value != value.strip():
        raise DefinitionError(path, f"{value!r}: a label's value must not be blank nor start or end with a space")
    if value in RESERVED_LABELS:
        why = "what a word outside every span is" if value == OUTSIDE else "what gold says when it is not decided"
        raise DefinitionError(path, f"{value!r} is {why}; name the label otherwise")
    if JOIN in value:
        raise DefinitionError(path, f"{value!r}: a label's value cannot hold {JOIN!r}, which joins the labels of "
                                    "overlapping spans on one word")
    return value, caption, path


def _plain(value: Any, path: str, limit: int) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        what = "true/false; quote it" if isinstance(value, bool) else f"a {type(value).__name__}"
        raise DefinitionError(path, f"must be text, not {what}")
    text = str(value)
    if len(text) > limit:
        raise DefinitionError(path, f"is {len(text)} characters long; at most {limit}")
    if "\x00" in text or any("\ud800" <= c <= "\udfff" for c in text):
        raise DefinitionError(path, "holds a NUL character or a lone surrogate; remove it")
    return text


def gold_rule(gold: Keys, rule: str, k: int | None) -> GoldRule:
    """A spans question's gold: `share` (a span is gold when at least `positive` of the item's annotators marked
    exactly it; default 0.5) or `agree` (when at least `m` did; default 2)."""
    allowed = GOLD_KEYS[rule]
    for key in gold.data:
        if key not in allowed:
            raise DefinitionError(gold.at(key), f"the {rule} rule of a spans question has no {key!r}; its keys: "
                                                f"{', '.join(allowed)} (a span is gold or not: there is no "
                                                "negative share, value or otherwise)")
    if rule == "share":
        positive = gold.number("positive", DEFAULT_SHARE, low=0, high=1)
        if positive == 0:
            raise DefinitionError(gold.at("positive"), "must be above 0: at 0 every span anyone marked, and every "
                                                       "one nobody marked, would be gold")
        return GoldRule(rule="share", positive=positive)
    m = int(gold.number("m", 2, low=1, high=100, integer=True))
    if k is not None and m > k:
        raise DefinitionError(gold.at("m" if gold.has("m") else "rule"),
                              f"m ({m}) is more than the k ({k}) annotators an item gets; at most {k}")
    return GoldRule(rule="agree", m=m)


# --- answers --------------------------------------------------------------------------------------------------

def check(question: Question, payload: Mapping[str, Any], value: Any,
          presentation: Mapping[str, Any]) -> tuple[Any, list[LabelIn]]:
    """The answer as stored (spans in text order) and its label rows; AnswerError names the span and what is
    wrong: "entities: span 2: end 57 is past the end of text (52 characters)"."""
    rules = rules_of(question)
    qid = question.id
    text = text_of(question, payload)
    shape = 'a list of spans {"start": int, "end": int, "label": text} ([] for none)'
    if not isinstance(value, list):
        raise AnswerError(f"{qid}: must be {shape}")
    if len(value) > rules.most:
        raise AnswerError(f"{qid}: marks {len(value)} spans; at most {rules.most}")
    if not value and question.required:
        raise AnswerError(f"{qid}: mark at least one span (the question is required)")
    bounds = word_bounds(text)
    starts, ends = {s for s, _ in bounds}, {e for _, e in bounds}
    units = character_bounds(text) if rules.characters else bounds
    spans: list[Span] = []
    values: dict[Span, dict[str, str]] = {}   # each mark's attribute values (span_attributes.py)
    for number, entry in enumerate(value, start=1):
        where = f"{qid}: span {number}"
        span = _span(entry, where, text, rules, shape)
        values[span] = span_attributes.mark_values(rules, entry, where) if rules.attributes else {}
        if rules.characters and not rules.any_offset:
            _inside_a_character(units, span, where, text)
        if rules.parts is not None and TURN_BREAK in text[span.start:span.end]:
            part = rules.parts
            raise AnswerError(f"{where}: runs from {part} {turn_of(text, span.start) + 1} into {part} "
                              f"{turn_of(text, span.end) + 1} of {question.of}; a mark stays within one {part}")
        if rules.whole_words and (span.start not in starts or span.end not in ends):
            edge = "start" if span.start not in starts else "end"
            raise AnswerError(f"{where}: {edge} {getattr(span, edge)} is not at the {edge} of a word of {question.of} "
                              f"(the spans of this question cover whole words: {_near(bounds, span, edge)})")
        for before, other in enumerate(spans, start=1):
            if other == span:
                raise AnswerError(f"{where}: is span {before} again")
            if not rules.overlap and other.overlaps(span):
                raise AnswerError(f"{where}: overlaps span {before} ({other.start} to {other.end}); the spans of "
                                  "this question may not share a character")
        spans.append(span)
    order = {label: n for n, label in enumerate(rules.values())}
    spans.sort(key=lambda s: (s.start, s.end, order[s.label]))
    if not rules.attributes:
        return [s.as_answer() for s in spans], rows(question, units, spans)
    return ([{**s.as_answer(), **values[s]} for s in spans],
            rows(question, units, spans) + span_attributes.rows(question, rules, [(s.unit, values[s]) for s in spans]))


def _inside_a_character(characters: Sequence[tuple[int, int]], span: Span, where: str, text: str) -> None:
    """Refuse an edge that splits a character (a letter from its combining mark, an emoji sequence)."""
    for edge, at in (("start", span.start), ("end", span.end)):
        for start, end in characters:
            if start < at < end:
                raise AnswerError(f"{where}: {edge} {at} falls inside the character {text[start:end]!r} (characters "
                                  f"{start} to {end}: a letter with the marks that combine with it, or one emoji); "
                                  f"the {edge} may be {start} or {end}")


def _span(entry: Any, where: str, text: str, rules: SpanRules, shape: str) -> Span:
    if not isinstance(entry, dict):
        raise AnswerError(f"{where}: must be an object {{\"start\", \"end\", \"label\"}}; the answer is {shape}")
    missing = [key for key in ANSWER_KEYS if key not in entry]
    unknown = sorted(str(key) for key in entry if key not in (*ANSWER_KEYS, "text", *span_attributes.mark_keys(rules)))
    if missing or unknown:
        said = "; ".join(part for part in (f"missing {', '.join(missing)}" if missing else "",
                                           f"unknown {', '.join(unknown)}" if unknown else "") if part)
        raise AnswerError(f"{where}: must be an object {{\"start\", \"end\", \"label\"}} (and optionally \"text\") "
                          f"({said})")
    start, end, label = entry["start"], entry["end"], entry["label"]
    for key, number in (("start", start), ("end", end)):
        if type(number) is not int:
            raise AnswerError(f"{where}: {key} must be a whole number (a character offset), not {str(number)[:20]!r}")
    if not 0 <= start < end <= len(text):
        raise AnswerError(f"{where}: [{start}, {end}) is not a stretch of the text: it needs 0 <= start < end <= "
                          f"{len(text)} (characters, end exclusive)")
    if not isinstance(label, str) or label not in rules.values():
        raise AnswerError(f"{where}: {str(label)[:40]!r} is not one of the labels "
                          f"{', '.join(map(repr, rules.values()))}")
    stretch = text[start:end]
    if stretch != stretch.strip() and not rules.any_offset:
        raise AnswerError(f"{where}: {stretch[:40]!r} starts or ends with white space; mark the text only")
    if "text" in entry and entry["text"] != stretch:
        raise AnswerError(f"{where}: \"text\" is {str(entry['text'])[:40]!r} but characters {start} to {end} are "
                          f"{stretch[:40]!r} (offsets count code points, not UTF-16 units or bytes)")
    return Span(start, end, label)


def _near(bounds: Sequence[tuple[int, int]], span: Span, edge: str) -> str:
    """The word edges nearest to the offset given, as a hint."""
    at = span.start if edge == "start" else span.end
    edges = sorted({s if edge == "start" else e for s, e in bounds}, key=lambda n: (abs(n - at), n))
    return f"the nearest word {edge}s are {', '.join(map(str, sorted(edges[:2])))}" if edges else "it has no word"


def rows(question: Question, bounds: Sequence[tuple[int, int]], spans: Sequence[Span]) -> list[LabelIn]:
    """The label rows of a checked answer: one per word (its label, "O" for none), then one per span ("1"). The
    bounds are the units: the words, or the characters with `edges: characters` (unit_bounds)."""
    order = {label: n for n, label in enumerate(rules_of(question).values())}
    found = []
    for start, end in bounds:
        covering = sorted({s.label for s in spans if s.start < end and start < s.end}, key=order.__getitem__)
        found.append(LabelIn(f"{start}:{end}", question.id, JOIN.join(covering) or OUTSIDE))
    return found + [LabelIn(s.unit, question.id, "1") for s in spans]


def example_answer(question: Question, public: Mapping[str, Any], rng: random.Random) -> list[dict[str, Any]]:
    """A valid answer drawn at random: up to three spans of one to three words, apart from each other. A "word" whose
    edge splits a character (a letter and its combining mark written apart: "cafe\u0301", which `\\w` splits) is
    never an edge, as the answer's check refuses that."""
    text = text_of(question, public)
    characters = character_bounds(text)
    starts, ends = {start for start, _ in characters}, {end for _, end in characters}
    bounds = [(start, end) for start, end in word_bounds(text) if start in starts and end in ends]
    rules = rules_of(question)
    spans: list[Span] = []
    for _ in range(rng.randint(0 if not question.required else 1, 3)):
        if not bounds or len(spans) >= rules.most:
            break
        first = rng.randrange(len(bounds))
        last = min(len(bounds) - 1, first + rng.randrange(3))
        span = Span(bounds[first][0], bounds[last][1], rng.choice(rules.values()))
        if not any(span.overlaps(other) for other in spans):
            spans.append(span)
    if question.required and not spans and bounds:
        spans.append(Span(bounds[0][0], bounds[0][1], rules.values()[0]))
    return [{**s.as_answer(), **{a.id: rng.choice(a.value_names()) for a in rules.attributes}} for s in sorted(spans)]


def public_question(question: Question, payload: Mapping[str, Any]) -> dict[str, Any]:
    """What an API client needs to answer: the field, labels, limits and the words' offsets."""
    rules = rules_of(question)
    text = text_of(question, payload)
    return {"of": question.of, "labels": [{"value": o.value, "label": o.label} for o in rules.labels],
            "max": rules.most, "whole_words": rules.whole_words, "overlap": rules.overlap, "edges": rules.edges,
            "words": [{"start": s, "end": e, "text": text[s:e]} for s, e in word_bounds(text)],
            **_attributes_part(rules)}


def _attributes_part(rules: SpanRules) -> dict[str, Any]:
    """The declared attributes and score, for an API client; nothing where none is declared (the shape stays)."""
    if not rules.attributes:
        return {}
    part: dict[str, Any] = {"attributes": [{"id": a.id, "label": a.label, "values": [
        {"value": v.value, "label": v.label} for v in a.values]} for a in rules.attributes]}
    if rules.score is not None:
        part["score"] = {"rule": rules.score.rule, "attribute": rules.score.attribute,
                         "weights": dict(rules.score.weights)}
    return part


# --- label rows: spans and words ------------------------------------------------------------------------------

def is_word_unit(unit: Any) -> bool:
    """A word row's unit is "<start>:<end>"; a span row's "<start>:<end>:<label>"."""
    parts = str(unit).split(":")
    return len(parts) == 2 and parts[0].isdigit() and parts[1].isdigit()


def span_of(unit: Any) -> Span | None:
    """The span a span row's unit names, or None for a word row."""
    start, sep, rest = str(unit).partition(":")
    end, sep2, label = rest.partition(":")
    if not (sep and sep2 and start.isdigit() and end.isdigit() and label):
        return None
    return Span(int(start), int(end), label)


def word_rows(rows: pd.DataFrame) -> pd.DataFrame:
    """The word rows of a spans question's label rows (what agreement is measured on)."""
    return rows[rows["unit"].map(is_word_unit).astype(bool)]   # a Series: an empty list would pick columns


# --- gold -----------------------------------------------------------------------------------------------------

def question_gold(question: Question, votes: pd.DataFrame, asked: Callable[[str], bool]) -> list[tuple[Any, ...]]:
    """(item, question, unit, gold, n, score, votes) rows of one spans question, items in label order.

    Per item, first one row per span anyone marked (unit "<start>:<end>:<label>"): gold "1" when it reaches the
    rule (share: at least `positive` of the n annotators marked exactly it; agree: at least m) and no overlapping
    span marked by more annotators also reaches it; "undecided" when an overlapping span marked by as many does
    (a tie: neither is gold); "0" otherwise. Spans of a question with `overlap: true` are never in conflict.
    Score: the share of the n annotators who marked it. Then one row per word (unit "<start>:<end>"): the label
    of the gold span(s) covering it, "O" when none does, "undecided" when an undecided span covers it; score: the
    share of annotators whose own label of the word is that gold (none when undecided). n is the annotators who
    answered the question. An item where the question was not asked (`when`) has "n/a" everywhere.
    """
    assert question.gold is not None
    rule = question.gold
    found: list[tuple[Any, ...]] = []
    for item, (words, marks) in _by_item(votes).items():
        n = len({user for values in words.values() for user, _ in values})
        marked = {span: len(users) for span, users in marks.items()}
        decided = _decide(marked, n, rule, rules_of(question).overlap)
        not_asked = not asked(item)
        for span, count in sorted(marked.items(), key=lambda pair: (pair[0].start, pair[0].end, pair[0].label)):
            gold = NOT_ASKED if not_asked else decided[span]
            found.append((item, question.id, span.unit, gold, n, count / n if n and not not_asked else math.nan,
                          f"1: {count}, 0: {n - count}"))
        order = {label: number for number, label in enumerate(rules_of(question).values())}
        for unit, given in words.items():
            start, _, end = unit.partition(":")
            word = Span(int(start), int(end), "")
            gold = NOT_ASKED if not_asked else _word_gold(word, decided, order)
            tally = Counter(value for _, value in given)
            agreeing = tally.get(gold, 0)
            score = agreeing / n if n and gold not in (UNDECIDED, NOT_ASKED) else math.nan
            found.append((item, question.id, unit, gold, n, score,
                          ", ".join(f"{value}: {count}" for value, count in _tally_order(tally, order))))
    return found


def _by_item(votes: pd.DataFrame) -> dict[str, tuple[dict[str, list[tuple[Any, str]]], dict[Span, set[Any]]]]:
    """item -> ({word unit: [(annotator, value)]}, {span: annotators who marked it}), in label order."""
    found: dict[str, tuple[dict[str, list[tuple[Any, str]]], dict[Span, set[Any]]]] = {}
    users = votes["user_id"].tolist() if "user_id" in votes else list(range(len(votes)))
    for item, unit, value, user in zip(cells(votes["item"]), cells(votes["unit"]), cells(votes["value"]), users):
        words, marks = found.setdefault(item, ({}, {}))
        span = span_of(unit)
        if span is not None:
            marks.setdefault(span, set()).add(user)
        elif is_word_unit(unit):
            words.setdefault(str(unit), []).append((user, str(value)))
    return found


def _reaches(count: int, n: int, rule: GoldRule) -> bool:
    if n == 0:
        return False
    if rule.rule == "agree":
        return count >= rule.m
    return count / n >= rule.positive


def _decide(marked: Mapping[Span, int], n: int, rule: GoldRule, overlap: bool) -> dict[Span, str]:
    """Each marked span's gold: "1", "0" or "undecided" (see question_gold). Spans that reach the rule are taken
    by how many marked them, most first; one that overlaps a span already taken (or left undecided) by more
    annotators is "0"; two that overlap each other with the same count are both "undecided"."""
    decided = {span: "0" for span in marked}
    reaching = [span for span, count in marked.items() if _reaches(count, n, rule)]
    if overlap:
        return {**decided, **{span: "1" for span in reaching}}
    settled: list[Span] = []
    for count in sorted({marked[span] for span in reaching}, reverse=True):
        group = [span for span in reaching if marked[span] == count
                 and not any(span.overlaps(other) for other in settled)]
        for span in group:
            tied = any(span.overlaps(other) for other in group if other != span)
            decided[span] = UNDECIDED if tied else "1"
        settled += group
    return decided


def _word_gold(word: Span, decided: Mapping[Span, str], order: Mapping[str, int]) -> str:
    covering = [span for span, gold in decided.items() if gold in ("1", UNDECIDED) and span.overlaps(word)]
    if any(decided[span] == UNDECIDED for span in covering):
        return UNDECIDED
    labels = sorted({span.label for span in covering}, key=lambda label: order.get(label, len(order)))
    return JOIN.join(labels) or OUTSIDE


def _tally_order(tally: Counter[str], order: Mapping[str, int]) -> list[tuple[str, int]]:
    """A word's votes: "O" first, then labels in declared order (joined labels after)."""
    return sorted(tally.items(), key=lambda pair: (pair[0] != OUTSIDE, order.get(pair[0], len(order)), pair[0]))


def gold_spans(rows: pd.DataFrame) -> list[dict[str, Any]] | None:
    """The gold spans of one item's rows of a spans question as an answer; None when a span is undecided or the
    question was not asked there (then there is no one known answer)."""
    spans = []
    for unit, gold in zip(rows["unit"], rows["gold"]):
        span = span_of(unit)
        if gold in (UNDECIDED, NOT_ASKED):
            return None
        if span is not None and str(gold) == "1":
            spans.append(span)
    return [s.as_answer() for s in sorted(spans)]


def gold_units(rows: pd.DataFrame) -> pd.Series:
    """Per word ("<item> / <start>:<end>", as the agreement field names it), its decided gold label."""
    import pandas as pd

    kept = [(f"{item} / {unit}", str(gold)) for item, unit, gold in zip(rows["item"], rows["unit"], rows["gold"])
            if is_word_unit(unit) and gold not in (UNDECIDED, NOT_ASKED)] if not rows.empty else []
    return pd.Series([gold for _, gold in kept], index=[name for name, _ in kept], dtype=object)


def gold_counts(question: Question, rows: pd.DataFrame) -> dict[str, int]:
    """The admin's summary: spans that are gold, not gold, undecided (and not asked), and words per gold label."""
    qid = question.id
    spans = [str(g) for u, g in zip(rows["unit"], rows["gold"]) if span_of(u) is not None] if not rows.empty else []
    words = [str(g) for u, g in zip(rows["unit"], rows["gold"]) if is_word_unit(u)] if not rows.empty else []
    counts = {f"{qid}: gold spans": spans.count("1"), f"{qid}: spans not gold": spans.count("0"),
              f"{qid}: {UNDECIDED} spans": spans.count(UNDECIDED)}
    if question.when:
        counts[f"{qid}: {NOT_ASKED}"] = spans.count(NOT_ASKED) + words.count(NOT_ASKED)
    tally = Counter(words)
    units = "characters" if rules_of(question).characters else "words"
    for label in rules_of(question).values():
        counts[f"{qid}: {units} {label}"] = sum(c for v, c in tally.items() if label in v.split(JOIN))
    counts[f"{qid}: {units} {OUTSIDE}"] = tally.get(OUTSIDE, 0)
    return counts


# --- control items --------------------------------------------------------------------------------------------

def overlap_score(given: Any, known: Any) -> float:
    """How right a spans answer is against the known one: exact spans in common / spans in either (Jaccard; 1 when
    both are empty). A span counts only with its exact offsets and label: one word too many is a miss."""
    chosen, right = _as_set(given), _as_set(known)
    union = chosen | right
    return 1.0 if not union else len(chosen & right) / len(union)


def _as_set(value: Any) -> set[tuple[Any, Any, Any]]:
    if not isinstance(value, list):
        return set()
    return {(s.get("start"), s.get("end"), s.get("label")) for s in value if isinstance(s, Mapping)}


def reference_words(question: Question, payload: Mapping[str, Any], known: Any) -> str:
    """A known answer in words: “John Smith” (Person), “Paris” (Location); or "no span"."""
    text = text_of(question, payload)
    rules = rules_of(question)
    parts = [f"“{text[s['start']:s['end']]}” ({rules.caption(str(s.get('label')))})" for s in known
             if isinstance(s, Mapping) and isinstance(s.get("start"), int) and isinstance(s.get("end"), int)] \
        if isinstance(known, list) else []
    return ", ".join(parts) if parts else "no span"


# --- the admin's words ----------------------------------------------------------------------------------------

def value_words(question: Question) -> dict[str, str]:
    """Stored values in words: a label's caption, "outside every span" for O, marked / not marked for a span."""
    rules = rules_of(question)
    return {OUTSIDE: "outside every span", "1": "marked", "0": "not marked",
            **{label.value: label.label for label in rules.labels}}


def unit_words(question: Question, payload: Mapping[str, Any], unit: str) -> str | None:
    """A gold row's unit in words: “Paris” (characters 10 to 15), or “John Smith” as Person (characters 0 to 10)."""
    text = text_of(question, payload)
    span = span_of(unit)
    if span is not None:
        return f"“{text[span.start:span.end]}” as {rules_of(question).caption(span.label)} " \
               f"(characters {span.start} to {span.end})"
    if is_word_unit(unit):
        start, _, end = unit.partition(":")
        return f"“{text[int(start):int(end)]}” (characters {start} to {end})"
    return None
