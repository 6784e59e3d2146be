"""KPA-2021's dataset table (Friedman et al. 2021, Table 1) computed from key-point-match projects.

Per split: topics, arguments, key points, the shares of positive / negative / undecided argument-key point
pairs among all pairs of the same topic and stance, strict coverage (share of arguments with a positive
key point), relaxed coverage (positive or undecided) and the arguments matching several key points
(section 3.1 of the paper: "only 5% of the arguments map to multiple KPs", counted strictly: two or more
positive pairs).

A pair is undecided when it has no label in the official files (their README: undecided pairs are left out
of labels_*.csv); with gold from votes, when the project's thresholds leave it so. An argument counts in
the label columns only when it has labels: imported ones (reference) or gold (its votes are complete).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from annotator.analysis.reports import Report, Table
from annotator.declared.definition import UNDECIDED
from annotator.shared_tasks.kpa2021.declared_gold import match_gold
from annotator.shared_tasks.stats_base import ALL, DatasetStats, items_frame, resolve_labels, split_order

if TYPE_CHECKING:
    import pandas as pd

    from annotator.core.models import Project

COLUMNS = ["split", "topics", "arguments", "key points", "labelled arguments", "pairs", "positive", "negative",
           "undecided", "strict coverage", "relaxed coverage", "several key points", "several key points share"]


def pairs_frame(projects: list[Project], labels: str) -> tuple[pd.DataFrame, str | None]:
    """One row per (argument, key point of its topic and stance): split, argument, topic, key point, label
    (1, 0, "undecided", or None where the argument has no labels); and the label source used."""
    import pandas as pd
    items = items_frame(projects)
    gold = {p.slug: match_gold(p) for p in projects} if labels != "reference" else {}
    has_gold = any(not g.empty for g in gold.values())
    source = resolve_labels(labels, has_gold, bool(items["reference"].notna().any()))
    decided: dict[tuple[str, str], dict[str, Any]] = {}
    if source == "gold":
        for slug, frame in gold.items():
            for row in frame.itertuples():
                decided.setdefault((slug, row.item), {})[row.unit] = row.label
    rows = []
    for project, item, split, payload, reference in items.itertuples(index=False):
        known = (reference if source == "reference" else decided.get((project, item)) if source == "gold"
                 else None)
        for kp in payload["key_points"]:
            rows.append((split, f"{project}/{item}", payload["topic"], f"{project}/{kp['id']}",
                         _label(known, kp["id"])))
    pairs = pd.DataFrame(rows, columns=["split", "argument", "topic", "key_point", "label"])
    pairs["split"] = pd.Categorical(pairs["split"], categories=items["split"].cat.categories)
    return pairs, source


def _label(known: dict[str, Any] | None, key_point: str) -> int | str | None:
    """A pair's label: None when its argument has no labels, undecided when the labels leave it out."""
    if known is None:
        return None
    value = known.get(key_point)
    return UNDECIDED if value is None or value == UNDECIDED else int(value)


def table_row(name: str, pairs: pd.DataFrame) -> list[Any]:
    """The row of Table 1 for these pairs."""
    labelled = pairs[pairs["label"].notna()]
    arguments = labelled["argument"].nunique()
    positive = labelled[labelled["label"].eq(1)]
    relaxed = labelled[labelled["label"].isin([1, UNDECIDED])]
    several = int((positive.groupby("argument").size() > 1).sum())

    def share(part: int, whole: int) -> float | None:
        return part / whole if whole else None
    n = len(labelled)
    return [name, pairs["topic"].nunique(), pairs["argument"].nunique(), pairs["key_point"].nunique(), arguments,
            n, share(len(positive), n), share(int(labelled["label"].eq(0).sum()), n),
            share(int(labelled["label"].eq(UNDECIDED).sum()), n), share(positive["argument"].nunique(), arguments),
            share(relaxed["argument"].nunique(), arguments), several, share(several, arguments)]


def report(projects: list[Project], labels: str) -> Report:
    pairs, source = pairs_frame(projects, labels)
    splits = split_order(pairs)
    rows = [table_row(split, pairs[pairs["split"] == split]) for split in splits]
    if len(splits) > 1:
        rows.append(table_row(ALL, pairs))
    said = {"reference": "the imported labels (an official labels file; a pair without a label is undecided)",
            "gold": "the gold of the votes (complete items; undecided by the project's thresholds)",
            None: "none: the projects have neither imported labels nor gold, so the label columns are empty"}
    note = ("shares of all argument-key point pairs of the same topic and stance; coverage: share of the labelled "
            "arguments with a positive (strict) or a positive or undecided (relaxed) key point; several key "
            "points: labelled arguments with two or more positive ones")
    return Report("Dataset statistics: KPA-2021 / ArgKP", [Table("dataset", "The data set by split", COLUMNS, rows,
                                                                 note)],
                  [f"Labels: {said[source]}.", f"As {STATS.paper}."])


STATS = DatasetStats(name="kpa2021", title="KPA-2021 / ArgKP data set",
                     paper="Friedman et al. (2021), Overview of the KPA-2021 shared task, Table 1 and section 3.1",
                     report=report)
