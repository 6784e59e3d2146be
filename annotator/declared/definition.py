"""A declared campaign's definition: what the HIT shows, what it asks, and how gold and agreement are derived.

An organiser writes it as a YAML (or JSON) file; `definition_from_text` checks all of it before anything is
stored and names the key path and line of the first problem (`questions[2].gold.positive: must be between 0
and 1, line 14`). The checked definition is kept on the project as plain data (`Definition.to_data`), and
read back without the lines by `definition_from_data`, which runs the same checks: a definition in the
database is always one the validator accepted.

The shape is documented in README.md ("Declared campaigns"); this module is its single reference.
"""
from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

KINDS = ("choice", "multi", "scale", "span", "pairwise", "text")
SHOW_AS = ("text", "title", "markdown", "image_url")
LEVELS = ("nominal", "ordinal", "interval")
RULES = {
    "choice": ("majority", "share", "agree", "dawid_skene"),
    "multi": ("majority", "share", "agree", "dawid_skene"),
    "scale": ("median", "mean", "majority", "agree"),
    "span": ("probability", "share"),
    "pairwise": ("bradley_terry", "majority", "dawid_skene"),
    "text": (),
}
DEFAULT_RULE = {"choice": "majority", "multi": "majority", "scale": "median", "span": "probability",
                "pairwise": "bradley_terry"}
DEFAULT_LEVEL = {"choice": "nominal", "multi": "nominal", "scale": "interval", "span": "nominal",
                 "pairwise": "nominal"}
UNDECIDED = "undecided"
NOT_ASKED = "n/a"             # gold of a `when` question whose condition the earlier question's gold does not meet
PAIRWISE_VALUES = ("A", "B", "equal")
IDENTIFIER = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
FIELD_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,59}$")
RESERVED_FIELDS = {"id"}       # the item's id is its own column, never a shown field's name clash
MAX_QUESTIONS = 60
MAX_OPTIONS = 200


class DefinitionError(ValueError):
    """A definition that cannot be used: `path` is the key path (questions[2].gold.positive), `line` where it is."""

    def __init__(self, path: str, message: str, line: int | None = None, source: str | None = None):
        self.path, self.message, self.line, self.source = path, message, line, source
        where = f", line {line}" if line is not None else ""
        prefix = f"{source}: " if source else ""
        super().__init__(f"{prefix}{path or 'the definition'}: {message}{where}")


@dataclass(frozen=True)
class Shown:
    """One field of the item shown to the annotator, in order; `as` says how it is drawn."""

    field: str
    kind: str = "text"           # the YAML key `as`
    label: str = ""


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
    k: int | None = None
    data: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def question(self, qid: str) -> Question:
        return next(q for q in self.questions if q.id == qid)

    def item_fields(self) -> list[str]:
        """The item fields the HIT reads: shown fields, options_from and pairwise players, in order."""
        names = [s.field for s in self.show]
        for q in self.questions:
            names += [f for f in (q.options_from, *(q.players or ())) if f]
        return list(dict.fromkeys(names))

    def to_data(self) -> dict[str, Any]:
        """The definition as stored on the project: the checked data, guidelines resolved to their text."""
        return dict(self.data)


# --- reading ------------------------------------------------------------------------------------------------

def definition_from_text(text: str, source: str = "definition", base: Path | None = None) -> Definition:
    """Parse YAML or JSON text and check it; DefinitionError names the key path and line of the first problem.

    `base` is the folder a `guidelines: file.md` is read from (the definition file's folder).
    """
    import yaml
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        problem = getattr(error, "problem", None) or str(error)
        raise DefinitionError("", f"not valid YAML or JSON ({problem})",
                              mark.line + 1 if mark is not None else None, source) from None
    lines = _lines(node)
    if isinstance(data, dict) and isinstance(data.get("guidelines"), str) and base is not None:
        data["guidelines"] = _guidelines(data["guidelines"], base, lines.get("guidelines"), source)
    try:
        return definition_from_data(data)
    except DefinitionError as error:
        raise DefinitionError(error.path, error.message, _line_of(lines, error.path), source) from None


def definition_from_file(path: Path) -> Definition:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise DefinitionError("", "the file is not UTF-8 text", None, str(path)) from None
    except OSError as error:
        raise DefinitionError("", f"cannot be read ({error.strerror})", None, str(path)) from None
    return definition_from_text(text, str(path), path.parent)


def _guidelines(value: str, base: Path, line: int | None, source: str) -> str:
    """A value naming a .md / .txt file next to the definition is replaced by the file's text."""
    if "\n" in value or not re.search(r"\.(md|markdown|txt)$", value, re.IGNORECASE):
        return value
    path = (base / value)
    try:
        if path.resolve().parent != base.resolve() and base.resolve() not in path.resolve().parents:
            raise DefinitionError("guidelines", f"{value!r} is outside the definition's folder", line, source)
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        raise DefinitionError("guidelines", f"the file {value!r} cannot be read next to the definition",
                              line, source) from None


def _lines(node: Any, path: str = "") -> dict[str, int]:
    """{key path: 1-based line} for every mapping key and sequence entry of a composed YAML node."""
    import yaml
    found: dict[str, int] = {}
    if node is None:
        return found
    found.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            sub = f"{path}.{key.value}" if path else str(key.value)
            found[sub] = key.start_mark.line + 1
            for p, line in _lines(value, sub).items():
                found.setdefault(p, line)
    elif isinstance(node, yaml.SequenceNode):
        for index, value in enumerate(node.value):
            for p, line in _lines(value, f"{path}[{index}]").items():
                found.setdefault(p, line)
    return found


def _line_of(lines: Mapping[str, int], path: str) -> int | None:
    """The line of `path`, or of its nearest enclosing key that the file has (a missing key: its parent)."""
    while path:
        if path in lines:
            return lines[path]
        path = path[:max(path.rfind("."), path.rfind("["), 0)]
    return lines.get("")


# --- checking -----------------------------------------------------------------------------------------------

class _Keys:
    """Reads one mapping of the definition, refusing keys it does not know, with the key path in every error."""

    def __init__(self, data: Any, path: str, known: tuple[str, ...]):
        if not isinstance(data, dict):
            raise DefinitionError(path, f"must be a mapping (key: value), not {_kind(data)}")
        for key in data:
            if not isinstance(key, str) or key not in known:
                raise DefinitionError(_join(path, str(key)), f"unknown key; known here: {', '.join(known)}")
        self.data, self.path = data, path

    def at(self, key: str) -> str:
        return _join(self.path, key)

    def has(self, key: str) -> bool:
        return key in self.data and self.data[key] is not None

    def text(self, key: str, default: str | None = None, *, limit: int = 200, pattern: re.Pattern[str] | None = None,
             what: str = "") -> str:
        value = self.data.get(key)
        if value is None:
            if default is None:
                raise DefinitionError(self.at(key), "is required")
            return default
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise DefinitionError(self.at(key), f"must be text, not {_kind(value)}")
        value = str(value)
        if len(value) > limit:
            raise DefinitionError(self.at(key), f"is longer than {limit} characters")
        if "\x00" in value:
            raise DefinitionError(self.at(key), "holds a NUL character")
        if pattern is not None and not pattern.match(value):
            raise DefinitionError(self.at(key), f"{value!r} is not {what}")
        return value

    def number(self, key: str, default: float, *, low: float | None = None, high: float | None = None,
               integer: bool = False) -> float:
        value = self.data.get(key, default)
        if value is None:
            value = default
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise DefinitionError(self.at(key), f"must be a {'whole ' if integer else ''}number, not {_kind(value)}")
        if integer and value != int(value):
            raise DefinitionError(self.at(key), f"must be a whole number, not {value}")
        if low is not None and value < low or high is not None and value > high:
            bounds = f"between {_num(low)} and {_num(high)}" if low is not None and high is not None else \
                f"at least {_num(low)}" if low is not None else f"at most {_num(high)}"
            raise DefinitionError(self.at(key), f"must be {bounds}, not {_num(value)}")
        return int(value) if integer else float(value)

    def flag(self, key: str, default: bool) -> bool:
        value = self.data.get(key, default)
        if not isinstance(value, bool):
            raise DefinitionError(self.at(key), f"must be true or false, not {_kind(value)}")
        return value

    def listed(self, key: str, *, required: bool = False) -> list[Any]:
        value = self.data.get(key)
        if value is None:
            if required:
                raise DefinitionError(self.at(key), "is required")
            return []
        if not isinstance(value, list):
            raise DefinitionError(self.at(key), f"must be a list, not {_kind(value)}")
        return value


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"{str(value).lower()} (true/false)"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the text {value[:40]!r}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def _num(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def definition_from_data(data: Any) -> Definition:
    """Check the definition's data (parsed YAML/JSON, or as stored) and build it; DefinitionError on a problem."""
    top = _Keys(data, "", ("name", "description", "guidelines", "licence", "license", "k", "show", "questions"))
    name = top.text("name")
    if not name.strip():
        raise DefinitionError("name", "must not be blank")
    if top.has("licence") and top.has("license"):
        raise DefinitionError("license", "give the licence once (licence or license)")
    licence = top.text("licence", "") or top.text("license", "")
    k = int(top.number("k", 0, low=1, high=100, integer=True)) if top.has("k") else None
    show = _show(top)
    fields = {s.field: s for s in show}
    entries = top.listed("questions", required=True)
    if not entries:
        raise DefinitionError("questions", "must list at least one question")
    if len(entries) > MAX_QUESTIONS:
        raise DefinitionError("questions", f"lists {len(entries)} questions; at most {MAX_QUESTIONS}")
    questions: list[Question] = []
    for index, entry in enumerate(entries):
        questions.append(_question(entry, f"questions[{index}]", fields, questions))
    stored = {key: value for key, value in data.items() if value is not None}
    if "license" in stored:
        stored["licence"] = stored.pop("license")
    return Definition(name=name, questions=tuple(questions), show=show, k=k,
                      guidelines=top.text("guidelines", "", limit=100_000),
                      description=top.text("description", "", limit=5_000), licence=licence,
                      data=json.loads(json.dumps(stored)))


def _show(top: _Keys) -> tuple[Shown, ...]:
    entries = top.listed("show", required=True)
    if not entries:
        raise DefinitionError("show", "must list at least one field of the item to show")
    shown: list[Shown] = []
    for index, entry in enumerate(entries):
        path = f"show[{index}]"
        if isinstance(entry, str):
            entry = {"field": entry}
        keys = _Keys(entry, path, ("field", "as", "label"))
        name = keys.text("field", pattern=FIELD_NAME, what="a field name (letters, digits, _)")
        if name in RESERVED_FIELDS:
            raise DefinitionError(keys.at("field"), f"{name!r} is the item's id; show another field")
        if any(s.field == name for s in shown):
            raise DefinitionError(keys.at("field"), f"{name!r} is shown twice")
        kind = keys.text("as", "text")
        if kind not in SHOW_AS:
            raise DefinitionError(keys.at("as"), f"{kind!r} is not one of {', '.join(SHOW_AS)}")
        shown.append(Shown(name, kind, keys.text("label", "")))
    return tuple(shown)


QUESTION_KEYS = {
    "choice": ("options", "options_from"),
    "multi": ("options", "options_from", "none"),
    "scale": ("min", "max", "step", "anchors"),
    "span": ("of",),
    "pairwise": ("a", "b", "players", "allow_equal"),
    "text": ("max_length",),
}
COMMON_KEYS = ("id", "kind", "prompt", "required", "when", "gold", "agreement")


def _question(entry: Any, path: str, fields: Mapping[str, Shown], earlier: list[Question]) -> Question:
    if not isinstance(entry, dict):
        raise DefinitionError(path, f"must be a mapping with id and kind, not {_kind(entry)}")
    kind = _Keys({k: v for k, v in entry.items() if k in ("kind",)}, path, ("kind",)).text("kind")
    if kind not in KINDS:
        raise DefinitionError(_join(path, "kind"), f"{kind!r} is not one of {', '.join(KINDS)}")
    keys = _Keys(entry, path, COMMON_KEYS + QUESTION_KEYS[kind])
    qid = keys.text("id", pattern=IDENTIFIER, what="an id (lower-case letters, digits and _, starting with a letter)")
    if any(q.id == qid for q in earlier):
        raise DefinitionError(keys.at("id"), f"{qid!r} is the id of an earlier question")
    spec: dict[str, Any] = {"id": qid, "kind": kind, "prompt": keys.text("prompt", qid, limit=1000),
                            "required": keys.flag("required", True)}
    spec.update(_KIND_PARTS[kind](keys, fields))
    spec["when"] = _when(keys, earlier)
    question = Question(**spec)
    gold = _gold(keys, question)
    agreement = _agreement(keys, question)
    return Question(**{**spec, "gold": gold, "agreement": agreement})


def _options(keys: _Keys, fields: Mapping[str, Shown]) -> dict[str, Any]:
    if keys.has("options") == keys.has("options_from"):
        raise DefinitionError(keys.path, "give the options (options: [...]) or the item field holding them "
                                         "(options_from: field), one of the two")
    if keys.has("options_from"):
        return {"options_from": keys.text("options_from", pattern=FIELD_NAME, what="a field name")}
    entries = keys.listed("options")
    if len(entries) < 2:
        raise DefinitionError(keys.at("options"), "must list at least two options")
    if len(entries) > MAX_OPTIONS:
        raise DefinitionError(keys.at("options"), f"lists {len(entries)} options; at most {MAX_OPTIONS}")
    options: list[OptionSpec] = []
    for index, entry in enumerate(entries):
        path = f"{keys.at('options')}[{index}]"
        if isinstance(entry, dict):
            option = _Keys(entry, path, ("value", "label"))
            value, label = option.text("value", limit=100), option.text("label", "", limit=500)
        elif isinstance(entry, bool) or entry is None or not isinstance(entry, (str, int, float)):
            raise DefinitionError(path, f"must be text, a number or {{value, label}}, not {_kind(entry)} "
                                        '(quote "yes" and "no": YAML reads them as true/false)')
        else:
            value, label = str(entry), ""
        if not value.strip():
            raise DefinitionError(path, "an option's value must not be blank")
        if value in (UNDECIDED, NOT_ASKED):
            raise DefinitionError(path, f"{value!r} is what gold says when it is not decided; "
                                        "name the option otherwise")
        if any(o.value == value for o in options):
            raise DefinitionError(path, f"{value!r} is listed twice")
        options.append(OptionSpec(value, label or value))
    return {"options": tuple(options)}


def _multi(keys: _Keys, fields: Mapping[str, Shown]) -> dict[str, Any]:
    return {**_options(keys, fields), "none": keys.text("none", "", limit=200) or None}


def _scale(keys: _Keys, fields: Mapping[str, Shown]) -> dict[str, Any]:
    low = keys.number("min", 1, low=-1e6, high=1e6)
    high = keys.number("max", 5, low=-1e6, high=1e6)
    step = keys.number("step", 1, low=1e-6)
    if high <= low:
        raise DefinitionError(keys.at("max"), f"must be above min ({_num(low)})")
    steps = (high - low) / step
    if abs(steps - round(steps)) > 1e-9:
        raise DefinitionError(keys.at("step"), f"must divide max - min ({_num(high - low)}) into whole steps")
    if round(steps) > 100:
        raise DefinitionError(keys.at("step"), f"gives {round(steps) + 1} points; at most 101")
    anchors = keys.listed("anchors")
    if anchors and (len(anchors) != 2 or not all(isinstance(a, str) for a in anchors)):
        raise DefinitionError(keys.at("anchors"), "must be two words or phrases: [lowest end, highest end]")
    return {"minimum": low, "maximum": high, "step": step, "anchors": tuple(anchors) if anchors else ("", "")}


def _span(keys: _Keys, fields: Mapping[str, Shown]) -> dict[str, Any]:
    of = keys.text("of", pattern=FIELD_NAME, what="a field name")
    if of not in fields or fields[of].kind not in ("text", "title"):
        raise DefinitionError(keys.at("of"), f"{of!r} must be a shown field drawn as text (show: - {{field: {of}}})")
    return {"of": of}


def _pairwise(keys: _Keys, fields: Mapping[str, Shown]) -> dict[str, Any]:
    a = keys.text("a", pattern=FIELD_NAME, what="a field name")
    b = keys.text("b", pattern=FIELD_NAME, what="a field name")
    for key, name in (("a", a), ("b", b)):
        if name not in fields:
            raise DefinitionError(keys.at(key), f"{name!r} must be one of the shown fields ({', '.join(fields)})")
    if a == b:
        raise DefinitionError(keys.at("b"), "must be another field than a")
    players = keys.listed("players")
    if players and (len(players) != 2 or not all(isinstance(p, str) and FIELD_NAME.match(p) for p in players)
                    or players[0] == players[1]):
        raise DefinitionError(keys.at("players"), "must be two item fields naming what A and B are: [a_id, b_id]")
    return {"a": a, "b": b, "players": tuple(players) if players else None,
            "allow_equal": keys.flag("allow_equal", True)}


def _text(keys: _Keys, fields: Mapping[str, Shown]) -> dict[str, Any]:
    return {"max_length": int(keys.number("max_length", 500, low=1, high=10_000, integer=True))}


_KIND_PARTS = {"choice": _options, "multi": _multi, "scale": _scale, "span": _span, "pairwise": _pairwise,
               "text": _text}


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
    """A scale value as labels store it: 3, not 3.0; 2.5 as 2.5."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _when(keys: _Keys, earlier: list[Question]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not keys.has("when"):
        return ()
    condition = keys.data["when"]
    if not isinstance(condition, dict) or not condition:
        raise DefinitionError(keys.at("when"), "must map an earlier question's id to the answer(s) that show "
                                               "this one, e.g. when: {sarcastic: \"yes\"}")
    parts = []
    for qid, wanted in condition.items():
        path = _join(keys.at("when"), str(qid))
        parent = next((q for q in earlier if q.id == qid), None)
        if parent is None:
            raise DefinitionError(path, f"{qid!r} is not an earlier question")
        if parent.kind not in ("choice", "multi", "scale", "pairwise"):
            raise DefinitionError(path, f"a {parent.kind} question cannot decide whether another is shown")
        values = wanted if isinstance(wanted, list) else [wanted]
        if not values or any(isinstance(v, bool) or not isinstance(v, (str, int, float)) for v in values):
            raise DefinitionError(path, 'must be an answer, or a list of answers (quote "yes" and "no")')
        texts = tuple(number_text(v) if parent.kind == "scale" and not isinstance(v, str) else str(v) for v in values)
        allowed = answer_values(parent) if parent.kind != "multi" else (parent.option_values() or None)
        for text in texts:
            if allowed is not None and text not in allowed:
                raise DefinitionError(path, f"{text!r} is not an answer of {qid!r} ({', '.join(allowed)})")
        parts.append((str(qid), texts))
    return tuple(parts)


def _gold(keys: _Keys, question: Question) -> GoldRule | None:
    kind = question.kind
    if kind == "text":
        if keys.has("gold"):
            raise DefinitionError(keys.at("gold"), "a text question has no gold (free text is not aggregated)")
        return None
    raw = keys.data.get("gold")
    if raw is None:
        raw = {"rule": DEFAULT_RULE[kind]}
    if isinstance(raw, str):
        raw = {"rule": raw}
    gold = _Keys(raw, keys.at("gold"), ("rule", "ties", "value", "positive", "negative", "m", "otherwise"))
    rule = gold.text("rule")
    if rule not in RULES[kind]:
        raise DefinitionError(gold.at("rule"), f"{rule!r} does not apply to a {kind} question; "
                                               f"use one of {', '.join(RULES[kind])}")
    allowed = {"majority": ("rule", "ties"), "share": ("rule", "value", "positive", "negative"),
               "agree": ("rule", "m", "value", "otherwise")}.get(rule, ("rule",))
    for key in gold.data:
        if key not in allowed:
            raise DefinitionError(gold.at(key), f"the {rule} rule has no {key!r}")
    values = answer_values(question) if kind != "multi" else None
    if kind == "multi":
        values = question.option_values() or None

    def option(key: str, default: str, extra: tuple[str, ...] = ()) -> str:
        text = gold.text(key, default) if not isinstance(gold.data.get(key), (int, float)) or \
            isinstance(gold.data.get(key), bool) else number_text(gold.data[key])
        if text in extra or values is None or text in values:
            return text
        raise DefinitionError(gold.at(key), f"{text!r} is not an answer of this question ({', '.join(values)})")

    rule_spec: dict[str, Any] = {"rule": rule}
    if rule == "majority":
        rule_spec["ties"] = option("ties", UNDECIDED, (UNDECIDED,))
    elif rule == "share":
        positive = gold.number("positive", 0.6, low=0, high=1)
        negative = gold.number("negative", 0.15, low=0, high=1)
        if negative >= positive:
            raise DefinitionError(gold.at("negative"), f"must be below positive ({_num(positive)})")
        rule_spec.update(positive=positive, negative=negative)
        if kind == "choice":
            if not gold.has("value"):
                raise DefinitionError(gold.at("value"), "is required: the option whose share is counted")
            rule_spec["value"] = option("value", "")
        elif gold.has("value"):
            raise DefinitionError(gold.at("value"), f"a {kind} question's share is counted per "
                                                     f"{'option' if kind == 'multi' else 'word'}; leave value out")
    elif rule == "agree":
        rule_spec["m"] = int(gold.number("m", 2, low=1, high=100, integer=True))
        if gold.has("value"):
            rule_spec["value"] = option("value", "")
        rule_spec["otherwise"] = option("otherwise", UNDECIDED, (UNDECIDED,))
    return GoldRule(**rule_spec)


def _agreement(keys: _Keys, question: Question) -> str | None:
    if question.kind == "text":
        if keys.has("agreement"):
            raise DefinitionError(keys.at("agreement"), "a text question has no agreement (free text)")
        return None
    level = keys.text("agreement", DEFAULT_LEVEL[question.kind])
    if level not in LEVELS:
        raise DefinitionError(keys.at("agreement"), f"{level!r} is not one of {', '.join(LEVELS)}")
    if level != "nominal" and question.kind != "scale":
        raise DefinitionError(keys.at("agreement"), f"a {question.kind} question's answers are not ordered; "
                                                    "its agreement is nominal")
    return level
