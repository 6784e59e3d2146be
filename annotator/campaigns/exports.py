"""Running a format's export for the CLI and the admin page alike: which items count, and saying so.

Why one place: a gold file that silently mixes items with all their votes and items with one vote
misleads whoever reads it. By default an export holds complete items only (results.labels_frame);
asked to include pending items, the format's export is called with `include_incomplete=True`, which it passes
to every read of the votes (results.labels_frame, kept_gold.gold_frame...), and a README.txt written into the
output says how many items are pending and that they are included.

Why one builder: the CLI's folder and the admin page's zip must hold the same files at the same paths (the
zip once flattened a format's subfolders into its top level). `build_export` writes an
export's whole file set into a folder; `run_export` (the CLI) moves that folder's files into the output
folder, `export_zip` (the admin page) packs them, each by its path relative to the folder.

Why staged: a full disk (or any failed write) half way through a format's export would leave some
files new and some old or truncated in the output folder, which reads as a complete export. So the
format writes into a fresh folder beside the output folder (same file system), and only when every
file is written are they renamed into place, each rename atomic; on any failure the staging folder is
removed, the output folder is as it was, and ExportWriteError says what happened.

Why the files are read once more: a shared task's own files keep their bytes, also a cell a spreadsheet would
run as a formula; the export names each such cell in a note and in FORMULA-CELLS.txt (campaigns/formula_cells.py).
"""
from __future__ import annotations

import errno
import io
import os
import shutil
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from annotator.analysis.results import ProjectProgress, project_progress
from annotator.campaigns.formula_cells import export_formula_cells, formula_note, write_listing
from annotator.core.models import Project
from annotator.core.private_files import FILE_MODE, private_folder
from annotator.lookups.formats import Exported, FileFormat

README = "README.txt"
STAGING_PREFIX = ".partial-export-"


class ExportWriteError(Exception):
    """The export could not be written (e.g. the disk is full); nothing of it was left in the output folder."""

    def __init__(self, out_dir: Path, error: OSError) -> None:
        self.out_dir, self.error = out_dir, error
        hint = "free some space and export again" if self.disk_full else "fix that and export again"
        super().__init__(f"could not write the export to {out_dir}: {error.strerror or error}. Nothing of this "
                         f"export was left there (files already in the folder are as they were); {hint}")

    @property
    def disk_full(self) -> bool:
        return self.error.errno in (errno.ENOSPC, errno.EDQUOT)


def run_export(fmt: FileFormat, project: Project, out_dir: Path, include_incomplete: bool = False,
               **options: Any) -> Exported:
    """The format's export of the project, all files or none (see the module docstring); pending items only
    when `include_incomplete`, then recorded. Raises ExportWriteError when the files cannot be written."""
    out_dir = Path(out_dir)
    try:
        private_folder(out_dir.parent)
        staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=out_dir.parent.absolute()))
    except OSError as error:
        raise ExportWriteError(out_dir, error) from error
    try:
        exported = build_export(fmt, project, staging, include_incomplete, **options)
        return Exported(_move_into_place(staging, out_dir, exported.paths), exported.notes)
    except OSError as error:
        raise ExportWriteError(out_dir, error) from error
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def export_zip(fmt: FileFormat, project: Project, include_incomplete: bool = False, **options: Any) -> io.BytesIO:
    """The files `run_export` would write, at the same relative paths, as a zip in memory: a failed write raises
    ExportWriteError before any byte of it is sent (no truncated zip)."""
    try:
        temporary = tempfile.TemporaryDirectory()
    except OSError as error:
        raise ExportWriteError(Path(tempfile.gettempdir()), error) from error
    buffer = io.BytesIO()
    with temporary as folder:
        try:
            build_export(fmt, project, Path(folder), include_incomplete, **options)
            with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
                for written in written_files(Path(folder)):
                    archive.write(written, arcname=written.relative_to(folder).as_posix())
        except OSError as error:
            raise ExportWriteError(Path(folder), error) from error
    buffer.seek(0)
    return buffer


def written_files(folder: Path) -> list[Path]:
    """Every file under `folder`, in path order: an export's file set, whatever the format listed."""
    return sorted(p for p in folder.rglob("*") if p.is_file())


def _move_into_place(staging: Path, out_dir: Path, paths: list[Path]) -> list[Path]:
    """Rename every file written under `staging` to the same place under `out_dir`, each made 0600 first (the
    format's writers leave them to the umask) in folders made 0700; the paths, moved."""
    private_folder(out_dir)
    for written in written_files(staging):
        target = out_dir / written.relative_to(staging)
        private_folder(target.parent)
        os.chmod(written, FILE_MODE)
        os.replace(written, target)
    return [out_dir / Path(p).relative_to(staging) if Path(p).is_relative_to(staging) else Path(p) for p in paths]


def build_export(fmt: FileFormat, project: Project, out_dir: Path, include_incomplete: bool = False,
                 **options: Any) -> Exported:
    """Write the export's whole file set into `out_dir` (a fresh folder): the format's files, and README.txt when
    pending items are included; with the notes the organiser should read."""
    progress = project_progress(project)
    exported = fmt.export(project, out_dir, include_incomplete=include_incomplete, **options)
    notes, paths = list(exported.notes), list(exported.paths)
    if cells := export_formula_cells(exported.verbatim):
        paths.append(write_listing(out_dir, cells))
        notes.append(formula_note(cells))
    if include_incomplete:
        readme = Path(out_dir) / README
        readme.write_text(readme_text(project, progress.items, progress.pending), encoding="utf-8")
        return Exported([*paths, readme], notes)
    if (reason := nothing_complete(project, progress)) is not None:
        notes.append(f"{reason}. Its gold file holds no row: the header only, or empty where the shared task's "
                     "format has no header (the same in every format).")
    if progress.pending:
        notes.append(f"{progress.pending} of {progress.items} items are pending (fewer votes than they need) and are "
                     "left out; ask for --include-incomplete to include them.")
    return Exported(paths, notes)


def export_contents(fmt: FileFormat, project: Project) -> str:
    """What the project's export holds, in words (FileFormat.writes), `<split>` named as the project's split."""
    split = (project.source or {}).get("split")
    return fmt.writes.replace("<split>", str(split)) if split else fmt.writes


def nothing_complete(project: Project, progress: ProjectProgress | None = None) -> str | None:
    """Why a project has no gold yet, in words, or None when an item is complete.

    Gold comes from complete items only, so a project with votes but no complete item has none: saying
    "no vote yet" there contradicts the progress the project page shows.
    """
    progress = progress or project_progress(project)
    if progress.complete:
        return None
    if not progress.items:
        return f"Project {project.slug} has no item, so there is no gold yet"
    votes = "no vote yet" if not progress.votes else f"{progress.votes} vote{'' if progress.votes == 1 else 's'}"
    return (f"No item of project {project.slug} is complete yet ({votes}; 0 of {progress.items} items have the "
            f"k = {project.k} votes they need, or their dynamic-overlap target), so there is no gold yet: gold "
            "comes from complete items only")


def readme_text(project: Project, items: int, pending: int) -> str:
    return (f"Export of project {project.slug} ({project.name}).\n\n"
            f"INCOMPLETE ITEMS INCLUDED: this export was asked to include pending items. {pending} of {items} items "
            f"had fewer votes than they need (k = {project.k}, or their dynamic-overlap target) when it was written; "
            "their labels and gold come from the votes they had, so they are less reliable than the others.\n")
