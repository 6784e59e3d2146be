"""The request class of the app: form fields with LF line ends only (core/line_ends.py).

Why at the request and not in each form: every form of the app (settings, guidelines, a HIT's text answer,
an import's options) then reads the same text, and a form added later cannot forget it. Only the form
fields change: uploaded files are read by their importers, the JSON API's bodies are left as sent.
"""
from __future__ import annotations

from flask import Flask, Request

from annotator.core.line_ends import normalise_line_ends


class LineEndsRequest(Request):
    def _load_form_data(self) -> None:
        super()._load_form_data()
        form = self.__dict__.get("form")
        if form is None or not any("\r" in value for value in form.values()):
            return  # the common case (a HIT's vote, a login) costs one scan of the values
        # The werkzeug way to hand out parsed form data: set on the instance, past the cached property.
        self.__dict__["form"] = self.parameter_storage_class(
            [(key, normalise_line_ends(value)) for key, value in form.items(multi=True)])


def init_app(app: Flask) -> None:
    app.request_class = LineEndsRequest
