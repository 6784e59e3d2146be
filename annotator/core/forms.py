"""The base of every form of the app (admin pages, a shared task's pages, the HIT forms).

Why one base: no text column here may hold the NUL character (PostgreSQL refuses it, SQLite would keep it and
every export after it), and a form only says so at the field if each form checks it. A form added later on this
base cannot forget it; `tests/web/test_form_text.py` fails for a form made on FlaskForm directly.
"""
from __future__ import annotations

from typing import Any

from flask_wtf import FlaskForm

NUL_MESSAGE = "This text holds a NUL character (\\u0000), which no text kept here may hold: remove it."


class Form(FlaskForm):
    """FlaskForm (CSRF included), and every field's text without NUL."""

    def validate(self, extra_validators: Any = None) -> bool:
        valid: bool = super().validate(extra_validators=extra_validators)
        for field in self:
            if any(isinstance(value, str) and "\x00" in value for value in field.raw_data or ()):
                field.errors = [*field.errors, NUL_MESSAGE]
                valid = False
        return valid
