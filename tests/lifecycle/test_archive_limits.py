"""Reading an archive is bounded before a byte is unpacked: a zip bomb, a huge manifest or an endless line is
refused with where it is, and nothing is changed (ArchiveLimits; config ARCHIVE_MAX_*)."""
from __future__ import annotations

import json
import zipfile

from tests.lifecycle.conftest import Files, refused, resealed, spoiled


def test_an_archive_announcing_more_bytes_than_allowed_is_refused_before_reading(app, backup):
    app.config["ARCHIVE_MAX_UNPACKED_BYTES"] = 1000
    message = refused(app, backup)
    assert "backup.zip: the zip unpacks to" in message and "ARCHIVE_MAX_UNPACKED_BYTES" in message


def test_a_member_too_compressed_to_be_data_is_refused_naming_it(app, backup):
    def bomb(files: Files) -> Files:
        return {**files, "tables/labels.jsonl": b"\n" * (8 << 20)}
    message = refused(app, spoiled(backup, bomb))
    assert "spoiled.zip: tables/labels.jsonl: unpacks to 8388608 bytes" in message and "too compressed" in message


def test_a_manifest_larger_than_allowed_is_refused(app, backup):
    app.config["ARCHIVE_MAX_MANIFEST_BYTES"] = 100
    assert "manifest.json: larger than 100 bytes" in refused(app, backup)


def test_a_line_longer_than_allowed_is_refused_naming_file_and_line(app, backup):
    app.config["ARCHIVE_MAX_LINE_BYTES"] = 64
    with zipfile.ZipFile(backup) as opened:
        manifest = json.loads(opened.read("manifest.json"))
    first = next(t["file"] for t in manifest["tables"] if t["rows"])
    assert f"{first}, line 1: a line longer than 64 bytes" in refused(app, backup)


def test_a_last_line_without_end_is_refused_naming_it(app, backup):
    def cut(files: Files) -> Files:
        return {**files, "tables/items.jsonl": files["tables/items.jsonl"].rstrip(b"\n")}
    message = refused(app, resealed(backup, cut))
    assert "tables/items.jsonl, line" in message and "cut short (no line end)" in message


def test_a_zip_of_too_many_files_is_refused(app, backup):
    def many(files: Files) -> Files:
        return {**files, **{f"extra/{n}": b"" for n in range(1001)}}
    message = refused(app, spoiled(backup, many))
    assert "spoiled.zip: the zip holds" in message and "(at most 1000, ARCHIVE_MAX_MEMBERS)" in message
