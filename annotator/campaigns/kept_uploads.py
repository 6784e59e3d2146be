"""Uploads kept on the server between tries of an import form, so that a refused form keeps its files.

A browser cannot fill a file input again: before, a bad slug or a bad option on the new-project page cost the
admin the files chosen. Every upload of an import form is kept as sent (zips too, unpacked only when imported)
in a folder of its own under KEPT_UPLOADS_DIR, named by a random token the form carries in a hidden field; the
form's next try uses them unless new files are chosen. A successful import removes them; folders older than a
day are removed when another upload is kept.
"""
from __future__ import annotations

import re
import secrets
import shutil
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from flask import current_app

from annotator.campaigns.uploads import UploadError, safe_name
from annotator.core.private_files import open_private, private_folder

TOKEN = re.compile(r"[A-Za-z0-9_-]{32}")
KEEP_SECONDS = 24 * 3600


def _root() -> Path:
    return Path(current_app.config["KEPT_UPLOADS_DIR"])


def kept_files(token: str | None) -> list[Path]:
    """The files kept under `token`, by name; none for a token that is not one (or expired)."""
    if not token or not TOKEN.fullmatch(token):
        return []
    folder = _root() / token
    return sorted(p for p in folder.iterdir() if p.is_file()) if folder.is_dir() else []


def keep(uploads: Iterable[Any], previous: str | None) -> str | None:
    """Keep the uploaded files (werkzeug FileStorage) under a new token, dropping the previous one's; with no new
    file, the previous token when its files are still there. The token, or None when nothing is kept.

    UploadError (nothing kept) for a name that cannot be a file's, two files of one name, or files the disk
    cannot take; whatever ends a try, its folder goes.
    """
    chosen = [u for u in uploads if u and u.filename]
    if not chosen:
        return previous if kept_files(previous) else None
    _expire()
    token = secrets.token_urlsafe(24)
    folder = _root() / token
    private_folder(folder, exist_ok=False)
    try:
        for upload in chosen:
            target = folder / safe_name(upload.filename)
            if target.exists():
                raise UploadError("two uploaded files have this name", file=target.name)
            with open_private(target, "wb", exclusive=True) as out:
                upload.save(out)
    except OSError as error:   # the disk full, say: in words, and nothing of this try stays
        shutil.rmtree(folder, ignore_errors=True)
        raise UploadError(f"the uploaded files could not be kept on the server ({error.strerror or error})") from None
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    discard(previous)
    return token


def discard(token: str | None) -> None:
    if token and TOKEN.fullmatch(token):
        shutil.rmtree(_root() / token, ignore_errors=True)


def _expire() -> None:
    root = _root()
    if not root.is_dir():
        return
    for folder in root.iterdir():
        if folder.is_dir() and time.time() - folder.stat().st_mtime > KEEP_SECONDS:
            shutil.rmtree(folder, ignore_errors=True)
