"""Per annotator of a project: agreement with the others, control accuracy, volume and time.

Agreement is the measure the KPA data's creators kept annotators by: for each co-annotator with at
least `kappa_min_units` shared units, Cohen's kappa over those units, then the mean over co-annotators.
Units and values are the task type's headline agreement field (the first of `agreement_units`), read
from the label frame (complete items, no control items), so it is a pure function of the rows.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import case, func, select

from annotator.core.csv_cells import csv_text, dict_rows
from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, AnnotatorState, Assignment, Project, User
from annotator.quality.controls import accuracies
from annotator.quality.settings import quality_settings
from annotator.tasks import TaskType, project_task

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd


@dataclass(frozen=True)
class AnnotatorRow:
    user_id: int
    username: str
    votes: int
    median_seconds: float | None
    control_answers: int
    control_accuracy: float | None
    kappa: float | None            # mean Cohen's kappa with co-annotators
    kappa_pairs: int               # co-annotators it is the mean over
    quiz: str | None               # pending / passed / failed; None when never quizzed
    blocked: str | None            # the reason, when blocked
    excluded_votes: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def cohen_kappa(a: np.ndarray, b: np.ndarray) -> float | None:
    """Cohen's kappa of two coders' labels on the same units; None when chance agreement is 1 (undefined)."""
    import numpy as np
    categories, codes = np.unique(np.concatenate([a, b]), return_inverse=True)
    x, y = codes[:len(a)], codes[len(a):]
    chance = np.sum(np.bincount(x, minlength=len(categories)) * np.bincount(y, minlength=len(categories)))
    return _kappa_of_counts(int(np.sum(x == y)), int(chance), len(a))


def pairwise_kappas(units: pd.DataFrame, min_units: int) -> dict[tuple[Any, Any], tuple[float, int]]:
    """{(coder a, coder b): (kappa, shared units)} over the pairs with at least `min_units` shared units, in the
    order of the coders' ids (a < b); each kappa is `cohen_kappa` of the pair's labels on their shared units.

    A coder's first value on a unit counts, a missing value does not. Every pair at once, from sparse unit x coder
    indicator matrices: `shared` = how many units two coders share, and per category c `ind_c.T @ ind_c` (both
    gave c) and `ind_c.T @ present` (a gave c where b is present: a's marginal over the pair's shared units).
    Looping over pairs in pandas took most of a big project's figures computation (pairs grow with the square of
    the crowd); these are the same integer counts, so the kappas are the same numbers.
    """
    if units.empty:
        return {}
    import numpy as np
    import pandas as pd
    from scipy import sparse
    first = units.drop_duplicates(["unit", "coder"])
    first = first[first["value"].notna()]
    if first.empty:
        return {}
    coders, coder_of = np.unique(first["coder"].to_numpy(), return_inverse=True)
    unit_of, unit_names = pd.factorize(first["unit"])
    categories, category_of = np.unique(first["value"].to_numpy(dtype=str), return_inverse=True)
    shape = (len(unit_names), len(coders))

    def indicator(rows: np.ndarray) -> Any:
        return sparse.csr_matrix((np.ones(int(rows.sum()), dtype=np.int64), (unit_of[rows], coder_of[rows])),
                                 shape=shape)

    present = indicator(np.ones(len(first), dtype=bool))
    shared = (present.T @ present).tocoo()
    wanted = (shared.row < shared.col) & (shared.data >= min_units)
    a, b, n = shared.row[wanted], shared.col[wanted], shared.data[wanted]
    order = np.lexsort((b, a))
    a, b, n = a[order], b[order], n[order]
    if not len(a):
        return {}
    agree = np.zeros(len(a), dtype=np.int64)
    chance = np.zeros(len(a), dtype=np.int64)  # sum over categories of a's count times b's, on shared units
    for category in range(len(categories)):
        gave = indicator(category_of == category)
        agree += np.asarray((gave.T @ gave).tocsr()[a, b]).ravel()
        marginal = (gave.T @ present).tocsr()
        chance += np.asarray(marginal[a, b]).ravel() * np.asarray(marginal[b, a]).ravel()
    names, out = coders.tolist(), {}
    for i, j, shared_units, same, by_chance in zip(a.tolist(), b.tolist(), n.tolist(), agree.tolist(),
                                                    chance.tolist()):
        kappa = _kappa_of_counts(same, by_chance, shared_units)
        if kappa is not None:
            out[(names[i], names[j])] = (kappa, shared_units)
    return out


def _kappa_of_counts(agreed: int, chance_products: int, units: int) -> float | None:
    """`cohen_kappa` from its counts: units agreed on, the sum over categories of the two coders' counts
    multiplied, and the units they share."""
    observed = agreed / units
    expected = float(chance_products)
    expected /= units * units
    if expected >= 1.0:
        return None
    return (observed - expected) / (1.0 - expected)


def mean_kappas(labels: pd.DataFrame, task: TaskType, min_units: int) -> dict[int, tuple[float, int]]:
    """Per annotator (user id): (mean kappa over co-annotators, how many co-annotators), on the type's first
    agreement field. `task` is the project's own type (`project_task`): a declared campaign's fields come from
    its definition."""
    import numpy as np
    if labels.empty:
        return {}
    units = next(iter(task.agreement_units(labels).values()))
    per_coder: dict[int, list[float]] = {}
    for (a, b), (kappa, _) in pairwise_kappas(units, min_units).items():
        per_coder.setdefault(int(a), []).append(kappa)
        per_coder.setdefault(int(b), []).append(kappa)
    return {coder: (float(np.mean(values)), len(values)) for coder, values in per_coder.items()}


def low_kappa_annotators(project: Project, labels: pd.DataFrame) -> set[int]:
    """The annotators the project leaves out of gold: mean kappa below `gold_min_kappa` (unset: nobody)."""
    q = quality_settings(project)
    if q.gold_min_kappa is None:
        return set()
    return {user for user, (kappa, _) in mean_kappas(labels, project_task(project), q.kappa_min_units).items()
            if kappa < q.gold_min_kappa}


@dataclass(frozen=True)
class AnnotatorFigures:
    """What the annotators page shows that takes every label or vote to compute (kept for a big project by
    annotator/analysis/kept.py): each annotator's mean kappa (and over how many co-annotators) and median seconds
    per HIT, by user id."""

    kappas: Mapping[int, tuple[float, int]]
    median_seconds: Mapping[int, float]
    votes: Mapping[int, tuple[str, int, int]]  # user id -> (name, submitted votes, of them excluded)


def annotator_figures(project: Project, labels: pd.DataFrame | None = None) -> AnnotatorFigures:
    """The kappas over every counted label (`labels`: results.labels_frame with nobody left out, when the caller
    has it), and the median time of the submitted votes."""
    import pandas as pd

    from annotator.analysis.results import labels_frame  # results imports this package

    if labels is None:
        labels = labels_frame(project, by_kappa=False)
    kappas = mean_kappas(labels, project_task(project), quality_settings(project).kappa_min_units)
    # Plain tuples: pandas reads SQLAlchemy's Row objects as sequences one by one, 1.8 s for 200,000 votes.
    times = pd.DataFrame([tuple(row) for row in db.session.execute(select(Assignment.user_id, Assignment.seconds_spent)
                          .where(Assignment.project_id == project.id, Assignment.status == SUBMITTED,
                                 Assignment.seconds_spent.is_not(None)))], columns=["user_id", "seconds"])
    medians = {int(user): float(median) for user, median in times.groupby("user_id")["seconds"].median().items()}
    votes = {int(user): (str(name), int(count), int(excluded)) for user, name, count, excluded in db.session.execute(
        select(Assignment.user_id, User.username, func.count(),
               func.coalesce(func.sum(case((Assignment.excluded.is_(True), 1), else_=0)), 0))
        .join(User, User.id == Assignment.user_id)
        .where(Assignment.project_id == project.id, Assignment.status == SUBMITTED)
        .group_by(Assignment.user_id, User.username))}
    return AnnotatorFigures(kappas, medians, votes)


def annotator_table(project: Project, figures: AnnotatorFigures | None = None) -> list[AnnotatorRow]:
    """Every annotator with a vote in the project, by name: quiz, blocking and control answers as they are now;
    votes, kappas and median times from `figures` (computed here when not given; a big project's are kept, with
    their age on the page, and an exclusion of votes drops them)."""
    figures = annotator_figures(project) if figures is None else figures
    q = quality_settings(project)
    controls = accuracies(project.id)
    states = {s.user_id: s for s in db.session.scalars(select(AnnotatorState)
                                                       .where(AnnotatorState.project_id == project.id))}
    out = []
    for user_id, (username, count, excluded) in figures.votes.items():
        answers, mean = controls.get(int(user_id), (0, None))
        kappa, pairs = figures.kappas.get(int(user_id), (None, 0))
        state = states.get(int(user_id))
        out.append(AnnotatorRow(int(user_id), str(username), int(count), figures.median_seconds.get(int(user_id)),
                                answers, mean, kappa, pairs,
                                state.quiz_status if state is not None and q.quiz else None,
                                state.blocked_reason if state is not None and state.blocked_at else None,
                                int(excluded)))
    return sorted(out, key=lambda r: r.username)


def table_csv(rows: list[AnnotatorRow]) -> str:
    columns = list(AnnotatorRow.__dataclass_fields__)
    return csv_text(columns, dict_rows(columns, (r.to_dict() for r in rows)))
