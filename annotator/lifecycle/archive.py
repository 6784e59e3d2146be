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

import errno
import hashlib
import json
import os
import tempfile
import zipfile
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from flask import current_app, has_app_context
from sqlalchemy import Table, inspect, text
from sqlalchemy.engine import Connection

from annotator.core.errors import LocatedError
from annotator.core.private_files import private_folder
from annotator.lifecycle.codec import KINDS, column_kind, decode, encode  # used here, and imported from here

FORMAT = "annotator-archive"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
# Not carried by any archive. alembic_version: the target must be migrated to the same revision already.
# kept_results: derived figures, signed with the source's SECRET_KEY, which the target would refuse and
# recompute anyway. kept_states: only the generation counter of those figures and a computing claim held by a
# process of the source; with no kept figures on the target, starting afresh is right. login_failures: an hour of
# failed logins at most, keyed with the source's SECRET_KEY (people/login_counters.py): meaningless on the target.
NOT_CARRIED = ("alembic_version", "kept_results", "kept_states", "login_failures")


# What zipfile raises on a damaged archive: bad headers or CRC (BadZipFile), a damaged deflate stream (zlib.error),
# a cut-off member (EOFError), an unknown compression method flipped into a header (NotImplementedError), the
# "encrypted" flag flipped on (RuntimeError: a password is required), and odd sizes or offsets (ValueError,
# OverflowError).
UNREADABLE = (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError, RuntimeError, ValueError,
              OverflowError)


class ArchiveError(LocatedError):
    """An archive that cannot be read or loaded as it is; nothing was written."""


def schema_revision(connection: Connection) -> str | None:
    """The Alembic revision the database is at (None: not migrated)."""
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
        private_folder(self.path.parent)  # 0700 when made here; the archive itself is mkstemp's 0600
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
        """Drop the unfinished file; it goes even when closing the zip fails (a full disk, a broken stream)."""
        try:
            self.zip.close()
        finally:
            self.temporary.unlink(missing_ok=True)


@dataclass(frozen=True)
class ArchiveLimits:
    """How much reading an archive may unpack, checked before a byte is unpacked (a zip bomb is refused, not run).

    A zip announces each member's unpacked size in its central directory, and zipfile never yields more than
    that; so the announced sizes, summed and bounded, bound what reading can produce. The defaults suit the
    command line (a whole database's backup may be large); config (ARCHIVE_MAX_*) lowers or raises them, and
    the upload page checks an archive against the smaller upload limits first."""

    unpacked_bytes: int = 20 * 1024 ** 3      # all members together, unpacked
    ratio: int = 500                          # unpacked / packed size of one member (JSON Lines reach ~20)
    manifest_bytes: int = 16 * 1024 ** 2      # manifest.json, read whole
    line_bytes: int = 512 * 1024 ** 2         # one row (a gold set's zip is one base64 value)
    members: int = 1000                       # files in the zip (an archive holds one per table)

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> ArchiveLimits:
        return cls(int(config.get("ARCHIVE_MAX_UNPACKED_BYTES", cls.unpacked_bytes)),
                   int(config.get("ARCHIVE_MAX_RATIO", cls.ratio)),
                   int(config.get("ARCHIVE_MAX_MANIFEST_BYTES", cls.manifest_bytes)),
                   int(config.get("ARCHIVE_MAX_LINE_BYTES", cls.line_bytes)),
                   int(config.get("ARCHIVE_MAX_MEMBERS", cls.members)))

    @classmethod
    def current(cls) -> ArchiveLimits:
        """The app's limits (the defaults outside an app context)."""
        return cls.from_config(current_app.config) if has_app_context() else cls()


@dataclass
class Archive:
    """An archive whose manifest, files, checksums, counts and values were all checked.

    It keeps the zip it checked open (`zip`), so that what is loaded is read from the same file, not from
    whatever the path names by then; and `rows` checks each file's SHA-256 and count again as it loads, so a
    file changed in place is refused too (the caller's transaction is then rolled back). Close it after use
    (it is a context manager)."""

    path: Path
    manifest: dict[str, Any]
    tables: list[TableEntry] = field(default_factory=list)
    zip: zipfile.ZipFile | None = None
    limits: ArchiveLimits = field(default_factory=ArchiveLimits)

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.zip is not None:
            handle = self.zip.fp
            self.zip.close()
            if handle is not None:
                handle.close()
            self.zip = None

    @property
    def scope(self) -> str:
        return str(self.manifest.get("scope", "database"))

    @property
    def revision(self) -> str:
        return str(self.manifest["schema_revision"])

    def entry(self, name: str) -> TableEntry | None:
        return next((t for t in self.tables if t.name == name), None)

    def rows(self, entry: TableEntry) -> Iterator[list[Any]]:
        """The table's rows decoded for the database, in file order, checked again against the manifest."""
        assert self.zip is not None, "the archive was closed"
        where = f"{self.path.name}: {entry.file}"
        digest, count = hashlib.sha256(), 0
        try:
            with self.zip.open(entry.file) as lines:
                for count, line in _lines(lines, where, self.limits.line_bytes):
                    digest.update(line)
                    yield _decoded(self.path, entry, count, line)
        except UNREADABLE as error:
            raise ArchiveError(f"the file could not be read again while loading: {error}", file=where) from None
        if digest.hexdigest() != entry.sha256 or count != entry.rows:
            raise ArchiveError("the file changed while it was loaded (its SHA-256 or row count is no longer the "
                               "manifest's)", file=where)


def open_archive(path: Path, limits: ArchiveLimits | None = None) -> Archive:
    """The archive at `path`, once every part of it was checked; ArchiveError (where, what) otherwise.

    The returned Archive holds the file open: use it as a context manager."""
    path = Path(path)
    limits = limits or ArchiveLimits.current()
    try:
        handle = path.open("rb")
    except OSError as error:
        raise ArchiveError(f"cannot be opened: {error.strerror or error}", file=path.name) from None
    try:
        archive = zipfile.ZipFile(handle)
        _check_sizes(path, archive, limits)
        manifest = _manifest(path, archive, limits)
        tables = [_entry(path, t) for t in manifest["tables"]]
        _check_names(path, archive, tables)
        for entry in tables:
            _check_file(path, archive, entry, limits)
    except UNREADABLE as error:
        handle.close()
        if isinstance(error, OSError) and error.errno in (errno.EACCES, errno.EPERM, errno.EIO):
            # The system's refusal to read, not the file's damage: say which, so nobody discards a good backup.
            raise ArchiveError(f"cannot be read: {error.strerror or error}", file=path.name) from None
        raise ArchiveError(f"not a readable archive (truncated or damaged?): {error}", file=path.name) from None
    except BaseException:
        handle.close()
        raise
    return Archive(path, manifest, tables, archive, limits)


def _check_sizes(path: Path, archive: zipfile.ZipFile, limits: ArchiveLimits) -> None:
    """Refuse, from the central directory alone, a zip that would unpack to more than `limits` allow."""
    members = archive.infolist()
    if len(members) > limits.members:
        raise ArchiveError(f"the zip holds {len(members)} files, more than an archive has "
                           f"(at most {limits.members}, ARCHIVE_MAX_MEMBERS)", file=path.name)
    total = sum(info.file_size for info in members)
    if total > limits.unpacked_bytes:
        raise ArchiveError(f"the zip unpacks to {total} bytes, more than this server accepts "
                           f"({limits.unpacked_bytes}, ARCHIVE_MAX_UNPACKED_BYTES)", file=path.name)
    for info in members:
        if info.file_size > limits.ratio * max(info.compress_size, 1) and info.file_size > 1 << 16:
            raise ArchiveError(f"unpacks to {info.file_size} bytes from {info.compress_size}: too compressed to be "
                               f"an archive's data (at most {limits.ratio} times, ARCHIVE_MAX_RATIO)",
                               file=f"{path.name}: {info.filename}")


def _lines(stream: IO[bytes], where: str, limit: int) -> Iterator[tuple[int, bytes]]:
    """The stream's lines, numbered from 1, each read with a bound: a line longer than `limit` is refused."""
    number = 0
    while line := stream.readline(limit + 1):
        number += 1
        if len(line) > limit:
            raise ArchiveError(f"a line longer than {limit} bytes (ARCHIVE_MAX_LINE_BYTES) or without a line end",
                               file=where, line=number)
        yield number, line


def _manifest(path: Path, archive: zipfile.ZipFile, limits: ArchiveLimits) -> dict[str, Any]:
    where = f"{path.name}: {MANIFEST}"
    if MANIFEST not in archive.namelist():
        raise ArchiveError(f"no {MANIFEST}: this is not an archive of this server", file=path.name)
    if archive.getinfo(MANIFEST).file_size > limits.manifest_bytes:
        raise ArchiveError(f"larger than {limits.manifest_bytes} bytes (ARCHIVE_MAX_MANIFEST_BYTES)", file=where)
    try:
        with archive.open(MANIFEST) as stream:
            manifest = json.loads(stream.read(limits.manifest_bytes + 1))
    except (ValueError, UnicodeDecodeError) as error:
        raise ArchiveError(f"not JSON: {error}", file=where) from None
    except RecursionError:
        raise ArchiveError("JSON nested too deeply to be a manifest", file=where) from None
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


def _check_file(path: Path, archive: zipfile.ZipFile, entry: TableEntry, limits: ArchiveLimits) -> None:
    where = f"{path.name}: {entry.file}"
    digest, count = hashlib.sha256(), 0
    with archive.open(entry.file) as lines:
        for count, line in _lines(lines, where, limits.line_bytes):
            digest.update(line)
            _decoded(path, entry, count, line)
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
    except RecursionError:
        raise ArchiveError("JSON nested too deeply", file=where, line=number) from None
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
