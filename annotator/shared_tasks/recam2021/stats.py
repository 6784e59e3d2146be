"""ReCAM's dataset table (Zheng et al. 2021, Table 5: the number of questions per subtask and split) from
cloze-validation projects, one row per file (the split a project was imported as, e.g. Task_1_dev).

Beside the size: how many questions carry a known answer (the dev and trial files' label) and how those
answers fall on the five options, the check that a file's labels are balanced.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from annotator.analysis.reports import Report, Table
from annotator.shared_tasks.recam2021.declared_rows import known_option
from annotator.shared_tasks.stats_base import ALL, DatasetStats, items_frame, split_order

if TYPE_CHECKING:
    import pandas as pd

    from annotator.core.models import Project

OPTIONS = 5
COLUMNS = ["split", "questions", "with known answer", *(f"answer {n}" for n in range(OPTIONS))]


def size_row(name: str, items: pd.DataFrame) -> list[Any]:
    known = [n for n in map(known_option, items["reference"]) if n is not None]
    return [name, len(items), len(known), *(sum(1 for k in known if k == n) for n in range(OPTIONS))]


def report(projects: list[Project], labels: str) -> Report:
    items = items_frame(projects)
    splits = split_order(items)
    rows = [size_row(s, items[items["split"] == s]) for s in splits]
    if len(splits) > 1:
        rows.append(size_row(ALL, items))
    return Report("Dataset statistics: SemEval-2021 Task 4 (ReCAM)",
                  [Table("sizes", "Questions per file", COLUMNS, rows,
                         "known answers: the file's labels (never shown to annotators), by the option they name")],
                  [f"As {STATS.paper}."])


STATS = DatasetStats(name="recam2021", title="ReCAM data set",
                     paper="Zheng et al. (2021), SemEval-2021 Task 4, Table 5", report=report)
