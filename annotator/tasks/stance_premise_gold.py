"""The stance/premise rule over label rows: m-of-n gold, agreement units, consistency checks, adjudication.

Pure functions of pandas frames (the project's label rows, see results.labels_frame), kept apart from
the HIT's forms so each module stays small. Codes are the data set's: 2 for, 0 against, 1 other / no
argument, -1 irrelevant.

Relevance and labels have separate thresholds because the paper has two rules (Kotelnikov et al.,
Dialogue 2022): a sentence is relevant to a claim when at least two annotators found it relevant
(§3.1), while a label needs the agreement of at least two annotators on train and validation, three
of four on test (§3.2). With one threshold for both, a claim two of four annotators found relevant
came out irrelevant on the test set's 3-of-4 rule.

A project of one stage (see STAGES) holds the label rows of that stage's fields only; the rule leaves
the other field's gold empty (None), and the RuArg export joins the two stages' projects.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from annotator.core.hit_values import Check

if TYPE_CHECKING:
    import pandas as pd

FIELDS = ("stance", "premise")
STAGES = {"both": FIELDS, "stance": ("stance",), "premise": ("premise",)}  # the fields a project's HIT asks
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

    The codes are ints; a field the rows do not hold (a stage project's other field) is None.
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


def _winner(codes: list[int | None], agree: int) -> Any:
    """The one code at least `agree` relevant votes gave, else "no agreement" (none, or a tie of two)."""
    winners = [code for code, count in Counter(c for c in codes if c is not None).items() if count >= agree]
    return winners[0] if len(winners) == 1 else NO_AGREEMENT


def gold_by_agreement(labels: pd.DataFrame, agree: int, relevant_votes: int = 2,
                      fields: tuple[str, ...] = FIELDS) -> pd.DataFrame:
    """One row per (sentence, claim) in label order: votes, relevant votes, the gold codes and the status.

    A claim is relevant when at least `relevant_votes` annotators marked it relevant; then each of
    `fields` is the code at least `agree` of the relevant votes gave. The premise stage asks only about
    claims its stance stage found relevant, so there every vote is relevant. A field not asked is None.

    The (sentence, claim) groups are counted in plain Python over the votes' columns: a pandas group-by with a few
    Series operations per group took about 0.7 ms a group, 0.9 s for a project of 8,000 labels, on every
    adjudication page and export of a RuArg project (the same rows, in the same order).
    """
    import pandas as pd
    votes = votes_frame(labels)
    if votes.empty:
        return pd.DataFrame(columns=GOLD_COLUMNS)
    asks_relevance = "stance" in fields
    groups: dict[tuple[Any, Any], list[tuple[int | None, int | None]]] = {}
    for item, unit, stance, premise in zip(votes["item"].tolist(), votes["unit"].tolist(),
                                           votes["stance"].tolist(), votes["premise"].tolist()):
        groups.setdefault((item, unit), []).append((stance, premise))
    rows = []
    for (item, unit), group in groups.items():
        relevant = [vote for vote in group if vote[0] != IRRELEVANT] if asks_relevance else group
        is_relevant = len(relevant) >= relevant_votes or not asks_relevance
        codes = {f: (_winner([vote[n] for vote in relevant], agree) if is_relevant else IRRELEVANT)
                 if f in fields else None for n, f in enumerate(FIELDS)}
        status = NO_AGREEMENT if NO_AGREEMENT in codes.values() else DECIDED
        shown = {f: ",".join(str(vote[n]) for vote in group) if f in fields else "" for n, f in enumerate(FIELDS)}
        rows.append((item, unit, len(group), len(relevant), codes["stance"], codes["premise"], shown["stance"],
                     shown["premise"], status))
    return pd.DataFrame(rows, columns=GOLD_COLUMNS)


def adjudicated(gold: pd.DataFrame, decided: pd.DataFrame) -> pd.DataFrame:
    """Gold where each adjudicated sentence's claims carry the admin's codes and the status "adjudicated"."""
    import pandas as pd
    if decided.empty:
        return gold
    answers = votes_frame(decided.assign(assignment_id=0, user_id=0))
    by_key = {(r.item, r.unit): (r.stance, r.premise) for r in answers.itertuples()}
    gold = gold.copy()
    for index, row in gold.iterrows():
        if (row["item"], row["unit"]) in by_key:
            gold.loc[index, ["stance", "premise"]] = by_key.pop((row["item"], row["unit"]))
            gold.loc[index, "status"] = ADJUDICATED
    extra = [(item, unit, 0, 0, stance, premise, "", "", ADJUDICATED) for (item, unit), (stance, premise)
             in by_key.items()]
    return pd.concat([gold, pd.DataFrame(extra, columns=GOLD_COLUMNS)], ignore_index=True) if extra else gold


def sentence_status(gold: pd.DataFrame) -> pd.Series:
    """Per sentence: "adjudicated", "no agreement" when any label is undecided, else "decided"."""
    import pandas as pd
    if gold.empty:
        return pd.Series(dtype=object)
    def status(statuses: pd.Series) -> str:
        values = set(statuses)
        return ADJUDICATED if ADJUDICATED in values else NO_AGREEMENT if NO_AGREEMENT in values else DECIDED
    return gold.groupby("item", sort=False)["status"].agg(status)


def summary(gold: pd.DataFrame) -> dict[str, int]:
    status = sentence_status(gold)
    decided = gold[gold["status"] != NO_AGREEMENT] if not gold.empty else gold
    relevant = int((decided["stance"] != IRRELEVANT).sum()) if not decided.empty else 0
    return {"sentences decided": int((status == DECIDED).sum()),
            "for adjudication": int((status == NO_AGREEMENT).sum()),
            "adjudicated": int((status == ADJUDICATED).sum()), "relevant claim labels": relevant,
            "irrelevant": int(len(decided) - relevant)}


def agreement_units(labels: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """All labels together first (the headline, also the item view's), then relevance, then claim x label.

    A premise-stage project has no relevance and no stance of its own: those fields are left out.
    """
    import pandas as pd
    rows = labels[labels["field"].isin(FIELDS)]
    asked = fields_of(labels)
    fields = {"all labels": pd.DataFrame({"unit": rows["item"] + "|" + rows["unit"] + "|" + rows["field"],
                                          "coder": rows["user_id"], "value": rows["value"]})}
    stance = rows[rows["field"] == "stance"]
    if "stance" in asked:
        fields["relevance"] = pd.DataFrame({"unit": stance["item"] + "|" + stance["unit"],
                                            "coder": stance["user_id"],
                                            "value": stance["value"].ne(str(IRRELEVANT)).map(
                                                {True: "relevant", False: "irrelevant"})})
    for claim in dict.fromkeys(rows["unit"]):
        for field in asked:
            part = rows[(rows["unit"] == claim) & (rows["field"] == field)]
            fields[f"{claim} {field}"] = pd.DataFrame({"unit": part["item"], "coder": part["user_id"],
                                                       "value": part["value"]})
    return fields


def _flag(name: str, frame: pd.DataFrame, mask: pd.Series, note: str = "") -> Check:
    flagged = frame[mask]
    examples = tuple(dict.fromkeys(f"{r.item} ({r.unit})" for r in flagged.head(50).itertuples()))[:8]
    return Check(name, int(mask.sum()), len(frame), examples, note)


def consistency_checks(labels: pd.DataFrame, gold: pd.DataFrame, references: Mapping[str, Any]) -> list[Check]:
    """The task's checks: one label irrelevant without the other, stance and premise of opposite polarity
    (for votes and for gold), and how often gold agrees with the imported reference labels.

    A stage project holds one label per claim, so only the comparison with the reference applies to it
    (on that label); the pairs are checked on the joined export of the two stages.
    """
    import pandas as pd
    votes = votes_frame(labels)
    asked = fields_of(labels)
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
