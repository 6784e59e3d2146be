"""A declared campaign's definition: what the HIT shows, what it asks, and how gold and agreement are derived.

An organiser writes it as a YAML (or JSON) file; `definition_reader.definition_from_text` checks all of it before
anything is stored and names the key path and line of the first problem (`questions[2].gold.positive: must be
between 0 and 1, line 14`). The checked definition is kept on the project as plain data (`Definition.to_data`), and
read back without the lines by `definition_reader.definition_from_data`, which runs the same checks: a definition in
the database is always one the validator accepted.

The shape is documented in docs/declared-campaigns.md; this module is its single
reference: what a definition is (its types and limits). Reading (YAML or JSON, lines, guidelines file) and the
top-level keys are in definition_reader.py; the checks of each question (its kind's keys, `when`, gold rule,
agreement) are in definition_checks.py and the kinds' own modules, which read this one.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from annotator.core.stopping import Stopping
from annotator.declared import paths

KINDS = ("choice", "multi", "scale", "span", "pairwise", "text", "spans", "ranking", "best_worst", "extractive",
         "distribution", "relations")
SHOW_AS = ("text", "title", "markdown", "image_url",
           "blanks", "list", "highlighted", "table", "dialogue")  # the last five: shown.py
LEVELS = ("nominal", "ordinal", "interval")
RULES = {
    "choice": ("majority", "share", "agree", "dawid_skene", "median"),   # median: an ordinal choice (option_values.py)
    "multi": ("majority", "share", "agree", "dawid_skene"),
    "scale": ("median", "mean", "majority", "agree"),
    "span": ("probability", "share"),
    "pairwise": ("bradley_terry", "majority", "dawid_skene", "mean_grade"),   # mean_grade: graded only (graded.py)
    "text": (),
    "spans": ("share", "agree"),           # annotator/declared/spans.py: a span is gold or not
    "ranking": ("mean_rank", "borda"),     # annotator/declared/ranking.py: each option's place in the consensus
    "best_worst": ("counting",),           # annotator/declared/best_worst.py: (best - worst) / appearances
    "extractive": ("majority",),           # annotator/declared/extractive.py: the most chosen answer, exactly
    "distribution": ("mean",),             # annotator/declared/distribution.py: the mean share, and its argmax
    "relations": ("share", "agree"),       # annotator/declared/relations.py: a relation is gold or not
}
# The categorical kinds: those a Dawid-Skene rule may decide, whose annotator model the admin pages and the
# export show per item (analysis/aggregation.py).
CATEGORICAL = tuple(kind for kind, rules in RULES.items() if "dawid_skene" in rules)
DEFAULT_RULE = {"choice": "majority", "multi": "majority", "scale": "median", "span": "probability",
                "pairwise": "bradley_terry", "spans": "share", "ranking": "mean_rank",
                "best_worst": "counting", "extractive": "majority", "distribution": "mean",
                "relations": "share"}
DEFAULT_LEVEL = {"choice": "nominal", "multi": "nominal", "scale": "interval", "span": "nominal",
                 "pairwise": "nominal", "spans": "nominal", "ranking": "ordinal",
                 "best_worst": "ordinal", "extractive": "nominal", "distribution": "interval",
                 "relations": "nominal"}
UNDECIDED = "undecided"
NOT_ASKED = "n/a"             # gold of a `when` question whose condition the earlier question's gold does not meet
PAIRWISE_VALUES = ("A", "B", "equal")
IDENTIFIER = re.compile(r"^[a-z][a-z0-9_]{0,39}\Z")   # \Z: "$" would let a final newline through
FIELD_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,59}\Z")
FIELD_PATH = paths.PATTERN     # a field name, or a key path into it (key_point.text: annotator/declared/paths.py)
PATH_WHAT = "a field name or a key path into one (letters, digits and _; key_point.text, systems.0)"
SIDES = "sides"                # the public item's key for each pairwise question's two sides, as shown
# Names an item field cannot have, and why: the public item (the HIT's and the API's) uses them.
RESERVED_FIELDS = {"id": "the item's id", SIDES: "where the HIT gives each pairwise question's two sides"}
MAX_QUESTIONS = 60
MAX_OPTIONS = 200
MAX_DEPTH = 20                 # mappings and lists inside each other; a definition needs 5
# The most bytes a definition file, and the guidelines file it names, may have (config DEFINITION_MAX_BYTES),
# checked before either is read: YAML is parsed in Python, and 20 MB took 30 s, longer than a web worker lives.
MAX_BYTES = 256 * 1024
QUOTE_YES_NO = '; quote "yes" and "no", which YAML reads as true/false'


class DefinitionError(ValueError):
    """A definition that cannot be used: `path` is the key path (questions[2].gold.positive), `line` where it is."""

    def __init__(self, path: str, message: str, line: int | None = None, source: str | None = None,
                 column: int | None = None):
        self.path, self.message, self.line, self.source, self.column = path, message, line, source, column
        where = (f", line {line}" if line is not None else "") + (f", column {column}" if column is not None else "")
        prefix = f"{source}: " if source else ""
        super().__init__(f"{prefix}{path or 'the definition'}: {message}{where}")


@dataclass(frozen=True)
class Shown:
    """One field of the item shown to the annotator, in order; `as` says how it is drawn."""

    field: str
    kind: str = "text"           # the YAML key `as`
    label: str = ""
    spec: Any = None             # a display kind's settings (annotator/declared/shown.py), None for the plain kinds
    reads: tuple[str, ...] = ()  # other item fields the kind draws from (a highlighted text's highlights)


@dataclass(frozen=True)
class OptionSpec:
    """An answer offered: its stored value, the words shown, and an optional sentence shown under it (the HIT reads
    it out with the option through aria-describedby: docs/declared-options.md)."""

    value: str
    label: str
    description: str = ""


@dataclass(frozen=True)
class Decision:
    """A further decision per unit from a question's votes (`gold.also`, annotator/declared/also.py): whether the
    answer is one of `values`, decided by `rule` as a multi question's option is ("1" / "0"); a gold column `name`."""

    name: str
    values: tuple[str, ...]
    rule: GoldRule
    known: bool = False   # where "1", a control item's known answer of the question is the one value (also.py)


@dataclass(frozen=True)
class GoldRule:
    """How one question's gold is derived. Fields not used by `rule` keep their defaults."""

    rule: str
    ties: str = UNDECIDED        # majority: what a tie gives (undecided, or an option's value)
    value: str | None = None     # share / agree: the option counted (share of choice; agree's "value at least m")
    positive: float = 0.6        # share: gold positive at or above this share
    negative: float = 0.15       # share: negative at or below; undecided between
    m: int = 2                   # agree: at least m annotators
    otherwise: str = UNDECIDED   # agree: what gold is when no value reaches m
    strict: bool = False         # majority: only more than half decides; anything less gives `ties` (groups.py)
    groups: tuple[tuple[str, tuple[str, ...]], ...] = ()  # majority: (option, options counted as it) (groups.py)
    also: tuple[Decision, ...] = ()  # further named decisions per unit from the same votes (declared/also.py)


SPANS_DEFAULT_MAX = 100          # a spans question's `max` when it gives none (declared/spans.py)


@dataclass(frozen=True)
class SpanAttribute:
    """A declared attribute every mark of a spans question carries (`attributes`: severity minor / major /
    critical), its values in order (declared/span_attributes.py)."""

    id: str
    label: str
    values: tuple[OptionSpec, ...]

    def value_names(self) -> tuple[str, ...]:
        return tuple(v.value for v in self.values)


@dataclass(frozen=True)
class SpanScore:
    """A spans question's `score`: the named rule (`mqm`) that sums, per vote, the weight of each mark's value of
    `attribute` (declared/span_attributes.py)."""

    rule: str
    attribute: str
    weights: tuple[tuple[str, float], ...]


@dataclass(frozen=True)
class SpanRules:
    """A spans question's own keys: its labels, at most `most` spans (`max`), whether offsets must fall on word
    boundaries (`whole_words`), whether two spans may share a character (`overlap`) and what a mark's edges fall
    on (`edges`: "words", "characters", any character of the text, or "code_points", any offset; docs/
    declared-span-edges.md)."""

    labels: tuple[OptionSpec, ...]
    most: int = SPANS_DEFAULT_MAX
    whole_words: bool = True
    overlap: bool = False
    edges: str = "words"
    attributes: tuple[SpanAttribute, ...] = ()   # each mark's declared attributes (declared/span_attributes.py)
    score: SpanScore | None = None               # an MQM-style score of each vote from the attributes' weights
    turns: tuple[str, str] | None = None         # `of` a dialogue: its turn objects' text and speaker keys
    markdown: bool = False                       # `of` a Markdown field: its rendered text, block by block

    @property
    def parts(self) -> str | None:
        """What a mark stays within, where the field's text comes in parts: "turn" (a dialogue), "block" (Markdown)."""
        return "turn" if self.turns is not None else "block" if self.markdown else None

    @property
    def characters(self) -> bool:
        """Marks start and end at any character, and agreement is per character (`edges: characters`, and
        `code_points`, whose marks the HIT makes alike)."""
        return self.edges in ("characters", "code_points")

    @property
    def any_offset(self) -> bool:
        """A mark may start or end at any offset of the text (`edges: code_points`): with white space at an edge,
        or between a letter and its combining mark, as an earlier tool's API took evidence."""
        return self.edges == "code_points"

    def values(self) -> tuple[str, ...]:
        return tuple(label.value for label in self.labels)

    def caption(self, value: str) -> str:
        return next((label.label for label in self.labels if label.value == value), value)


RELATIONS_DEFAULT_MAX = 50      # a relations question's `max` when it gives none (declared/relations.py)


@dataclass(frozen=True)
class RelationType:
    """One type of relation a relations question offers: its value (the label rows' value), its words, and the
    span labels allowed at each end (`from`, `to`; empty: any label of the spans question)."""

    value: str
    label: str
    sources: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()

    def allows(self, source: str, target: str) -> bool:
        return (not self.sources or source in self.sources) and (not self.targets or target in self.targets)


@dataclass(frozen=True)
class RelationRules:
    """A relations question's own keys (declared/relations.py): the spans question whose marks it relates (`of`),
    its types (`labels`) and at most `most` relations per answer (`max`)."""

    of: str
    types: tuple[RelationType, ...]
    most: int = RELATIONS_DEFAULT_MAX

    def values(self) -> tuple[str, ...]:
        return tuple(t.value for t in self.types)

    def type_of(self, value: str) -> RelationType | None:
        return next((t for t in self.types if t.value == value), None)

    def caption(self, value: str) -> str:
        found = self.type_of(value)
        return found.label if found is not None else value


@dataclass(frozen=True)
class BestWorst:
    """A best-worst scaling question's own keys (declared/best_worst.py): the shown field each item of a tuple is
    drawn by (`text`), the tuples' size, how often every item appears over all tuples, the seed of the design that
    builds them, and the words of the two answers."""

    text: str
    size: int = 4
    appearances: int = 8
    seed: int = 0
    best: str = "Best"
    worst: str = "Worst"


@dataclass(frozen=True)
class Element:
    """One element a group's questions are asked of: its id (the label rows' unit) and the text shown above them."""

    id: str
    text: str


@dataclass(frozen=True)
class Repeat:
    """A group: its id (the answer's key), the questions it repeats (ids, in order) and where its elements are."""

    id: str
    questions: tuple[str, ...]
    elements: tuple[Element, ...] = ()
    elements_from: str | None = None
    label: str = ""
    sides: str | None = None      # asked of each side ("A", "B") of this pairwise question (declared/sides.py)


@dataclass(frozen=True)
class Derived:
    """A pairwise question answered by no one, derived from a question asked of each side (declared/derived.py):
    the side whose answer to `source` is the winning one wins when the other's is not; both or neither: equal. The
    winning answer is `wins`, or the option `values` maps the item's `field` to."""

    source: str
    wins: str | None = None
    field: str | None = None
    values: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Question:
    id: str
    kind: str
    prompt: str
    required: bool = True
    options: tuple[OptionSpec, ...] = ()
    options_from: str | None = None    # choice / multi: the item field holding this item's options
    none: str | None = None            # multi: the label of the explicit "none of these" box; extractive: of the
    #                                    "unanswerable" box, None when not allowed (declared/extractive.py)
    minimum: float = 1                 # scale
    maximum: float = 5
    step: float = 1
    anchors: tuple[str, str] = ("", "")  # scale: words under the two ends
    point_labels: tuple[str, ...] = ()   # scale: words on every point, lowest first (the YAML key `labels`)
    of: str | None = None              # span: the shown text field whose words are selected
    a: str | None = None               # pairwise: the two shown fields compared
    b: str | None = None
    players: tuple[str, str] | None = None  # pairwise: item fields naming what A and B are (ranked by Bradley-Terry)
    allow_equal: bool = True
    max_length: int = 500              # text
    when: tuple[tuple[str, tuple[str, ...]], ...] = ()  # shown only if each earlier question's answer is one of these
    gold: GoldRule | None = None
    agreement: str | None = None       # level of measurement; None for text
    group: str | None = None           # the `repeat` group asking it once per element (declared/repeat.py)
    spans: SpanRules | None = None     # spans: labels, max, whole_words, overlap (annotator/declared/spans.py);
    #                                    extractive: its marking rules, one label and one mark (extractive.py)
    numbered: bool = False             # options_from with `values: index`: "0", "1", ... (declared/option_values.py)
    merged: tuple[tuple[str, tuple[tuple[str, tuple[str, ...]], ...]], ...] = ()  # agreement over merged options
    pooled: str | None = None          # the agreement figure over several questions this one is pooled into
    not_asked: str | None = None       # agreement: the value of an annotator its `when` hid it from (unasked.py)
    per_element: bool = False          # agreement: one more figure per element of its group (unasked.py)
    item_when: tuple[tuple[str, tuple[str, ...]], ...] = ()  # asked only of items whose field holds one of these
    token_id: str | None = None        # span: the key of each token object holding its id, the label's unit
    token_text: str | None = None      # span: the key holding its text (declared/item_view.py)
    boundaries: bool = False           # span: the answer tags B / I / O, spans kept apart (declared/boundaries.py)
    derived: Derived | None = None     # pairwise: not asked, derived from the sides' answers (declared/derived.py)
    ranked: tuple[str, ...] = ()       # ranking: the shown fields ranked, its options (declared/ranking.py)
    best_worst: BestWorst | None = None  # best_worst: its field, tuples and words (declared/best_worst.py)
    total: int = 100                   # distribution: what the shares add up to (declared/distribution.py)
    grades: tuple[str, ...] = ()       # pairwise: the graded scale's words, "A" strongest first (declared/graded.py)
    relations: RelationRules | None = None  # relations: its spans question, types and max (declared/relations.py)

    def scale_values(self) -> list[float]:
        steps = int(round((self.maximum - self.minimum) / self.step))
        return [round(self.minimum + i * self.step, 10) for i in range(steps + 1)]

    def option_values(self) -> tuple[str, ...]:
        return tuple(o.value for o in self.options)

    def decisions(self) -> tuple[Decision, ...]:
        """The question's further decisions (`gold.also`), each a column of the gold frame."""
        return self.gold.also if self.gold is not None else ()


@dataclass(frozen=True)
class Definition:
    name: str
    questions: tuple[Question, ...]
    show: tuple[Shown, ...]
    guidelines: str = ""
    description: str = ""
    licence: str = ""
    language: tuple[str, ...] = ()   # the items' languages, as codes (en, pt-BR): the data card's front matter
    k: int | None = None
    repeats: tuple[Repeat, ...] = ()  # questions asked once per element of a list (declared/repeat.py)
    keep: tuple[str, ...] = ()        # item fields stored and exported, never shown (declared/item_view.py)
    pairwise_order: str = "per_question"   # or "per_hit": one drawn A / B order for the HIT (declared/sides.py)
    stopping: Stopping | None = None  # when an item's votes are enough, k the cap (declared/stopping.py)
    data: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def question(self, qid: str) -> Question:
        return next(q for q in self.questions if q.id == qid)

    def item_fields(self) -> list[str]:
        """The item fields the HIT reads: shown fields (and those they draw from), options_from, pairwise
        players, elements_from and item conditions' fields, in order; each a field name or a key path into one
        (item_view.roots gives the stored fields)."""
        return list(self._item_fields)

    @cached_property
    def _item_fields(self) -> tuple[str, ...]:
        """Worked out once per definition: every HIT request and every vote reads them, several times (the
        item's view, its public fields, the answer's check), and a project's bound type keeps its definition."""
        names = [name for s in self.show for name in (s.field, *s.reads)]
        for q in self.questions:
            names += [f for f in (q.options_from, *(q.players or ())) if f]
        names += [g.elements_from for g in self.repeats if g.elements_from]
        names += [name for q in self.questions for name, _ in q.item_when]   # `when: {item.<field>: ...}`
        return tuple(dict.fromkeys(names))

    def decisions(self) -> tuple[Decision, ...]:
        """Every further decision of the definition (`gold.also`), in question order: the gold frame's extra
        columns."""
        return tuple(d for q in self.questions for d in q.decisions())

    def to_data(self) -> dict[str, Any]:
        """The definition as stored on the project: the checked data, guidelines resolved to their text."""
        return dict(self.data)


def join_path(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def share_words(question: Question) -> tuple[str, str]:
    """What a choice question's share gold says when decided: its `value` at or above the positive share, and
    at or below the negative one the other option when there are two ("no" for "yes"), else "not <value>"."""
    value = question.gold.value if question.gold is not None and question.gold.value is not None else ""
    others = [v for v in question.option_values() if v != value]
    return value, others[0] if len(others) == 1 else f"not {value}"


def answer_values(question: Question) -> tuple[str, ...] | None:
    """The values an answer to the question can take, as labels store them; None when they depend on the item."""
    if question.kind == "choice":
        return question.option_values() if question.options else None
    if question.kind == "pairwise":
        return PAIRWISE_VALUES if question.allow_equal else PAIRWISE_VALUES[:2]
    if question.kind == "scale":
        return tuple(number_text(v) for v in question.scale_values())
    return None


def number_text(value: float) -> str:
    """A scale value as labels store it: 3, not 3.0; 2.5 as 2.5 (an int as it is: no float's rounding)."""
    if isinstance(value, int):
        return str(value)
    return str(int(value)) if float(value).is_integer() else repr(float(value))
