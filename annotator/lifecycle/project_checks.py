"""What a project archive's rows must be to work here, checked as they are imported (project_move.py).

Why: an archive's checksums only say the files are as written, not that they came from a server or were
written for this one. The project's task type, settings, quality settings and declared definition are read
by every page and HIT of the project, and no form ever checked the values an archive brings; a bad one would
fail later, on a page, far from its cause. So they are checked here, with the checks the admin pages use,
before the row is inserted (inside the import's transaction: a refusal rolls the import back), and a
refusal names the file, line and field.
"""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from sqlalchemy import JSON
from sqlalchemy.sql.elements import Null

from annotator.core.jsonsafe import JSONValueError, check_value
from annotator.core.options import OptionError
from annotator.core.quality_settings import QUALITY_OPTIONS, checked_quality
from annotator.declared.definition import DefinitionError
from annotator.declared.definition_reader import definition_from_data
from annotator.lifecycle.archive import ArchiveError
from annotator.people.crowd_filters import CROWD_KEY, checked_crowd
from annotator.tasks import checked_settings, task_type


def check_project(row: dict[str, Any], where: str, line: int) -> None:
    """Refuse (ArchiveError at where, line, field) a project row this server could not run."""
    def refuse(column: str, message: str) -> ArchiveError:
        return ArchiveError(message, file=where, line=line, column=column)

    try:
        kind = task_type(str(row["task_type"]))
    except KeyError as error:
        raise refuse("task_type", str(error.args[0])) from None
    definition = row.get("definition")
    if definition is not None and definition is not JSON.NULL and not isinstance(definition, Null):  # a document
        try:
            definition_from_data(definition)
        except DefinitionError as error:
            raise refuse("definition", str(error)) from None
        except (TypeError, AttributeError, ValueError) as error:
            raise refuse("definition", f"not a definition: {error}") from None
    for column in ("settings", "quality"):
        if not isinstance(row.get(column) or {}, dict):
            raise refuse(column, "must be a JSON object")
    project = SimpleNamespace(**row)
    try:
        checked_settings(kind.for_project(project), None, row.get("settings") or {})
    except (OptionError, ValueError, TypeError) as error:
        raise refuse("settings", str(error)) from None
    quality = row.get("quality") or {}
    names = {o.name for o in QUALITY_OPTIONS}
    try:
        checked_quality(project, {k: v for k, v in quality.items() if k in names})  # type: ignore[arg-type]
        crowd = quality.get(CROWD_KEY) or {}
        if not isinstance(crowd, dict):
            raise OptionError(f"{CROWD_KEY}: must be a JSON object")
        checked_crowd(SimpleNamespace(quality={}), crowd)  # type: ignore[arg-type]
    except (OptionError, ValueError, TypeError) as error:
        raise refuse("quality", str(error)) from None


def check_item(row: dict[str, Any], where: str, line: int) -> None:
    """Refuse an item whose payload no database here keeps (NUL, non-finite numbers): said where, not as the
    database's refusal of a batch."""
    try:
        check_value(row.get("payload"), "its payload")
    except JSONValueError as error:
        raise ArchiveError(str(error), file=where, line=line, column="payload") from None

