"""Files into projects: the one import path that `flask import` and the admin's upload pages share.

A format reads and validates its files (no database); this module then creates or extends the
project, applies the settings given with the import, adds the items and any votes the files carry.
All of it runs in the caller's transaction: the domain action that imports (annotator/actions/imports.py,
`import_project`) records the `import` event and commits once, or rolls everything back and raises
ImportRefused (import_refused.py): an import is all or nothing.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import select

from annotator.campaigns.projects import add_items, get_or_create_project
from annotator.campaigns.settings import change_settings
from annotator.campaigns.votes_import import import_votes
from annotator.core.errors import FormatError
from annotator.core.extensions import db
from annotator.core.models import Project, ProjectData
from annotator.core.options import parse_options
from annotator.declared import TYPE_NAME as DECLARED_TYPE
from annotator.declared.earlier_answers import kept_setting_names
from annotator.lookups.formats import FileFormat, import_settings
from annotator.tasks import settings_with_defaults, task_type


@dataclass(frozen=True)
class ImportResult:
    project: Project
    created: bool   # the project is new
    items: int      # items added
    votes: int      # imported votes added


def import_files(fmt: FileFormat, path: Path, *, slug: str, name: str | None = None, k: int | None = None,
                 lease_minutes: int | None = None, options: Mapping[str, Any] | None = None,
                 settings: Mapping[str, Any] | None = None) -> ImportResult:
    """Load `path` with the format into project `slug`, created with the type's defaults when new.

    `options` are the format's import options, `settings` the HIT type's project settings (text or
    typed values; None leaves a setting as it is). Raises FormatError or OptionError, located. Records nothing
    and commits nothing: the action that calls it does (actions/imports.py).
    """
    values = parse_options(fmt.import_options, {**options_of_definition(fmt, slug), **dict(options or {})}, fmt.name)
    _refuse_before_reading(fmt, slug, settings or {})
    loaded = fmt.load(Path(path), **values)
    task, definition = project_type(fmt, slug, loaded.definition)
    if task == DECLARED_TYPE and fmt.task != DECLARED_TYPE:
        definition, settings = declared_settings(fmt, slug, definition, settings or {})
    project, created = get_or_create_project(slug, task, name=name, k=k, lease_minutes=lease_minutes,
                                             source=loaded.source, definition=definition)
    if settings and any(v is not None for v in settings.values()):
        change_settings(project, settings)
    count = add_items(project, loaded.items)
    votes = import_votes(project, loaded.votes).votes if loaded.votes else 0
    add_data(project, loaded.data)
    return ImportResult(project, created, count, votes)


def options_of_definition(fmt: FileFormat, slug: str) -> dict[str, Any]:
    """The import options an existing project's definition says, for a format whose projects are declared ones and
    whose options make the definition (`settings_of_definition`: RuArg's stage, m, claims and language): a further
    import reads the options not given from them, so it need not repeat them and makes the project's own
    definition (only those given change it). Nothing for a new project or another format."""
    if fmt.task != DECLARED_TYPE or fmt.settings_of_definition is None:
        return {}
    kept = db.session.scalar(select(Project.definition).where(Project.slug == slug,
                                                              Project.task_type == DECLARED_TYPE))
    if not kept:
        return {}
    names = {option.name for option in fmt.import_options}
    return {key: value for key, value in fmt.settings_of_definition(kept).items() if key in names}


def project_type(fmt: FileFormat, slug: str, definition: dict[str, Any] | None) -> tuple[str, dict[str, Any] | None]:
    """The HIT type and definition of the project the import fills.

    A format whose load gives a definition makes declared projects of it, also where the format's `task` names the
    built-in type its projects had before the switch to one engine (docs/one-engine.md); a project of that
    built-in type made before keeps its type, and more items go into it as before."""
    if fmt.task == DECLARED_TYPE:
        return fmt.task, definition
    kept = db.session.scalar(select(Project.task_type).where(Project.slug == slug))
    if definition is None:
        if kept == DECLARED_TYPE:
            raise FormatError(f"project {slug!r} is a declared project (served from its definition): import more "
                              f"{fmt.name} files into it with the option that makes declared projects, or into a new "
                              "project")
        return fmt.task, None
    return (fmt.task, None) if kept == fmt.task else (DECLARED_TYPE, definition)


def declared_settings(fmt: FileFormat, slug: str, definition: dict[str, Any] | None,
                      settings: Mapping[str, Any]) -> tuple[dict[str, Any] | None, Mapping[str, Any]]:
    """The definition and settings of a declared project made from a format with a built-in type.

    A declared project stores none of the built-in type's settings that are rules: the others (a linked project,
    a figure's variant: the bridge's `kept_settings`) are its settings, as they were the built-in project's. Where
    the format says how the rules shape its definition (`declared_definition`: RuArg's stage and m, ReCAM's
    selection parameters, KPA's thresholds and tie), they are made into the definition of a new project (an
    existing project keeps its own when none is given, and settings given for it are read over those its
    definition says: `settings_of_definition`); otherwise the definition holds the rules, and a setting given other
    than at its default is refused, saying so (the import form sends each at its default, which asks for
    nothing)."""
    names = kept_setting_names(definition) if definition else frozenset()
    kept_settings = {key: value for key, value in settings.items() if key in names}
    wanted = {key: value for key, value in settings.items() if value is not None and key not in names}
    if definition is None:
        return definition, kept_settings
    kept = db.session.scalar(select(Project.definition).where(Project.slug == slug))
    if fmt.declared_definition is not None and kept is not None:
        if not wanted:
            return kept, kept_settings
        if fmt.settings_of_definition is not None:
            wanted = {**fmt.settings_of_definition(kept), **wanted}
    kind = task_type(fmt.task)
    parsed = parse_options(kind.settings, wanted, kind.name)
    if fmt.declared_definition is not None:
        return fmt.declared_definition(definition, parsed), kept_settings
    defaults = settings_with_defaults(kind, None)
    changed = [key for key in wanted if parsed[key] != defaults.get(key)]
    if changed:
        raise FormatError(f"{', '.join(changed)} is a setting of {kind.title} projects, not of a declared project, "
                          "whose rules are its definition's: leave it at its default, or import without the option "
                          "that makes a declared project")
    return definition, kept_settings


def _refuse_before_reading(fmt: FileFormat, slug: str, given: Mapping[str, Any]) -> None:
    """FormatError when the settings the project would have say its items do not come from files.

    Checked before any file is read, and before the settings are checked together, so that the
    message says where such a project comes from instead of which other setting it lacks.
    """
    kind = task_type(fmt.task)
    stored = db.session.scalar(select(Project.settings).where(Project.slug == slug, Project.task_type == fmt.task))
    wanted = {k: v for k, v in given.items() if v is not None}
    parsed = parse_options(import_settings(fmt), wanted, kind.name)
    refusal = kind.import_refusal({**settings_with_defaults(kind, stored), **{k: parsed[k] for k in wanted}})
    if refusal:
        raise FormatError(refusal)


def add_data(project: Project, data: Mapping[str, Any]) -> None:
    """Keep the import's side data by name; a name the project already has is refused (nothing is replaced)."""
    if not data:
        return
    taken = set(db.session.scalars(select(ProjectData.name).where(ProjectData.project_id == project.id,
                                                                   ProjectData.name.in_(list(data)))))
    if taken:
        raise FormatError(f"project {project.slug!r} already holds {', '.join(sorted(taken))}; import it into a "
                          "new project, or under other names")
    db.session.add_all(ProjectData(project_id=project.id, name=name, content=content) for name, content in data.items())
