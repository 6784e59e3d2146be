"""A big project's gold for exports: the kept gold when it is exactly current, else the kept gold folded forward
to the votes stored now, reading only the labels of the items that got votes since.

Why: the kept gold (analysis/figures.kept_figures.VOTES) is exact only while no vote has come since its stamp. During a
campaign one always has, and an export then read every label again: at a million labels that alone took
longer than the export may (issue 27). For a type whose gold of an item comes from that item's votes alone
(`TaskType.gold_per_item`), the gold now is the kept gold with the rows of the items whose votes changed
computed again from their own labels.

Why that is exact, not an estimate: kept with the gold is, for each counted item, the number of votes its labels
held. Now, one GROUP BY gives each counted item's number of counted votes. Within a generation votes are only
added (an exclusion or an erasure moves the generation, and drops kept figures), so an item counted then and now
with as many votes as its kept labels held has the very same votes, and its kept gold rows are what a computation
now gives. Every other item is computed again: one with more votes, one counted now but not then (completed, a
target lowered) or then but not now (a target raised, made a control item). A vote whose labels were not there
counts as a change, which costs a computation, never a wrong row.

Not folded (the whole computation runs, as before): another generation or configuration (the stamp's basis),
any adjudication (an admin's answers may add rows out of the items' order), `gold_min_kappa` (an annotator's
kappa, hence whose labels count, moves with every vote), a type whose gold looks across items (an
annotator's accuracy across items, a declared Dawid-Skene or Bradley-Terry), and more changed items than `FOLD_AT_MOST`.
tests/unit/test_kept_gold.py checks, for every type whose gold is per item, that the folded gold equals the one
computed from every label, and that exports from it are the same bytes.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy import func, select

from annotator.analysis.results import computed_gold, counted_votes, gold_from_own_votes, labels_frame
from annotator.core.extensions import db
from annotator.core.models import Adjudication, Assignment, Item, Project
from annotator.figures.kept import Stamp, kept_any, kept_from_votes, request_stamp
from annotator.tasks import project_task

if TYPE_CHECKING:
    import pandas as pd

# Above this many changed items the whole computation is as quick, and a list of their ids in one statement
# would near SQLite's limit of bound parameters (32,766).
FOLD_AT_MOST = 20_000


@dataclass(frozen=True)
class KeptGold:
    """The gold of the counted labels, and each counted item's number of votes in them (external id -> votes)."""

    frame: pd.DataFrame
    votes: Mapping[str, int]


def kept_gold(labels: pd.DataFrame, gold: pd.DataFrame) -> KeptGold:
    """What the VOTES group keeps as "gold": the gold computed from `labels`, and the votes its items' labels held."""
    votes = labels.groupby("item", sort=False)["assignment_id"].nunique()
    return KeptGold(gold, {str(item): int(n) for item, n in votes.items()})


def gold_frame(project: Project, labels: pd.DataFrame | None = None, include_incomplete: bool = False) -> pd.DataFrame:
    """The project's gold as exports, commands and pages read it: of `labels` when given (computed), else of its
    counted labels, which for a big project is its kept gold when that is exactly current (figures/kept.py:
    stamped with the votes, items and settings the project has now) or folded forward to now, and otherwise
    computed from every label (results.computed_gold). Pending items counted too (`include_incomplete`, an export
    that asks for them): computed, since the kept gold holds complete items only."""
    if labels is None and not include_incomplete:
        if (kept := exported_gold(project)) is not None:  # a big project's, exactly as of now
            return kept
    return computed_gold(project, labels, include_incomplete)


def exported_gold(project: Project) -> pd.DataFrame | None:
    """The project's gold of its counted labels from what is kept: exactly current (its stamp is the project's
    stamp now), or folded forward to now; None where neither gives it (the caller computes it from every label).
    For exports and commands, which must be a pure function of the stored votes: never an aged figure, and never
    a computation started."""
    found = _kept_gold(project)
    if found is None:
        return None
    stamped, kept, now = found
    return kept.frame if stamped == now.text else _folded(project, kept)


def folded_gold(project: Project) -> pd.DataFrame | None:
    """The kept gold with the items whose counted votes changed since computed again (see the module's
    docstring); None where folding does not apply."""
    found = _kept_gold(project)
    return None if found is None else _folded(project, found[1])


def _kept_gold(project: Project) -> tuple[str, KeptGold, Stamp] | None:
    """(its stamp, the kept gold, the project's stamp now) when a kept gold of the project's generation and
    configuration reads, and the project is big. One indexed read where none is kept (every small project)."""
    found = kept_any(project, "gold")
    if found is None or not isinstance(found[1], KeptGold):
        return None
    now = request_stamp(project)
    if now.votes < kept_from_votes() or not now.same_basis(found[0]):
        return None  # a project that has become small again is computed, as every small one
    return found[0], found[1], now


def _folded(project: Project, kept: KeptGold) -> pd.DataFrame | None:
    if not gold_from_own_votes(project):
        return None
    if db.session.scalar(select(Adjudication.id).where(Adjudication.project_id == project.id).limit(1)) is not None:
        return None
    now = dict(db.session.execute(select(Item.external_id, func.count(Assignment.id))
                                  .join(Item, Item.id == Assignment.item_id)
                                  .where(counted_votes(project, include_incomplete=False))
                                  .group_by(Item.external_id)).all())
    changed = {item for item in now.keys() | kept.votes.keys() if now.get(item) != kept.votes.get(item)}
    if not changed:
        return kept.frame
    if len(changed) > FOLD_AT_MOST:
        return None
    fresh = computed_gold(project, labels_frame(project, include_incomplete=False, items=changed))
    unchanged = kept.frame[~kept.frame["item"].isin(changed)]
    if unchanged.empty:
        return fresh  # every counted item changed: the gold of their labels is the whole gold
    if not fresh.empty and list(fresh.columns) != list(unchanged.columns):
        return None
    return _merged(project, unchanged, fresh)


def _merged(project: Project, unchanged: pd.DataFrame, fresh: pd.DataFrame) -> pd.DataFrame:
    """The two parts' rows in the items' order (each item's rows in their own order), as a computation from every
    label orders them; a column's type is inferred again from the values it holds now (a column of numbers and
    "undecided" becomes one of numbers when its last "undecided" went)."""
    import numpy as np
    import pandas as pd

    position = dict(db.session.execute(select(Item.external_id, Item.position)
                                       .where(Item.project_id == project.id)).all())
    both = pd.concat([unchanged, fresh], ignore_index=True) if not fresh.empty else unchanged
    order = np.argsort(both["item"].map(position).to_numpy(dtype=np.int64), kind="stable")
    merged = both.iloc[order].reset_index(drop=True)
    typed = merged.infer_objects()
    for column in project_task(project).gold_object_columns:   # as the type wrote them (a declared `also`)
        if column in merged:
            typed[column] = merged[column]
    return typed
