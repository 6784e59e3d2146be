"""A seeded random split of a project's items into train / dev / test by given sizes.

Why: a shared task built from a new campaign releases its items in splits of sizes fixed beforehand (e.g.
2,741 / 392 / 743 sentences), drawn at random; the organisers must be able to draw the same split
again, so the draw depends only on the seed and the items, never on the machine or the library versions:
the items in position order, shuffled by Python's own `random.Random(seed)` (whose shuffle has given the
same order for an integer seed on every Python 3), the first sizes[0] to the first split and so on.

Where it lives: a project's items carry no split of their own (a project is one split of an official
task, named in `Project.source["split"]`), so an assigned split is kept as one ProjectData row
(`SPLIT_DATA`) holding the seed, the sizes and each item's split: no schema change, and no item payload
(what annotators are shown) touched. Drawing again replaces it.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, select

from annotator.core.audit import record
from annotator.core.csv_cells import csv_text
from annotator.core.extensions import db
from annotator.core.models import Item, Project, ProjectData

SPLIT_DATA = "item_split"
DEFAULT_NAMES = ("train", "dev", "test")
UNDRAWN = "(loaded after the split was drawn)"
NAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")


class SplitError(ValueError):
    """A split that cannot be drawn as asked (the message says why); nothing was changed."""


@dataclass(frozen=True)
class Split:
    """An assigned split: how it was drawn and each item's part (item external id -> split name)."""

    seed: int
    names: tuple[str, ...]
    sizes: tuple[int, ...]
    items: dict[str, str]

    def to_json(self) -> dict[str, Any]:
        return {"seed": self.seed, "names": list(self.names), "sizes": list(self.sizes), "items": self.items}


def parse_sizes(text: str) -> tuple[int, ...]:
    """"2741,392,743" -> (2741, 392, 743); a SplitError in words for anything else."""
    parts = [p.strip() for p in str(text).split(",")]
    if not all(p.isdigit() for p in parts):
        raise SplitError(f"split sizes {text!r} must be whole numbers separated by commas, e.g. 2741,392,743")
    return tuple(int(p) for p in parts)


def parse_names(text: str | None) -> tuple[str, ...]:
    """"train,dev,test" -> the names; each 1 to 40 letters, digits, - or _, no name twice."""
    if text is None or not str(text).strip():
        return DEFAULT_NAMES
    names = tuple(p.strip() for p in str(text).split(","))
    bad = [n for n in names if not NAME.match(n)]
    if bad:
        raise SplitError(f"split name {bad[0]!r} must be 1 to 40 letters, digits, - or _")
    if len(set(names)) != len(names):
        raise SplitError(f"split names {text!r} name a split twice")
    return names


def draw(external_ids: list[str], sizes: tuple[int, ...], seed: int,
         names: tuple[str, ...] = DEFAULT_NAMES) -> dict[str, str]:
    """Each id's split: `external_ids` (in position order) shuffled with `seed`, then cut by `sizes`."""
    if len(sizes) != len(names):
        raise SplitError(f"{len(sizes)} split sizes for {len(names)} splits ({', '.join(names)}); give one size "
                         "per split")
    if any(size < 1 for size in sizes):
        raise SplitError(f"every split needs at least one item; sizes {','.join(map(str, sizes))}")
    if sum(sizes) != len(external_ids):
        raise SplitError(f"the split sizes {','.join(map(str, sizes))} add up to {sum(sizes)}, but the project has "
                         f"{len(external_ids)} items; they must add up to the item count")
    order = list(external_ids)
    random.Random(seed).shuffle(order)
    parts: dict[str, str] = {}
    start = 0
    for name, size in zip(names, sizes):
        parts.update((external_id, name) for external_id in order[start:start + size])
        start += size
    return {external_id: parts[external_id] for external_id in external_ids}


def assign_split(project: Project, sizes: tuple[int, ...], seed: int,
                 names: tuple[str, ...] = DEFAULT_NAMES) -> Split:
    """Draw the project's split and keep it (replacing any earlier one), with its audit event; the caller commits.

    A SplitError before anything is written when the sizes do not fit the items.
    """
    ids = list(db.session.scalars(select(Item.external_id).where(Item.project_id == project.id)
                                  .order_by(Item.position)))
    split = Split(seed, names, sizes, draw(ids, sizes, seed, names))
    db.session.execute(delete(ProjectData).where(ProjectData.project_id == project.id,
                                                 ProjectData.name == SPLIT_DATA))
    db.session.add(ProjectData(project_id=project.id, name=SPLIT_DATA, content=split.to_json()))
    record("split.draw", project, detail={"seed": seed, "names": list(names), "sizes": list(sizes)})
    db.session.flush()
    return split


def assigned_split(project: Project) -> Split | None:
    """The split drawn for the project, or None when none was."""
    content = db.session.scalar(select(ProjectData.content).where(ProjectData.project_id == project.id,
                                                                  ProjectData.name == SPLIT_DATA))
    if content is None:
        return None
    return Split(int(content["seed"]), tuple(content["names"]), tuple(content["sizes"]), dict(content["items"]))


def item_splits(project: Project) -> dict[str, str]:
    """Each item's split, in position order (see `splits_of`)."""
    ids = db.session.scalars(select(Item.external_id).where(Item.project_id == project.id).order_by(Item.position))
    return splits_of(project, list(ids), assigned_split(project))


def item_split_csv(project: Project) -> str:
    """Each item's split as a CSV file (item,split), in item order: the statistics page's download."""
    return csv_text(["item", "split"], item_splits(project).items())


def splits_of(project: Project, external_ids: list[str], drawn: Split | None) -> dict[str, str]:
    """The split of each of the project's items: the drawn one when a split was drawn (`UNDRAWN` for items
    loaded after the draw), else the split the project was imported as (`source["split"]`, else its slug)."""
    if drawn is not None:
        return {external_id: drawn.items.get(external_id, UNDRAWN) for external_id in external_ids}
    imported = str((project.source or {}).get("split") or project.slug)
    return {external_id: imported for external_id in external_ids}
