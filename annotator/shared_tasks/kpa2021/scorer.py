"""KPA-2021 Track 1 (key-point matching): strict and relaxed mAP, equal to the official scorer.

The official scorer is IBM/KPA_2021_shared_task ``code/track_1_kp_matching.py``; its algorithm, bugs and
reference numbers are in ``shared/formats-and-scorers.md`` §1.3-1.6. Each step below is there; the
numbered comments refer to the steps of §1.3. Two versions of the program exist and both are offered:

* ``variant="official"`` (HEAD, commit 2f5e2d5 of 2021-09-23): per group ``AP * positives / N``;
* ``variant="plain-ap"`` (commit 371ea46, what the evaluation phase presumably ran): plain sklearn AP.

Quirks reproduced, each reported in ``ScoreReport.warnings`` when it touches the submission:

* the best key point of an argument is the *first* maximum in JSON order (README and overview paper say
  random; ``random_ties=True`` follows them: a random maximum, mean of 10 seeded runs, tie_break.py);
* key-point ids absent from the key-point file are dropped; JSON keys that are not arguments are dropped;
* every argument enters: unanswered ones as dummy rows scoring 0, re-scored 0.99 inside the top half,
  where they count as false positives;
* the top half is ``floor(n/2)`` arguments per topic+stance, cut with numpy's *unstable* quicksort exactly
  as pandas ``sort_values`` calls it, so ties at the cut are machine dependent (§1.6 (b));
* a best key point of another topic or stance has no label and so is a *relaxed positive* (§1.6); with
  ``strict_topics=True`` it is counted wrong (label 0 in strict and relaxed).

Cases the official program crashes on get a documented outcome instead (see ``score``).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from annotator.core.errors import FormatError
from annotator.core.options import Option
from annotator.estimation.ranks import competition_ranks
from annotator.lookups.score_report import ScoreReport, first_few
from annotator.lookups.scorer_base import Metrics, RankRule, Scorer
from annotator.shared_tasks.kpa2021.files import SPLIT_FROM_NAMES, split_of
from annotator.shared_tasks.kpa2021.scorer_io import (
    KpaGold,
    Predictions,
    check_predictions,
    read_gold,
    read_predictions,
)
from annotator.shared_tasks.kpa2021.tie_break import Pair, best_key_points, run_seeds

if TYPE_CHECKING:
    import numpy as np

TASK = "kpa2021"
VARIANTS = ("official", "plain-ap")
METRICS = ("strict", "relaxed", "p_at_50_strict")
DUMMY = "dummy_id"
DUMMY_SCORE_IN_TOP = 0.99  # the code comment says 1; the code writes 0.99 (§1.3 step 4)
INT64 = (-(2**63), 2**63 - 1)

__all__ = ["TASK", "VARIANTS", "KpaGold", "kept_pairs", "read_gold", "read_predictions", "score", "score_files"]


@dataclass
class _Row:
    """One argument of the split with its best prediction, as in the official merged DataFrame."""

    arg_id: str
    topic: str
    stance: int
    key_point_id: str
    score: int | float
    strict: float
    relaxed: float
    off_topic: bool


def _rows(gold: KpaGold, best: dict[str, Pair], strict_topics: bool) -> list[_Row]:
    """Steps 2-3: left join of the arguments with their best pair, then with the labels."""
    rows = []
    for arg_id, topic, stance in gold.arguments:
        kp_id, value = best.get(arg_id, (DUMMY, 0))
        if kp_id == DUMMY:
            rows.append(_Row(arg_id, topic, stance, DUMMY, 0, 0.0, 0.0, False))
            continue
        label = gold.labels.get((arg_id, kp_id))
        off_topic = gold.key_points[kp_id] != (topic, stance)
        strict = 0.0 if label is None else float(label)
        relaxed = 1.0 if label is None else float(label)
        if off_topic and strict_topics:
            strict = relaxed = 0.0
        rows.append(_Row(arg_id, topic, stance, kp_id, value, strict, relaxed, off_topic))
    return rows


def _score_dtype(best: dict[str, Pair], rows: list[_Row]) -> type:
    """int64 exactly when pandas would infer it: all best scores are JSON integers and no dummy row exists.

    Integers beyond int64 would make pandas fall back to an object column (sorted by Python comparisons);
    they are scored as float64 here, the one place where this module only approximates the official program.
    """
    import numpy as np
    all_int = all(type(v) is int and INT64[0] <= v <= INT64[1] for _, v in best.values())
    return np.int64 if best and all_int and all(r.key_point_id != DUMMY for r in rows) else np.float64


def top_half(scores: np.ndarray) -> np.ndarray:
    """Row positions of the kept top ``floor(n/2)``, exactly as ``DataFrame.sort_values(ascending=False)``.

    pandas reverses the array, argsorts it with numpy's quicksort (not stable; SIMD kernels from numpy 2 on
    x86-64) and reverses the result (§1.6 (b)); replaying that call keeps ties in the same order as the
    official program *on the same machine*.
    """
    n = len(scores)
    order = (n - 1 - scores[::-1].argsort(kind="quicksort"))[::-1]
    return order[: n // 2]


def _tie_matters(rows: list[_Row], scores: np.ndarray, top: np.ndarray) -> bool:
    """True when equal scores straddle the cut and the tied rows differ in what they contribute.

    Tied dummies (all label 0, all re-scored 0.99) are interchangeable, so a cut through them is harmless.
    """
    import numpy as np
    cut = len(top)
    if not 0 < cut < len(rows) or scores[top[-1]] != np.sort(scores)[::-1][cut]:
        return False
    tied = {(r.strict, r.relaxed, r.key_point_id == DUMMY) for r, s in zip(rows, scores) if s == scores[top[-1]]}
    return len(tied) > 1


def _ap(y_true: np.ndarray, y_score: np.ndarray) -> float:
    """sklearn's AP; with no positive it warns and returns 0 (sklearn 1.2-1.9), the warning is noise here."""
    # Imported here, not at the top: only this needs scikit-learn, and a server worker that never computes it
    # should not carry it (issue 12: every worker's memory counts; figures in
    # bench/results/2026-11-25-figures-from-docstrings.md).
    from sklearn.metrics import average_precision_score

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(average_precision_score(y_true=y_true, y_score=y_score))


def _js_divergence(gold: KpaGold, key: tuple[str, int], rows: list[_Row], top: np.ndarray) -> float | None:
    """Jensen-Shannon divergence (base 2, so in [0, 1]) between two distributions over the group's key points.

    Overview paper, section 6: how the system spreads arguments over key points versus the gold. Here:
    predicted = for each key point of the topic+stance (key-point file order), the number of arguments in the
    kept top half whose best key point it is (dummies and off-topic key points left out: they are not on
    this axis); gold = the number of arguments of the group labelled 1 with it (an argument matching two key
    points counts for both). Both are normalised to sum 1. It is ``scipy.spatial.distance.jensenshannon(p,
    q, base=2) ** 2``: scipy returns the JS *distance*, the square root of the divergence. ``None`` when
    either side has no mass.
    """
    import numpy as np
    kp_ids = [k for k, where in gold.key_points.items() if where == key]
    predicted = np.array([sum(rows[i].key_point_id == k for i in top) for k in kp_ids], dtype=float)
    matched = np.array([sum(gold.labels.get((r.arg_id, k)) == 1 for r in rows) for k in kp_ids], dtype=float)
    if not kp_ids or predicted.sum() == 0 or matched.sum() == 0:
        return None
    from scipy.spatial.distance import jensenshannon  # here: see _ap

    return float(jensenshannon(predicted, matched, base=2) ** 2)


def _group(gold: KpaGold, key: tuple[str, int], rows: list[_Row], dtype: type, variant: str) -> dict[str, Any]:
    """Step 4 for one topic+stance: cut, dummies to 0.99, AP (and the HEAD factor), in both label modes."""
    import numpy as np
    n = len(rows)
    scores: np.ndarray = np.array([r.score for r in rows], dtype=dtype)
    top = top_half(scores)
    cut = len(top)
    tie_at_cut = _tie_matters(rows, scores, top)
    y_score = scores[top].astype(np.float64)
    dummies = np.array([rows[i].key_point_id == DUMMY for i in top], dtype=bool)
    y_score[dummies] = DUMMY_SCORE_IN_TOP
    out: dict[str, Any] = {"topic": key[0], "stance": key[1], "n": n, "N": cut}
    for mode in ("strict", "relaxed"):
        y_true = np.array([getattr(rows[i], mode) for i in top], dtype=np.float64)
        positives = float(sum(y_true))
        ap = _ap(y_true, y_score)
        out[mode] = ap * positives / cut if variant == "official" else ap
        out[f"positives_{mode}"] = int(positives)
    out["p_at_50_strict"] = out["positives_strict"] / cut
    out["p_at_50_relaxed"] = out["positives_relaxed"] / cut
    out["dummies_in_top"] = int(dummies.sum())
    out["off_topic_in_top"] = sum(rows[i].off_topic for i in top)
    out["tie_at_cut"] = tie_at_cut
    out["js_divergence"] = _js_divergence(gold, key, rows, top)
    return out


def kept_pairs(gold: KpaGold, predictions: Predictions) -> list[tuple[str, str, Any]]:
    """The (arg_id, key_point_id, score) pairs this scorer evaluates, in argument file order.

    Per argument its first maximal key point (step 1), then per topic+stance the top floor(n/2) rows by
    score with numpy's quicksort as pandas does (step 4), arguments without a prediction taking part as
    dummies and then left out here. Track 2 of KPA-2021 labels exactly these pairs retrospectively.
    """
    import numpy as np
    check_predictions(predictions)
    best = best_key_points(gold.key_points, predictions).best
    rows = _rows(gold, best, strict_topics=False)
    dtype = _score_dtype(best, rows)
    groups: dict[tuple[str, int], list[_Row]] = {}
    for r in rows:
        groups.setdefault((r.topic, r.stance), []).append(r)
    kept: set[str] = set()
    for group in groups.values():
        top = top_half(np.array([r.score for r in group], dtype=dtype))
        kept.update(group[i].arg_id for i in top if group[i].key_point_id != DUMMY)
    return [(r.arg_id, r.key_point_id, r.score) for r in rows if r.arg_id in kept]


@dataclass
class _Run:
    """Steps 2-5 for one pairing of arguments with key points: the rows, groups, per-group table and means."""

    rows: list[_Row]
    groups: dict[tuple[str, int], list[_Row]]
    table: list[dict[str, Any]]
    dtype: type
    metrics: dict[str, float]


def _run(gold: KpaGold, best: dict[str, Pair], variant: str, strict_topics: bool) -> _Run:
    import numpy as np
    rows = _rows(gold, best, strict_topics)
    dtype = _score_dtype(best, rows)
    groups: dict[tuple[str, int], list[_Row]] = {}
    for r in rows:
        groups.setdefault((r.topic, r.stance), []).append(r)
    table = [_group(gold, key, groups[key], dtype, variant) for key in sorted(groups) if len(groups[key]) > 1]
    if not table:
        raise FormatError(f"no topic+stance group of the {gold.split} split has two or more arguments, so no "
                          "top half can be ranked")
    metrics = {name: float(np.mean([g[name] for g in table])) for name in METRICS}
    return _Run(rows, groups, table, dtype, metrics)


def score(gold: KpaGold, predictions: Predictions, *, variant: str = "official", strict_topics: bool = False,
          random_ties: bool = False, seed: int = 0) -> ScoreReport:
    """Score parsed predictions against one gold split.

    Metrics: ``strict``, ``relaxed`` (the official mAPs) and ``p_at_50_strict``: per topic+stance, the share
    of the kept top ``N = floor(n/2)`` rows (dummies included, as label 0) that are strict positives, i.e.
    ``positives_strict / N``; then ``numpy.mean`` over the groups, like the mAPs. It is independent of
    ``variant`` and of the order inside the top half.

    Ties between an argument's key points (tie_break.py): by default the official code's first maximum in
    JSON order; with ``random_ties`` the overview paper's rule: a random maximum, 10 runs with seeds
    ``seed``..``seed + 9`` (recorded in the detail with each run's figures), the metrics their mean, and the
    first-maximum figures kept in ``beside`` when they differ. Either way the detail says how many
    arguments had a tie (``arguments_with_tied_best``).

    Outcomes where the official program has none:

    * a topic+stance group with a single argument (``N = 0``; sklearn fails on the empty top half) is left
      out of all three means, with a warning; if no group is left, ``FormatError`` (it is the gold's doing);
    * NaN, infinite or non-numeric scores are refused by ``check_predictions`` (``SubmissionError``);
    * all best scores JSON integers and every argument answered: the score column is int64 and both official
      versions crash under pandas >= 3 (``TypeError`` at the dummy step). We score as pandas 1.5 did, cutting
      with numpy's int64 argsort, and warn.
    """
    import numpy as np
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, not {variant!r}")
    check_predictions(predictions)
    pairs = best_key_points(gold.key_points, predictions)
    official = _run(gold, pairs.best, variant, strict_topics)
    argument_ids = {a for a, _, _ in gold.arguments}
    tied = [a for a in pairs.tied if a in argument_ids]
    run, metrics = official, official.metrics
    detail: dict[str, Any] = {"split": gold.split, "variant": variant, "strict_topics": strict_topics,
                              "tie_break": "random" if random_ties else "first", "arguments_with_tied_best": len(tied)}
    if random_ties:
        seeds = run_seeds(seed)
        # Without a tie every run pairs as the official rule does: no need to run them.
        runs = [_run(gold, pairs.drawn(s), variant, strict_topics) if tied else official for s in seeds]
        run = runs[0]
        metrics = {name: float(np.mean([r.metrics[name] for r in runs])) for name in METRICS}
        detail.update({"seed": seed, "seeds": seeds, "groups_of_seed": seeds[0],
                       "std_over_runs": {name: float(np.std([r.metrics[name] for r in runs])) for name in METRICS},
                       "runs": [{"seed": s, **r.metrics} for s, r in zip(seeds, runs)]})
    js = [g["js_divergence"] for g in run.table if g["js_divergence"] is not None]
    detail.update({
        "score_dtype": run.dtype.__name__, "arguments": len(run.rows),
        "answered": sum(r.key_point_id != DUMMY for r in run.rows),
        "off_topic_best": sum(r.off_topic for r in run.rows),
        "js_divergence_mean": float(np.mean(js)) if js else None, "groups": run.table,
    })
    report = ScoreReport(TASK, metrics, detail)
    if metrics != official.metrics:
        report.beside["first maximum (official)"] = dict(official.metrics)
    unknown = [a for a in predictions if a not in argument_ids]
    _warn(report, gold, run, pairs.invalid, unknown, tied, strict_topics)
    return report


def _warn(report: ScoreReport, gold: KpaGold, run: _Run, invalid: list[str], unknown: list[str], tied: list[str],
          strict_topics: bool) -> None:
    """Say in words which official quirks changed this submission's numbers (of the first run, when random)."""
    import numpy as np
    rows, groups, table, dtype = run.rows, run.groups, run.table, run.dtype
    w = report.warnings
    if invalid:
        w.append(f"{len(invalid)} key-point id(s) are not in key_points_{gold.split}.csv and were ignored, as the "
                 f"official scorer does: {first_few(invalid)}")
    if unknown:
        w.append(f"{len(unknown)} prediction key(s) are not arguments of the {gold.split} split and were dropped: "
                 f"{first_few(unknown)}")
    if tied and report.detail["tie_break"] == "first":
        w.append(f"{len(tied)} argument(s) have several key points with the same top score ({first_few(tied)}); the "
                 "first in the JSON order was taken, as the official code does (the task's README and overview "
                 "paper break ties at random: random_ties=True)")
    elif tied:
        seeds = report.detail["seeds"]
        w.append(f"{len(tied)} argument(s) have several key points with the same top score ({first_few(tied)}); "
                 f"each of {len(seeds)} runs (seeds {seeds[0]} to {seeds[-1]}) took one at random, as the overview "
                 "paper does, and the figures are their mean (the official code takes the first in JSON order)")
    dummies = [r.arg_id for r in rows if r.key_point_id == DUMMY]
    in_top = sum(g["dummies_in_top"] for g in table)
    if dummies:
        w.append(f"{len(dummies)} of {len(rows)} arguments have no valid prediction ({first_few(dummies)}); they "
                 f"enter with score 0, and the {in_top} that fell in a top half were re-scored 0.99 and count "
                 "as false positives")
    off = report.detail["off_topic_best"]
    if off:
        how = ("counted wrong in both modes (strict_topics=True)" if strict_topics else
               "counted correct in relaxed mode, as the official scorer does (a bug: such pairs have no label); "
               "use strict_topics=True to count them wrong")
        w.append(f"{off} argument(s) have as best key point one of another topic or stance: {how}")
    ties = [f"{g['topic']} ({g['stance']:+d})" for g in table if g["tie_at_cut"]]
    if ties:
        w.append(f"equal scores straddle the 50% cut in {len(ties)} group(s) ({first_few(ties, 3)}); which rows "
                 "are kept follows numpy's unstable quicksort and can differ between machines and numpy builds")
    single = [f"{t} ({s:+d})" for (t, s), g in groups.items() if len(g) == 1]
    if single:
        w.append(f"{len(single)} topic+stance group(s) have a single argument (top half of 0 rows, the official "
                 f"program crashes) and were left out of the means: {first_few(single, 3)}")
    if dtype is np.int64:
        w.append("every best score is a JSON integer and every argument is answered, so the official score "
                 "column is int64: the official program crashes on it with pandas >= 3; scored as it ran with "
                 "pandas 1.5 (int64 sort order)")


def score_files(gold: Path, predictions: Path, *, split: str | None = None, variant: str = "official",
                strict_topics: bool = False, random_ties: bool = False, seed: int = 0) -> ScoreReport:
    """``gold`` is a folder with ``{arguments,key_points,labels}_<split>.csv``; ``predictions`` a JSON object
    file or a zip holding one JSON file (CodaLab's ``predictions.p``). No split: the one the gold's file names
    give (files.split_of)."""
    return score(read_gold(Path(gold), split_of(Path(gold), split)), read_predictions(Path(predictions)),
                 variant=variant, strict_topics=strict_topics, random_ties=random_ties, seed=seed)


def _mean_rank_keys(metrics: list[Metrics]) -> list[tuple[float, ...]]:
    """The task README's order: mean of the strict and relaxed ranks; equal means share a place (the first
    key), listed by the higher mean mAP, as the overview paper's Table 2 lists them."""
    means = _mean_ranks(metrics)
    return [(mean, -(m["strict"] + m["relaxed"]) / 2) for mean, m in zip(means, metrics)]


def _mean_ranks(metrics: list[Metrics]) -> list[float]:
    strict = competition_ranks([m["strict"] for m in metrics])
    relaxed = competition_ranks([m["relaxed"] for m in metrics])
    return [(s + r) / 2 for s, r in zip(strict, relaxed)]


SCORER = Scorer(
    name=TASK, title="KPA-2021 Track 1: key-point matching (mAP)", metrics=("strict", "relaxed", "p_at_50_strict"),
    gold="folder with arguments_<split>.csv, key_points_<split>.csv, labels_<split>.csv (a zip of them on the web)",
    predictions="JSON object {arg_id: {key_point_id: score}}, or a zip holding one JSON file",
    submission_kinds=("JSON", "a zip archive"),
    options=(Option("split", str, None, "which *_<split>.csv files of the gold folder to read; " + SPLIT_FROM_NAMES,
                    label="Split",
                    pattern=r"[A-Za-z0-9_-]{1,40}",
                           rule="1 to 40 letters, digits, - or _"),
             Option("variant", str, "official", "official = HEAD (AP x positives/N); plain-ap = before 2021-09-23",
                    label="Variant", choices=VARIANTS),
             Option("strict_topics", bool, False, "count best key points of another topic/stance as wrong",
                    label="Count off-topic key points as wrong"),
             Option("random_ties", bool, False, "the overview paper's rule for an argument whose top score several "
                    "key points share: one at random, the mean of 10 seeded runs (default: the official code's "
                    "first in JSON order)", label="Break ties between key points at random"),
             Option("seed", int, 0, "first of the 10 seeds of random_ties (recorded with each score)",
                    label="Seed of the random tie-break", minimum=0, maximum=2**31 - 1)),
    rankings=("mean_rank", "strict", "relaxed"), score_files=score_files,
    read_gold=lambda path, split=None, **_: read_gold(path, split_of(path, split)), gold_kind="folder",
    zip_members=("predictions.p", "*.json"),  # CodaLab's name, or a JSON file by its own
    rules={"mean_rank": RankRule("KPA-2021 ranked teams by the mean of their strict and relaxed ranks; equal "
                                 "means share a place, listed by mean mAP", _mean_rank_keys, "mean rank",
                                 _mean_ranks)})
