"""Argument / key-point match (KPA-2021, ArgKP): which key points does this argument express?

Item payload = the API item: {"id", "topic", "stance", "argument", "key_points": [{"id", "text"}]}.
Every answer labels every key point of the item (1 matched, 0 not), so "none" is explicit and a
pair's share is matched / annotators of the item. Gold follows the ArgKP rule (Bar-Haim et al.,
ACL 2020): share >= 0.60 is a match, <= 0.15 no match, anything between is undecided and is left
out of the released labels.
"""
from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from flask_wtf import FlaskForm
from wtforms import BooleanField, SelectMultipleField
from wtforms.fields.choices import SelectChoice
from wtforms.widgets import CheckboxInput, ListWidget

from annotator.core.options import Option
from annotator.tasks.base import AnswerError, GoldSummary, HitItem, LabelIn, TaskType, plain_words

if TYPE_CHECKING:
    import pandas as pd

STANCE_WORDS = {1: "pro (supports the topic)", -1: "con (opposes the topic)"}
UNDECIDED = "undecided"
MATCH_WORDS = {"1": "Match", "0": "No match", UNDECIDED: "Undecided"}


class KeyPointMatchForm(FlaskForm):
    # Not called "matches": a form field of that name shadows the DOM's Element.matches() on the form.
    key_points = SelectMultipleField("Matching key points", choices=[], widget=ListWidget(prefix_label=False),
                                  option_widget=CheckboxInput())
    none = BooleanField("None of these key points")

    def validate(self, extra_validators: Any = None) -> bool:
        if not super().validate(extra_validators):
            return False
        if self.none.data and self.key_points.data:
            self.none.errors = ['"None of these key points" cannot be combined with a key point.']
            return False
        if not self.none.data and not self.key_points.data:
            self.none.errors = ['Mark every matching key point, or "None of these key points".']
            return False
        return True


class KeyPointMatch(TaskType):
    name: ClassVar[str] = "kp_match"
    title: ClassVar[str] = "Argument / key-point match"
    default_k: ClassVar[int] = 8
    gold_per_item: ClassVar[bool] = True
    answer_keys: ClassVar[frozenset[str] | None] = frozenset({"matches"})
    settings: ClassVar[tuple[Option, ...]] = (
        Option("positive_threshold", float, 0.60, label="Match when at least this share of annotators matched",
               help="ArgKP: 0.60", minimum=0.0, maximum=1.0, required=True),
        Option("negative_threshold", float, 0.15, label="No match when at most this share matched",
               help="ArgKP: 0.15; pairs between the two are undecided", minimum=0.0, maximum=1.0,
               required=True),
    )

    def validate_settings(self, values: Mapping[str, Any]) -> list[str]:
        if values["negative_threshold"] >= values["positive_threshold"]:
            return ["The no-match threshold must be below the match threshold."]
        return []

    @staticmethod
    def stance_words(stance: int) -> str:
        return STANCE_WORDS.get(stance, str(stance))

    def public_item(self, item: HitItem, settings: Mapping[str, Any] | None = None,
                    presentation: Mapping[str, Any] | None = None) -> dict[str, Any]:
        p = item.payload
        return {"id": p["id"], "topic": p["topic"], "stance": p["stance"], "argument": p["argument"],
                "key_points": [{"id": kp["id"], "text": kp["text"]} for kp in p["key_points"]]}

    def form_for(self, item: HitItem, settings: Mapping[str, Any] | None = None,
                 formdata: Any = None) -> KeyPointMatchForm:
        form = KeyPointMatchForm(formdata=formdata) if formdata is not None else KeyPointMatchForm()
        form.key_points.choices = [SelectChoice(kp["id"], kp["text"]) for kp in item.payload["key_points"]]
        return form

    def answer_from_form(self, item: HitItem, form: KeyPointMatchForm) -> dict[str, Any]:
        return {"matches": [] if form.none.data else list(form.key_points.data)}

    def labels(self, item: HitItem, answer: Any, settings: Mapping[str, Any] | None = None,
               presentation: Mapping[str, Any] | None = None) -> list[LabelIn]:
        if not isinstance(answer, dict) or "matches" not in answer:
            raise AnswerError('the answer must be an object with a "matches" list (empty for none)')
        matches = answer["matches"]
        if not isinstance(matches, list) or not all(isinstance(m, str) for m in matches):
            raise AnswerError('"matches" must be a list of key point ids')
        known = [kp["id"] for kp in item.payload["key_points"]]
        unknown = [m for m in matches if m not in known]
        if unknown:
            raise AnswerError(f"key point {', '.join(unknown)} is not one of this item's key points "
                              f"({', '.join(known)})")
        if len(set(matches)) != len(matches):
            raise AnswerError('"matches" names a key point twice')
        chosen = set(matches)
        return [LabelIn(kp, "match", "1" if kp in chosen else "0") for kp in known]

    def example_answer(self, item: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
        """None in a third of the answers, else one to three key points."""
        ids = [kp["id"] for kp in item["key_points"]]
        return {"matches": [] if rng.random() < 1 / 3 else rng.sample(ids, rng.randint(1, min(3, len(ids))))}

    def likely_answer(self, item: Mapping[str, Any], reference: Any, rng: random.Random) -> dict[str, Any]:
        """The key points the reference ({key point id: 1 or 0}, the task's labels file) matches, if any."""
        if not isinstance(reference, dict):
            return self.example_answer(item, rng)
        return {"matches": [kp["id"] for kp in item["key_points"] if reference.get(kp["id"]) == 1]}

    def gold(self, labels: pd.DataFrame, settings: Mapping[str, Any]) -> pd.DataFrame:
        """One row per (argument, key point): annotators, matched, share and the 1 / 0 / undecided label."""
        import pandas as pd
        votes = labels[labels["field"] == "match"]
        if votes.empty:
            return pd.DataFrame(columns=["item", "unit", "annotators", "matched", "share", "label"])
        gold = (votes.assign(hit=votes["value"].eq("1"))
                .groupby(["item", "unit"], sort=False)
                .agg(annotators=("user_id", "nunique"), matched=("hit", "sum"))
                .reset_index())
        gold["share"] = gold["matched"] / gold["annotators"]
        positive, negative = settings["positive_threshold"], settings["negative_threshold"]
        # Compared as they are: a share is an integer division, rounded correctly and monotonically, so a share
        # equal to a threshold as a fraction (3/5 and 0.6, 3/20 and 0.15) is the same float, never one ulp off.
        gold["label"] = [1 if s >= positive else 0 if s <= negative else UNDECIDED
                         for s in gold["share"]]
        return gold

    def control_score(self, item: HitItem, answer: Any, reference: Any, settings: Mapping[str, Any] | None = None,
                      presentation: Mapping[str, Any] | None = None) -> float | None:
        """The share of the known key points (reference: key point id -> 1 / 0) the answer gets right."""
        known = {kp: int(v) for kp, v in (reference or {}).items() if v in (0, 1, "0", "1")}
        if not known:
            return None
        chosen = set(answer["matches"])
        return sum((kp in chosen) == (label == 1) for kp, label in known.items()) / len(known)

    def control_reference(self, item: HitItem, labels: pd.DataFrame, gold: pd.DataFrame) -> Any:
        rows = gold[(gold["item"] == item.external_id) & gold["label"].isin([0, 1])] if not gold.empty else gold
        return {row.unit: int(row.label) for row in rows.itertuples()} or None

    def show_reference(self, item: HitItem, reference: Any, settings: Mapping[str, Any] | None = None) -> str:
        matched = [kp["text"] for kp in item.payload["key_points"] if int((reference or {}).get(kp["id"], 0)) == 1]
        return "Matching key points: " + "; ".join(matched) if matched else "No key point matches this argument."

    def label_words(self, field: str, value: Any) -> str:
        """A vote's or gold's 1 / 0 / undecided as Match / No match / Undecided."""
        said = plain_words(value)
        return MATCH_WORDS.get(said, said) if field in ("match", "label") else said

    def unit_words(self, payload: Mapping[str, Any], row: Mapping[str, Any]) -> str | None:
        """A unit is a key point's id: its text."""
        return next((kp["text"] for kp in payload.get("key_points", ()) if kp.get("id") == row.get("unit")), None)

    def item_words(self, payload: Mapping[str, Any]) -> str:
        return str(payload.get("argument", payload.get("id", "")))

    def gold_summary(self, gold: pd.DataFrame) -> GoldSummary:
        counts = gold["label"].value_counts() if not gold.empty else {}
        return GoldSummary({"match": int(counts.get(1, 0)), "no match": int(counts.get(0, 0)),
                            UNDECIDED: int(counts.get(UNDECIDED, 0))})

    def agreement_units(self, labels: pd.DataFrame) -> dict[str, pd.DataFrame]:
        import pandas as pd
        votes = labels[labels["field"] == "match"]
        return {"match": pd.DataFrame({"unit": _pair_names(votes["item"], votes["unit"]),
                                       "coder": votes["user_id"], "value": votes["value"]})}

    def gold_units(self, gold: pd.DataFrame) -> dict[str, pd.Series]:
        import pandas as pd
        decided = gold[gold["label"] != UNDECIDED] if not gold.empty else gold
        return {"match": pd.Series(decided["label"].astype(str).to_numpy(),
                                   index=(decided["item"] + " / " + decided["unit"]).to_numpy(), dtype=object)}

    def label_distribution(self, labels: pd.DataFrame, gold: pd.DataFrame) -> dict[str, dict[str, int]]:
        """Key-point prevalence: how many arguments gold matches with each key point, beside the vote counts."""
        import pandas as pd
        matched = gold[gold["label"] == 1] if not gold.empty else gold
        prevalence = matched.groupby("unit", sort=False).size() if not matched.empty else pd.Series(dtype=int)
        everything = list(dict.fromkeys(gold["unit"])) if not gold.empty else []
        return {"key-point prevalence (arguments matched in gold)":
                {str(kp): int(prevalence.get(kp, 0)) for kp in everything},
                **super().label_distribution(labels, gold)}


TASK_TYPE = KeyPointMatch()


def _pair_names(items: pd.Series, units: pd.Series) -> pd.Series:
    """`items + " / " + units`, with each distinct pair's name made once and shared by its rows: a million
    labels hold about a ninth as many pairs (k votes each), and making a million strings was most of the
    agreement's time (bench/aggregate.py)."""
    import numpy as np
    import pandas as pd

    if items.empty:
        return items + " / " + units
    item_codes, item_names = pd.factorize(items)
    unit_codes, unit_names = pd.factorize(units)
    pair_codes, pairs = pd.factorize(item_codes.astype(np.int64) * len(unit_names) + unit_codes)
    names = (pd.Series(item_names.take(pairs // len(unit_names))) + " / "
             + pd.Series(unit_names.take(pairs % len(unit_names))))
    return pd.Series(names.to_numpy(dtype=object).take(pair_codes), index=items.index, dtype=items.dtype)
