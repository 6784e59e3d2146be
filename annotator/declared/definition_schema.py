"""The JSON Schema (draft 2020-12) of a definition, shipped beside this module as definition.schema.json.

Why: an organiser writes a definition in an editor; with the schema the editor completes keys, shows each key's
meaning and marks a wrong key, type, value or bound as it is typed (docs/definition-schema.md says how to point VS
Code's YAML extension at it). The validator (definition_reader.py) stays the reference and is what the server runs:
the schema is for editors, and holds no code. It cannot check what refers to other parts of the definition (an
earlier question's id, an answer of that question, a shown field, k); its description lists those, and
tests/unit/test_definition_schema.py keeps the two in agreement on every example, every shared task's definition and
a set of broken ones. The web app serves the file at URL_PATH.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SCHEMA_FILE = Path(__file__).with_name("definition.schema.json")
URL_PATH = "/schema/definition.json"
MEDIA_TYPE = "application/schema+json"


def schema() -> dict[str, Any]:
    """The schema as data."""
    loaded: dict[str, Any] = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    return loaded
