"""Reading a declared campaign's definition: YAML or JSON text or a file, its lines, its guidelines file, and the
check of the whole document that builds a Definition (definition.py holds what a definition is).

Why a module of its own: the checks of each question (definition_checks.py) and of each kind's keys (repeat.py,
spans.py, shown.py, ...) read the definition's types, and this module reads the checks; with the reading in
definition.py, every check module and the definition imported each other.
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from annotator.declared import best_worst, derived, repeat, sides, unasked
from annotator.declared.adjudication import summary_items
from annotator.declared.control_scoring import control_scoring_part
from annotator.declared.definition import (
    MAX_BYTES,
    MAX_DEPTH,
    MAX_QUESTIONS,
    Definition,
    DefinitionError,
    Question,
    join_path,
)
from annotator.declared.definition_checks import check_rules, languages, question, show_fields
from annotator.declared.item_view import kept_fields
from annotator.declared.keys import Keys
from annotator.declared.stopping import stopping_part


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
    tabs), YAML as YAML; the lines come from YAML's nodes either way (JSON is YAML once tabs are spaces).

    A text in the plain subset (_fast_reads) is read with libyaml's parser first, ten times faster than PyYAML's
    own; whatever it refuses, and every other text, is read with PyYAML's, so what is refused and how it is
    worded (line, column, message) is PyYAML's alone."""
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
    if _fast_reads(text):
        try:
            return _read(text, data, yaml.CSafeLoader)
        except Exception:   # whatever libyaml refuses (or reads otherwise), PyYAML's parser reads again
            pass
    try:
        return _read(text, data, yaml.SafeLoader)
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


def _read(text: str, data: Any, loader_class: Any) -> tuple[Any, dict[str, int]]:
    """The data (`data` when JSON gave it) and the lines, read with the loader class (libyaml's or PyYAML's)."""
    import yaml
    _check_depth(text, loader_class)
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        if loader_class is not yaml.SafeLoader and "?" in text:
            _no_question_mark_in_flow(node)
        lines = _lines(node)
        if data is _NOTHING:
            data = _construct(loader, node, lines)
        return data, lines
    finally:
        loader.dispose()


# libyaml reads a few texts otherwise than PyYAML's parser (found by comparing both on random texts, tests/unit/
# test_definition_reader_libyaml.py): tabs, carriage returns and the other line breaks (U+0085, U+2028, U+2029), a
# byte order mark inside the text, characters YAML does not allow, a tag ("!"), a directive ("%"), a block scalar's
# header with a comment and no space ("|#"), and the line of an empty document's "---". Such a text is read by
# PyYAML's parser alone, and so is one where libyaml read a "?" in a plain scalar of a flow collection
# (_no_question_mark_in_flow); every other character and construct both parsers read alike.
_LIBYAML_UNSAFE = re.compile("[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd"
                             "\U00010000-\U0010ffff]|(?:^|[\\s\\[\\]{},:?-])!|^%|[|>][-+0-9]*#|^(?:---|\\.\\.\\.)",
                             re.MULTILINE)


def _no_question_mark_in_flow(node: Any, in_flow: bool = False, seen: set[int] | None = None) -> None:
    """Refuse (ValueError) a plain scalar holding "?" inside a flow collection ({...} or [...]): PyYAML's parser
    ends a plain scalar there and takes "?" for a key (it refuses `{label: Why? }`), libyaml reads it as text."""
    import yaml
    seen = set() if seen is None else seen
    if id(node) in seen:
        return
    seen.add(id(node))
    if isinstance(node, yaml.ScalarNode):
        if in_flow and not node.style and "?" in node.value:    # plain: style None (libyaml: "")
            raise ValueError("a plain scalar with '?' in a flow collection")
        return
    in_flow = in_flow or bool(node.flow_style)
    for entry in node.value:
        for sub in (entry if isinstance(node, yaml.MappingNode) else (entry,)):
            _no_question_mark_in_flow(sub, in_flow, seen)


def _fast_reads(text: str) -> bool:
    """Whether libyaml may read the text: it is in the subset both parsers read alike (above)."""
    import yaml
    return bool(getattr(yaml, "__with_libyaml__", False)) and _LIBYAML_UNSAFE.search(text) is None


_NOTHING = object()


def _check_depth(text: str, loader_class: Any = None) -> None:
    """Refuse deep nesting from the event stream (PyYAML builds nodes recursively: 300 levels overflow it), at the
    key path and line of the first collection too deep."""
    import yaml
    frames: list[dict[str, Any]] = []      # open collections: path, is a mapping, next key expected, key, index
    for event in yaml.parse(text, Loader=loader_class or yaml.SafeLoader):
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


def _line_of(lines: Mapping[str, int], path: str) -> int | None:
    """The line of `path`, or of its nearest enclosing key that the file has (a missing key: its parent)."""
    while path:
        if path in lines:
            return lines[path]
        path = path[:max(path.rfind("."), path.rfind("["), 0)]
    return lines.get("")


def definition_from_data(data: Any) -> Definition:
    """Check the definition's data (parsed YAML/JSON, or as stored) and build it; DefinitionError on a problem."""
    top = Keys(data, "", ("name", "description", "guidelines", "licence", "license", "language", "k", "show",
                          "questions", "checks", "keep", "pairwise_order", "control_score", "summary_items",
                          "stopping"))
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
    where: dict[str, str] = {}   # question or group id -> its key path, for the checks across questions
    for index, entry in enumerate(entries):
        if repeat.is_group(entry):
            made, asked = repeat.group(entry, f"questions[{index}]", fields, questions, groups, k)
            groups.append(made)
            questions += asked
            where[made.id] = f"questions[{index}]"
            continue
        repeat.refuse_outside_when(entry, f"questions[{index}]", questions)
        questions.append(question(entry, f"questions[{index}]", fields, questions, k))
        unasked.refuse_outside_group(questions[-1], f"questions[{index}]")
        where[questions[-1].id] = f"questions[{index}]"
        if any(g.id == questions[-1].id for g in groups):
            raise DefinitionError(f"questions[{index}].id", f"{questions[-1].id!r} is the id of an earlier group; "
                                                            "ids must differ")
    best_worst.check_definition(questions, show, where)   # one, and no other question reading an item field
    derived.link(questions, groups, where)   # a derived comparison's sides (derived.py)
    sides.check_groups(groups, questions, where)   # a sides group's pairwise question, then one order (sides.py)
    order = sides.order_part(data.get("pairwise_order"))
    sides.check_order(order, questions, where)
    check_rules(data, questions)   # named rules: their inputs and the top-level checks (named_rules.py)
    control_scoring_part(data.get("control_score"), questions)   # what a control item scores (control_scoring.py)
    summary_items(data)   # the gold summary's items by status (adjudication.py)
    stored = {key: value for key, value in data.items() if value is not None}
    if "license" in stored:
        stored["licence"] = stored.pop("license")
    reads = Definition(name, tuple(questions), show, repeats=tuple(groups)).item_fields()
    keep = kept_fields(top, reads)
    # when an item's votes are enough (declared/stopping.py); prior_by names one of the declared item fields
    stopping = stopping_part(top, questions, k, [*reads, *(f for f in keep if f not in reads)])
    return Definition(name=name, questions=tuple(questions), show=show, k=k, guidelines=guidelines,
                      repeats=tuple(groups), description=description, licence=licence, language=language,
                      keep=keep, pairwise_order=order,
                      stopping=stopping, data=json.loads(json.dumps(stored, allow_nan=False)))
