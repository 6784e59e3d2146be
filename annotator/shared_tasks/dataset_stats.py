"""Registry of dataset tables: the tables every shared task declares (`SharedTask(dataset_stats=...)`).

`dataset_report(projects)` is what `flask stats` and the admin's statistics page call: it checks that the
projects come from one format that declares a table and computes it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from annotator.plugins.registry import SHARED_TASKS, declared
from annotator.shared_tasks.stats_base import LABEL_SOURCES, DatasetStats

if TYPE_CHECKING:
    from annotator.analysis.reports import Report
    from annotator.core.models import Project

STATS: dict[str, DatasetStats] = declared("dataset table", [(task, table) for task in SHARED_TASKS.values()
                                                             for table in task.load(task.dataset_stats, DatasetStats,
                                                                                    "dataset table")])


class StatsError(ValueError):
    """Projects whose dataset table cannot be computed (the message says why)."""


def stats_for(project: Project) -> DatasetStats:
    """The table of the project's format; a StatsError in words when it has none."""
    name = (project.source or {}).get("format")
    if not name:
        raise StatsError(f"project {project.slug!r} has no recorded source format, so no dataset table applies")
    if name not in STATS:
        raise StatsError(f"the {name} format declares no dataset table; tables exist for {', '.join(STATS)}")
    return STATS[name]


def dataset_report(projects: list[Project], labels: str = "auto") -> Report:
    """The dataset table of the projects (one format), rows per split; `labels` one of LABEL_SOURCES."""
    if not projects:
        raise StatsError("name at least one project")
    if labels not in LABEL_SOURCES:
        raise StatsError(f"labels {labels!r}: choose one of {', '.join(LABEL_SOURCES)}")
    declared = [stats_for(p) for p in projects]
    if len({d.name for d in declared}) > 1:
        raise StatsError("the projects come from different formats (" +
                         ", ".join(f"{p.slug}: {d.name}" for p, d in zip(projects, declared)) +
                         "); one table covers one format")
    if len({p.id for p in projects}) < len(projects):
        raise StatsError("a project is named twice")
    return declared[0].report(projects, labels)


__all__ = ["STATS", "DatasetStats", "StatsError", "dataset_report", "stats_for"]
