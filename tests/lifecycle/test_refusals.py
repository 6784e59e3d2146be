"""A restore refuses an archive that is damaged, edited, incomplete or foreign, says where, and changes nothing.

Each test backs the demo up, empties the database (so that only the archive can be the reason for a refusal)
and restores a spoiled copy of the archive.
"""
from __future__ import annotations

import json

import pytest

from annotator.core.extensions import db
from tests.conftest import _empty_postgres, _empty_sqlite
from tests.lifecycle.conftest import Files, counts, manifest_changed, refused, resealed, spoiled


def test_a_truncated_archive_is_refused(app, backup):
    cut = backup.with_name("cut.zip")
    cut.write_bytes(backup.read_bytes()[: backup.stat().st_size // 2])
    assert "not a readable archive" in refused(app, cut)


def test_an_edited_line_is_refused_naming_the_file(app, backup):
    def edit(files: Files) -> Files:
        return {**files, "tables/items.jsonl": files["tables/items.jsonl"].replace(b'"arg_', b'"ARG_', 1)}
    assert "tables/items.jsonl: its SHA-256 is not the manifest's" in refused(app, spoiled(backup, edit))


def test_a_wrong_checksum_in_the_manifest_is_refused(app, backup):
    def change(manifest: dict) -> None:
        manifest["tables"][0]["sha256"] = "0" * 64
    assert "SHA-256 is not the manifest's" in refused(app, spoiled(backup, manifest_changed(change)))


def test_a_row_count_that_is_not_the_files_is_refused(app, backup):
    had: list[int] = []

    def change(manifest: dict) -> None:
        entry = next(t for t in manifest["tables"] if t["name"] == "labels")
        had.append(entry["rows"])
        entry["rows"] += 1
    message = refused(app, spoiled(backup, manifest_changed(change)))
    assert f"tables/labels.jsonl: {had[0]} rows, the manifest says {had[0] + 1}" in message


def item_position(line: int, value: object):  # type: ignore[no-untyped-def]
    """An edit of the archive: the items file's row on `line` (from 0) with `value` as its position (column 3,
    an integer)."""
    def edit(files: Files) -> Files:
        lines = files["tables/items.jsonl"].splitlines(keepends=True)
        row = json.loads(lines[line])
        row[3] = value
        lines[line] = json.dumps(row).encode() + b"\n"
        return {**files, "tables/items.jsonl": b"".join(lines)}
    return edit


def test_a_value_of_the_wrong_type_is_refused_naming_file_line_and_column(app, backup):
    message = refused(app, spoiled(backup, item_position(1, "third")))
    assert "tables/items.jsonl, line 2, column position: expected an integer" in message


def test_an_archive_of_a_newer_format_version_is_refused(app, backup):
    def change(manifest: dict) -> None:
        manifest["format_version"] = 2
    message = refused(app, spoiled(backup, manifest_changed(change)))
    assert "format version 2, newer than this server reads (1)" in message


def test_an_archive_of_another_schema_revision_is_refused(app, backup):
    def change(manifest: dict) -> None:
        manifest["schema_revision"] = "0012"
    assert "schema revision 0012, this database is at" in refused(app, spoiled(backup, manifest_changed(change)))


def test_a_missing_table_file_is_refused(app, backup):
    def drop(files: Files) -> Files:
        return {name: content for name, content in files.items() if name != "tables/labels.jsonl"}
    assert "missing: tables/labels.jsonl" in refused(app, spoiled(backup, drop))


def test_an_unknown_extra_file_is_refused(app, backup):
    def add(files: Files) -> Files:
        return {**files, "tables/notes.jsonl": b"[1]\n"}
    assert "does not list: tables/notes.jsonl" in refused(app, spoiled(backup, add))


def test_a_project_archive_given_to_restore_is_refused(app, demo, tmp_path):
    path = tmp_path / "p.zip"
    assert app.test_cli_runner().invoke(args=["project", "export-all", "kpa-demo", str(path)]).exit_code == 0
    _empty_postgres() if db.engine.dialect.name == "postgresql" else _empty_sqlite()
    assert "flask project import-all" in refused(app, path)


def test_an_archive_whose_files_say_they_are_encrypted_is_refused(app, backup):
    """The zip's "encrypted" flag flipped on (one bit of a central directory entry), as random damage did once."""
    content = bytearray(backup.read_bytes())
    entry = content.index(b"PK\x01\x02")  # the first central directory entry; its flags are at offset 8
    content[entry + 8] |= 1
    flagged = backup.with_name("flagged.zip")
    flagged.write_bytes(bytes(content))
    assert "not a readable archive" in refused(app, flagged)


def test_an_integer_beyond_64_bits_is_refused_naming_file_line_and_column(app, backup):
    message = refused(app, spoiled(backup, item_position(0, 2 ** 63)))
    assert "tables/items.jsonl, line 1, column position: the integer 9223372036854775808 is out of range" in message


def test_json_nested_too_deeply_is_refused_naming_file_and_line(app, backup):
    def edit(files: Files) -> Files:
        return {**files, "tables/items.jsonl": b"[" * 200_000 + b"]" * 200_000 + b"\n" + files["tables/items.jsonl"]}
    assert "tables/items.jsonl, line 1: JSON nested too deeply" in refused(app, spoiled(backup, edit))


def test_a_file_that_cannot_be_opened_says_why_not_that_it_is_damaged(app, backup):
    from annotator.lifecycle.archive import ArchiveError
    from annotator.lifecycle.restore import restore
    with pytest.raises(ArchiveError) as refusal:
        restore(backup.parent)  # a folder: opening it fails as a permission problem would, with its reason
    assert "cannot be opened: Is a directory" in str(refusal.value) and "damaged" not in str(refusal.value)
    assert set(counts().values()) == {0}


def test_a_row_the_database_refuses_is_named_by_its_line(app, backup):
    lines: list[int] = []

    def twice(files: Files) -> Files:
        content = files["tables/labels.jsonl"]
        first = content.splitlines(keepends=True)[0]
        lines.append(content.count(b"\n") + 1)
        return {**files, "tables/labels.jsonl": content + first}  # the first row again: its id is taken
    message = refused(app, resealed(backup, twice))
    assert f"tables/labels.jsonl, line {lines[0]}: the database refused the row:" in message


def test_a_read_error_of_the_system_is_not_called_damage(app, backup, monkeypatch):
    import errno
    import zipfile

    from annotator.lifecycle import archive as archive_module

    class Unreadable(zipfile.ZipFile):
        def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
            raise OSError(errno.EIO, "Input/output error")
    monkeypatch.setattr(archive_module.zipfile, "ZipFile", Unreadable)
    message = refused(app, backup)
    assert "backup.zip: cannot be read: Input/output error" in message and "damaged" not in message
