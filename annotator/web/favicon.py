"""The site's icon, at /favicon.ico too: browsers ask for that address on every site whatever the page links,
and a 404 there was logged on every page (and shown in the browser's console)."""
from __future__ import annotations

from pathlib import Path

from flask import Flask, Response, current_app, send_from_directory

ICON = "favicon.svg"
ENDPOINT = "favicon"
ONE_DAY = 24 * 3600


def favicon() -> Response:
    folder = current_app.static_folder
    assert folder is not None  # the app serves static/ (annotator/__init__.py)
    return send_from_directory(Path(folder), ICON, mimetype="image/svg+xml", max_age=ONE_DAY)


def init_app(app: Flask) -> None:
    app.add_url_rule("/favicon.ico", endpoint=ENDPOINT, view_func=favicon)
