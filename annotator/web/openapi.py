"""The OpenAPI 3 description of the JSON API, served at /api/v1/openapi.json (tests fuzz the API with it).

Kept next to the routes it describes (web/api.py) and written out by hand, small as the API is: it
says what each request takes and every status it can answer with, and the suite's schemathesis run
checks the app against it, so the two cannot drift apart unnoticed.
"""
from __future__ import annotations

from typing import Any

ERROR = {"type": "object", "required": ["error", "status"],
         "properties": {"error": {"type": "string"}, "status": {"type": "integer"}}}


def _error(description: str) -> dict[str, Any]:
    return {"description": description,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}


def _json(description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


SLUG = {"name": "slug", "in": "path", "required": True, "schema": {"type": "string"}}
AUTH_ERRORS = {"401": _error("no token, or an unknown or revoked one"),
               "405": _error("method not allowed"),
               # web/unavailable.py: also has "retry": true and "retry_after" (seconds, as the Retry-After header)
               "503": _error("the database is unavailable for a moment: nothing was changed, send the request "
                             "again after Retry-After seconds (a repeated submit returns the stored vote)")}

ASSIGNMENT = {
    "type": "object", "required": ["id", "item", "expires_at"],
    "properties": {"id": {"type": "integer"}, "item": {"type": "object"},
                   "expires_at": {"type": "string", "format": "date-time"},
                   "questions": {"type": "array", "items": {"type": "object"},
                                 "description": "a declared campaign's questions for this item: id, kind, prompt, "
                                                "required, when, and what each accepts (options, scale, words)"}},
}
SUBMITTED = {
    "type": "object", "required": ["assignment", "created"],
    "properties": {"created": {"type": "boolean"}, "assignment": {
        "type": "object", "required": ["id", "answer", "submitted_at"],
        "properties": {"id": {"type": "integer"}, "answer": {"type": "object"},
                       "submitted_at": {"type": "string", "format": "date-time"}}}},
}
PROGRESS = {
    "type": "object", "required": ["project", "done", "available"],
    "properties": {"project": {"type": "string"}, "done": {"type": "integer"}, "available": {"type": "integer"},
                   "project_progress": {"type": "object"}},
}


def openapi() -> dict[str, Any]:
    return {
        "openapi": "3.0.3",
        "info": {"title": "annotator JSON API", "version": "1"},
        "servers": [{"url": "/api/v1"}],
        "security": [{"token": []}],
        "components": {"securitySchemes": {"token": {"type": "http", "scheme": "bearer"}},
                       "schemas": {"Error": ERROR}},
        "paths": {
            "/projects/{slug}/next": {"post": {
                "summary": "Lease the next HIT of the project (or resume the running one)",
                "parameters": [SLUG],
                "responses": {"200": _json("the leased HIT", {"type": "object", "required": ["assignment"],
                                                              "properties": {"assignment": ASSIGNMENT}}),
                              "204": {"description": "nothing left for this annotator"},
                              "403": _error("the project is archived or not open to this annotator"),
                              "404": _error("no such project"), **AUTH_ERRORS}}},
            "/assignments/{assignment_id}/submit": {"post": {
                "summary": "Submit the answer of a leased HIT; a repeat returns the stored vote",
                "parameters": [{"name": "assignment_id", "in": "path", "required": True,
                                "schema": {"type": "integer", "minimum": 0}}],
                "requestBody": {"required": True, "content": {"application/json": {"schema": {
                    "type": "object", "required": ["answer"],
                    "properties": {"answer": {"type": "object", "description": "the HIT type's answer object"}}}}}},
                "responses": {"201": _json("stored", SUBMITTED),
                              "200": _json("already stored: the first answer", SUBMITTED),
                              "400": _error("not JSON, nested too deep, or no answer object"),
                              "403": _error("another annotator's assignment"),
                              "404": _error("no such assignment"),
                              "409": _error("the lease expired and others completed the item, or the assignment "
                                            "kept changing while the answer was stored (nothing stored: send "
                                            "it again)"),
                              "413": _error("the body is larger than the API accepts"),
                              "422": _error("the answer does not fit the item"), **AUTH_ERRORS}}},
            "/projects/{slug}/progress": {"get": {
                "summary": "This annotator's progress (admins also get the project's)",
                "parameters": [SLUG],
                "responses": {"200": _json("progress", PROGRESS), "404": _error("no such project"), **AUTH_ERRORS}}},
        },
    }
