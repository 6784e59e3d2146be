"""What is loaded is what was checked: the archive stays open from its check to its load, and each file's
SHA-256 and row count are checked again while it loads (a file changed in between is refused, unchanged)."""
from __future__ import annotations

import os

from annotator.lifecycle import restore as restore_module
from annotator.lifecycle.archive import open_archive
from tests.lifecycle.conftest import refused


def test_a_file_put_in_the_archives_place_after_the_check_is_not_what_is_loaded(app, backup, tmp_path):
    with open_archive(backup) as archive:
        entry = archive.entry("items")
        assert entry is not None
        other = tmp_path / "other.zip"
        other.write_bytes(b"not a zip")
        os.replace(other, backup)
        assert len(list(archive.rows(entry))) == entry.rows


def test_a_file_that_differs_from_its_check_while_loading_is_refused_and_nothing_is_changed(app, backup,
                                                                                            monkeypatch):
    checked = open_archive

    def changed_after_the_check(path, limits=None):  # type: ignore[no-untyped-def]
        archive = checked(path, limits)
        entry = archive.entry("labels")
        assert entry is not None
        entry.sha256 = "0" * 64  # as if the file were no longer the one whose checksum was checked
        return archive
    monkeypatch.setattr(restore_module, "open_archive", changed_after_the_check)
    message = refused(app, backup)
    assert "tables/labels.jsonl: the file changed while it was loaded" in message
