"""Uploads onto disk: plain files and zips, bounded, with names that cannot escape the folder."""
from __future__ import annotations

import io
import warnings
import zipfile
from pathlib import Path

import pytest

from annotator.campaigns.uploads import UploadError, UploadLimits, input_path, safe_name, save_uploads

LIMITS = UploadLimits(total_bytes=1_000_000, members=10, ratio=50)


def _zip(files: dict[str, bytes], compression: int = zipfile.ZIP_STORED) -> io.BytesIO:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    buffer.seek(0)
    return buffer


def test_plain_files_are_written_under_their_base_names(tmp_path: Path) -> None:
    written = save_uploads([("C:\\data\\a.csv", io.BytesIO(b"1")), ("dir/b.csv", io.BytesIO(b"2"))], tmp_path, LIMITS)
    assert [p.relative_to(tmp_path).as_posix() for p in written] == ["a.csv", "b.csv"]
    assert (tmp_path / "b.csv").read_bytes() == b"2"


@pytest.mark.parametrize("name", ["", ".", "..", "a/..", "x" * 256, "bad\x00name"])
def test_names_that_are_not_plain_file_names_are_refused(name: str) -> None:
    with pytest.raises(UploadError, match="cannot be used as a file name"):
        safe_name(name)


def test_a_zip_is_unpacked_into_a_folder_of_its_name_keeping_subfolders(tmp_path: Path) -> None:
    upload = _zip({"split/a.csv": b"a", "split/b.csv": b"b", "__MACOSX/split/._a.csv": b"junk", "split/.DS_Store": b""})
    written = save_uploads([("data.zip", upload)], tmp_path, LIMITS)
    assert sorted(p.relative_to(tmp_path).as_posix() for p in written) == ["data/split/a.csv", "data/split/b.csv"]
    assert not (tmp_path / "data.zip").exists()
    assert input_path(written, tmp_path, "folder") == tmp_path / "data" / "split"


@pytest.mark.parametrize("member", ["../evil.txt", "/etc/evil.txt", "a/../../evil.txt"])
def test_zip_members_that_leave_the_folder_are_refused(tmp_path: Path, member: str) -> None:
    with pytest.raises(UploadError, match="would land outside the upload folder"):
        save_uploads([("x.zip", _zip({member: b"x"}))], tmp_path / "in", LIMITS)
    assert not (tmp_path / "evil.txt").exists()


def test_a_zip_bomb_is_refused_before_it_is_unpacked(tmp_path: Path) -> None:
    bomb = _zip({"big.txt": b"0" * 900_000}, zipfile.ZIP_DEFLATED)
    with pytest.raises(UploadError, match="too compressed to be data"):
        save_uploads([("bomb.zip", bomb)], tmp_path, LIMITS)
    assert not (tmp_path / "bomb" / "big.txt").exists()


def test_more_bytes_than_allowed_are_refused(tmp_path: Path) -> None:
    with pytest.raises(UploadError, match="larger than this server accepts"):
        save_uploads([("a.bin", io.BytesIO(b"x" * 600_000)), ("b.bin", io.BytesIO(b"y" * 600_000))], tmp_path, LIMITS)


def test_too_many_zip_members_are_refused(tmp_path: Path) -> None:
    with pytest.raises(UploadError, match="holds 11 files; at most 10"):
        save_uploads([("many.zip", _zip({f"{n}.txt": b"x" for n in range(11)}))], tmp_path, LIMITS)


def test_a_damaged_zip_is_refused(tmp_path: Path) -> None:
    data = _zip({"a.txt": b"hello" * 100}).getvalue()
    damaged = data[:30] + b"\xff" * 20 + data[50:]
    with pytest.raises(UploadError):
        save_uploads([("d.zip", io.BytesIO(damaged))], tmp_path, LIMITS)


def test_a_file_format_needs_exactly_one_file(tmp_path: Path) -> None:
    one = save_uploads([("x.zip", _zip({"only/data.txt": b"1"}))], tmp_path / "one", LIMITS)
    assert input_path(one, tmp_path / "one", "file") == tmp_path / "one" / "x" / "only" / "data.txt"
    two = save_uploads([("a.txt", io.BytesIO(b"1")), ("b.txt", io.BytesIO(b"2"))], tmp_path / "two", LIMITS)
    with pytest.raises(UploadError, match="reads one file; the upload holds 2 \\(a.txt, b.txt\\)"):
        input_path(two, tmp_path / "two", "file")
    with pytest.raises(UploadError, match="no file was uploaded"):
        input_path([], tmp_path, "folder")


def test_two_uploads_with_one_name_are_refused(tmp_path: Path) -> None:
    with pytest.raises(UploadError, match="two uploaded files have this name"):
        save_uploads([("a.txt", io.BytesIO(b"1")), ("dir/a.txt", io.BytesIO(b"2"))], tmp_path, LIMITS)


def _zip_of(members: list[tuple[str, bytes]]) -> io.BytesIO:
    """A zip with these members in this order (duplicates kept, which a dict cannot say)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns of a duplicate name, which is the point
        for name, content in members:
            archive.writestr(name, content)
    buffer.seek(0)
    return buffer


@pytest.mark.parametrize("members, words", [
    ([("a", b"1"), ("a/b", b"2")], "holds 'a' both as a file and as the folder of 'a/b'"),  # was an OSError: a 500
    ([("a/b", b"2"), ("./a", b"1")], "holds './a' both as a file and as the folder of 'a/b'"),
    ([("x.csv", b"1"), ("x.csv", b"2")], "holds 'x.csv' twice"),  # the last one silently won
])
def test_a_zip_whose_members_clash_is_refused_before_anything_is_written(tmp_path: Path, members, words) -> None:
    with pytest.raises(UploadError, match=words):
        save_uploads([("up.zip", _zip_of(members))], tmp_path, LIMITS)
    assert not (tmp_path / "up").exists()


def test_a_zip_that_would_unpack_onto_another_uploaded_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UploadError, match="would unpack into 'up'"):
        save_uploads([("up", io.BytesIO(b"x")), ("up.zip", _zip({"a.csv": b"1"}))], tmp_path, LIMITS)
