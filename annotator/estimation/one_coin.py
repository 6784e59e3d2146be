"""The one-coin competence model: each annotator's accuracy, each unit's posterior, and who looks like a spammer.

Dawid-Skene (dawid_skene.py) gives every annotator a K x K confusion matrix: K(K-1) numbers to estimate from the
annotator's votes, which a crowd worker with twenty votes does not have. The one-coin model keeps one number per
annotator, the accuracy a_w: right with probability a_w, otherwise one of the other K - 1 classes at random
(the "one-coin" special case of Dawid & Skene, as in Karger, Oh & Shah 2011 and crowd-kit's OneCoinDawidSkene).
EM as in dawid_skene.py: it starts from each unit's vote shares, runs an M-step (accuracy = the expected share of
the annotator's votes that are right; priors = the mean posterior), then alternates E- and M-steps until the
log-likelihood moves by less than `tol`, or for `max_iter` E-steps. Known answers (`known`, the control items')
are fixed as in dawid_skene.py (Ipeirotis, Provost & Wang 2010).

A spammer is an annotator whose answers do not depend on the truth. Raykar & Yu (2012, "Eliminating spammers and
ranking annotators for crowdsourced labeling tasks", JMLR 13) score an annotator by how far their confusion matrix
is from one whose rows are all equal; for the one-coin matrix that distance is proportional to a_w - 1/K, so
the score here is the accuracy above chance, (K a_w - 1) / (K - 1): 0 for a random (or always-the-same) answerer,
1 for a perfect one. An annotator scoring below `spammer_below` (0.3 by default: an annotator of two classes right
65% of the time scores 0.3) is reported as a likely spammer; the list is advice for a person (quality/spammers.py
blocks live on the score, where a project sets block_spammer_below).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from annotator.core.stopping import coin_posterior
from annotator.estimation.dawid_skene import TINY, encoded, per_class_sums

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

SPAMMER_BELOW = 0.3


@dataclass(frozen=True)
class OneCoinResult:
    classes: list[str]            # sorted; the columns of posteriors and priors
    units: list[Any]              # in first-seen order; the rows of posteriors
    coders: list[Any]             # in first-seen order
    posteriors: np.ndarray        # units x classes, rows sum to 1
    accuracy: np.ndarray          # per coder: P(the coder gives the true class)
    votes: np.ndarray             # per coder: how many votes the accuracy rests on
    priors: np.ndarray            # classes
    iterations: int
    converged: bool
    spammer_below: float = SPAMMER_BELOW

    @property
    def labels(self) -> list[str]:
        """Each unit's most probable class (the first class in sorted order on a tie)."""
        return [self.classes[i] for i in self.posteriors.argmax(axis=1)] if len(self.units) else []

    @property
    def spammer_scores(self) -> np.ndarray:
        """(K a_w - 1) / (K - 1) per coder: accuracy above chance, 0 random, 1 perfect (one class: all 1)."""
        k = len(self.classes)
        if k < 2:
            return self.accuracy * 0 + 1
        scores: np.ndarray = (k * self.accuracy - 1) / (k - 1)
        return scores

    @property
    def spammers(self) -> list[Any]:
        """The coders whose score is below `spammer_below`, lowest score first."""
        scores = self.spammer_scores
        return [self.coders[i] for i in sorted(range(len(self.coders)), key=lambda i: scores[i])
                if scores[i] < self.spammer_below]


def one_coin(votes: pd.DataFrame, tol: float = 1e-5, max_iter: int = 100, known: Mapping[Any, str] | None = None,
             spammer_below: float = SPAMMER_BELOW) -> OneCoinResult:
    """Fit (unit, coder, value) rows; `known`: unit -> its known class, fixed (see dawid_skene.dawid_skene)."""
    import numpy as np
    if max_iter < 0 or tol < 0:
        raise ValueError("max_iter and tol must not be negative")
    coded = encoded(votes, known)
    units, unit_index, coders, coder_index = coded.units, coded.unit_index, coded.coders, coded.coder_index
    classes, class_index, shape, allowed = coded.classes, coded.class_index, coded.shape, coded.allowed
    if not len(votes):
        empty = np.zeros(0)
        return OneCoinResult([], [], [], np.zeros((0, 0)), empty, empty, empty, 0, True, spammer_below)
    posteriors = coded.first_posteriors()
    per_coder = np.bincount(coder_index, minlength=len(coders)).astype(float)
    priors, accuracy = _m_step(posteriors, unit_index, coder_index, class_index, per_coder)
    previous, converged, iterations = -np.inf, False, 0
    while iterations < max_iter:
        posteriors, likelihood = _e_step(priors, accuracy, unit_index, coder_index, class_index, shape, allowed)
        priors, accuracy = _m_step(posteriors, unit_index, coder_index, class_index, per_coder)
        iterations += 1
        if abs(likelihood - previous) < tol:
            converged = True
            break
        previous = likelihood
    return OneCoinResult(classes, units, coders, posteriors, accuracy, per_coder.astype(int), priors, iterations,
                         converged, spammer_below)


def _m_step(posteriors: np.ndarray, unit_index: np.ndarray, coder_index: np.ndarray, class_index: np.ndarray,
            per_coder: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Priors: the mean posterior. Accuracy: the summed posterior of the class each vote gave, over the votes."""
    import numpy as np
    right = np.bincount(coder_index, weights=posteriors[unit_index, class_index], minlength=len(per_coder))
    accuracy: np.ndarray = right / per_coder
    return posteriors.mean(axis=0), accuracy


def _e_step(priors: np.ndarray, accuracy: np.ndarray, unit_index: np.ndarray, coder_index: np.ndarray,
            class_index: np.ndarray, shape: tuple[int, int, int], allowed: np.ndarray) -> tuple[np.ndarray, float]:
    """Posteriors and the data's log-likelihood: a vote adds log a_w to the class it gave, log((1-a_w)/(K-1)) to
    every other class."""
    import numpy as np
    n_units, _, n_classes = shape
    right = np.log(np.maximum(accuracy, TINY))[coder_index]
    wrong = (np.log(np.maximum((1 - accuracy) / (n_classes - 1), TINY))[coder_index] if n_classes > 1
             else np.zeros(len(coder_index)))
    per_vote = np.repeat(wrong[:, None], n_classes, axis=1)
    per_vote[np.arange(len(class_index)), class_index] = right
    log_joint = np.log(np.maximum(priors, TINY)) + per_class_sums(unit_index, per_vote, n_units)
    log_joint = np.where(allowed, log_joint, -np.inf)
    top = log_joint.max(axis=1, keepdims=True)
    scaled = np.exp(log_joint - top)
    total = scaled.sum(axis=1, keepdims=True)
    return scaled / total, float((top + np.log(total)).sum())


def unit_posterior(result: OneCoinResult, given: Sequence[tuple[Any, str]]) -> dict[str, float]:
    """A unit's class posterior from its votes so far, `given` as (coder, value), under a fitted model: the
    priors times, per vote, a_w for the class it gave and (1 - a_w) / (K - 1) for each other class. A coder the
    model has not seen counts with the mean accuracy; a value outside the classes says nothing and is skipped."""
    accuracy = dict(zip(result.coders, result.accuracy.tolist()))
    mean = float(result.accuracy.mean()) if len(result.accuracy) else 1.0 / max(len(result.classes), 1)
    return coin_posterior(result.classes, result.priors.tolist(), accuracy, mean, given)
