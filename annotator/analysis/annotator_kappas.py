"""Each annotator's agreement with the others, as the KPA data's creators kept annotators by: for each
co-annotator with at least `kappa_min_units` shared units, Cohen's kappa over those units, then the mean over
co-annotators; and the annotators a project's `gold_min_kappa` leaves out of gold.

Units and values are the task type's headline agreement field (the first of `agreement_units`), read from the
label frame (complete items, no control items), so these are pure functions of the rows. Here, below the label
frame that leaves the low-kappa annotators out (results.py), and below the annotators page that shows the kappas
(quality/annotators.py), which both read them.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from annotator.core.models import Project
from annotator.core.quality_settings import quality_settings
from annotator.tasks import TaskType, project_task

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd


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
    # Each (unit, coder)'s first row with a value, found on codes rather than on a copy of the rows (drop_duplicates),
    # and the values compared as codes of their texts rather than as a text per row (bench/results/
    # 2026-11-29-kept-figures-memory.md): the same rows, the same partition into categories.
    unit_codes = pd.factorize(units["unit"], use_na_sentinel=False)[0]
    all_coders, coder_codes = np.unique(units["coder"].to_numpy(), return_inverse=True)
    first = np.sort(np.unique(unit_codes * np.int64(len(all_coders)) + coder_codes, return_index=True)[1])
    value_codes, value_names = pd.factorize(units["value"])
    first = first[value_codes[first] >= 0]   # a missing value does not count
    if not len(first):
        return {}
    coders, coder_of = np.unique(units["coder"].to_numpy()[first], return_inverse=True)
    unit_of, unit_names = pd.factorize(unit_codes[first])
    del unit_codes, coder_codes
    # numpy's text of each distinct value, as np.unique of the rows' texts compares them
    categories, category_of_name = np.unique(np.array(list(value_names), dtype=str), return_inverse=True)
    category_of = category_of_name[value_codes[first]]
    del value_codes
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
    headline = task.headline_units(labels)
    if headline is None:
        return {}
    units = headline[1]
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
