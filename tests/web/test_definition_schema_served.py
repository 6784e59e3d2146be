"""The definition format's JSON Schema at /schema/definition.json (annotator/web/definition_schema.py): served to
anyone, as an editor fetches it, with the file's bytes, its media type, and a 304 when the editor has it already."""
from __future__ import annotations

import json

from annotator.declared.definition_schema import SCHEMA_FILE


def test_the_schema_is_served_without_logging_in_as_the_file_is(app):
    response = app.test_client().get("/schema/definition.json")
    assert response.status_code == 200
    assert response.mimetype == "application/schema+json"
    assert response.data == SCHEMA_FILE.read_bytes()
    assert json.loads(response.data)["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_an_editor_that_has_the_schema_gets_a_304(app):
    client = app.test_client()
    etag = client.get("/schema/definition.json").headers["ETag"]
    again = client.get("/schema/definition.json", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.data == b""
