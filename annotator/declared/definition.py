"""A declared campaign's definition: what the HIT shows, what it asks, and how gold and agreement are derived.

An organiser writes it as a YAML (or JSON) file; `definition_from_text` checks all of it before anything is
stored and names the key path and line of the first problem (`questions[2].gold.positive: must be between 0
and 1, line 14`). The checked definition is kept on the project as plain data (`Definition.to_data`), and
read back without the lines by `definition_from_data`, which runs the same checks: a definition in the
database is always one the validator accepted.

The shape is documented in README.md ("Declared campaigns: a HIT type from a file"); this module is its single
reference. Reading (YAML or JSON, lines, guidelines file) and the top-level keys are here; the checks of each
question (its kind's keys, `when`, gold rule, agreement) are in definition_checks.py.
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from annotator.declared import paths

if TYPE_CHECKING:
    from annotator.declared.repeat import Repeat
    from annotator.declared.spans import SpanRules

KINDS = ("choice", "multi", "scale", "span", "pairwise", "text", "spans")
SHOW_AS = ("text", "title", "markdown", "image_url", "blanks", "list", "highlighted")  # the last three: shown.py
LEVELS = ("nominal", "ordinal", "interval")
RULES = {
    "choice": ("majority", "share", "agree", "dawid_skene", "median"),   # median: an ordinal choice (option_values.py)
    "multi": ("majority", "share", "agree", "dawid_skene"),
    "scale": ("median", "mean", "majority", "agree"),
    "span": ("probability", "share"),
    "pairwise": ("bradley_terry", "majority", "dawid_skene"),
    "text": (),
    "spans": ("share", "agree"),           # annotator/declared/spans.py: a span is gold or not
}
DEFAULT_RULE = {"choice": "majority", "multi": "majority", "scale": "median", "span": "probability",
                "pairwise": "bradley_terry", "spans": "share"}
DEFAULT_LEVEL = {"choice": "nominal", "multi": "nominal", "scale": "interval", "span": "nominal",
                 "pairwise": "nominal", "spans": "nominal"}
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
    value: str
    label: str


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


@dataclass(frozen=True)
class Question:
    id: str
    kind: str
    prompt: str
    required: bool = True
    options: tuple[OptionSpec, ...] = ()
    options_from: str | None = None    # choice / multi: the item field holding this item's options
    none: str | None = None            # multi: the label of the explicit "none of these" box
    minimum: float = 1                 # scale
    maximum: float = 5
    step: float = 1
    anchors: tuple[str, str] = ("", "")  # scale: words under the two ends
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
    spans: SpanRules | None = None     # spans: labels, max, whole_words, overlap (annotator/declared/spans.py)
    numbered: bool = False             # options_from with `values: index`: "0", "1", ... (declared/option_values.py)
    merged: tuple[tuple[str, tuple[tuple[str, tuple[str, ...]], ...]], ...] = ()  # agreement over merged options
    pooled: str | None = None          # the agreement figure over several questions this one is pooled into
    token_id: str | None = None        # span: the key of each token object holding its id, the label's unit
    token_text: str | None = None      # span: the key holding its text (declared/item_view.py)
    boundaries: bool = False           # span: the answer tags B / I / O, spans kept apart (declared/boundaries.py)

    def scale_values(self) -> list[float]:
        steps = int(round((self.maximum - self.minimum) / self.step))
        return [round(self.minimum + i * self.step, 10) for i in range(steps + 1)]

    def option_values(self) -> tuple[str, ...]:
        return tuple(o.value for o in self.options)


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
    data: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def question(self, qid: str) -> Question:
        return next(q for q in self.questions if q.id == qid)

    def item_fields(self) -> list[str]:
        """The item fields the HIT reads: shown fields (and those they draw from), options_from and pairwise
        players, in order; each a field name or a key path into one (item_view.roots gives the stored fields)."""
        names = [name for s in self.show for name in (s.field, *s.reads)]
        for q in self.questions:
            names += [f for f in (q.options_from, *(q.players or ())) if f]
        names += [g.elements_from for g in self.repeats if g.elements_from]
        return list(dict.fromkeys(names))

    def to_data(self) -> dict[str, Any]:
        """The definition as stored on the project: the checked data, guidelines resolved to their text."""
        return dict(self.data)


# --- reading ------------------------------------------------------------------------------------------------

def definition_from_text(text: str, source: str = "definition", base: Path | None = None,
                         max_bytes: int = MAX_BYTES) -> Definition:
    """Parse YAML or JSON text and check it; DefinitionError names the key path and line of the first problem.

    `base` is the folder a `guidelines: file.md` is read from (the definition file's folder), a file of at most
    `max_bytes`; without it the guidelines value is kept as text.
    """
    data, lines = _parse(text, source)
    try:
        if isinstance(data, dict) and isinstance(data.get("guidelines"), str) and base is not None:
            data["guidelines"] = _guidelines(data["guidelines"], Path(base), max_bytes)
        return definition_from_data(data)
    except DefinitionError as error:
        raise DefinitionError(error.path, error.message, _line_of(lines, error.path), source) from None


def definition_from_file(path: Path, max_bytes: int = MAX_BYTES) -> Definition:
    """The definition in the file, refused unread when the file has more than `max_bytes`."""
    path = Path(path)
    try:
        _refuse_larger(path, max_bytes, "")
        raw = path.read_bytes()
    except OSError as error:
        raise DefinitionError("", f"cannot be read ({error.strerror or error})", None, str(path)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[:error.start].count(b"\n") + 1
        raise DefinitionError("", f"the file is not UTF-8 text (byte 0x{raw[error.start]:02x} is not a character "
                                  "there); save it as UTF-8", line, str(path)) from None
    return definition_from_text(text, str(path), path.parent, max_bytes)


def _refuse_larger(path: Path, max_bytes: int, key: str) -> None:
    size = path.stat().st_size
    if size > max_bytes:
        raise DefinitionError(key, f"the file {path.name!r} has {size:,} bytes; at most {max_bytes:,} are read (a "
                                   "definition needs a few KB; the server's DEFINITION_MAX_BYTES sets the limit)")


def _guidelines(value: str, base: Path, max_bytes: int) -> str:
    """A value naming a .md / .txt file next to the definition (or in a folder below) is replaced by its text."""
    if "\n" in value or not re.search(r"\.(md|markdown|txt)\Z", value, re.IGNORECASE):
        return value
    try:
        path = (base / value).resolve()
        if base.resolve() not in path.parents:
            raise DefinitionError("guidelines", f"{value[:80]!r} is outside the definition's folder; put the "
                                                "file next to the definition")
        if not path.is_file():
            raise OSError(value)
        _refuse_larger(path, max_bytes, "guidelines")
        return path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError, ValueError) as error:
        if isinstance(error, DefinitionError):
            raise
        reason = "is not UTF-8 text" if isinstance(error, UnicodeDecodeError) else "cannot be read"
        raise DefinitionError("guidelines", f"the file {value[:80]!r} {reason} (read from the definition's "
                                            "folder; or write the guidelines themselves here)") from None


def _parse(text: str, source: str) -> tuple[Any, dict[str, int]]:
    """The data and {key path: line}. JSON is read as JSON (PyYAML's YAML 1.1 reads 1e-3 as text and refuses
    tabs), YAML as YAML; the lines come from YAML's nodes either way (JSON is YAML once tabs are spaces)."""
    import yaml

    from annotator.declared.yaml_errors import explain  # with yaml: loaded when a definition is read
    text = text[1:] if text.startswith("\ufeff") else text
    data: Any = _NOTHING
    if text.lstrip(" \t\r\n").startswith(("{", "[")):
        try:
            data = json.loads(text)
            text = text.replace("\t", " ")   # a JSON string holds no raw tab: only white space changes
        except (ValueError, RecursionError):
            data = _NOTHING
    loader = None
    try:
        _check_depth(text)
        loader = yaml.SafeLoader(text)
        node = loader.get_single_node()
        lines = _lines(node)
        if data is _NOTHING:
            data = _construct(loader, node, lines)
        return data, lines
    except DefinitionError as error:
        raise DefinitionError(error.path, error.message, error.line, source) from None
    except yaml.YAMLError as error:
        if data is not _NOTHING:
            return data, {"": 1}
        if isinstance(error, yaml.reader.ReaderError):
            raise DefinitionError("", f"not valid YAML or JSON (the character U+{error.character:04X} is not "
                                      "allowed in YAML text)", text[:error.position].count("\n") + 1,
                                  source) from None
        problem = explain(error, text)
        what = "YAML or JSON" if text.lstrip(" \t\r\n").startswith(("{", "[")) else "YAML"
        raise DefinitionError("", f"not valid {what}: {problem.message}", problem.line, source,
                              problem.column) from None
    finally:
        if loader is not None:
            loader.dispose()


_NOTHING = object()


def _check_depth(text: str) -> None:
    """Refuse deep nesting from the event stream (PyYAML builds nodes recursively: 300 levels overflow it), at the
    key path and line of the first collection too deep."""
    import yaml
    frames: list[dict[str, Any]] = []      # open collections: path, is a mapping, next key expected, key, index
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            frames.pop()
            continue
        if not isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent, yaml.MappingStartEvent,
                                  yaml.SequenceStartEvent)):
            continue
        path, line = "", event.start_mark.line + 1
        if frames:
            top = frames[-1]
            if top["mapping"] and top["expect_key"]:
                top.update(expect_key=False, key=_pairs_joined(str(getattr(event, "value", "?"))), line=line)
                path = ""       # a key; a collection as a key is refused later (not a name)
            elif top["mapping"]:
                top["expect_key"] = True
                path, line = join_path(top["path"], top["key"]), top["line"]
            else:
                path, top["index"] = f"{top['path']}[{top['index']}]", top["index"] + 1
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            if len(frames) >= MAX_DEPTH:
                raise DefinitionError(path, f"lists and mappings nest more than {MAX_DEPTH} levels deep here; "
                                            "a definition needs 5", line)
            frames.append({"path": path, "mapping": isinstance(event, yaml.MappingStartEvent), "expect_key": True,
                           "key": "", "line": line, "index": 0})


def _construct(loader: Any, node: Any, lines: Mapping[str, int]) -> Any:
    """The YAML data; a value YAML cannot build (a number of 5,000 digits, 2024-13-01) is named with its path."""
    if node is None:
        return None
    try:
        return _pairs_joined(loader.construct_document(node))
    except (ValueError, OverflowError) as error:
        import yaml
        for path, sub in _walk(node):
            try:
                if isinstance(sub, yaml.ScalarNode):
                    yaml.SafeLoader("").construct_object(sub)   # a fresh one: the failed loader's state is spent
            except (ValueError, OverflowError):
                raise DefinitionError(path, f"{sub.value[:40]!r} cannot be read ({error}); quote it to make it "
                                            "text", sub.start_mark.line + 1) from None
        raise DefinitionError("", f"a value cannot be read ({error})", lines.get("")) from None


def _pairs_joined(value: Any, done: dict[int, Any] | None = None) -> Any:
    """YAML's "\\ud83d\\ude00" (how JSON writes an emoji) is one character, as in JSON; PyYAML leaves two halves.

    A list or mapping reached again through an alias is done once (`done`): a billion laughs stays small."""
    if isinstance(value, str):
        if not any("\ud800" <= c <= "\udfff" for c in value):
            return value
        try:
            return value.encode("utf-16", "surrogatepass").decode("utf-16")
        except UnicodeDecodeError:
            return value      # a lone half: refused where the text is read
    if not isinstance(value, (list, dict)):
        return value
    done = {} if done is None else done
    if id(value) not in done:
        done[id(value)] = [_pairs_joined(v, done) for v in value] if isinstance(value, list) else \
            {_pairs_joined(k, done): _pairs_joined(v, done) for k, v in value.items()}
    return done[id(value)]


def _walk(node: Any, path: str = "", seen: set[int] | None = None) -> Any:
    """(key path, node) for the node, every mapping key (its key node) and sequence entry below it, in order.

    A node reached again through an alias is not walked twice (a billion laughs stays small); a key written twice
    in one mapping is refused (YAML and JSON would silently keep the last).
    """
    import yaml
    seen = set() if seen is None else seen
    yield path, node
    if id(node) in seen:
        return
    seen.add(id(node))
    if isinstance(node, yaml.MappingNode):
        written: dict[str, int] = {}
        for key, value in node.value:
            name = _pairs_joined(str(key.value)) if isinstance(key, yaml.ScalarNode) else "?"
            sub = join_path(path, name)
            line = key.start_mark.line + 1
            if name in written and name != "<<" and isinstance(key, yaml.ScalarNode):
                raise DefinitionError(sub, f"is written twice in one mapping (lines {written[name]} and {line}); "
                                           "keep one", line)
            written[name] = line
            yield sub, key
            yield from _walk(value, sub, seen)
    elif isinstance(node, yaml.SequenceNode):
        for index, value in enumerate(node.value):
            yield from _walk(value, f"{path}[{index}]", seen)


def _lines(node: Any) -> dict[str, int]:
    """{key path: 1-based line} for every mapping key and sequence entry of a composed YAML node."""
    found: dict[str, int] = {"": 1}
    if node is None:
        return found
    found[""] = node.start_mark.line + 1
    for path, sub in _walk(node):
        found.setdefault(path, sub.start_mark.line + 1)
    return found


def join_path(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _line_of(lines: Mapping[str, int], path: str) -> int | None:
    """The line of `path`, or of its nearest enclosing key that the file has (a missing key: its parent)."""
    while path:
        if path in lines:
            return lines[path]
        path = path[:max(path.rfind("."), path.rfind("["), 0)]
    return lines.get("")


def definition_from_data(data: Any) -> Definition:
    """Check the definition's data (parsed YAML/JSON, or as stored) and build it; DefinitionError on a problem."""
    from annotator.declared import repeat
    from annotator.declared.definition_checks import Keys, check_rules, languages, question, show_fields
    from annotator.declared.item_view import kept_fields
    top = Keys(data, "", ("name", "description", "guidelines", "licence", "license", "language", "k", "show",
                          "questions", "checks", "keep"))
    name = top.text("name")
    if not name.strip():
        raise DefinitionError("name", "must not be blank")
    if top.has("licence") and top.has("license"):
        raise DefinitionError("license", "give the licence once (licence or license, not both)")
    licence = top.text("licence", "", limit=1000) or top.text("license", "", limit=1000)
    guidelines = top.text("guidelines", "", limit=100_000)
    description = top.text("description", "", limit=5_000)
    k = int(top.number("k", 0, low=1, high=100, integer=True)) if top.has("k") else None
    language = languages(top)
    show = show_fields(top)
    fields = {s.field: s for s in show}
    entries = top.listed("questions", required=True)
    if not entries:
        raise DefinitionError("questions", "must list at least one question")
    if len(entries) > MAX_QUESTIONS:
        raise DefinitionError("questions", f"lists {len(entries)} questions; at most {MAX_QUESTIONS}")
    questions: list[Question] = []
    groups: list[repeat.Repeat] = []
    for index, entry in enumerate(entries):
        if repeat.is_group(entry):
            made, asked = repeat.group(entry, f"questions[{index}]", fields, questions, groups, k)
            groups.append(made)
            questions += asked
            continue
        repeat.refuse_outside_when(entry, f"questions[{index}]", questions)
        questions.append(question(entry, f"questions[{index}]", fields, questions, k))
        if any(g.id == questions[-1].id for g in groups):
            raise DefinitionError(f"questions[{index}].id", f"{questions[-1].id!r} is the id of an earlier group; "
                                                            "ids must differ")
    check_rules(data, questions)   # named rules: their inputs and the top-level checks (named_rules.py)
    stored = {key: value for key, value in data.items() if value is not None}
    if "license" in stored:
        stored["licence"] = stored.pop("license")
    reads = Definition(name, tuple(questions), show, repeats=tuple(groups)).item_fields()
    return Definition(name=name, questions=tuple(questions), show=show, k=k, guidelines=guidelines,
                      repeats=tuple(groups), description=description, licence=licence, language=language,
                      keep=kept_fields(top, reads), data=json.loads(json.dumps(stored, allow_nan=False)))


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
