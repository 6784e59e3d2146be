"""Registry of file formats: the formats every shared task declares (`SharedTask(formats=...)`, registry.py).

A format bridges a shared task's files and projects (import, export, gold for leaderboards); the
pure readers and writers of the files themselves live beside it, in the task's `files.py`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from annotator.core.errors import FormatError
from annotator.core.options import Option
from annotator.core.plugins import lookup
from annotator.declared import TYPE_NAME as DECLARED_TYPE
from annotator.lookups.format_base import Exported, FileFormat, Loaded
from annotator.plugins.registry import SHARED_TASKS, SharedTask, declared
from annotator.tasks import task_type

if TYPE_CHECKING:
    from annotator.core.models import Project



def formats_of(task: SharedTask) -> list[FileFormat]:
    """The formats a shared task declares, in its order."""
    return task.load(task.formats, FileFormat, "format")


FORMATS: dict[str, FileFormat] = declared("format", [(task, fmt) for task in SHARED_TASKS.values()
                                                     for fmt in formats_of(task)])


def file_format(name: str) -> FileFormat:
    return lookup(FORMATS, name, "format")


def formats_for(task: str) -> list[FileFormat]:
    """The formats whose projects hold HITs of this task type."""
    return [f for f in FORMATS.values() if f.task == task]


def import_settings(fmt: FileFormat) -> tuple[Option, ...]:
    """The project settings an import of the format takes: its HIT type's, and the settings a declared project of a
    shared task's format keeps (`FileFormat.settings`: the built-in type's that are no rules, now the format's)."""
    return task_type(fmt.task).settings + fmt.settings


def exports_project(fmt: FileFormat, project: Project) -> bool:
    """Whether `fmt` can write this project's files: a project imported from the format, or one of the HIT type the
    format feeds. A shared task's format whose projects are declared ones (the declared type's own format aside)
    takes only the projects imported from its files: another declared project asks other questions."""
    if (project.source or {}).get("format") == fmt.name:
        return True
    return project.task_type == fmt.task and (fmt.task != DECLARED_TYPE or fmt.name == DECLARED_TYPE)


def project_format(project: Project) -> FileFormat:
    """The format a project was imported from; a FormatError in words when none is on record."""
    name = (project.source or {}).get("format")
    if not name:
        raise FormatError(f"project {project.slug!r} has no recorded source format, so there are no shared-task "
                          "files to export it as")
    try:
        return file_format(name)
    except KeyError as error:
        raise FormatError(str(error.args[0])) from None


__all__ = ["FORMATS", "Exported", "FileFormat", "Loaded", "exports_project", "file_format", "formats_for",
           "formats_of", "import_settings", "project_format"]
