"""Dawid-Skene aggregation: the true class of each unit and each annotator's confusion matrix, by EM.

Dawid & Skene (1979), "Maximum likelihood estimation of observer error-rates using the EM algorithm".
Each annotator w has a confusion matrix pi_w[t, c] = P(w says c | the truth is t) and the classes have
priors p[t]; the truth of each unit is latent. EM alternates the posterior of each unit's class given the
matrices (E-step) with the matrices and priors given the posteriors (M-step).

Written here (a short numpy function) rather than taken from crowd-kit, which would pull transformers and
nltk into the server; tests/unit/test_dawid_skene.py checks it against crowd-kit's published toy results.
As crowd-kit does, it starts from the majority vote's shares (each unit's posterior = the share of its
votes per class), stops when the log-likelihood moves by less than `tol` or after `max_iter` E-steps, and
works in logs so that products of many small probabilities do not underflow.

Seeding with known answers (`known`, e.g. the control items' answers): a unit whose class is known has it fixed
(its posterior is 1 for that class from the start and in every E-step), not merely a prior that favours it. This is
what Ipeirotis, Provost & Wang (2010, "Quality management on Amazon Mechanical Turk", HCOMP; their Get-Another-Label
tool) do with gold data in Dawid-Skene: the known answer is a fact, and a prior could be outvoted by the very
annotators it is there to score, so their confusion matrices would be estimated against a class known to be wrong.
The known units' votes then weigh in every M-step as labelled data, so an annotator's matrix rests on the units
with known answers as well as on the others.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

TINY = 1e-300  # floor for log(0): a confusion entry of exactly 0 rules a class out without NaNs


@dataclass(frozen=True)
class DawidSkeneResult:
    classes: list[str]            # sorted; the columns of posteriors and priors
    units: list[Any]              # in first-seen order; the rows of posteriors
    coders: list[Any]             # in first-seen order; the first axis of confusion
    posteriors: np.ndarray        # units x classes, rows sum to 1
    confusion: np.ndarray         # coders x true class x given class, rows sum to 1
    priors: np.ndarray            # classes
    iterations: int               # E-steps run
    converged: bool               # the log-likelihood moved by less than tol before max_iter

    @property
    def labels(self) -> list[str]:
        """Each unit's most probable class (the first class in sorted order on a tie)."""
        return [self.classes[i] for i in self.posteriors.argmax(axis=1)] if len(self.units) else []

    def posterior_frame(self) -> pd.DataFrame:
        import pandas as pd
        return pd.DataFrame(self.posteriors, index=pd.Index(self.units, name="unit"), columns=self.classes)

    def confusion_frame(self, coder: Any) -> pd.DataFrame:
        """One annotator's matrix: rows the true class, columns the class they gave."""
        import pandas as pd
        index = self.coders.index(coder)
        return pd.DataFrame(self.confusion[index], index=pd.Index(self.classes, name="true"),
                            columns=pd.Index(self.classes, name="given"))


def dawid_skene(votes: pd.DataFrame, tol: float = 1e-5, max_iter: int = 100,
                known: Mapping[Any, str] | None = None) -> DawidSkeneResult:
    """Aggregate (unit, coder, value) rows; one vote per coder and unit is expected (extra ones count too).

    `known`: unit -> its known class (str), fixed throughout (see the module's docstring); a known unit without
    votes is left out, and a known class nobody gave joins the classes."""
    import numpy as np
    if max_iter < 0 or tol < 0:
        raise ValueError("max_iter and tol must not be negative")
    coded = encoded(votes, known)
    units, unit_index, coders, coder_index = coded.units, coded.unit_index, coded.coders, coded.coder_index
    classes, class_index, shape, allowed = coded.classes, coded.class_index, coded.shape, coded.allowed
    if not len(votes):
        return DawidSkeneResult([], [], [], np.zeros((0, 0)), np.zeros((0, 0, 0)), np.zeros(0), 0, True)

    posteriors = coded.first_posteriors()
    priors, confusion = _m_step(posteriors, unit_index, coder_index, class_index, shape)
    previous, converged, iterations = -np.inf, False, 0
    while iterations < max_iter:
        posteriors, likelihood = _e_step(priors, confusion, unit_index, coder_index, class_index, shape, allowed)
        priors, confusion = _m_step(posteriors, unit_index, coder_index, class_index, shape)
        iterations += 1
        if abs(likelihood - previous) < tol:
            converged = True
            break
        previous = likelihood
    return DawidSkeneResult(classes, units, coders, posteriors, confusion, priors, iterations, converged)


@dataclass(frozen=True)
class Encoded:
    """(unit, coder, value) rows as the models' arrays: units, coders and classes numbered, and the classes each
    unit may take (a known unit its known class only). Shared by Dawid-Skene and the one-coin model."""

    units: list[Any]
    unit_index: np.ndarray
    coders: list[Any]
    coder_index: np.ndarray
    classes: list[str]
    class_index: np.ndarray
    shape: tuple[int, int, int]
    allowed: np.ndarray

    def first_posteriors(self) -> np.ndarray:
        """The EM's start: each unit's share of votes per class, a known unit's class certain."""
        import numpy as np
        shares = majority_shares(self.unit_index, self.class_index, self.shape)
        return np.where(self.allowed.all(axis=1, keepdims=True), shares, self.allowed.astype(float))


def encoded(votes: pd.DataFrame, known: Mapping[Any, str] | None) -> Encoded:
    """The votes numbered for the models; `known`: unit -> its known class (a known class nobody gave joins the
    classes)."""
    units, unit_index = codes(votes["unit"])
    coders, coder_index = codes(votes["coder"])
    values = votes["value"].astype(str)
    seeds = {unit: str(value) for unit, value in (known or {}).items()}
    classes = sorted(set(values.unique()) | {seeds[u] for u in units if u in seeds})
    class_index = values.map({c: i for i, c in enumerate(classes)}).to_numpy(dtype=int)
    shape = (len(units), len(coders), len(classes))
    return Encoded(units, unit_index, coders, coder_index, classes, class_index, shape,
                   allowed_classes(units, classes, seeds))


def allowed_classes(units: list[Any], classes: list[str], known: Mapping[Any, str]) -> np.ndarray:
    """Units x classes: True where the unit may be of the class (every class, or only its known one)."""
    import numpy as np
    allowed = np.ones((len(units), len(classes)), dtype=bool)
    column = {c: i for i, c in enumerate(classes)}
    for row, unit in enumerate(units):
        if unit in known:
            allowed[row] = False
            allowed[row, column[known[unit]]] = True
    return allowed


def codes(column: pd.Series) -> tuple[list[Any], np.ndarray]:
    """The distinct values in first-seen order, and each row's position among them."""
    import pandas as pd
    positions, uniques = pd.factorize(column, sort=False)
    return list(uniques), positions


def per_class_sums(index: np.ndarray, weights: np.ndarray, length: int) -> np.ndarray:
    """sum of weights[r, t] over rows r with index[r] == i, as an (length x classes) array."""
    import numpy as np
    return np.stack([np.bincount(index, weights=weights[:, t], minlength=length)
                     for t in range(weights.shape[1])], axis=1)


def majority_shares(unit_index: np.ndarray, class_index: np.ndarray, shape: tuple[int, int, int]) -> np.ndarray:
    """Each unit's share of votes per class: where EM starts (as crowd-kit's does)."""
    import numpy as np
    n_units, _, n_classes = shape
    counts = per_class_sums(unit_index, np.eye(n_classes)[class_index], n_units)
    shares: np.ndarray = counts / counts.sum(axis=1, keepdims=True)
    return shares


def _m_step(posteriors: np.ndarray, unit_index: np.ndarray, coder_index: np.ndarray, class_index: np.ndarray,
            shape: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Priors: the mean posterior. Confusion: expected counts of (true t, given c) per coder, per row t."""
    import numpy as np
    _, n_coders, n_classes = shape
    key = coder_index * n_classes + class_index
    counts = per_class_sums(key, posteriors[unit_index], n_coders * n_classes)  # (coder, given) x true
    counts = counts.reshape(n_coders, n_classes, n_classes).transpose(0, 2, 1)    # coder x true x given
    totals = counts.sum(axis=2, keepdims=True)
    # A coder never seen on a unit of class t says nothing about t: a uniform row, not 0/0.
    confusion = np.divide(counts, totals, out=np.full_like(counts, 1.0 / n_classes), where=totals > 0)
    return posteriors.mean(axis=0), confusion


def _e_step(priors: np.ndarray, confusion: np.ndarray, unit_index: np.ndarray, coder_index: np.ndarray,
            class_index: np.ndarray, shape: tuple[int, int, int], allowed: np.ndarray) -> tuple[np.ndarray, float]:
    """Posteriors of each unit's class and the data's log-likelihood under the current parameters (a unit of
    known class: the likelihood of its votes given that class)."""
    import numpy as np
    n_units = shape[0]
    log_confusion = np.log(np.maximum(confusion, TINY))
    per_vote = log_confusion[coder_index, :, class_index]  # rows x true class
    log_joint = np.log(np.maximum(priors, TINY)) + per_class_sums(unit_index, per_vote, n_units)
    log_joint = np.where(allowed, log_joint, -np.inf)
    top = log_joint.max(axis=1, keepdims=True)
    scaled = np.exp(log_joint - top)
    total = scaled.sum(axis=1, keepdims=True)
    return scaled / total, float((top + np.log(total)).sum())
