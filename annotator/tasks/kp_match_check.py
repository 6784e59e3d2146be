"""Retrospective check of a system's top match (KPA-2021 Track 2): does this key point match the argument?

The organisers judged each argument with the key point a generation system matched best to it (Bar-Haim
et al., KPA-2021 overview §3.3.2): Yes, No, or "Faulty key point" (the key point itself is unusable), faulty
counting as no, a pair's label by majority. Item payload: {"id", "topic", "stance", "argument",
"key_point": {"id", "text"}, "systems": [{"name", "key_point_id", "score"}]}; the systems that paired the
two are never shown (public_item leaves them out), and systems proposing the same pair share one item.
One label per vote: unit "pair", field "verdict", value yes / no / faulty.
"""
from __future__ import annotations

import random
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from flask_wtf import FlaskForm
from wtforms import RadioField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import InputRequired

from annotator.core.options import Option
from annotator.tasks.base import AnswerError, GoldSummary, HitItem, LabelIn, TaskType, plain_words

if TYPE_CHECKING:
    import pandas as pd

VERDICTS = ("yes", "no", "faulty")
# Keyed by str | None: show_reference looks up a reference's verdict, which it may lack.
WORDS: dict[str | None, str] = {"yes": "Yes, the key point matches the argument", "no": "No, it does not match",
                                "faulty": "Faulty key point (unclear, not a point, or not of this stance)"}
SHORT_WORDS = {"yes": "Yes, a match", "no": "No match", "faulty": "Faulty key point"}
UNIT, FIELD = "pair", "verdict"
STANCE_WORDS = {1: "pro (supports the topic)", -1: "con (opposes the topic)"}
GOLD_COLUMNS = ["item", "unit", "votes", "yes", "no", "faulty", "label", "faulty_majority"]


class CheckForm(FlaskForm):
    verdict = RadioField("Does the key point match the argument?",
                         choices=[SelectChoice(v, WORDS[v]) for v in VERDICTS],
                         validators=[InputRequired("Choose yes, no or faulty key point.")])


class KeyPointMatchCheck(TaskType):
    name: ClassVar[str] = "kp_match_check"
    title: ClassVar[str] = "Key-point match check (yes / no / faulty)"
    default_k: ClassVar[int] = 3
    gold_per_item: ClassVar[bool] = True
    answer_keys: ClassVar[frozenset[str] | None] = frozenset({"verdict"})
    settings: ClassVar[tuple[Option, ...]] = (
        Option("tie", str, "no_match", label="A tie of yes against no + faulty counts as",
               help="the overview paper leaves it open; no_match is the cautious reading",
               choices=("no_match", "match"), required=True),
        Option("map_variant", str, "official", label="mAP per topic and stance",
               help="official: the Track-1 code, AP x matches / judged pairs (1 only when every judged pair "
                    "matches); plain-ap: AP alone, as the Track-1 code before 2021-09-23",
               choices=("official", "plain-ap"), required=True),
    )

    @staticmethod
    def stance_words(stance: int) -> str:
        return STANCE_WORDS.get(stance, str(stance))

    def public_item(self, item: HitItem, settings: Mapping[str, Any] | None = None,
                    presentation: Mapping[str, Any] | None = None) -> dict[str, Any]:
        p = item.payload
        return {"id": p["id"], "topic": p["topic"], "stance": p["stance"], "argument": p["argument"],
                "key_point": {"id": p["key_point"]["id"], "text": p["key_point"]["text"]}}

    def form_for(self, item: HitItem, settings: Mapping[str, Any] | None = None, formdata: Any = None) -> CheckForm:
        return CheckForm(formdata=formdata) if formdata is not None else CheckForm()

    def answer_from_form(self, item: HitItem, form: CheckForm) -> dict[str, Any]:
        return {"verdict": form.verdict.data}

    def labels(self, item: HitItem, answer: Any, settings: Mapping[str, Any] | None = None,
               presentation: Mapping[str, Any] | None = None) -> list[LabelIn]:
        if not isinstance(answer, dict) or set(answer) != {"verdict"}:
            raise AnswerError('the answer must be an object {"verdict": "yes" | "no" | "faulty"}')
        if answer["verdict"] not in VERDICTS:
            raise AnswerError(f"verdict {answer['verdict']!r} is not one of yes, no, faulty")
        return [LabelIn(UNIT, FIELD, answer["verdict"])]

    def likely_answer(self, item: Mapping[str, Any], reference: Any, rng: random.Random) -> dict[str, Any]:
        """Yes when the key point and the argument share a word beyond the topic's, else no: a judge's rough
        stand-in, which tells a system whose key points fit its arguments from one whose do not."""
        topic = _stems(item["topic"])
        return {"verdict": "yes" if _stems(item["key_point"]["text"]) & _stems(item["argument"]) - topic else "no"}

    def example_answer(self, item: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
        return {"verdict": rng.choices(VERDICTS, weights=(5, 4, 1))[0]}

    def gold(self, labels: pd.DataFrame, settings: Mapping[str, Any]) -> pd.DataFrame:
        """Per pair: the verdict counts, the label (1 when yes outnumbers no + faulty; a tie by the setting)."""
        import pandas as pd
        votes = labels[labels["field"] == FIELD]
        if votes.empty:
            return pd.DataFrame(columns=GOLD_COLUMNS)
        counts = pd.crosstab(votes["item"], votes["value"]).reindex(columns=list(VERDICTS), fill_value=0)
        counts = counts.reindex(list(dict.fromkeys(votes["item"])))
        yes, against = counts["yes"], counts["no"] + counts["faulty"]
        tie = 1 if settings["tie"] == "match" else 0
        label = [1 if y > a else 0 if y < a else tie for y, a in zip(yes, against)]
        return pd.DataFrame({"item": counts.index, "unit": UNIT, "votes": counts.sum(axis=1).to_numpy(),
                             "yes": yes.to_numpy(), "no": counts["no"].to_numpy(),
                             "faulty": counts["faulty"].to_numpy(),
                             "label": label, "faulty_majority": (counts["faulty"] * 2 > counts.sum(axis=1)).to_numpy()})

    def control_score(self, item: HitItem, answer: Any, reference: Any, settings: Mapping[str, Any] | None = None,
                      presentation: Mapping[str, Any] | None = None) -> float | None:
        """1 for the known verdict (reference: {"verdict": ...}), else 0."""
        if not isinstance(reference, dict) or reference.get("verdict") not in VERDICTS:
            return None
        return float(answer["verdict"] == reference["verdict"])

    def control_reference(self, item: HitItem, labels: pd.DataFrame, gold: pd.DataFrame) -> Any:
        rows = gold[gold["item"] == item.external_id] if not gold.empty else gold
        if rows.empty:
            return None
        row = rows.iloc[0]
        return {"verdict": "yes" if int(row["label"]) == 1 else "faulty" if bool(row["faulty_majority"]) else "no"}

    def show_reference(self, item: HitItem, reference: Any, settings: Mapping[str, Any] | None = None) -> str:
        return WORDS.get((reference or {}).get("verdict"), str(reference))

    def label_words(self, field: str, value: Any) -> str:
        """A verdict as the HIT offers it (Yes / No / Faulty key point); gold's 1 / 0 as Match / No match."""
        said = plain_words(value)
        if field == FIELD:
            return SHORT_WORDS.get(said, said)
        return {"1": "Match", "0": "No match", "match": "Match", "no match": "No match"}.get(said, said) \
            if field in ("label", "match") else said

    def unit_words(self, payload: Mapping[str, Any], row: Mapping[str, Any]) -> str | None:
        """The one unit is the pair: the key point its argument was matched with."""
        key_point = payload.get("key_point")
        return f"key point: {key_point['text']}" if isinstance(key_point, Mapping) and key_point.get("text") else None

    def item_words(self, payload: Mapping[str, Any]) -> str:
        return str(payload.get("argument", payload.get("id", "")))

    def gold_summary(self, gold: pd.DataFrame) -> GoldSummary:
        """Each pair counted once: a no match with a faulty majority is its own class, not also a no match (the
        three overlapped, so they added up to more pairs than the project has)."""
        if gold.empty:
            return GoldSummary({"match": 0, "no match": 0, "no match, mostly faulty key point": 0})
        faulty = gold["faulty_majority"].astype(bool)
        return GoldSummary({"match": int((gold["label"] == 1).sum()),
                            "no match": int(((gold["label"] == 0) & ~faulty).sum()),
                            "no match, mostly faulty key point": int(((gold["label"] == 0) & faulty).sum())})

    def agreement_units(self, labels: pd.DataFrame) -> dict[str, pd.DataFrame]:
        """The three verdicts, and match (yes) against no match (no or faulty), as the gold counts them."""
        import pandas as pd
        votes = labels[labels["field"] == FIELD]
        return {"verdict": pd.DataFrame({"unit": votes["item"], "coder": votes["user_id"], "value": votes["value"]}),
                "match": pd.DataFrame({"unit": votes["item"], "coder": votes["user_id"],
                                       "value": votes["value"].eq("yes").map({True: "match", False: "no match"})})}

    def gold_units(self, gold: pd.DataFrame) -> dict[str, pd.Series]:
        import pandas as pd
        return {"match": pd.Series(gold["label"].map({1: "match", 0: "no match"}).to_numpy(),
                                   index=gold["item"].to_numpy(), dtype=object)}


TASK_TYPE = KeyPointMatchCheck()


def _stems(text: str) -> set[str]:
    """The first five letters of each word of four letters or more."""
    return {w[:5] for w in re.findall(r"[a-z]+", text.lower()) if len(w) >= 4}
