"""What the admin pages show of a project's votes, grouped by the labels they are computed from, for
annotator/figures/kept.py to keep for big projects.

Four groups, each reading its labels once when all of its figures are computed together:
  * VOTES (the counted labels, as gold and exports count them): the project page's summary, the
    adjudication list's undecided items, the dashboard's figures, the annotators' mean kappas and times, and
    the gold itself (which `results.gold_frame` reads instead of every label while it is exactly current);
  * ITEMS (every label, pending items too, as the items page inspects them): the items' ranking by
    agreement, gold per unit, and who is left out of gold by kappa;
  * RANKING: what the project's format ranks (systems by their judgments), which reads its votes itself;
  * MODEL (the counted labels, and the control items' votes): the annotator model of every categorical field,
    Dawid-Skene seeded with the control items' known answers (`flask aggregate --seed-controls`), which the
    items page and the adjudication page show (`model`), and what the Dawid-Skene page shows of it (`model_page`:
    each field's fit and the 300 units it lists). A group of its own: its EM is the longest
    computation of all, and computed apart its arrays never sit in memory beside the other groups' figures.
A page asks for one figure (`kept_figure`); a small project computes only that one.
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from annotator.analysis.aggregation import project_model
from annotator.analysis.agreement import item_agreement
from annotator.analysis.annotator_figures import annotator_figures
from annotator.analysis.annotator_kappas import low_kappa_annotators
from annotator.analysis.dashboard import dashboard_figures
from annotator.analysis.results import (
    gold_from_own_votes,
    gold_summary,
    labels_frame,
    project_agreement,
    project_checks,
    without_low_kappa,
)
from annotator.core.extensions import db
from annotator.core.models import Item, Project
from annotator.figures.kept import Group, Kept, kept, kept_rows
from annotator.figures.kept_gold import gold_frame, kept_gold
from annotator.lookups.formats import project_format
from annotator.tasks import project_task

if TYPE_CHECKING:
    import pandas as pd

    from annotator.analysis.agreement import FieldAgreement
    from annotator.core.hit_values import Check
    from annotator.tasks import TaskType
    from annotator.tasks.base import GoldSummary


@dataclass(frozen=True)
class Summary:
    """The project page's figures of the counted votes."""

    agreement: list[FieldAgreement]
    gold: GoldSummary
    labels: int
    checks: list[Check]
    undecided: int


@dataclass(frozen=True)
class ItemFigures:
    """The items page's figures: every item with its agreement (`ranking`: item, position, units, observed,
    kappa, in file order), gold per unit of every item, and the annotators left out of gold by kappa.

    `gold` is every item's where an item's gold reads other items' votes too (results.gold_from_own_votes is
    False: a rule across items, or annotators left out by kappa), and a page selects its items' rows; None where
    each item's gold is its own votes', which the page computes from the labels it reads of its 25 items anyway
    (a few milliseconds), rather than reading every item's gold from the database on each request: that read grew
    with the project (on PostgreSQL, 13 MB and some 100 ms for the 111,112 items of a million-label Track-2 check,
    bench/results/2026-11-29-items-pages.md)."""

    field: str
    ranking: pd.DataFrame
    gold: pd.DataFrame | None
    left_out: frozenset[int]


def compute_votes(project: Project, names: Collection[str]) -> dict[str, Any]:

    task = project_task(project)
    everyone = labels_frame(project, by_kappa=False)
    labels = without_low_kappa(project, everyone)
    gold = gold_frame(project, labels) if {"summary", "undecided", "dashboard", "gold"} & set(names) else None
    out: dict[str, Any] = {}
    agreement = None   # the summary's, which the dashboard shows too (without the intervals)
    if "summary" in names:
        assert gold is not None
        # with each coefficient's 95% interval: the project and items pages show it (analysis/intervals.py)
        agreement = project_agreement(project, labels, intervals=True)
        out["summary"] = Summary(agreement, gold_summary(project, gold), len(labels),
                                 project_checks(project, labels, gold), len(task.undecided(gold)))
    if "undecided" in names:
        out["undecided"] = task.undecided(gold)
    if "dashboard" in names:
        out["dashboard"] = dashboard_figures(project, labels=labels, gold=gold, agreement=agreement)
    if "annotators" in names:
        out["annotators"] = annotator_figures(project, everyone)
    if "gold" in names:  # what results.gold_frame(project) gives: exports read it, current or folded forward
        assert gold is not None
        out["gold"] = kept_gold(labels, gold)
    return out


def compute_items(project: Project, names: Collection[str]) -> dict[str, Any]:

    everyone = labels_frame(project, include_incomplete=True, by_kappa=False)
    left_out = low_kappa_annotators(project, everyone)
    labels = everyone[~everyone["user_id"].isin(left_out)].reset_index(drop=True) if left_out else everyone
    task = project_task(project)
    field, ranking = item_ranking(project, task, labels)
    gold = None if gold_from_own_votes(project) else gold_frame(project, labels)   # see ItemFigures
    return {"items": ItemFigures(field, ranking.reset_index(drop=True), gold, frozenset(left_out))}


def item_ranking(project: Project, task: TaskType, labels: pd.DataFrame) -> tuple[str, pd.DataFrame]:
    """(the field ranked by, every item of the project with its agreement on it, in file order).

    Items no unit of which has two votes have no agreement (NaN).
    """
    import pandas as pd


    items = pd.DataFrame([tuple(row) for row in db.session.execute(select(Item.external_id, Item.position)
                                                                   .where(Item.project_id == project.id))],
                         columns=["item", "position"])
    headline = task.headline_units(labels)
    assert headline is not None, "a type has at least one agreement field"
    field, units = headline
    # agreement_units keeps the index of the label rows (see TaskType), which tells each row's item.
    per_item = item_agreement(units, labels.loc[units.index, "item"])
    return field, items.merge(per_item, left_on="item", right_index=True, how="left").sort_values("position")


def compute_ranking(project: Project, names: Collection[str]) -> dict[str, Any]:
    fmt = project_format(project)
    assert fmt.rank is not None
    return {"ranking": fmt.rank(project)}


def compute_model(project: Project, names: Collection[str]) -> dict[str, Any]:
    """`model`: the fits of the fields the items and adjudication pages show (TaskType.model_fields, the
    categorical questions' own), as arrays, of which those pages select their items' units; `model_page`: what the
    Dawid-Skene page shows of every field (model_fields.FieldPage), apart so that the page reads 300 units of each
    field rather than all of them. A RuArg-2022 project's model has ten fields, of which the items page shows three:
    at a million labels it read all ten's arrays on every request."""

    fits = project_model(project, seed_controls=True)
    out: dict[str, Any] = {}
    if "model" in names:
        shown = set(project_task(project).model_fields(fit.field for fit in fits))
        out["model"] = [fit for fit in fits if fit.field in shown]
    if "model_page" in names:
        out["model_page"] = [fit.page() for fit in fits]
    return out


VOTES = Group("votes", ("summary", "undecided", "dashboard", "annotators", "gold"), compute_votes)
ITEMS = Group("items", ("items",), compute_items)
RANKING = Group("ranking", ("ranking",), compute_ranking)
MODEL = Group("model", ("model", "model_page"), compute_model)
GROUPS: Mapping[str, Group] = {name: group for group in (VOTES, ITEMS, RANKING, MODEL) for name in group.names}
BY_GROUP: Mapping[str, Group] = {group.name: group for group in (VOTES, ITEMS, RANKING, MODEL)}


def kept_figure(project: Project, name: str) -> Kept:
    """The figure `name` of the project, kept or computed (figures/kept.py), or StillComputing."""
    return kept(project, name, GROUPS[name])


def kept_differences(project: Project) -> tuple[list[str], list[str]]:
    """(the kept figures whose stamp still holds, those of them that differ from a computation now): a
    kept figure must be exactly what recomputing from the stored votes gives."""

    current = {name: value for name, value, holds in kept_rows(project) if holds and name in GROUPS}
    differing = []
    for group in {GROUPS[name] for name in current}:
        names = [n for n in group.names if n in current]
        fresh = group.compute(project, names)
        differing += [n for n in names if not same(current[n], fresh[n])]
    return sorted(current), sorted(differing)


def same(a: Any, b: Any) -> bool:
    """Equal as figures: frames and arrays cell by cell (NaN equal to NaN), dataclasses field by field, floats
    exactly."""

    import numpy as np
    import pandas as pd

    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype.kind == b.dtype.kind
                and np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))
    if isinstance(a, pd.DataFrame) or isinstance(b, pd.DataFrame):
        return isinstance(a, pd.DataFrame) and isinstance(b, pd.DataFrame) and a.equals(b)
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return type(a) is type(b) and all(same(getattr(a, f.name), getattr(b, f.name))
                                          for f in dataclasses.fields(a))
    if isinstance(a, Mapping):
        return isinstance(b, Mapping) and list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b)
