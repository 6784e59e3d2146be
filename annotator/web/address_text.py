"""An address's query parameters never hold the NUL character: such a request is a 400 that names the parameter.

Why at the request and not in each view: PostgreSQL refuses NUL in a text parameter, so a filter read from the
address and compared with a column (the audit trail's `?project=` and `?action=`) answered 500 there; a view added
later cannot forget it. Path segments are refused by their converter (converters.py), form fields at the field
(core/forms.py).
"""
from __future__ import annotations

from flask import Flask, abort, request


def _refuse_nul_in_the_address() -> None:
    if b"%00" not in request.query_string and b"\x00" not in request.query_string:
        return  # the common case: the raw query string scanned, nothing parsed
    for key, value in request.args.items(multi=True):
        if "\x00" in key or "\x00" in value:
            name = key.replace("\x00", "\\u0000")
            abort(400, f"The address's parameter '{name}' holds a NUL character (\\u0000), which no text kept here "
                       "may hold: remove it. Nothing was changed.")


def init_app(app: Flask) -> None:
    app.before_request(_refuse_nul_in_the_address)
