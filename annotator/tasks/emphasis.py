"""Emphasis selection (SemEval-2020 Task 10): which words of this short text would you emphasise?

Item payload: {"id": "S_0", "words": [{"id": "S_0_0", "text": "Save", "pos": "VB"}, ...]}; the POS
tag is kept for the export (the task's files carry it) but is not shown to annotators. An answer tags
every word B, I or O: adjacent emphasised words form one span whose first word is B, so "no span
starts with I" is the whole validity rule, and an all-O answer ("nothing worth emphasising") is a
valid vote. One label per word: unit = the word id, field "bio".

Gold is the task's published rule (Shirani et al., SemEval-2020): a word's emphasis probability is
the share of the item's annotators who put it inside a span, (#B + #I) / n. Agreement is reported
as the task paper does, Fleiss' kappa over words for emphasised (B or I) vs not, plus the three tags.
"""
from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from flask_wtf import FlaskForm
from wtforms import HiddenField, ValidationError

from annotator.core.jsonsafe import JSONBodyError, JSONValueError, loads_text
from annotator.core.options import Option
from annotator.tasks.base import AnswerError, GoldSummary, HitItem, LabelIn, TaskType, plain_words

if TYPE_CHECKING:
    import pandas as pd

FIELD = "bio"
TAGS = ("B", "I", "O")
GOLD_COLUMNS = ["item", "unit", "B", "I", "O", "n", "probability"]
TAG_WORDS = {"B": "B (starts an emphasis)", "I": "I (continues it)", "O": "O (not emphasised)"}
EMPHASIS_WORDS = {"1": "Emphasised", "0": "Not emphasised"}


class EmphasisForm(FlaskForm):
    """The page's script keeps `tags` (a JSON list) in step with the chosen words; the server checks it."""

    tags = HiddenField("Tags")
    item: HitItem  # set by Emphasis.form_for, so the field can be checked against this item's words

    def validate_tags(self, field: HiddenField) -> None:
        try:
            answer = {"tags": loads_text(field.data or "")}
        except (JSONBodyError, JSONValueError):   # bounded as the API's JSON: 10,000 "[" are not a 500
            raise ValidationError("The selection did not arrive (is JavaScript on?). Please select again.") from None
        try:
            TASK_TYPE.labels(self.item, answer)
        except AnswerError as error:
            raise ValidationError(f"The selection cannot be stored: {error}.") from None


def check_tags(tags: Any, words: int) -> list[str]:
    """The tags if they are a valid B/I/O sequence for `words` words; AnswerError says what is wrong."""
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise AnswerError('"tags" must be a list of "B", "I" or "O", one per word')
    if len(tags) != words:
        raise AnswerError(f'"tags" has {len(tags)} tags but the text has {words} words')
    for position, tag in enumerate(tags):
        if tag not in TAGS:
            raise AnswerError(f'tag {tag!r} of word {position + 1} is not "B", "I" or "O"')
        if tag == "I" and (position == 0 or tags[position - 1] == "O"):
            raise AnswerError(f'word {position + 1} is "I" but no span is open before it; '
                              'a span starts with "B"')
    return tags


class Emphasis(TaskType):
    name: ClassVar[str] = "emphasis"
    title: ClassVar[str] = "Emphasis selection"
    default_k: ClassVar[int] = 9  # SemEval-2020 Task 10 had nine annotators per text
    gold_per_item: ClassVar[bool] = True
    answer_keys: ClassVar[frozenset[str] | None] = frozenset({"tags"})
    settings: ClassVar[tuple[Option, ...]] = ()  # the gold rule has no parameter

    def public_item(self, item: HitItem, settings: Mapping[str, Any] | None = None,
                    presentation: Mapping[str, Any] | None = None) -> dict[str, Any]:
        p = item.payload
        return {"id": p["id"], "words": [{"id": w["id"], "text": w["text"]} for w in p["words"]]}

    def form_for(self, item: HitItem, settings: Mapping[str, Any] | None = None, formdata: Any = None) -> EmphasisForm:
        form = EmphasisForm(formdata=formdata) if formdata is not None else EmphasisForm()
        form.item = item
        return form

    def answer_from_form(self, item: HitItem, form: EmphasisForm) -> dict[str, Any]:
        return {"tags": loads_text(form.tags.data)}

    def labels(self, item: HitItem, answer: Any, settings: Mapping[str, Any] | None = None,
               presentation: Mapping[str, Any] | None = None) -> list[LabelIn]:
        if not isinstance(answer, dict) or "tags" not in answer:
            raise AnswerError('the answer must be an object {"tags": [...]}, one "B", "I" or "O" per word')
        words = item.payload["words"]
        tags = check_tags(answer["tags"], len(words))
        return [LabelIn(word["id"], FIELD, tag) for word, tag in zip(words, tags)]

    def example_answer(self, item: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
        """Each word emphasised with probability 0.3; a selected neighbour continues the span (I) mostly."""
        tags: list[str] = []
        for _ in item["words"]:
            if rng.random() >= 0.3:
                tags.append("O")
            else:
                tags.append("I" if tags and tags[-1] != "O" and rng.random() < 0.7 else "B")
        return {"tags": tags}

    def gold(self, labels: pd.DataFrame, settings: Mapping[str, Any]) -> pd.DataFrame:
        """One row per word, in text order: its B, I and O counts, n and the emphasis probability.

        n is the number of the item's votes: every vote tags every word, so it is the word's count too.
        """
        import pandas as pd
        votes = labels[labels["field"] == FIELD]
        if votes.empty:
            return pd.DataFrame(columns=GOLD_COLUMNS)
        # sort=False keeps the labels' order (item position, vote, word): by id S_0_10 would precede S_0_2.
        flags = pd.DataFrame({"item": votes["item"], "unit": votes["unit"],
                              **{tag: votes["value"].eq(tag).astype(int) for tag in TAGS}})
        gold = flags.groupby(["item", "unit"], sort=False)[list(TAGS)].sum().reset_index()
        gold["n"] = gold["B"] + gold["I"] + gold["O"]
        gold["probability"] = (gold["B"] + gold["I"]) / gold["n"]
        return gold[GOLD_COLUMNS].reset_index(drop=True)

    def control_score(self, item: HitItem, answer: Any, reference: Any, settings: Mapping[str, Any] | None = None,
                      presentation: Mapping[str, Any] | None = None) -> float | None:
        """Overlap of the emphasised words with the known top words (reference: word id -> probability).

        The top words are those most annotators emphasised (p > 0.5); the score is the Jaccard overlap
        of the two sets (1 when both are empty), so it is 1 only for exactly the top words, and both
        missing a top word and adding another cost.
        """
        if not reference:
            return None
        top = {word for word, p in reference.items() if float(p) > 0.5}
        chosen = {w["id"] for w, tag in zip(item.payload["words"], answer["tags"]) if tag != "O"}
        union = top | chosen
        return 1.0 if not union else len(top & chosen) / len(union)

    def control_reference(self, item: HitItem, labels: pd.DataFrame, gold: pd.DataFrame) -> Any:
        rows = gold[gold["item"] == item.external_id] if not gold.empty else gold
        return {row.unit: float(row.probability) for row in rows.itertuples()} or None

    def show_reference(self, item: HitItem, reference: Any, settings: Mapping[str, Any] | None = None) -> str:
        top = [w["text"] for w in item.payload["words"] if float((reference or {}).get(w["id"], 0)) > 0.5]
        return "Most annotators emphasise: " + " ".join(top) if top else "Most annotators emphasise nothing here."

    def label_words(self, field: str, value: Any) -> str:
        """A word's tag (B / I / O) and the agreement's 1 / 0 in words."""
        said = plain_words(value)
        words = TAG_WORDS if field == FIELD else EMPHASIS_WORDS if field == "emphasis" else {}
        return words.get(said, said)

    def gold_summary(self, gold: pd.DataFrame) -> GoldSummary:
        import pandas as pd
        p = gold["probability"] if not gold.empty else pd.Series(dtype=float)
        return GoldSummary({"words": int(len(p)), "emphasised by most (p > 0.5)": int((p > 0.5).sum()),
                            "by some (0 < p ≤ 0.5)": int(((p > 0) & (p <= 0.5)).sum()),
                            "by nobody (p = 0)": int((p == 0).sum())})

    def agreement_units(self, labels: pd.DataFrame) -> dict[str, pd.DataFrame]:
        """The paper's figure first (B or I vs O), then the three tags; rows keep the labels' index."""
        import pandas as pd
        votes = labels[labels["field"] == FIELD]
        emphasised = votes["value"].isin(("B", "I")).map({True: "1", False: "0"})
        return {"emphasis": pd.DataFrame({"unit": votes["unit"], "coder": votes["user_id"], "value": emphasised}),
                FIELD: pd.DataFrame({"unit": votes["unit"], "coder": votes["user_id"], "value": votes["value"]})}

    def gold_units(self, gold: pd.DataFrame) -> dict[str, pd.Series]:
        """Emphasised in gold when most annotators emphasised the word (p > 0.5), as the summary counts it."""
        import pandas as pd
        return {"emphasis": pd.Series((gold["probability"] > 0.5).map({True: "1", False: "0"}).to_numpy(),
                                      index=gold["unit"].to_numpy(), dtype=object)}


TASK_TYPE = Emphasis()
