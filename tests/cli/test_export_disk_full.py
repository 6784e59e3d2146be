"""Fault: the disk fills up while a project is exported (issue 13, part 3).

The output folder sits on a small tmpfs mounted for the test (the suite runs as root here; without
the right to mount, the tests are skipped with the reason), so the failure is a real ENOSPC from the
kernel, part way through the format's files. Whatever the format, annotator/exports.run_export writes
into a staging folder beside the output and renames the files into place only when all are written:
after a failed export the output folder holds exactly what it held before, the CLI says what happened
and exits non-zero, and the admin's zip download answers an error page instead of a truncated zip.
"""
from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from annotator.campaigns.exports import STAGING_PREFIX

KPA_EXPORT = ["arguments_test.csv", "key_points_test.csv", "labels_test.csv", "votes.csv"]  # labels: header only


def _mount(mount: Path, size: str) -> None:
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)], capture_output=True,
                          text=True)
    if done.returncode:
        pytest.skip(f"cannot mount a tmpfs to fill up (needs root): {done.stderr.strip()}")


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 12 KiB tmpfs: room for the key-point export's first file or two (arguments_test.csv is 5 KiB)."""
    _mount(tmp_path / "disk", "12k")
    try:
        yield tmp_path / "disk"
    finally:
        subprocess.run(["umount", "-l", str(tmp_path / "disk")], check=True)


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    """A 1 MiB tmpfs, with room for a whole export until the test fills it."""
    _mount(tmp_path / "disk", "1m")
    try:
        yield tmp_path / "disk"
    finally:
        subprocess.run(["umount", "-l", str(tmp_path / "disk")], check=True)


def _fill(disk: Path, leave: int = 0) -> None:
    """Fill the disk up, then give back about `leave` bytes."""
    fd = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        written = 0
        while True:
            try:
                written += os.write(fd, b"x" * 4096)
            except OSError:
                break
        os.ftruncate(fd, max(0, written - leave))
    finally:
        os.close(fd)


def _export(app, out: Path):  # type: ignore[no-untyped-def]
    return app.test_cli_runner().invoke(args=["export", "kpa2021", "--project", "kpa", "--out", str(out)])


def test_an_export_onto_a_full_disk_fails_clearly_and_leaves_no_file(app, kpa_project, small_disk):
    kpa_project()
    result = _export(app, small_disk / "out")
    assert result.exit_code == 1, result.output
    assert "could not write the export to" in result.output and "No space left on device" in result.output
    assert "Nothing of this export was left there" in result.output
    assert sorted(p.name for p in small_disk.iterdir()) == []  # neither a half output folder nor the staging one


def test_a_failed_export_leaves_the_previous_export_as_it_was(app, kpa_project, disk, make_user):
    from annotator.engine import assignment as engine
    project = kpa_project(k=1)
    first = _export(app, disk / "out")
    assert first.exit_code == 0, first.output
    before = {p.name: p.read_bytes() for p in (disk / "out").iterdir()}
    assert sorted(before) == KPA_EXPORT
    user = make_user("ann")
    engine.submit(engine.next_for(user, project).id, user, {"matches": ["kp_1_0"]})  # the next export differs
    _fill(disk, leave=2048)

    result = _export(app, disk / "out")
    assert result.exit_code == 1 and "No space left on device" in result.output, result.output
    assert {p.name: p.read_bytes() for p in (disk / "out").iterdir()} == before
    assert not [p for p in disk.iterdir() if p.name.startswith(STAGING_PREFIX)]


def test_an_export_with_room_leaves_no_staging_folder(app, kpa_project, tmp_path):
    kpa_project()
    result = _export(app, tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == KPA_EXPORT
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(STAGING_PREFIX)) == []


def test_the_admin_zip_on_a_full_disk_is_an_error_page_not_a_truncated_zip(login, make_user, kpa_project,
                                                                          small_disk, monkeypatch):
    kpa_project()
    make_user("boss", role="admin")
    client = login("boss")
    monkeypatch.setattr(tempfile, "tempdir", str(small_disk))  # where the view writes the export before zipping
    response = client.get("/admin/projects/kpa/export.zip")
    assert response.status_code == 507
    assert response.mimetype == "text/html"
    assert "No space left on device" in response.get_data(as_text=True)
    assert "nothing was downloaded" in response.get_data(as_text=True)
    assert list(small_disk.iterdir()) == []
