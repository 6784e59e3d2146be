"""RuArg-2022's gold in the data set's terms, and its consistency checks over it.

Why here: the exports, the premise stage and the `ruarg_consistency` rule read a project's gold and votes as the
task's files hold them: per (sentence, claim) a stance and a premise code (2 for, 0 against, 1 other / no argument,
-1 irrelevant) and a status. The declared engine decides the gold by the definition's rules (declared_projects.py
gives it in these shapes); this module holds the shapes and the functions over them, which were the built-in
stance_premise type's before the switch to one engine (docs/one-engine.md).

A stage's project holds the rows of its labels only (see STAGES): the other label is None, and the export joins
the two stages' projects.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from annotator.core.hit_values import Check

if TYPE_CHECKING:
    import pandas as pd

FIELDS = ("stance", "premise")
STAGES = {"both": FIELDS, "stance": ("stance",), "premise": ("premise",)}  # the labels a stage asks per claim
IRRELEVANT = -1
NO_AGREEMENT = "no agreement"
DECIDED, ADJUDICATED = "decided", "adjudicated"
GOLD_COLUMNS = ["item", "unit", "annotators", "relevant", "stance", "premise", "stance_votes", "premise_votes",
                "status"]
OPPOSITE = {(2, 0), (0, 2)}


def fields_of(labels: pd.DataFrame) -> tuple[str, ...]:
    """The label fields the rows hold (a stage project's one field), or both when there are no rows yet."""
    present = tuple(f for f in FIELDS if (labels["field"] == f).any())
    return present or FIELDS


def votes_frame(labels: pd.DataFrame) -> pd.DataFrame:
    """One row per (vote, claim): item, unit, assignment_id, user_id, stance, premise, in label order.

    `labels` are rows in the data set's terms (unit the claim, field stance or premise, the code as text); the
    codes are ints, and a field the rows do not hold (a stage project's other field) is None.
    """
    import pandas as pd
    rows = labels[labels["field"].isin(FIELDS)]
    if rows.empty:
        return pd.DataFrame(columns=["item", "unit", "assignment_id", "user_id", *FIELDS])
    wide = (rows.assign(code=rows["value"].astype(int))
            .pivot_table(index=["item", "unit", "assignment_id", "user_id"], columns="field", values="code",
                         sort=False).reset_index())
    present = [f for f in FIELDS if f in wide.columns]
    wide = wide.astype({f: int for f in present})
    for field in FIELDS:
        if field not in present:
            wide[field] = None
    return wide[["item", "unit", "assignment_id", "user_id", *FIELDS]]


def sentence_status(gold: pd.DataFrame) -> pd.Series:
    """Per sentence: "adjudicated", "no agreement" when any label is undecided, else "decided"."""
    import pandas as pd
    if gold.empty:
        return pd.Series(dtype=object)

    def status(statuses: pd.Series) -> str:
        values = set(statuses)
        return ADJUDICATED if ADJUDICATED in values else NO_AGREEMENT if NO_AGREEMENT in values else DECIDED
    return gold.groupby("item", sort=False)["status"].agg(status)


def _flag(name: str, frame: pd.DataFrame, mask: pd.Series, note: str = "") -> Check:
    flagged = frame[mask]
    examples = tuple(dict.fromkeys(f"{r.item} ({r.unit})" for r in flagged.head(50).itertuples()))[:8]
    return Check(name, int(mask.sum()), len(frame), examples, note)


def consistency_checks(labels: pd.DataFrame | None, gold: pd.DataFrame, references: Mapping[str, Any],
                       votes: pd.DataFrame | None = None) -> list[Check]:
    """The task's checks: one label irrelevant without the other, stance and premise of opposite polarity
    (for votes and for gold), and how often gold agrees with the imported reference labels.

    A stage's rows hold one label per claim, so only the comparison with the reference applies to it (on that
    label); the pairs are checked on the joined export of the two stages. `votes`, instead of `labels`: the votes
    frame (votes_frame) of label rows holding both labels, made by the caller without the rows.
    """
    import pandas as pd
    if votes is None:
        assert labels is not None
        votes, asked = votes_frame(labels), fields_of(labels)
    else:
        asked = FIELDS
    decided = gold[gold["status"] != NO_AGREEMENT] if not gold.empty else gold.reindex(columns=GOLD_COLUMNS)
    checks = []
    for what, frame in ((("votes", votes), ("gold", decided)) if asked == FIELDS else ()):
        stance, premise = frame["stance"], frame["premise"]
        checks.append(_flag(f"{what}: irrelevant for one label only", frame,
                            (stance == IRRELEVANT) != (premise == IRRELEVANT)))
        checks.append(_flag(f"{what}: stance and premise of opposite polarity", frame,
                            pd.Series([(s, p) in OPPOSITE for s, p in zip(stance, premise)], index=frame.index,
                                      dtype=bool),
                            "for with a premise against, or against with a premise for: possible, but worth a look"))
    compared = [(row, references[row.item][row.unit]) for row in decided.itertuples()
                if isinstance(references.get(row.item), dict) and isinstance(references[row.item].get(row.unit), dict)]
    if compared:
        differ = pd.Series([any(getattr(row, f) != ref.get(f) for f in asked if f in ref) for row, ref in compared],
                           dtype=bool)
        frame = pd.DataFrame([{"item": row.item, "unit": row.unit} for row, _ in compared])
        checks.append(_flag("gold differs from the imported reference labels", frame, differ))
    return checks
