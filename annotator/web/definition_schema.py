"""The definition format's JSON Schema at /schema/definition.json, for editors (docs/definition-schema.md).

Served to anyone without logging in, as the format's documentation is: an editor fetches it without a session, and it
holds nothing of any project. The file itself is annotator/declared/definition.schema.json, sent with its ETag so an
editor's second fetch is a 304.
"""
from __future__ import annotations

from flask import Flask, Response, send_file

from annotator.declared.definition_schema import MEDIA_TYPE, SCHEMA_FILE, URL_PATH

ENDPOINT = "definition_schema"
ONE_HOUR = 3600


def definition_schema() -> Response:
    return send_file(SCHEMA_FILE, mimetype=MEDIA_TYPE, max_age=ONE_HOUR, conditional=True, etag=True)


def init_app(app: Flask) -> None:
    app.add_url_rule(URL_PATH, endpoint=ENDPOINT, view_func=definition_schema)
