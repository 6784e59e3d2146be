"""Display kinds of a declared HIT beyond plain text: a passage with a blank, a list with a figure per element,
text with given highlights, a small table and a dialogue's turns. Each kind has its keys (checked with the
definition), its item check (run by the items file's import, so a bad item is refused with its line and field
before anything is stored) and its view model (what templates/hits/_declared_shown_kinds.html draws). The
format is documented in docs/declared-show.md.

  as: blanks        the field is text holding the placeholder (ReCAM's "@placeholder") one or more times; each is
                   drawn as a visible gap read out as `blank` ("blank").
  as: list         the field is a list of text, or of objects whose `text` key (configurable) is the element's
                   text and whose `figure` key, if named, a number drawn as a share (0..1, as a percentage), a
                   count or a plain number; the elements in the item's order.
  as: highlighted  the field is text; the item field named by `highlights` (<field>_highlights unless named)
                   lists the marked stretches as [start, end] or {start, end, label}: character offsets (code
                   points), end exclusive, none overlapping; drawn with <mark>, each read out with its label (or
                   `highlight_label`).
  as: table        the field is a list of rows: objects (the columns their keys, or `columns`) or lists of cells
                   (the first row the header, unless `headers` names the columns); cells are text, numbers,
                   true / false or null (an empty cell); drawn as a table in a region that scrolls sideways.
  as: dialogue     the field is a list of turns: text, or objects with the turn's `text` and its `speaker`
                   (configurable keys); drawn in order, each turn after its speaker's name.

A view never fails on a value the import would refuse (a project made by other means, an older item): it falls
back to the value as text, so the HIT page never answers 500 for the item's data.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from annotator.core.jsonsafe import JSONBodyError, JSONValueError, check_value, loads_text
from annotator.declared import paths
from annotator.declared.definition import RESERVED_FIELDS, DefinitionError, Shown
from annotator.declared.item_view import named as named_field
from annotator.declared.keys import add_once

if TYPE_CHECKING:
    from annotator.declared.keys import Keys

KINDS = ("blanks", "list", "highlighted", "table", "dialogue")
PLACEHOLDER = "@placeholder"          # ReCAM's (SemEval-2021 Task 4) blank in a question
FIGURE_AS = ("share", "count", "number")
# Every key a display kind adds to a `show` entry, by kind (the entry's `field`, `as` and `label` are common).
KIND_KEYS: dict[str, tuple[str, ...]] = {
    "blanks": ("placeholder", "blank"),
    "list": ("text", "figure", "figure_as", "figure_label", "numbered", "empty"),
    "highlighted": ("highlights", "highlight_label"),
    "table": ("columns", "headers", "row_header", "empty"),
    "dialogue": ("text", "speaker", "empty"),
}
KEYS = tuple(dict.fromkeys(key for kind in KINDS for key in KIND_KEYS[kind]))
EMPTY = {"list": "None.", "table": "No rows.", "dialogue": "No turns."}   # what an empty one shows by default
MAX_ELEMENTS = 200          # a list's elements
MAX_HIGHLIGHTS = 500        # a text's highlights
LABEL_LENGTH = 100          # a highlight's label, an element's figure label
ELEMENT_LENGTH = 10_000     # a list element's text, a turn's text
MAX_ROWS = 500              # a table's rows (the header not counted)
MAX_COLUMNS = 50            # a table's columns
CELL_LENGTH = 1_000         # a table cell's text
MAX_TURNS = 500             # a dialogue's turns
DEFAULT_FIGURE_LABEL = {"share": "share", "count": "count", "number": "value"}


# --- the definition's keys -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ClozeSpec:
    placeholder: str = PLACEHOLDER
    blank: str = "blank"           # what a screen reader says for the gap


@dataclass(frozen=True)
class ListSpec:
    text: str = "text"             # an object element's key holding its text
    figure: str | None = None      # an object element's key holding its figure (optional per element)
    figure_as: str = "share"
    figure_label: str = "share"    # what a screen reader says before the figure ("share: 42%")
    numbered: bool = True          # an ordered list (1, 2, 3...) or bullets
    empty: str = "None."           # what an empty list shows


@dataclass(frozen=True)
class HighlightSpec:
    highlights: str                # the item field listing the marked stretches (default: <field>_highlights)
    highlight_label: str = "highlighted"   # what a screen reader says of a highlight without a label of its own


@dataclass(frozen=True)
class TableSpec:
    columns: tuple[str, ...] | None = None   # object rows: the keys shown, in order (default: every key, first seen)
    headers: tuple[str, ...] | None = None   # the header's words (default: the keys, or a list table's first row)
    row_header: bool = False       # the first column heads its row (<th scope="row">)
    empty: str = EMPTY["table"]


@dataclass(frozen=True)
class DialogueSpec:
    text: str = "text"             # a turn object's key holding its text
    speaker: str = "speaker"       # a turn object's key holding who says it (optional per turn)
    empty: str = EMPTY["dialogue"]


Spec = ClozeSpec | ListSpec | HighlightSpec | TableSpec | DialogueSpec


def spec(keys: Keys, kind: str, name: str) -> Spec | None:
    """The display kind's settings from a `show` entry (`keys`), or None for the plain kinds; a key of another
    kind, or a bad value, is a DefinitionError at its key path."""
    own = KIND_KEYS.get(kind, ())
    for key in KEYS:
        if keys.has(key) and key not in own:
            owners = [k for k in KINDS if key in KIND_KEYS[k]]
            raise DefinitionError(keys.at(key), f"is a key of `as: {' or '.join(owners)}`, not of `as: {kind}`")
    if kind == "blanks":
        placeholder = keys.text("placeholder", PLACEHOLDER, limit=40)
        if not placeholder.strip() or placeholder != placeholder.strip():
            raise DefinitionError(keys.at("placeholder"), "must be a word without spaces around it, such as "
                                                          f"{PLACEHOLDER}")
        return ClozeSpec(placeholder, _label(keys, "blank", "blank"))
    if kind == "list":
        text = _element_key(keys, "text", "text")
        figure = _element_key(keys, "figure") if keys.has("figure") else None
        if figure is not None and figure == text:
            raise DefinitionError(keys.at("figure"), f"must be another key than text ({text!r})")
        figure_as = keys.text("figure_as", "share")
        if figure_as not in FIGURE_AS:
            raise DefinitionError(keys.at("figure_as"), f"{figure_as[:40]!r} is not one of {', '.join(FIGURE_AS)}")
        if figure is None:
            for key in ("figure_as", "figure_label"):
                if keys.has(key):
                    raise DefinitionError(keys.at(key), "says how a figure is shown; name the elements' figure key "
                                                        "first (figure: prevalence)")
        return ListSpec(text, figure, figure_as, _label(keys, "figure_label", DEFAULT_FIGURE_LABEL[figure_as]),
                        keys.flag("numbered", True), _label(keys, "empty", EMPTY["list"]))
    if kind == "highlighted":
        highlights = named_field(keys, "highlights") if keys.has("highlights") else f"{name}_highlights"
        if highlights in RESERVED_FIELDS:
            raise DefinitionError(keys.at("highlights"), f"{highlights!r} is {RESERVED_FIELDS[highlights]}; name "
                                                         "another field")
        if highlights == name:
            raise DefinitionError(keys.at("highlights"), "must be another item field than the text's own "
                                                         f"({name!r}): the field listing the highlights")
        return HighlightSpec(highlights, _label(keys, "highlight_label", "highlighted"))
    if kind == "table":
        columns = _words(keys, "columns", 200) if keys.has("columns") else None
        headers = _words(keys, "headers", LABEL_LENGTH) if keys.has("headers") else None
        if columns is not None and headers is not None and len(columns) != len(headers):
            raise DefinitionError(keys.at("headers"), f"names {len(headers)} columns; `columns` names {len(columns)} "
                                                      "(one header word for each)")
        return TableSpec(columns, headers, keys.flag("row_header", False), _label(keys, "empty", EMPTY["table"]))
    if kind == "dialogue":
        text = _element_key(keys, "text", "text")
        speaker = _element_key(keys, "speaker", "speaker")
        if speaker == text:
            raise DefinitionError(keys.at("speaker"), f"must be another key than text ({text!r})")
        return DialogueSpec(text, speaker, _label(keys, "empty", EMPTY["dialogue"]))
    return None


def _words(keys: Keys, key: str, limit: int) -> tuple[str, ...]:
    """A table's `columns` or `headers`: a list of 1 to MAX_COLUMNS different, non-blank texts."""
    listed = keys.listed(key)
    if not listed or len(listed) > MAX_COLUMNS:
        raise DefinitionError(keys.at(key), f"must list 1 to {MAX_COLUMNS} columns")
    words: list[str] = []
    for index, word in enumerate(listed):
        if isinstance(word, bool) or not isinstance(word, (str, int, float)) or not str(word).strip():
            raise DefinitionError(f"{keys.at(key)}[{index}]", "must be non-blank text")
        if len(str(word)) > limit:
            raise DefinitionError(f"{keys.at(key)}[{index}]", f"is longer than {limit} characters")
        add_once(words, str(word), f"{keys.at(key)}[{index}]")
    return tuple(words)


def _element_key(keys: Keys, key: str, default: str | None = None) -> str:
    """A list's `text` / `figure`: a key of each element, an index (0) or a key path inside it (declared/paths.py)."""
    value = keys.text(key, default, limit=200)
    problem = paths.element_problem(value)
    if problem is not None:
        raise DefinitionError(keys.at(key), f"{problem} (a key, an index or a key path inside each element)")
    return value


def _label(keys: Keys, key: str, default: str) -> str:
    text = keys.text(key, default, limit=LABEL_LENGTH)
    if not text.strip():
        raise DefinitionError(keys.at(key), "must not be blank (a screen reader reads it out)")
    return text


def reads(spec_: Spec | None) -> tuple[str, ...]:
    """The item fields a display kind reads besides its own (a highlighted text's highlights)."""
    return (spec_.highlights,) if isinstance(spec_, HighlightSpec) else ()


def check_show(show: tuple[Shown, ...]) -> None:
    """Checks across the shown fields: a field listing highlights is not itself shown, and serves one text."""
    fields = {s.field for s in show}
    users: dict[str, int] = {}
    for index, shown in enumerate(show):
        if not isinstance(shown.spec, HighlightSpec):
            continue
        name = shown.spec.highlights
        path = f"show[{index}].highlights"
        if name in fields:
            raise DefinitionError(path, f"{name!r} is a shown field; the highlights need a field of their own")
        if name in users:
            raise DefinitionError(path, f"{name!r} already holds the highlights of show[{users[name]}]")
        users[name] = index


def check_reads(fields: Mapping[str, Shown], path: str, names: Mapping[str, tuple[str | None, ...] | None]) -> None:
    """A question's item fields (`names`: its key: the fields it names) must not be a highlights field: that one
    holds a text's stretches, not options or what a pairwise question compares."""
    owners = {read: index for index, shown in enumerate(fields.values()) for read in shown.reads}
    for key, named in names.items():
        for name in named or ():
            if name is not None and name in owners:
                raise DefinitionError(f"{path}.{key}", f"{name!r} holds the highlights of show[{owners[name]}]; "
                                                       "name another item field")


# --- the items file -------------------------------------------------------------------------------------------

def structured_fields(show: tuple[Shown, ...]) -> dict[str, Spec]:
    """{item field: the spec it is read for} of the fields that hold JSON (a list, the highlights)."""
    found: dict[str, Spec] = {}
    for shown in show:
        if isinstance(shown.spec, (ListSpec, TableSpec, DialogueSpec)):
            found[shown.field] = shown.spec
        elif isinstance(shown.spec, HighlightSpec):
            found[shown.spec.highlights] = shown.spec
    return found


def item_value(spec_: Spec, value: Any, table: bool) -> Any:
    """One structured field's value as kept (a CSV / TSV cell holds JSON); ValueError says what is wrong."""
    if table:
        if not str(value).strip():
            raise ValueError(f"empty: {_what(spec_)} as JSON ([] for none)")
        try:
            value = loads_text(value)
            check_value(value, "the value")
        except (JSONBodyError, JSONValueError) as error:
            raise ValueError(f"must be JSON, {_shape(spec_)} ({error})") from None
    if isinstance(spec_, ListSpec):
        return _list_value(spec_, value)
    if isinstance(spec_, TableSpec):
        _table(spec_, value)
        return value
    if isinstance(spec_, DialogueSpec):
        dialogue_turns(spec_, value)
        return value
    if not isinstance(value, list):
        raise ValueError(f"must be a list of highlights: {_shape(spec_)}")
    if len(value) > MAX_HIGHLIGHTS:
        raise ValueError(f"lists {len(value)} highlights; at most {MAX_HIGHLIGHTS}")
    for index, entry in enumerate(value):
        _highlight(entry, index)
    return value


def _what(spec_: Spec) -> str:
    if isinstance(spec_, ListSpec):
        return "the list"
    if isinstance(spec_, TableSpec):
        return "the table's rows"
    if isinstance(spec_, DialogueSpec):
        return "the dialogue's turns"
    return "the highlights"


def _shape(spec_: Spec) -> str:
    if isinstance(spec_, TableSpec):
        return ('a list of rows, each an object {"column": "cell", ...} or a list of cells (the first row the '
                'header unless `headers` is set), e.g. [{"name": "Paris", "population": 2102650}]')
    if isinstance(spec_, DialogueSpec):
        return (f'a list of turns, each text or {{"{spec_.speaker}": "...", "{spec_.text}": "..."}}, '
                f'e.g. [{{"{spec_.speaker}": "User", "{spec_.text}": "Hello"}}]')
    if isinstance(spec_, ListSpec):
        element = f'{{"{spec_.text}": "..."' + (f', "{spec_.figure}": 0.25' if spec_.figure else "") + "}"
        return f'a list of text or of objects {element}, e.g. ["first", "second"] or [{element}]'
    return 'a list of [start, end] or {"start": 0, "end": 4, "label": "..."} (characters, end exclusive)'


def _list_value(spec_: ListSpec, value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise ValueError(f"must be {_shape(spec_)}")
    if len(value) > MAX_ELEMENTS:
        raise ValueError(f"lists {len(value)} elements; at most {MAX_ELEMENTS}")
    for number, element in enumerate(value, 1):
        _element_text(element, spec_.text, f"element {number}", spec_, (dict, list))
        if isinstance(element, (dict, list)) and spec_.figure is not None \
                and paths.get_inside(element, spec_.figure) is not None:
            _figure(spec_, paths.inside(element, spec_.figure), number)
    return value


def _element_text(element: Any, key: str, what: str, spec_: Spec, objects: tuple[type, ...]) -> str:
    """The text of a list's element or a dialogue's turn (`what`: "element 2", "turn 3"): the element itself, or the
    value at `key` of an object; ValueError naming it when it has none, or it is blank or too long."""
    if isinstance(element, str):
        text: Any = element
    elif isinstance(element, objects):
        try:
            text = paths.inside(element, key)
        except paths.PathError:
            raise ValueError(f"{what} has no {key!r} key (its text); {_shape(spec_)}") from None
    else:
        raise ValueError(f"{what} must be text or an object, not {paths.value_kind(element)}")
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"{what}'s text must be non-empty text, not {paths.value_kind(text)}")
    if len(text) > ELEMENT_LENGTH:
        raise ValueError(f"{what}'s text is {len(text)} characters long; at most {ELEMENT_LENGTH}")
    return text


def _cell(value: Any, row: int, column: str) -> str:
    """A table cell as drawn; ValueError naming row and column for a value that is no cell."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if not math.isfinite(value):
            raise ValueError(f"row {row}, column {column!r}: {value} is not a number a table can show")
        return str(value)
    if isinstance(value, str):
        if len(value) > CELL_LENGTH:
            raise ValueError(f"row {row}, column {column!r}: the cell is {len(value)} characters long; "
                             f"at most {CELL_LENGTH}")
        return value
    raise ValueError(f"row {row}, column {column!r}: a cell is text, a number, true, false or null, "
                     f"not {paths.value_kind(value)}")


def _table(spec_: TableSpec, value: Any) -> tuple[tuple[str, ...], list[tuple[str, ...]]]:
    """(header words, rows of cell texts) of a table field; ValueError (naming row and column) when it is not one."""
    if not isinstance(value, list):
        raise ValueError(f"must be {_shape(spec_)}")
    if value and all(isinstance(row, dict) for row in value):
        keys = list(spec_.columns or dict.fromkeys(key for row in value for key in row))
        if len(keys) > MAX_COLUMNS:
            raise ValueError(f"the rows have {len(keys)} different keys; a table has at most {MAX_COLUMNS} columns "
                             "(name the ones to show with `columns`)")
        rows = [tuple(_cell(row.get(key), number, key) for key in keys) for number, row in enumerate(value, 1)]
        headers = list(spec_.headers or keys)
    elif all(isinstance(row, list) for row in value):
        cells = [[_cell(cell, number, str(column)) for column, cell in enumerate(row, 1)]
                 for number, row in enumerate(value, 1)]
        if spec_.headers is not None:
            headers, rows = list(spec_.headers), [tuple(row) for row in cells]
            first = 1
        elif cells:
            headers, rows = cells[0], [tuple(row) for row in cells[1:]]
            first = 2
        else:
            headers, rows, first = [], [], 1
        if len(headers) > MAX_COLUMNS:
            raise ValueError(f"has {len(headers)} columns; at most {MAX_COLUMNS}")
        for number, row in enumerate(rows, first):
            if len(row) != len(headers):
                raise ValueError(f"row {number} has {len(row)} cells; the header has {len(headers)}")
    else:
        kinds = sorted({paths.value_kind(row) for row in value})
        raise ValueError(f"mixes rows of {' and '.join(kinds)}; {_shape(spec_)}")
    if len(rows) > MAX_ROWS:
        raise ValueError(f"has {len(rows)} rows; at most {MAX_ROWS}")
    return tuple(headers), rows


def dialogue_turns(spec_: DialogueSpec, value: Any) -> list[tuple[str | None, str]]:
    """(speaker or None, text) of each turn; ValueError (naming the turn) when the value is not a dialogue."""
    if not isinstance(value, list):
        raise ValueError(f"must be {_shape(spec_)}")
    if len(value) > MAX_TURNS:
        raise ValueError(f"lists {len(value)} turns; at most {MAX_TURNS}")
    turns: list[tuple[str | None, str]] = []
    for number, turn in enumerate(value, 1):
        text = _element_text(turn, spec_.text, f"turn {number}", spec_, (dict,))
        speaker = paths.get_inside(turn, spec_.speaker) if isinstance(turn, dict) else None
        if speaker is not None and (not isinstance(speaker, str) or not speaker.strip()
                                    or len(speaker) > LABEL_LENGTH):
            raise ValueError(f"turn {number}'s {spec_.speaker!r} must be non-blank text of at most {LABEL_LENGTH} "
                             "characters (or left out)")
        turns.append((speaker, text))
    return turns


def _figure(spec_: ListSpec, figure: Any, number: int) -> None:
    what = f"element {number}'s {spec_.figure!r}"
    if isinstance(figure, bool) or not isinstance(figure, (int, float)) or not math.isfinite(figure):
        raise ValueError(f"{what} must be a number, not {paths.value_kind(figure)}")
    if spec_.figure_as == "share" and not 0 <= figure <= 1:
        raise ValueError(f"{what} is {figure}; a share is between 0 and 1 (0.25 is shown as 25%)")
    if spec_.figure_as == "count" and (figure < 0 or figure != int(figure)):
        raise ValueError(f"{what} is {figure}; a count is a whole number, 0 or more")


def _highlight(entry: Any, index: int) -> tuple[int, int, str | None]:
    """(start, end, label) of one highlight as written; ValueError (naming it) when it is not one."""
    number = index + 1
    label: Any = None
    if isinstance(entry, list) and len(entry) == 2:
        start, end = entry
    elif isinstance(entry, dict) and {"start", "end"} <= set(entry) and set(entry) <= {"start", "end", "label"}:
        start, end, label = entry["start"], entry["end"], entry.get("label")
    else:
        raise ValueError(f"highlight {number} must be [start, end] or {{\"start\", \"end\", \"label\"}}, "
                         f"not {paths.value_kind(entry)}")
    if type(start) is not int or type(end) is not int:
        raise ValueError(f"highlight {number}: start and end must be whole numbers (character offsets)")
    if label is not None and (not isinstance(label, str) or not label.strip() or len(label) > LABEL_LENGTH):
        raise ValueError(f"highlight {number}'s label must be non-empty text of at most {LABEL_LENGTH} characters")
    return start, end, label


def item_problem(show: tuple[Shown, ...], payload: Mapping[str, Any]) -> tuple[str, str] | None:
    """(field, what is wrong) of the first problem between fields of a checked item: a text with blanks without its
    placeholder, a highlight outside its text or overlapping another."""
    for shown in show:
        value = payload.get(shown.field)
        if isinstance(shown.spec, ClozeSpec) and isinstance(value, str) and shown.spec.placeholder not in value:
            return shown.field, f"holds no {shown.spec.placeholder!r}, the blank to fill in"
        if isinstance(shown.spec, HighlightSpec):
            text = value if isinstance(value, str) else ""
            try:
                _stretches(payload.get(shown.spec.highlights) or [], text, shown.field)
            except ValueError as error:
                return shown.spec.highlights, str(error)
    return None


def _stretches(entries: list[Any], text: str, field: str) -> list[tuple[int, int, str | None]]:
    """The highlights in text order; ValueError for one outside the text or overlapping another."""
    marked = sorted(((*_highlight(entry, index), index) for index, entry in enumerate(entries)),
                    key=lambda h: (h[0], h[1], h[3]))
    previous: tuple[int, int, str | None, int] | None = None
    for start, end, label, index in marked:
        if not 0 <= start < end <= len(text):
            raise ValueError(f"highlight {index + 1} [{start}, {end}] is not a stretch of {field!r}: it needs "
                             f"0 <= start < end <= {len(text)} (characters, end exclusive)")
        if previous is not None and start < previous[1]:
            raise ValueError(f"highlight {index + 1} [{start}, {end}] overlaps highlight {previous[3] + 1} "
                             f"[{previous[0]}, {previous[1]}]; highlights must not overlap")
        previous = (start, end, label, index)
    return [(start, end, label) for start, end, label, _ in marked]


# --- the view models ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Piece:
    """A stretch of a text with blanks or of a highlighted one: plain, the blank, or marked (with what it reads as)."""

    text: str
    blank: bool = False
    marked: bool = False
    label: str = ""          # a marked piece: its own label, or the spec's default
    own_label: bool = False  # the label came with the highlight (and is shown beside it)


@dataclass(frozen=True)
class TextView:
    kind: str                # blanks or highlighted
    pieces: tuple[Piece, ...]
    blank: str = ""          # blanks: what a screen reader says for the gap


@dataclass(frozen=True)
class Element:
    text: str
    figure: str | None       # the figure as drawn (25%, 12), None when the element has none


@dataclass(frozen=True)
class ListView:
    elements: tuple[Element, ...]
    numbered: bool
    figure_label: str
    empty: str
    kind: str = "list"


@dataclass(frozen=True)
class TableView:
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    row_header: bool
    empty: str
    kind: str = "table"


@dataclass(frozen=True)
class Turn:
    speaker: str | None
    text: str
    side: int                # 0 or 1: the speaker's place in the order speakers first speak (drawn on two sides)


@dataclass(frozen=True)
class DialogueView:
    turns: tuple[Turn, ...]
    empty: str
    kind: str = "dialogue"


View = TextView | ListView | TableView | DialogueView


def view(shown: Shown, payload: Mapping[str, Any]) -> View | None:
    """What the page draws of a shown field of a display kind (None for the plain kinds, and for a value the
    kind cannot draw: it is then shown as text)."""
    value = payload.get(shown.field)
    if isinstance(shown.spec, ClozeSpec) and isinstance(value, str):
        parts = value.split(shown.spec.placeholder)
        pieces = [Piece(parts[0])]
        for part in parts[1:]:
            pieces += [Piece(shown.spec.placeholder, blank=True), Piece(part)]
        return TextView("blanks", tuple(p for p in pieces if p.text), shown.spec.blank)
    if isinstance(shown.spec, HighlightSpec) and isinstance(value, str):
        try:
            stretches = _stretches(list(payload.get(shown.spec.highlights) or []), value, shown.field)
        except (ValueError, TypeError):
            return None
        pieces, at = [], 0
        for start, end, label in stretches:
            pieces += [Piece(value[at:start]), Piece(value[start:end], marked=True,
                                                     label=label or shown.spec.highlight_label,
                                                     own_label=label is not None)]
            at = end
        pieces.append(Piece(value[at:]))
        return TextView("highlighted", tuple(p for p in pieces if p.text))
    if isinstance(shown.spec, ListSpec) and isinstance(value, list):
        try:
            _list_value(shown.spec, value)
        except ValueError:
            return None
        return ListView(tuple(_element(shown.spec, e) for e in value), shown.spec.numbered,
                        shown.spec.figure_label, shown.spec.empty)
    if isinstance(shown.spec, TableSpec):
        try:
            headers, rows = _table(shown.spec, value)
        except ValueError:
            return None
        return TableView(headers, tuple(rows), shown.spec.row_header, shown.spec.empty)
    if isinstance(shown.spec, DialogueSpec):
        try:
            turns = dialogue_turns(shown.spec, value)
        except ValueError:
            return None
        speakers = list(dict.fromkeys(speaker for speaker, _ in turns if speaker is not None))
        return DialogueView(tuple(Turn(speaker, text, speakers.index(speaker) % 2 if speaker is not None else 0)
                                  for speaker, text in turns), shown.spec.empty)
    return None


def _element(spec_: ListSpec, element: str | dict[str, Any] | list[Any]) -> Element:
    if isinstance(element, str):
        return Element(element, None)
    figure = paths.get_inside(element, spec_.figure) if spec_.figure is not None else None
    return Element(paths.inside(element, spec_.text), None if figure is None else figure_text(spec_.figure_as, figure))


def figure_text(figure_as: str, figure: float) -> str:
    """A figure as drawn: a share as a whole percentage (0.254 is 25%; above 0 but under 0.5% is "<1%"), a
    count as a whole number, a number as written (3, 2.5)."""
    if figure_as == "share":
        percent = figure * 100
        return "<1%" if 0 < percent < 0.5 else f"{percent:.0f}%"
    if figure_as == "count":
        return str(int(figure))
    return str(int(figure)) if float(figure).is_integer() else f"{figure:g}"


