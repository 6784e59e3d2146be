"""The archive format of backups and project moves: a zip of `manifest.json` and `tables/<name>.jsonl`.

Why this shape: JSON Lines read and write row by row (no table is ever held in memory), any engine can load
them, and a person can read them. One line is one row, a JSON array in the order of the manifest's columns.
Values go through a small codec chosen by the column's type (not by the Python value), so that a round
trip gives equal rows on either engine:

  int, text, bool   JSON numbers, strings, true/false
  float             JSON numbers written with Python's shortest exact repr; NaN and infinities as the strings
                    "NaN", "Infinity", "-Infinity"
  datetime          ISO 8601 text, naive UTC as stored ("2026-11-26T06:55:01.123456")
  bytes             base64 text
  json              the JSON document itself; SQL NULL is `null`, and a document that is JSON `null` (or an
                    object whose only key is "$json") is wrapped as {"$json": document}, so the two NULLs
                    stay apart (some columns keep SQL NULL, others JSON null)

The manifest names the format and its version, the scope ("database" or "project"), the Alembic revision of
the source database, when and from which engine it was made, and per table its file, row count, SHA-256 and
columns. Reading an archive (`open_archive`) checks all of it, every file's checksum and row count and every
value, before anybody writes a row: a damaged, edited, truncated or foreign file is refused with where the
problem is, and nothing is changed.
"""
from __future__ import annotations

import base64
import hashlib
import json
import math
import os
import tempfile
import zipfile
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import JSON, Boolean, Column, DateTime, Float, Integer, LargeBinary, String, Table, Text, null
from sqlalchemy.engine import Connection

from annotator.core.errors import LocatedError

FORMAT = "annotator-archive"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
KINDS = ("int", "float", "bool", "text", "datetime", "bytes", "json")
# Not carried by any archive. alembic_version: the target must be migrated to the same revision already.
# kept_results: derived figures, signed with the source's SECRET_KEY, which the target would refuse and
# recompute anyway. kept_states: only the generation counter of those figures and a computing claim held by a
# process of the source; with no kept figures on the target, starting afresh is right.
NOT_CARRIED = ("alembic_version", "kept_results", "kept_states")
_JSON_WRAPPER = "$json"
_NON_FINITE = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


# What zipfile raises on a damaged archive: bad headers or CRC (BadZipFile), a damaged deflate stream (zlib.error),
# a cut-off member (EOFError), an unknown compression method flipped into a header (NotImplementedError), the
# "encrypted" flag flipped on (RuntimeError: a password is required), and odd sizes or offsets (ValueError,
# OverflowError).
UNREADABLE = (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError, RuntimeError, ValueError,
              OverflowError)


class ArchiveError(LocatedError):
    """An archive that cannot be read or loaded as it is; nothing was written."""


def column_kind(column: Column[Any]) -> str:
    """The codec of a column, from its SQLAlchemy type."""
    kind = column.type
    for cls, name in ((JSON, "json"), (Boolean, "bool"), (DateTime, "datetime"), (Float, "float"),
                      (Integer, "int"), (LargeBinary, "bytes"), (String, "text"), (Text, "text")):
        if isinstance(kind, cls):
            return name
    raise TypeError(f"{column.table.name}.{column.name}: no archive codec for {kind!r}")


def encode(kind: str, value: Any) -> Any:
    """A database value as JSON. JSON columns come as their stored text (see `read_expression`)."""
    if value is None:
        return None
    if kind == "float":
        value = float(value)
        if math.isfinite(value):
            return value
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if kind == "datetime":
        return value.isoformat()
    if kind == "bytes":
        return base64.b64encode(bytes(value)).decode("ascii")
    if kind == "json":
        document = json.loads(value) if isinstance(value, str) else value
        wrap = document is None or (isinstance(document, dict) and set(document) == {_JSON_WRAPPER})
        return {_JSON_WRAPPER: document} if wrap else document
    if kind == "bool":
        return bool(value)
    if kind == "int":
        return int(value)
    return value


def decode(kind: str, value: Any, nullable: bool) -> Any:
    """A value of the file as the database takes it; ValueError says what is wrong with it."""
    if value is None:
        if not nullable:
            raise ValueError("null in a column that must have a value")
        return null() if kind == "json" else None
    if kind == "json":
        if isinstance(value, dict) and set(value) == {_JSON_WRAPPER}:
            inner = value[_JSON_WRAPPER]
            return JSON.NULL if inner is None else inner
        return value
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"expected an integer, found {value!r}")
        return value
    if kind == "float":
        if isinstance(value, str) and value in _NON_FINITE:
            return _NON_FINITE[value]
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"expected a number, found {value!r}")
        return float(value)
    if kind == "bool":
        if not isinstance(value, bool):
            raise ValueError(f"expected true or false, found {value!r}")
        return value
    if not isinstance(value, str):
        raise ValueError(f"expected a string, found {value!r}")
    if kind == "datetime":
        return datetime.fromisoformat(value)
    if kind == "bytes":
        return base64.b64decode(value, validate=True)
    return value


def schema_revision(connection: Connection) -> str | None:
    """The Alembic revision the database is at (None: not migrated)."""
    from sqlalchemy import inspect, text
    if not inspect(connection).has_table("alembic_version"):
        return None
    return connection.execute(text("SELECT version_num FROM alembic_version")).scalar()


def carried_tables(metadata_tables: Iterable[Table]) -> list[Table]:
    """The tables an archive carries, parents before children: every table of the model but NOT_CARRIED."""
    return [t for t in metadata_tables if t.name not in NOT_CARRIED]


def table_columns(table: Table) -> list[dict[str, Any]]:
    return [{"name": c.name, "type": column_kind(c), "nullable": bool(c.nullable)} for c in table.columns]


def utc_now_text() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


@dataclass
class TableEntry:
    """One table of the manifest."""

    name: str
    columns: list[dict[str, Any]]
    rows: int = 0
    sha256: str = ""

    @property
    def file(self) -> str:
        return f"tables/{self.name}.jsonl"

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "file": self.file, "rows": self.rows, "sha256": self.sha256,
                "columns": self.columns}


class ArchiveWriter:
    """Writes an archive table by table into a temporary file, renamed into place only when complete."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=self.path.parent)
        os.close(handle)
        self.temporary = Path(temporary)
        self.zip = zipfile.ZipFile(self.temporary, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6)
        self.tables: list[TableEntry] = []

    def write_table(self, name: str, columns: list[dict[str, Any]], rows: Iterable[Sequence[Any]]) -> TableEntry:
        """Rows given as database values in the order of `columns`, encoded and counted as they are written."""
        entry = TableEntry(name, columns)
        kinds = [c["type"] for c in columns]
        digest = hashlib.sha256()
        with self.zip.open(entry.file, "w", force_zip64=True) as out:
            for row in rows:
                line = json.dumps([encode(k, v) for k, v in zip(kinds, row)], ensure_ascii=False,
                                  separators=(",", ":")).encode() + b"\n"
                digest.update(line)
                out.write(line)
                entry.rows += 1
        entry.sha256 = digest.hexdigest()
        self.tables.append(entry)
        return entry

    def finish(self, **manifest: Any) -> Path:
        body = {"format": FORMAT, "format_version": FORMAT_VERSION, **manifest,
                "tables": [t.to_dict() for t in self.tables]}
        self.zip.writestr(MANIFEST, json.dumps(body, indent=2, ensure_ascii=False) + "\n")
        self.zip.close()
        os.replace(self.temporary, self.path)
        return self.path

    def abort(self) -> None:
        self.zip.close()
        self.temporary.unlink(missing_ok=True)


@dataclass
class Archive:
    """An archive whose manifest, files, checksums, counts and values were all checked."""

    path: Path
    manifest: dict[str, Any]
    tables: list[TableEntry] = field(default_factory=list)

    @property
    def scope(self) -> str:
        return str(self.manifest.get("scope", "database"))

    @property
    def revision(self) -> str:
        return str(self.manifest["schema_revision"])

    def entry(self, name: str) -> TableEntry | None:
        return next((t for t in self.tables if t.name == name), None)

    def rows(self, entry: TableEntry) -> Iterator[list[Any]]:
        """The table's rows decoded for the database, in file order (checked by `open_archive` already)."""
        with zipfile.ZipFile(self.path) as archive, archive.open(entry.file) as lines:
            for number, line in enumerate(lines, start=1):
                yield _decoded(self.path, entry, number, line)


def open_archive(path: Path) -> Archive:
    """The archive at `path`, once every part of it was checked; ArchiveError (where, what) otherwise."""
    path = Path(path)
    try:
        with zipfile.ZipFile(path) as archive:
            manifest = _manifest(path, archive)
            tables = [_entry(path, t) for t in manifest["tables"]]
            _check_names(path, archive, tables)
            for entry in tables:
                _check_file(path, archive, entry)
    except UNREADABLE as error:
        raise ArchiveError(f"not a readable archive (truncated or damaged?): {error}", file=path.name) from None
    return Archive(path, manifest, tables)


def _manifest(path: Path, archive: zipfile.ZipFile) -> dict[str, Any]:
    where = f"{path.name}: {MANIFEST}"
    if MANIFEST not in archive.namelist():
        raise ArchiveError(f"no {MANIFEST}: this is not an archive of this server", file=path.name)
    try:
        manifest = json.loads(archive.read(MANIFEST))
    except (ValueError, UnicodeDecodeError) as error:
        raise ArchiveError(f"not JSON: {error}", file=where) from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ArchiveError(f"not an {FORMAT} manifest", file=where)
    version = manifest.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise ArchiveError(f"format_version is {version!r}, not a number", file=where)
    if version > FORMAT_VERSION:
        raise ArchiveError(f"made in format version {version}, newer than this server reads ({FORMAT_VERSION}): "
                           "restore it with the version of the server that made it, or a newer one", file=where)
    for key, kind in (("schema_revision", str), ("tables", list), ("source_engine", str), ("created_at", str)):
        if not isinstance(manifest.get(key), kind):
            raise ArchiveError(f"{key} is missing or not a {kind.__name__}", file=where)
    if manifest.get("scope", "database") not in ("database", "project"):
        raise ArchiveError(f"unknown scope {manifest.get('scope')!r}", file=where)
    return manifest


def _entry(path: Path, table: Any) -> TableEntry:
    where = f"{path.name}: {MANIFEST}"
    try:
        entry = TableEntry(str(table["name"]), list(table["columns"]), int(table["rows"]), str(table["sha256"]))
        ok = (table["file"] == entry.file and entry.rows >= 0
              and all(c["type"] in KINDS and isinstance(c["name"], str) and isinstance(c["nullable"], bool)
                      for c in entry.columns))
    except (KeyError, TypeError, ValueError):
        ok = False
    if not ok:
        raise ArchiveError(f"a table entry that is not as the format says: {table!r}"[:300], file=where)
    return entry


def _check_names(path: Path, archive: zipfile.ZipFile, tables: list[TableEntry]) -> None:
    expected = {MANIFEST, *(t.file for t in tables)}
    names = archive.namelist()
    if len(names) != len(set(names)):
        raise ArchiveError("a file is in the archive twice", file=path.name)
    if len(expected) != len(tables) + 1:
        raise ArchiveError("the manifest names a table twice", file=f"{path.name}: {MANIFEST}")
    if extra := sorted(set(names) - expected):
        raise ArchiveError(f"files the manifest does not list: {', '.join(extra)}", file=path.name)
    if absent := sorted(expected - set(names)):
        raise ArchiveError(f"files the manifest lists are missing: {', '.join(absent)}", file=path.name)


def _check_file(path: Path, archive: zipfile.ZipFile, entry: TableEntry) -> None:
    digest, count = hashlib.sha256(), 0
    with archive.open(entry.file) as lines:
        for count, line in enumerate(lines, start=1):
            digest.update(line)
            _decoded(path, entry, count, line)
    where = f"{path.name}: {entry.file}"
    if digest.hexdigest() != entry.sha256:
        raise ArchiveError("its SHA-256 is not the manifest's: the file was changed or damaged", file=where)
    if count != entry.rows:
        raise ArchiveError(f"{count} rows, the manifest says {entry.rows}", file=where)


def _decoded(path: Path, entry: TableEntry, number: int, line: bytes) -> list[Any]:
    where = f"{path.name}: {entry.file}"
    if not line.endswith(b"\n"):
        raise ArchiveError("the last line is cut short (no line end)", file=where, line=number)
    try:
        values = json.loads(line)
    except (ValueError, UnicodeDecodeError) as error:
        raise ArchiveError(f"not a JSON line: {error}", file=where, line=number) from None
    if not isinstance(values, list) or len(values) != len(entry.columns):
        raise ArchiveError(f"expected a JSON array of {len(entry.columns)} values", file=where, line=number)
    decoded = []
    for column, value in zip(entry.columns, values):
        try:
            decoded.append(decode(column["type"], value, column["nullable"]))
        except (ValueError, TypeError) as error:
            raise ArchiveError(str(error), file=where, line=number, column=column["name"]) from None
    return decoded


def check_columns(path: Path, entry: TableEntry, expected: list[dict[str, Any]]) -> None:
    """Refuse a table whose columns are not the ones this database has (same names, types, order)."""
    if entry.columns != expected:
        have = [c["name"] for c in expected]
        got = [c["name"] for c in entry.columns]
        detail = f"columns {got}, this database has {have}" if got != have else "column types differ"
        raise ArchiveError(f"table {entry.name}: {detail}", file=f"{path.name}: {MANIFEST}")
