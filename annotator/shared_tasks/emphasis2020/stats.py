"""The emphasis task's dataset table (Shirani et al. 2020, Table 1 and section 3) from emphasis projects.

Table 1 gives the text length (words per sentence: max, mean, SD) of the Spark and Quotes data sets and of
both combined; the text of section 3 adds the instances, words and unique words of the whole data set and
the random split into 2,741 / 392 / 743 instances. Here: one table by data set (the sentence id's prefix
names it, as the task's meta.txt says: S_ Spark, Q_ Quotes, T_ Trial) and one by split.

Rules the paper leaves open, chosen so that the released files give its figures (tests/cli/test_dataset_stats_
official.py): unique words are counted case-folded (4,886 on the three files; 6,062 word forms as written,
also shown); SD is the sample standard deviation (pandas' default; the population SD differs from the fourth
decimal on). The paper's SDs (4.64, 6.33) are the files' values cut to two decimals (4.6494, 6.3378), not
rounded; this table keeps full precision.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from annotator.analysis.reports import Report, Table
from annotator.shared_tasks.stats_base import ALL, DatasetStats, items_frame, split_order

if TYPE_CHECKING:
    import pandas as pd

    from annotator.core.models import Project

SOURCES = {"S": "Spark", "Q": "Quotes", "T": "Trial"}
COMBINED = "combined"
LENGTH_COLUMNS = ["sentences", "words", "unique words", "unique word forms", "max length", "mean length",
                  "SD length"]


def sentences_frame(projects: list[Project]) -> pd.DataFrame:
    """One row per sentence: split, data set, length (words) and its words."""
    items = items_frame(projects)
    words = [[w["text"] for w in payload["words"]] for payload in items["payload"]]
    return items.assign(dataset=[SOURCES.get(str(i).split("_", 1)[0], "other") for i in items["item"]],
                        words=words, length=[len(w) for w in words])[["split", "dataset", "length", "words"]]


def length_row(name: str, sentences: pd.DataFrame) -> list[Any]:
    """Sentences, words, unique words (case-folded and as written), and max / mean / SD of the length."""
    lengths = sentences["length"]
    words = [w for ws in sentences["words"] for w in ws]
    return [name, len(sentences), int(lengths.sum()), len({w.casefold() for w in words}), len(set(words)),
            int(lengths.max()), float(lengths.mean()), float(lengths.std()) if len(lengths) > 1 else None]


def report(projects: list[Project], labels: str) -> Report:
    sentences = sentences_frame(projects)
    if sentences.empty:
        return Report("Dataset statistics: SemEval-2020 Task 10 (emphasis selection)", [],
                      ["The projects have no sentences yet."])
    datasets = [d for d in [*SOURCES.values(), "other"] if d in set(sentences["dataset"])]
    by_dataset = [length_row(d, sentences[sentences["dataset"] == d]) for d in datasets]
    by_dataset.append(length_row(COMBINED, sentences))
    splits = split_order(sentences)
    by_split = [length_row(s, sentences[sentences["split"] == s]) for s in splits]
    if len(splits) > 1:
        by_split.append(length_row(ALL, sentences))
    note = "length in words per sentence; unique words case-folded, word forms as written; SD of the sample"
    return Report("Dataset statistics: SemEval-2020 Task 10 (emphasis selection)",
                  [Table("datasets", "Text length by data set", ["data set", *LENGTH_COLUMNS], by_dataset, note),
                   Table("splits", "By split", ["split", *LENGTH_COLUMNS], by_split, note)],
                  [f"As {STATS.paper}."])


STATS = DatasetStats(name="emphasis2020", title="SemEval-2020 Task 10 data set",
                     paper="Shirani et al. (2020), SemEval-2020 Task 10, Table 1 and section 3", report=report)
