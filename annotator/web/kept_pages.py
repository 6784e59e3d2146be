"""What an admin page shows while a big project's figures are computed, and how old kept figures are.

The figures themselves come from annotator/figures/kept_figures.py; a view asks for one and gets it with
its freshness, or StillComputing propagates here and the admin sees a page that says what is being computed,
for how long it took last time, and reloads itself until the figures are there.
"""
from __future__ import annotations

from flask import Flask, render_template, request
from flask.typing import ResponseReturnValue

from annotator.core.models import utcnow
from annotator.figures.kept import StillComputing

RELOAD_SECONDS = 2


def _computing(error: StillComputing) -> ResponseReturnValue:
    elapsed = (utcnow() - error.started).total_seconds() if error.started is not None else None
    return render_template("admin/computing.html", votes=error.votes, estimate=error.estimate, elapsed=elapsed,
                           reload=RELOAD_SECONDS, url=request.full_path.rstrip("?")), 202


def init_app(app: Flask) -> None:
    app.register_error_handler(StillComputing, _computing)
