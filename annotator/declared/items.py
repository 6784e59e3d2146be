"""A declared campaign's items file: CSV, TSV or JSON Lines, read and checked against the definition.

The layout (docs/declared-campaigns.md, "Items and exports"), chosen by the file's extension (.csv, .tsv, .jsonl),
UTF-8; a .csv file's columns may be separated by commas, semicolons or tabs (core/delimiters.py tells which):
  id              the item's id (1 to 200 characters, unique in the file); without an `id` column (JSONL: no
                  line has an `id` key) the items are numbered 1, 2, 3... in file order.
  <field>         one column (key) per field the definition reads (`Definition.item_fields()`): the shown
                  fields, `options_from` fields and pairwise `players`; all of them, and no other.
                  An `options_from` field holds the item's options: a list of text, or of {"id", "text"}
                  objects (JSON text in a CSV / TSV cell). A `players` field names what A or B is, at most
                  90 characters (the pair is a label's unit). A span question's field may be a list of
                  words in JSONL. A field an item condition reads (`when: {item.claims: masks}`) holds a list
                  of text or numbers (JSON in a CSV / TSV cell) or a text. A field shown `as: image_url` is an
                  http(s) address. A field shown `as: list`,
                  and the `highlights` field of one shown `as: highlighted`, hold JSON (annotator/declared/shown.py).
                  A field the definition reads through key paths (`key_point` of `key_point.text`) is kept whole
                  (JSON in a CSV / TSV cell), and every path must lead to a value (docs/declared-item-paths.md).
  <kept field>    a field of the definition's `keep`: optional, stored and exported as given, never shown.
  known.<question id>
                  a control item's known answer to that question (optional; JSON in a CSV / TSV cell, and
                  bare text is read as text: `positive` or `"positive"`); it must be a valid answer to the
                  question for this item. An item with any known answer is a control item: its known answers
                  ({question id: answer}) are its reference, served now and then to check annotators, never
                  part of gold (annotator/quality/).
  reference.<question id>
                  the item's reference answer to that question, for an item that is NOT a control item (optional;
                  read and checked as a known answer is): stored as the item's reference ({question id: answer}),
                  never shown to annotators nor sent by the API, its votes counted in gold as any item's. Named
                  rules read it (ReCAM's selection: an annotator's accuracy, a question's known answer), the admin's
                  items page shows it beside the gold, and an admin may make the item a control item with it
                  (docs/declared-references.md). An item gives known.<...> or reference.<...> columns, not both.
Every problem raises a FormatError naming the file, the line and the column (or key); nothing is kept.
"""
from __future__ import annotations

import csv
import itertools
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, BinaryIO

from flask import current_app, has_app_context

from annotator.core.delimiters import SAMPLE, table_delimiter
from annotator.core.errors import FormatError
from annotator.core.hit_values import AnswerError, NewItem
from annotator.core.jsonsafe import JSONBodyError, JSONValueError, check_value, loads_text
from annotator.core.line_ends import normalise_line_ends
from annotator.declared import answers, best_worst, item_view, item_when, paths, repeat, shown, sides
from annotator.declared.asked import is_shown
from annotator.declared.definition import MAX_BYTES, Definition, DefinitionError, Question
from annotator.declared.definition_reader import definition_from_file

KNOWN = "known."
REFERENCE = "reference."       # a reference answer that does not make the item a control item
PREFIX_WORDS = {KNOWN: "the known answer", REFERENCE: "the reference answer"}
ID = "id"
ID_LENGTH = 200
PLAYER_LENGTH = 90       # ["<A>", "<B>"] is a label's unit (200 characters)
OPTION_LENGTH = 100      # a multi question's option is a label's unit
VALUE_LENGTH = 100_000   # one field's text
MAX_OPTIONS = 200
EXTENSIONS = {".csv": ",", ".tsv": "\t", ".jsonl": None}


def load_definition(path: Path, name: str | None = None) -> Definition:
    """The definition file, checked; FormatError naming the file, line and key path of the first problem.

    Within an app, its DEFINITION_MAX_BYTES bounds the file (and its guidelines file) before either is read."""
    limit = int(current_app.config.get("DEFINITION_MAX_BYTES", MAX_BYTES)) if has_app_context() else MAX_BYTES
    try:
        return definition_from_file(Path(path), limit)
    except DefinitionError as error:
        raise FormatError(f"{error.path or 'the definition'}: {error.message}", file=name or Path(path).name,
                          line=error.line, column=None if error.column is None else str(error.column)) from None


def read_items(path: Path, definition: Definition, name: str | None = None) -> list[NewItem]:
    """The file's items in file order, checked against `definition` and each other (an id given twice is named with
    both lines); FormatError (file, line, column) otherwise. For a preview or a check: an import streams them."""
    return list(iter_items(path, definition, name, check_ids=True))


def iter_items(path: Path, definition: Definition, name: str | None = None, *,
               check_ids: bool = False) -> Iterator[NewItem]:
    """The file's items one by one, read as a stream: a million items are never in memory together.

    An id given twice is refused here only with `check_ids` (that remembers every id: a preview's check); an
    import leaves it to the import, which finds it in the database with both lines (campaigns/projects.py).
    Each item carries its file and line. A problem raises FormatError when the iteration reaches it.

    With a best_worst question the file's items are the things scored: all of them are read, then the tuples a
    seeded balanced design builds of them are the items yielded (declared/best_worst.py).
    """
    if best_worst.question_of(definition) is not None:
        objects = _items(Path(path), definition, name or Path(path).name, check_ids)
        yield from best_worst.tuple_items(definition, objects, name or Path(path).name)
        return
    yield from _items(Path(path), definition, name or Path(path).name, check_ids)


def _items(path: Path, definition: Definition, name: str, check_ids: bool) -> Iterator[NewItem]:
    """The file's rows as items, checked one by one against the definition (iter_items)."""
    path = Path(path)
    name = name or path.name
    suffix = path.suffix.lower()
    if suffix not in EXTENSIONS:
        raise FormatError(f"the items file must be .csv, .tsv or .jsonl (JSON Lines), not {suffix or 'no extension'!r}",
                          file=name)
    try:
        stream = path.open("rb")
    except OSError as error:
        raise FormatError(f"cannot be read ({error.strerror})", file=name) from None
    with stream:
        reader = _Reader(definition, name, check_ids)
        lines = _lf_lines(_decoded_lines(stream, name))  # a line break inside a quoted CSV cell is LF, as a form's
        if suffix == ".csv":                              # text is; and ; or tabs between the columns of a .csv too
            sample, lines = _peeked(lines, SAMPLE)
            delimiter: str | None = table_delimiter(sample, name)
        else:
            delimiter = EXTENSIONS[suffix]
        rows = _jsonl_rows(lines, name) if delimiter is None else _table_rows(lines, name, delimiter, reader)
        for line, row in rows:
            yield reader.item(line, row)
    if not reader.count:
        raise FormatError("holds no item", file=name)


def known_columns(definition: Definition) -> list[str]:
    """Every column an items file may have, in the order the layout lists them."""
    scored = repeat.answer_keys(definition, scored=True)
    return [ID, *item_view.roots(definition), *definition.keep, *(KNOWN + key for key in scored),
            *(REFERENCE + key for key in scored)]


def _decoded_lines(stream: BinaryIO, name: str) -> Iterator[str]:
    """The file's lines as text, line ends kept (the CSV reader needs them inside quoted cells), one at a time;
    FormatError with the line for bytes that are not UTF-8 and for NUL."""
    for number, raw in enumerate(stream, 1):
        try:
            text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError:
            raise FormatError("is not UTF-8 text (save it as UTF-8)", file=name, line=number) from None
        if "\x00" in text:
            raise FormatError("a NUL character (\\u0000), which no text kept here may hold (is the file UTF-16? it "
                              "must be UTF-8)", file=name, line=number)
        yield text


def _lf_lines(lines: Iterator[str]) -> Iterator[str]:
    """The lines with LF line ends only: a CRLF line's end made LF, and a line of an old Mac's file (CR between
    lines, so one "line" to a reader that splits on LF) split into its lines (split on CR and LF only: str.splitlines
    would split on other characters a cell may hold)."""
    for line in lines:
        if "\r" not in line:
            yield line
            continue
        parts = normalise_line_ends(line).split("\n")
        yield from (part + "\n" for part in parts[:-1])
        if parts[-1]:
            yield parts[-1]


def _peeked(lines: Iterator[str], size: int) -> tuple[str, Iterator[str]]:
    """The first whole lines up to about `size` characters as one text, and every line, those included."""
    head: list[str] = []
    taken = 0
    for line in lines:
        head.append(line)
        taken += len(line)
        if taken >= size:
            break
    return "".join(head), itertools.chain(head, lines)


def _table_rows(lines: Iterator[str], name: str, delimiter: str,
                reader: _Reader) -> Iterator[tuple[int, dict[str, Any]]]:
    rows = csv.reader(lines, delimiter=delimiter, strict=True)
    try:
        header = next(rows, None)
        if header is None:
            raise FormatError("is empty: the first line names the columns", file=name, line=1)
        header = [h.strip() for h in header]
        reader.columns(header, 1)
        line = rows.line_num + 1
        for cells in rows:
            if not any(c.strip() for c in cells):  # a blank line
                line = rows.line_num + 1
                continue
            if len(cells) != len(header):
                raise FormatError(f"has {len(cells)} cells; the first line names {len(header)} columns",
                                  file=name, line=line)
            yield line, {h: c for h, c in zip(header, cells)}
            line = rows.line_num + 1
    except csv.Error as error:
        raise FormatError(f"not valid {'TSV' if delimiter == chr(9) else 'CSV'} ({error})", file=name,
                          line=rows.line_num or 1) from None


def _jsonl_rows(lines: Iterator[str], name: str) -> Iterator[tuple[int, dict[str, Any]]]:
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = loads_text(line)
        except (JSONBodyError, JSONValueError) as error:
            raise FormatError(str(error), file=name, line=number) from None
        if not isinstance(row, dict):
            raise FormatError("each line must be one JSON object {field: value, ...}", file=name, line=number)
        if "\\u" in line:   # only an escape makes a lone surrogate or NUL (the raw bytes are UTF-8, NUL refused)
            for key, value in row.items():
                try:
                    check_value(key, "the key")
                    check_value(value, "the value")
                except JSONValueError as error:
                    raise FormatError(str(error), file=name, line=number, column=f'"{key[:80]}"') from None
        yield number, row


class _Reader:
    """Checks rows one by one; counts them, remembers whether the file gives ids (and, to check them against each
    other, the ids seen)."""

    def __init__(self, definition: Definition, name: str, check_ids: bool = True):
        self.definition, self.name = definition, name
        self.count = 0
        self.fields = item_view.roots(definition)     # the fields stored whole: item_fields(), paths' roots
        self.paths = [name for name in definition.item_fields() if paths.is_path(name)]
        self.whole = set(self.fields) - set(definition.item_fields())   # read only through key paths
        self.tokens = {q.of: q for q in item_view.token_questions(definition)}
        self.known = known_columns(definition)
        self.known_set = frozenset(self.known)
        self.questions = {q.id: q for q in definition.questions}
        self.seen: dict[str, int] | None = {} if check_ids else None
        self.has_ids: bool | None = None   # decided by the header (CSV) or the first line (JSONL)
        self.table = False
        self.options_fields = {q.options_from for q in definition.questions if q.options_from}
        self.players = {p for q in definition.questions for p in (q.players or ())}
        self.span_fields = {q.of for q in definition.questions if q.kind == "span"}
        self.images = {s.field for s in definition.show if s.kind == "image_url"}
        self.structured = shown.structured_fields(definition.show)   # a list, highlights: JSON in a CSV cell
        self.element_fields = {g.elements_from for g in definition.repeats if g.elements_from}
        shown_names = {s.field for s in definition.show}
        self.condition_fields = set(item_when.fields(definition)) - shown_names   # read by `when: {item.x: ...}`

    def error(self, message: str, line: int, column: str | None = None) -> FormatError:
        return FormatError(message, file=self.name, line=line, column=f'"{column}"' if column else None)

    def columns(self, header: list[str], line: int) -> None:
        """Check a CSV / TSV header: every field, no unknown or repeated column."""
        self.table = True
        for index, column in enumerate(header):
            if not column:
                raise self.error(f"column {index + 1} has no name", line)
            if column in header[:index]:
                raise self.error("is named twice", line, column)
        self._refuse_unknown(header, line)
        missing = [f for f in self.fields if f not in header]
        if missing:
            raise self.error(f"no column {', '.join(repr(m) for m in missing)}: the definition reads the fields "
                             f"{', '.join(self.fields)}", line)
        self.has_ids = ID in header

    def _refuse_unknown(self, keys: list[str], line: int) -> None:
        if self.known_set.issuperset(keys):
            return
        for key in keys:
            if key not in self.known:
                what = "column" if self.table else "key"
                texts = [q.id for q in self.definition.questions if q.kind == "text"]
                prefix = next((p for p in PREFIX_WORDS if key.startswith(p)), None)
                hint = f" ({key.removeprefix(prefix)} is a text question: it has no {PREFIX_WORDS[prefix][4:]})" \
                    if prefix is not None and key.removeprefix(prefix) in texts else ""
                if key in self.paths:   # a flattened item: the path reads into its root field
                    hint = f" ({key} is a key path: give the field {paths.root(key)!r} as the object or list it " \
                           "reads into)"
                raise self.error(f"unknown {what}{hint}; known {what}s: {', '.join(self.known)}", line, key)

    def item(self, line: int, row: Mapping[str, Any]) -> NewItem:
        if not self.table:
            self._refuse_unknown([str(k) for k in row], line)
            missing = [f for f in self.fields if f not in row]
            if missing:
                raise self.error(f"no key {', '.join(repr(m) for m in missing)}: the definition reads the fields "
                                 f"{', '.join(self.fields)}", line)
            if self.has_ids is None:
                self.has_ids = ID in row
            elif self.has_ids != (ID in row):
                raise self.error("every line gives an id or none does (then they are numbered 1, 2, ...); "
                                 f"{'this line has none' if self.has_ids else 'earlier lines have none'}", line, ID)
        payload = {name: self._whole(name, row[name], line) if name in self.whole else
                   self._field(name, row[name], line) for name in self.fields}
        payload.update({name: self._kept(name, row[name], line) for name in self.definition.keep
                        if name in row and not (self.table and not str(row[name]).strip())})
        for path in self.paths:
            try:
                found = paths.resolve(payload, path)
            except paths.PathError as error:
                raise self.error(f"the key path {path!r} leads to no value: {error}", line, path) from None
            table, self.table = self.table, False   # the value is JSON already: checked as a JSONL value is
            try:
                self._field(path, found, line)
            finally:
                self.table = table
        seen = item_view.view(self.definition, payload) if item_view.needs_view(self.definition) else payload
        problem = shown.item_problem(self.definition.show, seen)
        if problem is not None:
            raise self.error(problem[1], line, problem[0])
        problem = sides.player_problem(self.definition, seen)   # a sides group's two players (declared/sides.py)
        if problem is not None:
            raise self.error(problem[1], line, problem[0])
        self.count += 1
        external_id = self._id(row.get(ID), line) if self.has_ids else str(self.count)
        if self.seen is not None:
            self.seen.setdefault(external_id, line)
        known = self._known(row, seen, line)
        given = self._known(row, seen, line, REFERENCE)
        if known and given:
            raise self.error(f"gives known answers ({', '.join(KNOWN + q for q in known)}) and reference answers "
                             f"({', '.join(REFERENCE + q for q in given)}): a control item's known answers are its "
                             "reference; give one or the other", line)
        return NewItem(external_id, payload, known or given or None, bool(known), file=self.name, line=line)

    def _id(self, value: Any, line: int) -> str:
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise self.error("an id is text or a whole number", line, ID)
        text = str(value).strip()
        if not text:
            raise self.error("empty: every item needs an id", line, ID)
        if len(text) > ID_LENGTH:
            raise self.error(f"{len(text)} characters long; an id has at most {ID_LENGTH}", line, ID)
        if self.seen is not None and text in self.seen:
            raise self.error(f"the id {text[:80]!r} is also the id of line {self.seen[text]}", line, ID)
        return text

    def _json_cell(self, name: str, value: Any, line: int, what: str) -> Any:
        """A CSV / TSV cell's JSON value (a JSONL value as it is); FormatError naming the column otherwise."""
        if not self.table:
            return value
        try:
            value = loads_text(value)
            check_value(value, what)
        except (JSONBodyError, JSONValueError) as error:
            raise self.error(f"must be JSON ({what}): {error}", line, name) from None
        return value

    def _whole(self, name: str, value: Any, line: int) -> Any:
        """A field the definition reads only through key paths (key_point of key_point.text): kept as it is."""
        value = self._json_cell(name, value, line, "the object or list the definition's key paths read into")
        if len(json.dumps(value, ensure_ascii=False)) > item_view.KEPT_LENGTH:
            raise self.error(f"holds more than {item_view.KEPT_LENGTH:,} characters of JSON", line, name)
        return value

    def _kept(self, name: str, value: Any, line: int) -> Any:
        """A field of the definition's `keep`: stored as the file gives it (a cell's text), never shown."""
        if not self.table and len(json.dumps(value, ensure_ascii=False)) > item_view.KEPT_LENGTH:
            raise self.error(f"holds more than {item_view.KEPT_LENGTH:,} characters of JSON", line, name)
        if self.table and len(str(value)) > item_view.KEPT_LENGTH:
            raise self.error(f"{len(str(value))} characters long; at most {item_view.KEPT_LENGTH}", line, name)
        return value

    def _field(self, name: str, value: Any, line: int) -> Any:
        if name in self.tokens:
            value = self._json_cell(name, value, line, "the tokens")
            problem = item_view.tokens_problem(self.tokens[name], value)
            if problem is not None:
                raise self.error(problem, line, name)
            return value
        if name in self.options_fields:
            return self._options(name, value, line)
        if name in self.structured:
            try:
                return shown.item_value(self.structured[name], value, self.table)
            except ValueError as error:
                raise self.error(str(error), line, name) from None
        if name in self.element_fields:
            return self._elements(name, value, line)
        if name in self.condition_fields:
            try:
                return item_when.item_value(value, self.table)
            except ValueError as error:
                raise self.error(str(error), line, name) from None
        if self.table:
            text = value
        elif name in self.span_fields and isinstance(value, list):
            if not value or not all(isinstance(w, str) and w.strip() for w in value):
                raise self.error("a list of words must hold at least one word, each a non-empty text", line, name)
            return value
        elif isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise self.error(f"must be text, not {_kind(value)}", line, name)
        else:
            text = str(value)
        if not text.strip():
            raise self.error("empty", line, name)
        limit = PLAYER_LENGTH if name in self.players else VALUE_LENGTH
        if len(text) > limit:
            why = " (it names what a pairwise question compares, and the pair is a label's unit)" \
                if name in self.players else ""
            raise self.error(f"{len(text)} characters long; at most {limit}{why}", line, name)
        if name in self.images and not text.strip().lower().startswith(("https://", "http://")):
            raise self.error("an image's address must start with https:// or http://", line, name)
        return text

    def _options(self, name: str, value: Any, line: int) -> list[Any]:
        if self.table:
            if not str(value).strip():
                raise self.error("empty: the item's options, as a JSON list", line, name)
            try:
                value = loads_text(value)
                check_value(value, "the options")
            except (JSONBodyError, JSONValueError) as error:
                raise self.error(f"the item's options must be a JSON list (e.g. [\"red\", \"blue\"] or "
                                 f"[{{\"id\": \"kp1\", \"text\": \"...\"}}]): {error}", line, name) from None
        if not isinstance(value, list) or len(value) < 2:
            raise self.error("must list at least two options (text, or {\"id\", \"text\"} objects)", line, name)
        if len(value) > MAX_OPTIONS:
            raise self.error(f"lists {len(value)} options; at most {MAX_OPTIONS}", line, name)
        ids: list[str] = []
        for index, entry in enumerate(value):
            if isinstance(entry, dict):   # other keys (a key point's position) are kept, never shown
                if not isinstance(entry.get("id"), str) or not isinstance(entry.get("text", ""), str):
                    raise self.error(f"option {index + 1} must be text or {{\"id\": text, \"text\": text}} (other "
                                     "keys are kept with the item, not shown)", line, name)
                option = entry["id"]
            elif isinstance(entry, str):
                option = entry
            else:
                raise self.error(f"option {index + 1} must be text or {{\"id\", \"text\"}}, not {_kind(entry)}",
                                 line, name)
            if not option.strip():
                raise self.error(f"option {index + 1} is empty", line, name)
            if len(option) > OPTION_LENGTH:
                raise self.error(f"option {index + 1} is {len(option)} characters long; an option's id has at most "
                                 f"{OPTION_LENGTH}", line, name)
            if option in ids:
                raise self.error(f"the option {option[:40]!r} is listed twice", line, name)
            ids.append(option)
        return value

    def _elements(self, name: str, value: Any, line: int) -> list[Any]:
        """A `repeat` group's list of elements (declared/repeat.py): JSON text in a CSV / TSV cell."""
        if self.table:
            try:
                value = loads_text(value)
                check_value(value, "the elements")
            except (JSONBodyError, JSONValueError) as error:
                raise self.error(f"the item's elements must be a JSON list (e.g. [{{\"id\": \"t1\", \"text\": "
                                 f"\"...\"}}] or [\"...\", \"...\"]): {error}", line, name) from None
        problem = repeat.element_list_problem(value)
        if problem is not None:
            raise self.error(problem, line, name)
        return list(value)

    def _known(self, row: Mapping[str, Any], payload: Mapping[str, Any], line: int,
               prefix: str = KNOWN) -> dict[str, Any]:
        """The row's known answers (`prefix` known.) or reference answers (reference.) {question id: answer as
        stored}, each checked against the item."""
        known: dict[str, Any] = {}
        what = PREFIX_WORDS[prefix]
        for question in self.definition.questions:
            if question.group is not None:
                if repeat.first_of_group(self.definition, question):
                    self._known_group(question.group, row, payload, line, known, prefix)
                continue
            if question.derived is not None:   # no known answer (declared/derived.py): no column
                continue
            column = prefix + question.id
            if column not in row:
                continue
            value = row[column]
            if self.table:
                if not str(value).strip():
                    continue
                try:
                    value = loads_text(value)
                except JSONBodyError:
                    value = value.strip()   # bare text: an option's value
                except JSONValueError as error:
                    raise self.error(str(error), line, column) from None
                try:
                    check_value(value, what)
                except JSONValueError as error:
                    raise self.error(str(error), line, column) from None
            if value is None:
                continue
            if not item_when.asked(question, payload):
                raise self.error(f"{question.id} is not asked of this item (it is asked only when "
                                 f"{item_when.condition_words(question)})", line, column)
            if not is_shown(question, known) and all(parent in known for parent, _ in question.when):
                raise self.error(f"{question.id} is not asked when the {what[4:]}s are these (it is shown only "
                                 f"when {_condition(question)})", line, column)
            try:
                known[question.id] = _checked(question, payload, value)
            except AnswerError as error:
                raise self.error(f"not a valid answer: {error}", line, column) from None
        return known

    def _known_group(self, gid: str, row: Mapping[str, Any], payload: Mapping[str, Any], line: int,
                     known: dict[str, Any], prefix: str = KNOWN) -> None:
        """A `repeat` group's known (or reference) answers, {element id: {question id: answer}} (declared/repeat.py)."""
        column = prefix + gid
        value = row.get(column)
        try:
            if self.table and value is not None:
                if not str(value).strip():
                    return
                value = loads_text(value)
                check_value(value, PREFIX_WORDS[prefix])
            checked = repeat.known_answer(self.definition, gid, payload, value, _checked, is_shown) \
                if value is not None else None
            if checked:
                known[gid] = checked
        except (JSONBodyError, JSONValueError, ValueError) as error:
            raise self.error(str(error), line, column) from None


def _checked(question: Question, payload: Mapping[str, Any], value: Any) -> Any:
    """The answer to one question as stored (check_answer's canonical form), AnswerError when it is not one."""
    canonical, _ = answers._CHECKS[question.kind](question, payload, value, {})
    return canonical


def _condition(question: Question) -> str:
    return " and ".join(f"{parent} is {' or '.join(map(repr, values))}" for parent, values in question.when)


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (list, dict)):
        return "a list" if isinstance(value, list) else "an object"
    return type(value).__name__
