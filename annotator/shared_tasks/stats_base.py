"""What a shared task's dataset table declares, and the item rows every such table starts from.

Why: each task paper describes its data in a table of its own (KPA-2021's label shares and coverage,
a task's sentence lengths, ReCAM's sizes per file), and organisers running a new campaign
need the same table for their own data. A task folder's `stats.py` declares `STATS = DatasetStats(...)`
for the format whose projects it describes, and the folder's SharedTask names it (`dataset_stats`); `flask stats`
and the admin's statistics page find it in the registry (dataset_stats.py), so neither names a task.

The rows are grouped by split: a project's drawn split (campaigns/splits.py) or the split it was
imported as. Several projects (one per official file: the tasks' ids repeat across files, so each file
is a project of its own) give one row per split and, where the table sums, a row over all of them.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy import select

from annotator.campaigns.splits import assigned_split, splits_of
from annotator.core.extensions import db
from annotator.core.models import Item, Project

if TYPE_CHECKING:
    import pandas as pd

    from annotator.analysis.reports import Report

# Which labels a table counts: the items' imported reference answers (the official files' labels), the
# gold of the votes, or "auto": gold once any item has it, else the references.
LABEL_SOURCES = ("auto", "reference", "gold")
ALL = "all"  # the row over every split


@dataclass(frozen=True)
class DatasetStats:
    """A format's dataset table: `report(projects, labels)` computes it from the projects' rows.

    `name` is the format's name (the projects' `source["format"]`); `paper` says which table of which
    paper it follows, shown with it.
    """

    name: str
    title: str
    paper: str
    report: Callable[[list[Project], str], Report]


def items_frame(projects: list[Project]) -> pd.DataFrame:
    """One row per item of the projects, in project then position order: project (slug), item (external
    id), split, payload, reference.

    `split` is the item's split, a categorical whose order is the tables' row order: the projects in the
    order given, a drawn split's parts in the order they were named. A split name two of the projects have
    (e.g. both imported as "train") becomes "<slug>/<split>" in each, so that their rows stay apart.
    """
    import pandas as pd
    frames, order = [], []
    for project in projects:
        rows = db.session.execute(select(Item.external_id, Item.payload, Item.reference)
                                  .where(Item.project_id == project.id).order_by(Item.position)).all()
        drawn = assigned_split(project)
        splits = splits_of(project, [r[0] for r in rows], drawn)
        order += [(project.slug, name) for name in (drawn.names if drawn else ())]
        order += [(project.slug, name) for name in dict.fromkeys(splits.values())]
        frames.append(pd.DataFrame({"project": project.slug, "item": [r[0] for r in rows],
                                    "split": [splits[r[0]] for r in rows], "payload": [r[1] for r in rows],
                                    "reference": [r[2] for r in rows]}))
    items = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=["project", "item", "split", "payload", "reference"])
    slugs: dict[str, set[str]] = {}
    for slug, name in order:
        slugs.setdefault(name, set()).add(slug)

    def label(slug: str, name: str) -> str:
        return f"{slug}/{name}" if len(slugs.get(name, ())) > 1 else name
    items["split"] = pd.Categorical([label(p, s) for p, s in zip(items["project"], items["split"])],
                                    categories=list(dict.fromkeys(label(p, s) for p, s in order)))
    return items


def split_order(frame: pd.DataFrame) -> list[str]:
    """The splits that have rows in `frame`, in table order (see items_frame)."""
    present = set(frame["split"])
    return [s for s in frame["split"].cat.categories if s in present]


def resolve_labels(labels: str, has_gold: bool, has_reference: bool) -> str | None:
    """The label source a table counts ("reference" or "gold"), or None when there are no labels to count."""
    if labels not in LABEL_SOURCES:
        raise ValueError(f"labels {labels!r}: choose one of {', '.join(LABEL_SOURCES)}")
    if labels == "auto":
        return "gold" if has_gold else "reference" if has_reference else None
    return labels
