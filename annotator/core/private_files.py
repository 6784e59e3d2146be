"""Files and folders that hold personal data, readable by the server's own user only: 0600 and 0700.

Why not leave it to the umask: the usual 022 makes every file world-readable (0644), and the database, the
uploads, the staged imports, the exports and the backups all name annotators or hold their votes. The modes are
set explicitly after creation (chmod), so they hold whatever the umask. Folders that exist already are left as
they are: a parent may be /tmp or a disk the admin chose and shares on purpose.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import IO, Any

FOLDER_MODE = 0o700
FILE_MODE = 0o600


def private_folder(path: Path, exist_ok: bool = True) -> Path:
    """`mkdir -p path` where every folder made here is 0700; FileExistsError when `path` exists and not `exist_ok`."""
    path = Path(path)
    missing = []
    folder = path
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    if not missing and not exist_ok:
        raise FileExistsError(f"{path} exists already")
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=FOLDER_MODE)
        except FileExistsError:  # another process made it meanwhile: theirs, with its mode
            if folder == path and not exist_ok:
                raise
            continue
        os.chmod(folder, FOLDER_MODE)
    return path


def open_private(path: Path, mode: str = "wb", encoding: str | None = None, newline: str | None = None,
                 exclusive: bool = False) -> IO[Any]:
    """`open(path, mode)` for writing ("w", "wb"), the file 0600 whether it is new or was there (then emptied).
    `exclusive`: FileExistsError when it was there."""
    if mode not in ("w", "wb"):
        raise ValueError(f"open_private writes files (mode 'w' or 'wb'), not {mode!r}")
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | (os.O_EXCL if exclusive else 0)
    descriptor = os.open(path, flags, FILE_MODE)
    try:
        os.fchmod(descriptor, FILE_MODE)
        return os.fdopen(descriptor, mode, encoding=encoding if mode == "w" else None,
                         newline=newline if mode == "w" else None)
    except BaseException:
        os.close(descriptor)
        raise


def write_private_text(path: Path, text: str, encoding: str = "utf-8") -> None:
    with open_private(path, "w", encoding=encoding) as out:
        out.write(text)


def write_private_bytes(path: Path, data: bytes) -> None:
    with open_private(path, "wb") as out:
        out.write(data)


def private_database_file(path: Path) -> list[Path]:
    """An SQLite database file created 0600 before SQLite opens it (SQLite makes its -wal and -shm files with the
    database file's mode), or made 0600 when it was there, with its -wal and -shm; its folder made 0700 if new.
    The files whose mode could not be changed (another user's: PermissionError), for the caller to warn about.

    A file that is there is changed by its path (chmod), never opened: closing any descriptor of an SQLite file
    drops every POSIX lock the process holds on it, including those of its open SQLite connections, and another
    process may then reset the write-ahead log under them (a test app made beside a running one lost its
    committed rows that way)."""
    path = Path(path)
    private_folder(path.parent)
    refused = []
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except FileExistsError:
        descriptor = None
    except PermissionError:  # not ours to write: SQLite says so in its own words when it opens it
        return [path]
    if descriptor is not None:   # new, so no connection of this process has it open
        try:
            os.fchmod(descriptor, FILE_MODE)
        finally:
            os.close(descriptor)
    for file in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        try:
            os.chmod(file, FILE_MODE)
        except FileNotFoundError:
            continue
        except PermissionError:
            refused.append(file)
    return refused
