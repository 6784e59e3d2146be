"""Where SECRET_KEY comes from when none is configured, and when the app refuses to start without one.

The key signs sessions, remember-me cookies and CSRF tokens, so every process that serves the site
must hold the same one. How it is decided:
  * `SECRET_KEY` set (environment or config): that key, always.
  * unset, database on SQLite: one host by construction (the database is a local file), so a random key
    is created once in the instance folder (`instance/secret_key`) and read by every worker and restart.
    Two workers starting at once on a fresh instance agree: each writes a candidate to a private
    temporary file (mkstemp: O_EXCL, mode 0600) and hard-links it to the final name, which fails for
    all but the first; then everyone reads the file that won, always complete.
  * unset, any other database (PostgreSQL): the site may be served by several hosts, each of which would
    make its own key, and a user would be logged out whenever a request reached another host. The app
    refuses to start and says to set SECRET_KEY.
"""
from __future__ import annotations

import os
import secrets
import tempfile
from pathlib import Path

from annotator.core.private_files import private_folder

FILE = "secret_key"


class SecretKeyMissing(RuntimeError):
    """No SECRET_KEY where one must be configured; the message says what to do."""


def instance_secret_key(folder: Path) -> str:
    """The key kept in `folder`, created atomically by the first process that needs it."""
    private_folder(folder)
    path = folder / FILE
    if not path.exists():
        descriptor, candidate = tempfile.mkstemp(dir=folder, prefix=f".{FILE}.")
        try:
            with os.fdopen(descriptor, "w") as out:
                out.write(secrets.token_hex(32))
                out.flush()
                os.fsync(out.fileno())
            try:
                os.link(candidate, path)  # atomic, and refused when another process's key is already there
            except FileExistsError:
                pass
        finally:
            os.unlink(candidate)
    key = path.read_text().strip()
    if len(key) < 32:
        raise SecretKeyMissing(f"{path} holds no usable key: delete it (sessions will end) or set SECRET_KEY")
    return key


def decide_secret_key(configured: str | None, database_uri: str, instance: Path) -> str:
    """The key to use (see the module docstring); SecretKeyMissing when one must be configured."""
    if configured:
        return configured
    if not database_uri.startswith("sqlite"):
        raise SecretKeyMissing(
            "SECRET_KEY is not set, and the database is not SQLite, so several hosts may serve this site: "
            "each would make its own key and log users out as requests move between them. Set the same "
            "SECRET_KEY (e.g. `python -c 'import secrets; print(secrets.token_hex(32))'`) for every process.")
    return instance_secret_key(instance)
