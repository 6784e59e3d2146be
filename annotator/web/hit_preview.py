"""A declared campaign's HIT page drawn for a definition and one item, before anything is stored: what the
organiser's annotators will see (the admin's new-project page shows it). A page, so in web/; the declared
campaigns' type bound to the definition is handed in by the page that asks (it lies in their own files).

`render_preview` runs inside a request (the form's CSRF field and the page's links need one) and stores
nothing: no project, item or assignment exists; the Submit button is disabled and the form goes nowhere.
"""
from __future__ import annotations

from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

from flask import render_template
from werkzeug.datastructures import MultiDict

from annotator.analysis.results import AnnotatorProgress
from annotator.declared.definition import Definition
from annotator.tasks.base import TaskType


def render_preview(task: TaskType, definition: Definition, payload: Mapping[str, Any]) -> str:
    """The whole HIT page (HTML) for `payload`, an item as the organiser's items file gives it (with its id), as
    `task` (the declared campaigns' type bound to `definition`) draws it.

    Pairwise questions show field `a` on the left (no random sides in a preview).
    """
    item = SimpleNamespace(external_id=str(payload.get("id", "example")), payload=dict(payload))
    project = SimpleNamespace(name=definition.name, slug="preview", guidelines=definition.guidelines,
                              task_type=task.name, definition=definition.to_data())
    form = task.form_for(item, {}, MultiDict())  # never the request's own form data
    return render_template(task.template, project=project, task=task, preview=True, definition_preview=True,
                           settings={}, assignment=SimpleNamespace(id=0, item=item, presentation=None),
                           item=task.public_item(item, {}, None), form=form, progress=AnnotatorProgress(0, 1))
