"""Uploaded files onto disk, safely: plain files and zips, with bounded unpacking and safe names.

Why here and not in each view: an upload is the one input a stranger's file reaches the disk through,
so every page that takes one (new project, more items, gold sets, submissions) unpacks through the
same checks. A zip is refused before anything is written when its members escape the folder (`..`,
absolute paths, links), are too many, or announce more bytes than allowed or an implausible
compression ratio; while writing, the bytes actually produced are counted too, since a zip's
announced sizes can lie.
"""
from __future__ import annotations

import shutil
import stat
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Any, BinaryIO

from annotator.core.errors import FormatError
from annotator.core.private_files import open_private, private_folder

CHUNK = 1 << 16
IGNORED = ("__MACOSX", ".DS_Store", "Thumbs.db")


class UploadError(FormatError):
    """An upload that cannot be used as it is; nothing of it is kept."""


@dataclass(frozen=True)
class UploadLimits:
    total_bytes: int = 256 * 1024 * 1024   # all files together, unpacked
    members: int = 1000                      # files in one zip
    ratio: int = 200                         # unpacked / packed size of a zip member

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> UploadLimits:
        return cls(int(config.get("UPLOAD_MAX_BYTES", cls.total_bytes)),
                   int(config.get("UPLOAD_MAX_MEMBERS", cls.members)),
                   int(config.get("UPLOAD_MAX_RATIO", cls.ratio)))


def safe_name(name: str) -> str:
    """The base name of an uploaded file, refused when it could not be a plain file name here."""
    base = PurePosixPath(name.replace("\\", "/")).name
    if base in ("", ".", "..") or "\x00" in base or len(base.encode()) > 255:
        raise UploadError(f"{name[:80]!r} cannot be used as a file name")
    return base


def save_uploads(files: Iterable[tuple[str, BinaryIO]], folder: Path, limits: UploadLimits) -> list[Path]:
    """Write each (file name, stream) into `folder`, unpacking zips; the paths of the files written (0600, in
    folders made 0700: core/private_files.py)."""
    private_folder(folder)
    written: list[Path] = []
    budget = [limits.total_bytes]
    for name, stream in files:
        base = safe_name(name)
        target = folder / base
        if target.exists():
            raise UploadError("two uploaded files have this name", file=base)
        _copy(stream, target, budget, base)
        if zipfile.is_zipfile(target):
            if (folder / target.stem).exists():
                raise UploadError(f"the zip would unpack into {target.stem!r}, which another uploaded file already "
                                  "holds", file=base)
            written.extend(_unpack(target, folder / target.stem, limits, budget))
            target.unlink()
        else:
            written.append(target)
    return written


def _copy(stream: IO[bytes], target: Path, budget: list[int], name: str) -> None:
    with open_private(target, "wb") as out:
        while chunk := stream.read(CHUNK):
            budget[0] -= len(chunk)
            if budget[0] < 0:
                raise UploadError("the upload is larger than this server accepts", file=name)
            out.write(chunk)


def _members(archive: zipfile.ZipFile, name: str, limits: UploadLimits) -> list[tuple[zipfile.ZipInfo, PurePosixPath]]:
    members = []
    for info in archive.infolist():
        path = PurePosixPath(info.filename.replace("\\", "/"))
        if info.is_dir() or any(part in IGNORED or part.startswith("._") for part in path.parts):
            continue
        mode = info.external_attr >> 16
        if path.is_absolute() or ".." in path.parts or stat.S_ISLNK(mode):
            raise UploadError(f"the zip member {info.filename!r} would land outside the upload folder", file=name)
        if info.file_size > limits.ratio * max(info.compress_size, 1) and info.file_size > CHUNK:
            raise UploadError(f"the zip member {info.filename!r} unpacks to {info.file_size} bytes from "
                              f"{info.compress_size}: too compressed to be data", file=name)
        members.append((info, path))
    if len(members) > limits.members:
        raise UploadError(f"the zip holds {len(members)} files; at most {limits.members} are accepted", file=name)
    _refuse_clashes(members, name)
    return members


def _refuse_clashes(members: list[tuple[zipfile.ZipInfo, PurePosixPath]], name: str) -> None:
    """A member given twice (the last one silently won) or a name that is both a file and a folder (an OSError
    while unpacking: a 500) is refused before anything is written."""
    seen: dict[PurePosixPath, str] = {}
    for info, path in members:
        if path in seen:
            raise UploadError(f"the zip holds {info.filename!r} twice", file=name)
        seen[path] = info.filename
    for path in seen:
        clash = next((parent for parent in path.parents if parent in seen), None)
        if clash is not None:
            raise UploadError(f"the zip holds {seen[clash]!r} both as a file and as the folder of "
                              f"{seen[path]!r}", file=name)


def check_zip(path: Path, limits: UploadLimits, name: str | None = None) -> None:
    """Refuse (UploadError) a zip that escapes, holds too many files, is too compressed or announces
    more than `limits.total_bytes`; nothing is unpacked, so a reader may then open it. zipfile never
    produces more than a member's announced size, so the announced sizes bound what reading yields."""
    name = name or path.name
    try:
        with zipfile.ZipFile(path) as archive:
            members = _members(archive, name, limits)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError) as error:
        raise UploadError(f"the zip cannot be read: {error}", file=name) from None
    if sum(info.file_size for info, _ in members) > limits.total_bytes:
        raise UploadError("the zip unpacks to more than this server accepts", file=name)


def unpack_zip(path: Path, into: Path, limits: UploadLimits) -> list[Path]:
    """Unpack a zip into `into` with every check of an upload (see the module docstring)."""
    return _unpack(path, into, limits, [limits.total_bytes])


def _unpack(path: Path, into: Path, limits: UploadLimits, budget: list[int]) -> list[Path]:
    try:
        with zipfile.ZipFile(path) as archive:
            members = _members(archive, path.name, limits)
            if sum(info.file_size for info, _ in members) > budget[0]:
                raise UploadError("the zip unpacks to more than this server accepts", file=path.name)
            written = []
            for info, member in members:
                target = into.joinpath(*(safe_name(part) for part in member.parts))
                private_folder(target.parent)
                with archive.open(info) as source:
                    _copy(source, target, budget, f"{path.name}: {info.filename}")
                written.append(target)
            return written
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError) as error:
        raise UploadError(f"the zip cannot be read: {error}", file=path.name) from None


def input_path(written: list[Path], folder: Path, reads: str) -> Path:
    """What an importer reads from an upload: the one file, or the folder holding the files.

    A zip of one folder is read from inside that folder, as people zip folders by their name.
    """
    if not written:
        raise UploadError("no file was uploaded")
    if reads == "file":
        if len(written) != 1:
            names = ", ".join(sorted(p.name for p in written)[:5])
            raise UploadError(f"this format reads one file; the upload holds {len(written)} ({names})")
        return written[0]
    root = folder
    while True:
        entries = [p for p in root.iterdir()]
        if len(entries) == 1 and entries[0].is_dir():
            root = entries[0]
        else:
            return root


def clear(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
