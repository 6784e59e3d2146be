"""What a file format declares: the files it reads and writes, its options, the HIT type it feeds.

A format module (one per shared task's file layout) reads its files into `Loaded` without touching
the database, and writes a project back out. The shared import (`imports.py`), the `import` and
`export` commands, the admin's new-project and export pages and the leaderboards all work from
this declaration, so none of them names a format.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from annotator.core.options import Option
from annotator.tasks import NewItem

if TYPE_CHECKING:
    from annotator.analysis.reports import Report
    from annotator.core.models import Project


@dataclass(frozen=True)
class Loaded:
    """What a format read: the items, what the project records about their source, imported votes and data.

    `votes[item external id]` lists the votes the files carry for that item, one answer (or None)
    per annotator column, in column order (see votes_import.py). `data` is what else the format will
    need for exports and reports (e.g. whole system outputs), kept as ProjectData by name.
    `definition` is a declared campaign's checked definition (`Definition.to_data`), kept on the project.
    `items` may be a stream read while the import stores them (a declared campaign's file of any size): a
    problem found then still rolls the whole import back.
    """

    items: Iterable[NewItem]
    source: dict[str, Any]
    votes: dict[str, list[dict[str, Any] | None]] | None = None
    data: dict[str, Any] = field(default_factory=dict)
    definition: dict[str, Any] | None = None


@dataclass(frozen=True)
class Exported:
    """The files an export wrote, and what the organiser should know about them."""

    paths: list[Path]
    notes: list[str] = field(default_factory=list)
    # The shared task's own files among `paths`, written byte for byte in its layout: their cells are not quoted
    # (core/csv_cells.py), so the export names those a spreadsheet would run (campaigns/formula_cells.py).
    verbatim: list[Path] = field(default_factory=list)


@dataclass(frozen=True)
class Proposed:
    """Import options and HIT settings proposed from what the database holds, and the report that says why."""

    options: dict[str, Any]
    settings: dict[str, Any]
    report: Report


@dataclass(frozen=True)
class Proposal:
    """What a format can propose to import from earlier results, e.g. the systems a track admits by a
    leaderboard. `sources()` lists (value, title) pairs to propose from; `propose(value)` gives the values
    (FormatError in words when that source cannot propose). `flask import --propose-from` and the
    new-project page offer it; the values are a proposal: anything given explicitly wins."""

    label: str
    help: str
    sources: Callable[[], list[tuple[str, str]]]
    propose: Callable[[str], Proposed]


@dataclass(frozen=True)
class FileFormat:
    """A shared task's file layout as the app uses it.

    `reads` is "file" or "folder": what PATH of `import` is, and what an upload must come down to;
    `expects` says in words which files that is.
    `load(path, **import options)` validates everything and raises a located FormatError on the
    first problem; `export(project, out_dir, **export options)` writes the shared task's files, which
    `writes` names in words (with the default export options; `<split>` stands for the project's split):
    the admin's export form says what its zip will hold with it.
    A format whose projects can be scored names its `scorer` and gives `scoring_gold(project,
    folder) -> (gold path, scorer options)`. A format whose projects rank something (e.g. systems)
    gives `rank(project) -> reports.Report`, shown by `flask rank` and the project's ranking page; where only
    some of its projects have something to rank (a declared campaign with a best-worst question), it gives
    `ranks_project(project) -> bool` too, and `ranks(project)` says whether a project's page and command rank.
    A format that can propose what to import from earlier results gives a `proposal`.
    A shared task that needs more than import and export (e.g. a second annotation stage made from a
    project's gold) declares its commands and admin pages on its SharedTask (shared_task.py); the format gives
    `project_links(project)`, the (text, URL) links to those pages that a project's admin page shows (a
    function: its pages' URLs exist once the app is set up).
    A format that makes declared projects on request (its load gives a `Loaded.definition`) and whose built-in
    type's settings choose what that definition asks or how it decides (KPA's thresholds and tie; RuArg's stage and
    m and ReCAM's selection parameters before their built-in types went) gives
    `declared_definition(definition, settings) -> definition`: the settings given with the import (every one of
    the built-in type's, typed, defaults for those not given) made into the new project's definition, which then
    stores no such settings; FormatError in words for a setting the definition cannot take. Such a format gives
    `settings_of_definition(definition) -> settings` too, its inverse: the settings an existing declared project's
    definition says, under which the settings given with a further import are read (only those given change). A
    format whose `task` is the declared type and whose import options make the definition (RuArg's stage, m, claims
    and language) gives `settings_of_definition` alone: the import options an existing project's definition says,
    read where a further import does not give them (imports.options_of_definition).
    `new_project` names the endpoint of one of those pages that makes a new project of the format, where
    the generic upload form cannot (e.g. two files of different roles); the new-project page links to it.
    Without it, a declared project takes none of the built-in type's settings (one other than its default is
    refused, saying so).
    A shared task's format whose projects are declared ones (its `task` the declared type: the built-in type is
    gone) names in `settings` the project settings its new projects take with the import (its bridge's
    `kept_settings`: what its own readers read, no rules), asked by `flask import` and the import form as a built-in
    type's settings were (`formats.import_settings`).
    """

    name: str
    title: str
    task: str
    reads: Literal["file", "folder"]
    expects: str
    items: str  # what its items are, in the plural: "arguments", "sentences"
    load: Callable[..., Loaded]
    export: Callable[..., Exported]
    import_options: tuple[Option, ...] = ()
    export_options: tuple[Option, ...] = ()
    scorer: str | None = None
    scoring_gold: Callable[[Project, Path], tuple[Path, dict[str, Any]]] | None = None
    rank: Callable[[Project], Report] | None = None
    ranks_project: Callable[[Project], bool] | None = None
    proposal: Proposal | None = None
    project_links: Callable[[Project], list[tuple[str, str]]] | None = None
    new_project: str | None = None
    declared_definition: Callable[[dict[str, Any], Mapping[str, Any]], dict[str, Any]] | None = None
    settings: tuple[Option, ...] = ()
    settings_of_definition: Callable[[Mapping[str, Any]], dict[str, Any]] | None = None
    writes: str = ""
    # The kinds of file it reads (campaigns/file_kinds.py: "CSV", "TSV", "JSON Lines"): a refused upload of
    # another kind is told what it looks like. Empty: not declared, no such hint.
    kinds: tuple[str, ...] = ()

    def ranks(self, project: Project) -> bool:
        """Whether the project has a ranking (the ranking page, `flask rank`, the kept "ranking" figure)."""
        return self.rank is not None and (self.ranks_project is None or self.ranks_project(project))
