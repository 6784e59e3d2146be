"""Cloze validation (SemEval-2021 Task 4, ReCAM): answer a machine-made question, show the evidence, rate it.

ReCAM's questions were generated and then validated by crowd workers, each of whom answered the question,
marked the text supporting the answer in the passage and the part of the question it relates to, and
rated the difficulty; the selection rules (cloze_rules.py) keep only what passes.

Item payload: {"id", "article", "question", "options": [five strings]}; the known answer, when the file
has one, is the item's reference {"label": n}, never shown. An answer is
{"option": 0..4, "passage_span": [start, end] | null, "question_span": [start, end] | null,
 "difficulty": "easy" | "medium" | "hard"}, spans in characters (code points, end exclusive) of the
article and the question; null is no span, allowed, and only fails selection rule b. One vote is four
labels of unit "question": option ("0".."4"), difficulty, passage_span and question_span ("start:end",
or "" for no span).
"""
from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from flask_wtf import FlaskForm
from wtforms import HiddenField, RadioField, ValidationError
from wtforms.fields.choices import SelectChoice
from wtforms.validators import InputRequired

from annotator.core.options import Option
from annotator.tasks.base import AnswerError, Check, GoldSummary, HitItem, LabelIn, TaskType, plain_words
from annotator.tasks.cloze_rules import DIFFICULTIES, UNIT, evaluate

if TYPE_CHECKING:
    import pandas as pd

PLACEHOLDER = "@placeholder"
KEYS = {"option", "passage_span", "question_span", "difficulty"}
_TOKEN = re.compile(r"@placeholder|(?:(?!@placeholder)\S)+")


def _share(name: str, default: float, label: str, help: str) -> Option:
    return Option(name, float, default, help, label=label, minimum=0.0, maximum=1.0, required=True)


class ClozeForm(FlaskForm):
    option = RadioField("Which option fills the blank?",
                        validators=[InputRequired("Choose the option that fills the blank.")])
    difficulty = RadioField("How hard was it?", choices=[SelectChoice(d, d.capitalize()) for d in DIFFICULTIES],
                            validators=[InputRequired("Rate how hard the question was.")])
    passage_span = HiddenField("Supporting text in the passage")
    question_span = HiddenField("Part of the question it relates to")

    def validate_passage_span(self, field: HiddenField) -> None:
        _form_span(field.data)

    def validate_question_span(self, field: HiddenField) -> None:
        _form_span(field.data)


def _form_span(value: str | None) -> list[int] | None:
    """The hidden field's "start:end" as a span (None when empty); the page's script writes it."""
    if not value:
        return None
    start, _, end = value.partition(":")
    if not (start.isdigit() and end.isdigit()):
        raise ValidationError("The marked text did not arrive as it should; please mark it again.")
    return [int(start), int(end)]


def tokens(text: str) -> list[dict[str, Any]]:
    """The words of a text with their character offsets, for the page's span selection.

    Whitespace separates words; @placeholder is always a word of its own, so it can be shown as the blank.
    """
    return [{"start": m.start(), "end": m.end(), "text": m.group(), "blank": m.group() == PLACEHOLDER,
             "space": text[m.end():m.end() + 1].isspace()} for m in _TOKEN.finditer(text)]


def _check_span(answer: Mapping[str, Any], key: str, text: str, what: str) -> str:
    span = answer[key]
    if span is None:
        return ""
    if (not isinstance(span, list) or len(span) != 2 or not all(type(v) is int for v in span)):
        raise AnswerError(f'"{key}" must be [start, end] (two integers) or null')
    start, end = span
    if not 0 <= start < end <= len(text):
        raise AnswerError(f'"{key}" [{start}, {end}] is not a span of the {what}: it needs '
                          f"0 <= start < end <= {len(text)} (characters, end exclusive; null for no span)")
    return f"{start}:{end}"


class Cloze(TaskType):
    name: ClassVar[str] = "cloze"
    title: ClassVar[str] = "Cloze validation (answer, evidence, difficulty)"
    default_k: ClassVar[int] = 3
    gold_uses_references: ClassVar[bool] = True
    answer_keys: ClassVar[frozenset[str] | None] = frozenset(KEYS)
    settings: ClassVar[tuple[Option, ...]] = (
        _share("min_accuracy", 0.40, "Rule a: an annotator's accuracy must be above",
               "over the project's questions with a known answer; the task paper's 40%"),
        Option("require_spans", bool, True, "both the passage and the question span must be marked",
               label="Rule b: both spans marked"),
        Option("easy_must_be_right", bool, True, "an annotation rated easy must give the known answer",
               label="Rule c: easy means answered right"),
        _share("keep_share", 0.5, "Keep a question with a known answer when at least this share of its valid "
               "annotations chose it", "the task paper keeps questions whose annotators mostly answered right"),
        _share("majority_share", 0.5, "Keep a question without a known answer when one option has more than "
               "this share of its valid annotations", "its answer is then that option"),
    )

    @staticmethod
    def tokens(text: str) -> list[dict[str, Any]]:
        return tokens(text)

    def public_item(self, item: HitItem, settings: Mapping[str, Any] | None = None,
                    presentation: Mapping[str, Any] | None = None) -> dict[str, Any]:
        p = item.payload
        return {"id": p["id"], "article": p["article"], "question": p["question"], "options": list(p["options"])}

    def form_for(self, item: HitItem, settings: Mapping[str, Any] | None = None, formdata: Any = None) -> ClozeForm:
        form = ClozeForm(formdata=formdata) if formdata is not None else ClozeForm()
        form.option.choices = [SelectChoice(str(i), text) for i, text in enumerate(item.payload["options"])]
        return form

    def answer_from_form(self, item: HitItem, form: ClozeForm) -> dict[str, Any]:
        return {"option": int(form.option.data), "difficulty": form.difficulty.data,
                "passage_span": _form_span(form.passage_span.data),
                "question_span": _form_span(form.question_span.data)}

    def labels(self, item: HitItem, answer: Any, settings: Mapping[str, Any] | None = None,
               presentation: Mapping[str, Any] | None = None) -> list[LabelIn]:
        shape = ('{"option": 0..4, "passage_span": [start, end] | null, "question_span": [start, end] | null, '
                 '"difficulty": "easy" | "medium" | "hard"}')
        if not isinstance(answer, dict):
            raise AnswerError(f"the answer must be an object {shape}")
        missing, unknown = sorted(KEYS - set(answer)), sorted(set(answer) - KEYS)
        if missing or unknown:
            what = "; ".join(part for part in (f"missing {', '.join(missing)}" if missing else "",
                                               f"unknown {', '.join(unknown)}" if unknown else "") if part)
            raise AnswerError(f"the answer must be an object {shape} ({what})")
        option = answer["option"]
        if type(option) is not int or not 0 <= option < len(item.payload["options"]):
            raise AnswerError(f"option {json.dumps(option)[:20]} is not an option index 0..4")
        if answer["difficulty"] not in DIFFICULTIES:
            raise AnswerError(f"difficulty {json.dumps(answer['difficulty'])[:20]} is not easy, medium or hard")
        passage = _check_span(answer, "passage_span", item.payload["article"], "article")
        question = _check_span(answer, "question_span", item.payload["question"], "question")
        return [LabelIn(UNIT, "option", str(option)), LabelIn(UNIT, "difficulty", answer["difficulty"]),
                LabelIn(UNIT, "passage_span", passage), LabelIn(UNIT, "question_span", question)]

    def likely_answer(self, item: Mapping[str, Any], reference: Any, rng: random.Random) -> dict[str, Any]:
        """An example answer that picks the known option, when the reference ({"label": n}) gives one."""
        answer = self.example_answer(item, rng)
        if isinstance(reference, dict) and isinstance(reference.get("label"), int):
            answer["option"] = reference["label"]
        return answer

    def example_answer(self, item: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
        def span(text: str) -> list[int] | None:
            words = tokens(text)
            if not words or rng.random() < 0.1:
                return None
            first = rng.randrange(len(words))
            last = min(len(words) - 1, first + rng.randrange(8))
            return [words[first]["start"], words[last]["end"]]
        return {"option": rng.randrange(5), "passage_span": span(item["article"]),
                "question_span": span(item["question"]), "difficulty": rng.choice(DIFFICULTIES)}

    def control_score(self, item: HitItem, answer: Any, reference: Any, settings: Mapping[str, Any] | None = None,
                      presentation: Mapping[str, Any] | None = None) -> float | None:
        """1 for the known option (reference {"label": n}), else 0; spans and difficulty are not scored."""
        if not isinstance(reference, dict) or type(reference.get("label")) is not int:
            return None
        return float(answer["option"] == reference["label"])

    def control_reference(self, item: HitItem, labels: pd.DataFrame, gold: pd.DataFrame) -> Any:
        """A kept question's answer: the known one, or the valid annotations' majority when there is none."""
        import pandas as pd
        rows = gold[gold["item"] == item.external_id] if not gold.empty else gold
        if rows.empty or not bool(rows.iloc[0]["kept"]):
            return None
        row = rows.iloc[0]
        answer = row["known"] if not pd.isna(row["known"]) else row["majority"]
        return {"label": int(answer)}

    def show_reference(self, item: HitItem, reference: Any, settings: Mapping[str, Any] | None = None) -> str:
        label = (reference or {}).get("label")
        options = item.payload["options"]
        return f"option {label + 1}, “{options[label]}”" if isinstance(label, int) and 0 <= label < len(options) \
            else str(reference)

    def gold(self, labels: pd.DataFrame, settings: Mapping[str, Any],
             references: Mapping[str, Any] | None = None) -> pd.DataFrame:
        """Per voted question: counts, the known answer's share, the majority answer, kept or not and why."""
        return evaluate(labels, references or {}, settings).questions

    def label_words(self, field: str, value: Any) -> str:
        """An option index (0-4, as stored) as the HIT numbers it, "option 1" to "option 5"."""
        said = plain_words(value)
        return f"option {int(said) + 1}" if field in ("option", "known", "majority") and said.isdigit() else said

    def gold_summary(self, gold: pd.DataFrame) -> GoldSummary:
        if gold.empty:
            return GoldSummary({"kept": 0, "dropped": 0, "kept without a known answer": 0})
        kept = gold["kept"].astype(bool)
        return GoldSummary({"kept": int(kept.sum()), "dropped": int((~kept).sum()),
                            "kept without a known answer": int((kept & gold["known"].isna()).sum())})

    def agreement_units(self, labels: pd.DataFrame) -> dict[str, pd.DataFrame]:
        """The chosen option (nominal) and the difficulty (ordinal: easy < medium < hard)."""
        import pandas as pd
        option = labels[(labels["unit"] == UNIT) & (labels["field"] == "option")]
        difficulty = labels[(labels["unit"] == UNIT) & (labels["field"] == "difficulty")]
        ordinal = pd.DataFrame({"unit": difficulty["item"], "coder": difficulty["user_id"],
                                "value": difficulty["value"]})
        ordinal.attrs.update(level="ordinal", order=list(DIFFICULTIES))
        return {"option": pd.DataFrame({"unit": option["item"], "coder": option["user_id"], "value": option["value"]}),
                "difficulty": ordinal}

    def gold_units(self, gold: pd.DataFrame) -> dict[str, pd.Series]:
        """The option of each kept question: the known answer, else the valid annotations' majority."""
        import pandas as pd
        if gold.empty:
            return {}
        kept = gold[gold["kept"].astype(bool)]
        answer = kept["known"].where(kept["known"].notna(), kept["majority"])
        return {"option": pd.Series([str(int(a)) for a in answer], index=kept["item"].to_numpy(), dtype=object)}

    def checks(self, labels: pd.DataFrame, gold: pd.DataFrame, references: Mapping[str, Any]) -> list[Check]:
        """How many annotations fail each selection rule (by the project's settings), and where."""
        if gold.empty:
            return []
        votes = int(gold["votes"].sum())
        checks = []
        for rule, name in (("a", "the annotator's accuracy not above the bar (rule a)"),
                           ("b", "a span left empty (rule b)"), ("c", "rated easy but answered wrongly (rule c)")):
            column = gold[f"failed_{rule}"].astype(int)
            examples = tuple(str(i) for i in gold.loc[column > 0, "item"][:5])
            checks.append(Check(f"Annotations with {name}", int(column.sum()), votes, examples))
        if gold["known"].isna().all():
            checks.append(Check("Questions with a known answer", 0, len(gold), (),
                                "rules a and c need known answers; without any, only rule b applies"))
        return checks


TASK_TYPE = Cloze()
