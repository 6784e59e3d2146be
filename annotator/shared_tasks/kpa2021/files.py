"""Reader and writer of the KPA-2021 / ArgKP files (IBM/KPA_2021_shared_task, ``kpm_data/``).

A split is three CSV files in one folder: ``arguments_<split>.csv`` (arg_id,argument,topic,stance),
``key_points_<split>.csv`` (key_point_id,key_point,topic,stance) and the optional
``labels_<split>.csv`` (arg_id,key_point_id,label). This module is pure (no database, no Flask) so
that the importer, the exporter, the scorer and the tests share one definition of the format.

Values are read with pandas (``dtype=str, keep_default_na=False``) and written with
``to_csv(index=False, lineterminator="\\n")``: that pair reproduces the official files byte for
byte, so an exported project can be diffed against, or fed to, the official scorer. pandas does not
say on which line of the file a row starts, and quoted fields may span lines, so the file is also
scanned with the ``csv`` module to know each row's physical line; every complaint is a
``FormatError`` naming file, line and column, never a traceback.

Decisions: columns may come in any order, but unknown extra columns are an error (they would be
silently lost on export); a UTF-8 byte-order mark is accepted; blank lines are skipped (as pandas
does); values are kept exactly as written (no stripping), but a value of only spaces counts as
empty; arguments of a topic+stance without key points are allowed (key points may come later),
while a key point needs arguments of its topic+stance, and a label must pair an argument with a
key point of the same topic and stance (the official data never does otherwise).
"""
from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from annotator.core.csv_cells import write_official_frame
from annotator.core.errors import FormatError, refuse_nul

if TYPE_CHECKING:
    pass

ARGUMENT_COLUMNS = ("arg_id", "argument", "topic", "stance")
KEY_POINT_COLUMNS = ("key_point_id", "key_point", "topic", "stance")
LABEL_COLUMNS = ("arg_id", "key_point_id", "label")
_STANCES = {"1": 1, "-1": -1}
_STANCE_NAMES = {1: "pro", -1: "con"}
_LABELS = {"0": 0, "1": 1}


@dataclass(frozen=True)
class Argument:
    arg_id: str
    argument: str
    topic: str
    stance: int  # 1 pro, -1 con


@dataclass(frozen=True)
class KeyPoint:
    key_point_id: str
    key_point: str
    topic: str
    stance: int  # 1 pro, -1 con


@dataclass
class KpaSplit:
    """One split as read from disk; lists keep file order so that writing it back is identical."""

    split: str
    arguments: list[Argument]
    key_points: list[KeyPoint]
    labels: dict[tuple[str, str], int] | None  # (arg_id, key_point_id) -> 0/1; None: no labels file
    _by_group: dict[tuple[str, int], list[KeyPoint]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Computed once: matching asks for the candidates of every argument. Rebuild the split if
        # you change key_points afterwards.
        self._by_group = {}
        for kp in self.key_points:
            self._by_group.setdefault((kp.topic, kp.stance), []).append(kp)

    def key_points_for(self, topic: str, stance: int) -> list[KeyPoint]:
        """Key points an argument of this topic and stance may match, in file order."""
        return list(self._by_group.get((topic, stance), []))


def file_paths(directory: Path, split: str) -> tuple[Path, Path, Path]:
    """The arguments, key points and labels files of ``split`` in ``directory``."""
    directory = Path(directory)
    return (directory / f"arguments_{split}.csv", directory / f"key_points_{split}.csv",
            directory / f"labels_{split}.csv")


SPLIT_FROM_NAMES = "empty: read from the file names (arguments_<split>.csv) when they name one split"


def split_of(directory: Path, split: str | None) -> str:
    """The split to read: the one asked for, else the one the folder's file names give (arguments_<split>.csv)
    when they name exactly one; FormatError saying which splits there are otherwise (never a silent "dev")."""
    if split:
        return split
    found = sorted(p.name.removeprefix("arguments_").removesuffix(".csv")
                   for p in Path(directory).glob("arguments_*.csv"))
    if len(found) == 1:
        return found[0]
    if not found:
        raise FormatError("no arguments_<split>.csv file, so the split cannot be read from the file names "
                          "(e.g. arguments_dev.csv)")
    raise FormatError(f"the files hold the splits {', '.join(found)}: choose which one to read (the Split field, "
                      "or --split)")


def shipped_demo_dir() -> Path:
    """The official dev split shipped with the code (``annotator/campaigns/demo/kpa2021/``) for ``make run``."""
    return Path(__file__).resolve().parents[2] / "campaigns" / "demo" / "kpa2021"


def _decode(path: Path) -> str:
    name = path.name
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        # Not the folder's path: on the web it is the server's temporary folder, which a page must not show.
        raise FormatError("file not found: the folder has no file of this name", file=name) from None
    except OSError as exc:
        raise FormatError(f"cannot read the file ({exc.strerror})", file=name) from None
    if not data:
        raise FormatError("the file is empty (0 bytes); it needs a header line and rows", file=name)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        raise FormatError(
            f"the file is not UTF-8 text: byte 0x{data[exc.start]:02X} at byte offset {exc.start} "
            f"of the file (byte {exc.start - line_start + 1} of this line) is not valid UTF-8; "
            "save the file with the UTF-8 encoding",
            file=name, line=data.count(b"\n", 0, exc.start) + 1) from None
    refuse_nul(text, name)
    return text.removeprefix("\ufeff")


def _scan(text: str, name: str) -> tuple[list[str], list[int]]:
    """Header and the physical line on which each non-blank row starts (csv module, strict quoting)."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    header: list[str] | None = None
    starts: list[int] = []
    end = 0
    while True:
        start = end + 1
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            if "unexpected end of data" in str(exc):
                raise FormatError("a value that opens a double quote (\") on this line is never "
                                  "closed, so the rest of the file is read as part of it",
                                  file=name, line=start) from None
            raise FormatError("badly quoted value: a closing double quote must be followed by a "
                              "comma or the end of the line; write a quote inside a text as two "
                              'quotes ("")', file=name, line=reader.line_num) from None
        end = reader.line_num
        if not row:
            continue
        if header is None:
            header = row
            continue
        if len(row) != len(header):
            missing = header[len(row)] if len(row) < len(header) else None
            raise FormatError(
                f"this row has {len(row)} values but the header has {len(header)} columns; look for "
                "a missing or extra comma, or a text with a comma that is not in double quotes",
                file=name, line=start, column=missing)
        starts.append(start)
    if header is None:
        raise FormatError("the file has no header line and no rows", file=name)
    return header, starts


def _read_rows(path: Path, columns: tuple[str, ...]) -> list[tuple[int, dict[str, str]]]:
    """(line, {column: value}) per row, after the checks every file of the split shares."""
    import pandas as pd
    name = path.name
    text = _decode(path)
    header, starts = _scan(text, name)
    found = f'the header line is "{",".join(header)}"'
    duplicated = sorted({c for c in header if header.count(c) > 1})
    if duplicated:
        raise FormatError(f"the column {duplicated[0]} appears more than once: {found}",
                          file=name, line=1, column=duplicated[0])
    missing = [c for c in columns if c not in header]
    if missing:
        raise FormatError(f"missing column {', '.join(missing)}: {found}; "
                          f"expected {', '.join(columns)}", file=name, line=1, column=", ".join(missing))
    extra = [c or "(no name)" for c in header if c not in columns]
    if extra:
        raise FormatError(f"unknown column {', '.join(extra)}: {found}, but this file has exactly "
                          f"the columns {', '.join(columns)}", file=name, line=1, column=", ".join(extra))
    if not starts:
        raise FormatError("no rows: the file has only its header line", file=name)
    try:
        frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, ValueError) as exc:  # the scan above should have caught it
        raise FormatError(f"the file is not valid CSV ({exc})", file=name) from None
    if len(frame) != len(starts):
        raise FormatError(f"the file is not valid CSV: found {len(frame)} rows where the line by "
                          f"line reading found {len(starts)}", file=name)
    rows = list(zip(starts, frame[list(columns)].to_dict("records")))
    for line, row in rows:
        for column in columns:
            if not row[column].strip():
                raise FormatError(f"empty value: every row needs a value in the column {column}",
                                  file=name, line=line, column=column)
    return rows


def _choice(value: str, choices: dict[str, int], what: str, name: str, line: int, column: str) -> int:
    if value not in choices:
        raise FormatError(f"{column} must be {what}, not {value!r}", file=name, line=line, column=column)
    return choices[value]


def _unique(id_: str, line: int, seen: dict[str, int], name: str, column: str) -> None:
    if id_ in seen:
        raise FormatError(f"{column} {id_!r} is used twice: it is already on line {seen[id_]}; "
                          "ids must be unique within a split", file=name, line=line, column=column)
    seen[id_] = line


_Item = TypeVar("_Item", Argument, KeyPoint)


def _read_items(path: Path, columns: tuple[str, ...], cls: type[_Item]) -> list[tuple[int, _Item]]:
    """Arguments or key points (same shape: id, text, topic, stance) with their lines."""
    id_col = columns[0]
    seen: dict[str, int] = {}
    items = []
    for line, row in _read_rows(path, columns):
        _unique(row[id_col], line, seen, path.name, id_col)
        stance = _choice(row["stance"], _STANCES, "1 (pro) or -1 (con)", path.name, line, "stance")
        items.append((line, cls(row[id_col], row[columns[1]], row["topic"], stance)))
    return items


def read_arguments(path: Path) -> list[Argument]:
    """An arguments file on its own (Track 2 gives systems only the arguments)."""
    return [a for _, a in _read_items(Path(path), ARGUMENT_COLUMNS, Argument)]


def read_key_points(path: Path) -> list[tuple[int, KeyPoint]]:
    """A key-points file on its own (a Track-2 system's own key points), with each one's line."""
    return _read_items(Path(path), KEY_POINT_COLUMNS, KeyPoint)


def read_split(directory: Path, split: str, *, require_labels: bool = False) -> KpaSplit:
    """Read and check one split; raise FormatError (file, line, column) at the first problem.

    The labels file may be absent (a split to annotate from scratch) unless ``require_labels``.
    """
    arg_path, kp_path, label_path = file_paths(directory, split)
    arguments = [a for _, a in _read_items(arg_path, ARGUMENT_COLUMNS, Argument)]
    key_points = _read_items(kp_path, KEY_POINT_COLUMNS, KeyPoint)
    topics = {a.topic for a in arguments}
    groups = {(a.topic, a.stance) for a in arguments}
    for line, kp in key_points:
        if kp.topic not in topics:
            raise FormatError(f"no argument in {arg_path.name} has the topic {kp.topic!r}; a key "
                              "point needs arguments of its topic and stance",
                              file=kp_path.name, line=line, column="topic")
        if (kp.topic, kp.stance) not in groups:
            raise FormatError(f"no argument of the topic {kp.topic!r} has the stance {kp.stance} "
                              f"({_STANCE_NAMES[kp.stance]}) in {arg_path.name}; a key point needs "
                              "arguments of its topic and stance",
                              file=kp_path.name, line=line, column="stance")
    labels = None
    if require_labels or label_path.exists():
        labels = _read_labels(label_path, arg_path.name, kp_path.name,
                              {a.arg_id: a for a in arguments}, {k.key_point_id: k for _, k in key_points})
    return KpaSplit(split, arguments, [k for _, k in key_points], labels)


def _read_labels(path: Path, arg_file: str, kp_file: str, arguments: dict[str, Argument],
                 key_points: dict[str, KeyPoint]) -> dict[tuple[str, str], int]:
    name = path.name
    labels: dict[tuple[str, str], int] = {}
    first_line: dict[tuple[str, str], int] = {}
    for line, row in _read_rows(path, LABEL_COLUMNS):
        arg_id, kp_id = row["arg_id"], row["key_point_id"]
        arg = arguments.get(arg_id)
        if arg is None:
            raise FormatError(f"unknown argument {arg_id!r}: it is not in {arg_file}",
                              file=name, line=line, column="arg_id")
        kp = key_points.get(kp_id)
        if kp is None:
            raise FormatError(f"unknown key point {kp_id!r}: it is not in {kp_file}",
                              file=name, line=line, column="key_point_id")
        if (arg.topic, arg.stance) != (kp.topic, kp.stance):
            raise FormatError(
                f"argument {arg_id} ({arg.topic!r}, {_STANCE_NAMES[arg.stance]}) cannot be labelled "
                f"with key point {kp_id} ({kp.topic!r}, {_STANCE_NAMES[kp.stance]}): only an argument "
                "and a key point of the same topic and stance can be paired",
                file=name, line=line, column="key_point_id")
        label = _choice(row["label"], _LABELS, "1 (match) or 0 (no match)", name, line, "label")
        pair = (arg_id, kp_id)
        if pair in labels:
            raise FormatError(f"the pair {arg_id} / {kp_id} is labelled twice: it is already on line "
                              f"{first_line[pair]}", file=name, line=line, column="key_point_id")
        labels[pair], first_line[pair] = label, line
    return labels


def _write(path: Path, columns: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> None:
    import pandas as pd
    frame = pd.DataFrame(rows, columns=list(columns), dtype=str)
    write_official_frame(frame, path, index=False, lineterminator="\n", encoding="utf-8")


def write_labels_header(path: Path) -> None:
    """A labels file with no row: the header only (an export before any pair is decided)."""
    _write(path, LABEL_COLUMNS, [])


def write_split(directory: Path, split: str, arguments: Iterable[Argument],
                key_points: Iterable[KeyPoint], labels: Iterable[tuple[str, str, int]]) -> list[Path]:
    """Write a split in the official byte format; return the files written.

    With no labels, no labels file is written and a stale one from an earlier export is removed,
    so that reading the folder back gives what was written (labels None). Rows are written in the
    order given; values are not checked here (the reader is the gate for outside data).
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    arg_path, kp_path, label_path = file_paths(directory, split)
    _write(arg_path, ARGUMENT_COLUMNS,
           [(a.arg_id, a.argument, a.topic, str(a.stance)) for a in arguments])
    _write(kp_path, KEY_POINT_COLUMNS,
           [(k.key_point_id, k.key_point, k.topic, str(k.stance)) for k in key_points])
    label_rows = [(arg_id, kp_id, str(label)) for arg_id, kp_id, label in labels]
    if not label_rows:
        label_path.unlink(missing_ok=True)
        return [arg_path, kp_path]
    _write(label_path, LABEL_COLUMNS, label_rows)
    return [arg_path, kp_path, label_path]
