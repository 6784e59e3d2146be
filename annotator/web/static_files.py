"""Static files (style sheet, scripts, icon) addressed by their content, so that browsers keep them.

Flask serves static/ with `Cache-Control: no-cache`: a browser asks again for the style sheet and every script on
every page (a conditional request answered 304), and a page waits for its style sheet. An annotator on a phone
paid by the HIT waited for those round trips on every HIT. Here every `url_for("static", ...)` carries the file's
content hash (`?v=`), and a request that names the current hash is answered as never changing (a year,
`immutable`): the next page is drawn from the browser's cache. A new release changes the hash of every file it
changes, so the pages name new addresses and no one is shown an old script. A request without the hash, or with
another one (a page cached from before a release), is answered as before, to be checked every time.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flask import Flask, Response, current_app, request

PARAMETER = "v"
ONE_YEAR = 365 * 24 * 3600
EXTENSION = "static_versions"


@dataclass
class Versions:
    """Content hashes of the app's static files. A release restarts the server, so a process hashes each file once;
    with `watch` (the debug server, whose files change under it) a file is hashed again when its size or time
    changes."""
    folder: Path
    watch: bool = False
    known: dict[str, tuple[int, int, str | None]] = field(default_factory=dict)

    def of(self, filename: str) -> str | None:
        """The file's content hash, or None for a name outside the folder or not a file (Flask answers it 404)."""
        seen = self.known.get(filename)
        if seen is not None and not self.watch:
            return seen[2]
        path = (self.folder / filename).resolve()
        try:
            stat = path.stat() if path.is_relative_to(self.folder) else None
        except OSError:
            stat = None
        if stat is None or not path.is_file():
            self.known[filename] = (0, 0, None)
            return None
        if seen is not None and seen[:2] == (stat.st_mtime_ns, stat.st_size):
            return seen[2]
        version = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
        self.known[filename] = (stat.st_mtime_ns, stat.st_size, version)
        return version


def _versions() -> Versions:
    versions: Versions = current_app.extensions[EXTENSION]
    return versions


def _add_version(endpoint: str, values: dict[str, Any]) -> None:
    if endpoint != "static" or PARAMETER in values or not isinstance(values.get("filename"), str):
        return
    version = _versions().of(values["filename"])
    if version is not None:
        values[PARAMETER] = version


def _keep_if_current(response: Response) -> Response:
    if request.endpoint != "static" or response.status_code not in (200, 304):
        return response
    filename = (request.view_args or {}).get("filename")
    asked = request.args.get(PARAMETER)
    if asked is None or not isinstance(filename, str) or asked != _versions().of(filename):
        return response
    response.cache_control.no_cache = None
    response.cache_control.public = True
    response.cache_control.max_age = ONE_YEAR
    response.cache_control.immutable = True
    response.headers.pop("Expires", None)  # Cache-Control rules; werkzeug writes "now" for expires = None
    return response


def init_app(app: Flask) -> None:
    assert app.static_folder is not None  # the app serves static/ (annotator/__init__.py)
    app.extensions[EXTENSION] = Versions(Path(app.static_folder).resolve(), watch=app.debug)
    app.url_defaults(_add_version)
    app.after_request(_keep_if_current)
