"""KPA-2021's gold in the columns its files and rankings are written from.

Why: since the switch to one engine (docs/one-engine.md, "The switch, step by step") KPA-2021 projects are declared
projects of match.yaml, match_check.yaml and set_compare.yaml (the built-in types are gone), while the official
files, votes.csv, pairs.csv, the mAP per system and the dataset table were written from the built-in types' gold
columns. The declared engine gives one row per (item, question, unit) with the decision as text
(declared/gold.py); read here into the built-in columns, every file is the same bytes as the built-in type wrote for
the same votes (tests/data/before_one_engine):

- match: item, unit (key point id), annotators, matched, share, label (1 / 0 / "undecided"), from the `matches`
  question's rows: n annotators, the share the rule's score (ticks / n), the ticks its product with n;
- check: item, unit ("pair"), votes, yes, no, faulty, label (1 / 0), faulty_majority (bool), from the `verdict`
  question's rows: its counts by verdict (the rows' `votes` words, "yes: 2, no: 1"), the strict majority's gold
  ("yes" a match) and the further decision `faulty_majority` ("1" / "0").
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from annotator.core.errors import FormatError
from annotator.core.options import Option
from annotator.declared.definition import UNDECIDED
from annotator.figures.kept_gold import gold_frame

if TYPE_CHECKING:
    import pandas as pd

    from annotator.core.models import Project

HERE = Path(__file__).resolve().parent
MATCH_DEFINITION = HERE / "match.yaml"
CHECK_DEFINITION = HERE / "match_check.yaml"
COMPARE_DEFINITION = HERE / "set_compare.yaml"

MATCH_QUESTION, CHECK_QUESTION, FAULTY = "matches", "verdict", "faulty_majority"
MATCH_COLUMNS = ["item", "unit", "annotators", "matched", "share", "label"]
CHECK_COLUMNS = ["item", "unit", "votes", "yes", "no", "faulty", "label", "faulty_majority"]
VERDICTS = ("yes", "no", "faulty")
CHECK_UNIT = "pair"


def declared_option(definition: Path) -> Option:
    """The import option that once chose between a declared project of the format's definition and one of the
    built-in type: kept, on and only on, so that a command or form that still sends it off is told why."""
    return Option("declared", bool, True, label=f"Serve the project from the task's definition ({definition.name})",
                  help=f"on, and only on: a project is a declared project of {definition.name}, served by the "
                       "engine of declared campaigns (the same items, gold, exports and API answers as the built-in "
                       "type gave; the settings that are rules go into its definition, the others stay project "
                       "settings); the built-in type is gone (docs/one-engine.md)")


def refuse_built_in(declared: bool, built_in: str, definition: Path) -> None:
    """FormatError, before any file is read, for an import asking for a project of the built-in type (`declared`
    off: `--no-declared`, the import page's box unticked), which is gone since the switch to one engine."""
    if not declared:
        raise FormatError(f"declared off: the built-in {built_in} HIT type is gone, every KPA-2021 project of "
                          f"these files is a declared project of {definition.name} (the same files, gold, rankings "
                          "and API answers; docs/one-engine.md): import without --no-declared (on the import page: "
                          "with its box ticked)")


def match_gold(project: Project, include_incomplete: bool = False) -> pd.DataFrame:
    """Per (argument, key point): annotators, matched, share and the 1 / 0 / undecided label (of complete items,
    and of pending ones too with `include_incomplete`)."""
    import pandas as pd
    gold = gold_frame(project, include_incomplete=include_incomplete)
    rows = gold[gold["question"] == MATCH_QUESTION] if not gold.empty else gold
    if rows.empty:
        return pd.DataFrame(columns=MATCH_COLUMNS)
    n = rows["n"].astype("int64").to_numpy()
    share = rows["score"].astype(float).to_numpy()
    frame = pd.DataFrame({"item": rows["item"].to_numpy(), "unit": rows["unit"].to_numpy(), "annotators": n,
                          "matched": (share * n).round().astype("int64"), "share": share})
    frame["label"] = [UNDECIDED if g == UNDECIDED else int(g) for g in rows["gold"]]   # ints alone: an int column
    return frame


def check_gold(project: Project, include_incomplete: bool = False) -> pd.DataFrame:
    """Per pair: the verdict counts, the label (1 when yes is more than half) and whether faulty is (of complete
    items, and of pending ones too with `include_incomplete`)."""
    import pandas as pd
    gold = gold_frame(project, include_incomplete=include_incomplete)
    rows = gold[gold["question"] == CHECK_QUESTION] if not gold.empty else gold
    if rows.empty:
        return pd.DataFrame(columns=CHECK_COLUMNS)
    counts = [_counts(text) for text in rows["votes"]]
    frame = pd.DataFrame({"item": rows["item"].to_numpy(), "unit": CHECK_UNIT,
                          "votes": [sum(c.values()) for c in counts],
                          **{verdict: [c[verdict] for c in counts] for verdict in VERDICTS}})
    frame["label"] = [1 if g == "yes" else 0 for g in rows["gold"]]
    frame["faulty_majority"] = (rows[FAULTY] == "1").to_numpy()
    return frame


def _counts(text: str) -> Counter[str]:
    """A gold row's `votes` words ("yes: 2, no: 1") as counts."""
    counts: Counter[str] = Counter()
    for part in text.split(", ") if text else ():
        value, _, count = part.rpartition(": ")
        counts[value] = int(count)
    return counts
