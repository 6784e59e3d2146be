"""Pairwise comparison of two systems' key-point sets (KPA-2021 Track 2): which summary is better?

Judges saw two key-point sets of one topic and stance side by side (the overview's §3.3.2): the stance
each set takes, which is less redundant and which captures points more central to the topic. The task
README: the key points are shown "together with the prevalence reported for them", and judges assume that
prevalence correct. Item payload: {"id", "topic", "stance", "systems": [x, y], "summaries": {system:
[[key point text, prevalence 0-1], ...] most prevalent first}} (projects imported before prevalence was kept
hold plain texts; they show none). Which system is A is drawn per assignment (`presentation`, stored on the assignment),
so neither side profits from a position; `labels` undoes it, storing system names:
unit "stance <system>" field "stance"; unit "pair" fields "less_redundant" and "more_central" with a
system's name or "equal". The ranking (Bradley-Terry) is the format's (shared_tasks/kpa2021/compare_exchange.py).
"""
from __future__ import annotations

import json
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

STANCES = {"all_support": "all key points support the topic", "all_contest": "all key points contest the topic",
           "most_support": "most support it, some contest it", "most_contest": "most contest it, some support it"}
SIDES = {"A": "Summary A", "B": "Summary B", "equal": "About equal"}
QUESTIONS = ("less_redundant", "more_central")
EQUAL = "equal"
STANCE_WORDS = {1: "pro (supports the topic)", -1: "con (opposes the topic)"}
_STANCE_CODE = re.compile("|".join(STANCES))


def right_stance(stance: int) -> str:
    """The stance a set of key points of this topic side should take: all support (pro) or all contest (con)."""
    return "all_support" if stance == 1 else "all_contest"


def key_points(summary: list[Any]) -> list[dict[str, Any]]:
    """A summary as the HIT shows it: each key point's text and prevalence (None when the item has none)."""
    return [{"text": p[0], "prevalence": p[1]} if isinstance(p, list) else {"text": p, "prevalence": None}
            for p in summary]


def order(item: HitItem, presentation: Mapping[str, Any] | None) -> tuple[str, str]:
    """(system shown as A, system shown as B); the item's own order when no presentation was drawn."""
    if presentation and {"a", "b"} <= set(presentation):
        return presentation["a"], presentation["b"]
    first, second = item.payload["systems"]
    return first, second


class CompareForm(FlaskForm):
    stance_a = RadioField("Stance of summary A", choices=[SelectChoice(k, v) for k, v in STANCES.items()],
                          validators=[InputRequired("Choose the stance of summary A.")])
    stance_b = RadioField("Stance of summary B", choices=[SelectChoice(k, v) for k, v in STANCES.items()],
                          validators=[InputRequired("Choose the stance of summary B.")])
    less_redundant = RadioField("Which summary is less redundant?",
                                choices=[SelectChoice(k, v) for k, v in SIDES.items()],
                                validators=[InputRequired("Say which summary is less redundant.")])
    more_central = RadioField("Which summary captures points more central to the topic?",
                              choices=[SelectChoice(k, v) for k, v in SIDES.items()],
                              validators=[InputRequired("Say which summary captures more central points.")])


class KeyPointSetCompare(TaskType):
    name: ClassVar[str] = "kp_set_compare"
    title: ClassVar[str] = "Key-point set comparison (A / B / equal)"
    default_k: ClassVar[int] = 3
    gold_per_item: ClassVar[bool] = True
    answer_keys: ClassVar[frozenset[str] | None] = frozenset({"stance_a", "stance_b", "less_redundant", "more_central"})
    settings: ClassVar[tuple[Option, ...]] = (
        Option("equal", str, "half", label='An "equal" judgment counts as',
               help="half: half a win to each set; drop: the judgment is left out of the ranking",
               choices=("half", "drop"), required=True),
        Option("check_project", str, None, label="Slug of the retrospective-check project of the same systems",
               help="its mAP ranks combine with these rankings into the generation-track ranking",
               pattern=r"[a-z0-9][a-z0-9_-]{0,79}", rule="a project slug"),
    )

    @staticmethod
    def stance_words(stance: int) -> str:
        return STANCE_WORDS.get(stance, str(stance))

    @property
    def draws_presentation(self) -> bool:
        return True

    def presentation(self, item: HitItem, rng: random.Random) -> dict[str, Any] | None:
        first, second = item.payload["systems"]
        return {"a": first, "b": second} if rng.random() < 0.5 else {"a": second, "b": first}

    def public_item(self, item: HitItem, settings: Mapping[str, Any] | None = None,
                    presentation: Mapping[str, Any] | None = None) -> dict[str, Any]:
        a, b = order(item, presentation)
        p = item.payload
        return {"id": p["id"], "topic": p["topic"], "stance": p["stance"],
                "summary_a": key_points(p["summaries"][a]), "summary_b": key_points(p["summaries"][b])}

    def form_for(self, item: HitItem, settings: Mapping[str, Any] | None = None, formdata: Any = None) -> CompareForm:
        return CompareForm(formdata=formdata) if formdata is not None else CompareForm()

    def answer_from_form(self, item: HitItem, form: CompareForm) -> dict[str, Any]:
        return {name: form[name].data for name in ("stance_a", "stance_b", *QUESTIONS)}

    def labels(self, item: HitItem, answer: Any, settings: Mapping[str, Any] | None = None,
               presentation: Mapping[str, Any] | None = None) -> list[LabelIn]:
        expected = {"stance_a", "stance_b", *QUESTIONS}
        if not isinstance(answer, dict) or set(answer) != expected:
            raise AnswerError('the answer must be an object with exactly "stance_a", "stance_b", "less_redundant" '
                              'and "more_central"')
        # A string first: a list or object sent as the value is unhashable, and `in` a dict raised TypeError (a 500).
        for key in ("stance_a", "stance_b"):
            if not isinstance(answer[key], str) or answer[key] not in STANCES:
                raise AnswerError(f"{key} {json.dumps(answer[key])[:40]} is not one of {', '.join(STANCES)}")
        for key in QUESTIONS:
            if not isinstance(answer[key], str) or answer[key] not in SIDES:
                raise AnswerError(f'{key} {json.dumps(answer[key])[:40]} is not "A", "B" or "equal"')
        a, b = order(item, presentation)
        side = {"A": a, "B": b, EQUAL: EQUAL}
        return [LabelIn(f"stance {a}", "stance", answer["stance_a"]),
                LabelIn(f"stance {b}", "stance", answer["stance_b"]),
                *(LabelIn("pair", key, side[answer[key]]) for key in QUESTIONS)]

    def likely_answer(self, item: Mapping[str, Any], reference: Any, rng: random.Random) -> dict[str, Any]:
        """Both summaries take the stance of the arguments summarised; more central: the summary whose key points
        cover more of the arguments (their prevalences summed); less redundant: the one whose key points repeat
        fewer words. About equal when the prevalences differ by under a tenth, the shares of distinct words by
        under 0.02."""
        stance = "all_support" if item["stance"] == 1 else "all_contest"
        a, b = item["summary_a"], item["summary_b"]
        covered_a, covered_b = (sum(p["prevalence"] or 0 for p in summary) for summary in (a, b))
        return {"stance_a": stance, "stance_b": stance, "less_redundant": _better(_variety(a), _variety(b), 0.02),
                "more_central": _better(covered_a, covered_b, 0.1)}

    def example_answer(self, item: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
        return {"stance_a": rng.choice(list(STANCES)), "stance_b": rng.choice(list(STANCES)),
                "less_redundant": rng.choice(list(SIDES)), "more_central": rng.choice(list(SIDES))}

    def gold(self, labels: pd.DataFrame, settings: Mapping[str, Any]) -> pd.DataFrame:
        """Per pair of sets: how many judgments, and the tally of each question (system names or equal)."""
        import pandas as pd
        rows = []
        for item, votes in labels.groupby("item", sort=False):
            row: dict[str, Any] = {"item": item, "unit": "pair", "votes": votes["assignment_id"].nunique()}
            for key in (*QUESTIONS, "stance"):
                tally = votes.loc[votes["field"] == key]
                values = tally["unit"].str.removeprefix("stance ") + ": " + tally["value"] if key == "stance" \
                    else tally["value"]
                row[key] = ", ".join(f"{v} ×{n}" for v, n in values.value_counts().sort_index().items())
            rows.append(row)
        return pd.DataFrame(rows, columns=["item", "unit", "votes", *QUESTIONS, "stance"])

    def control_score(self, item: HitItem, answer: Any, reference: Any, settings: Mapping[str, Any] | None = None,
                      presentation: Mapping[str, Any] | None = None) -> float | None:
        """The share of questions answered as known (reference in system names, whatever was shown as A).

        reference: {"stance": {system: stance}, "less_redundant": system | "equal", "more_central": ...};
        a question it leaves out is not scored.
        """
        if not isinstance(reference, dict):
            return None
        a, b = order(item, presentation)
        side = {"A": a, "B": b, EQUAL: EQUAL}
        stances = reference.get("stance") or {}
        checks = [answer[f"stance_{s}"] == stances[system] for s, system in (("a", a), ("b", b)) if system in stances]
        checks += [side[answer[key]] == reference[key] for key in QUESTIONS if key in reference]
        return sum(checks) / len(checks) if checks else None

    def control_reference(self, item: HitItem, labels: pd.DataFrame, gold: pd.DataFrame) -> Any:
        """The majority answer of each question among the item's votes (a tie leaves the question out)."""
        votes = labels[labels["item"] == item.external_id] if not labels.empty else labels
        reference: dict[str, Any] = {}
        for (unit, key), values in votes.groupby(["unit", "field"], sort=False)["value"]:
            counts = values.value_counts()
            if len(counts) == 1 or counts.iloc[0] > counts.iloc[1]:
                if key == "stance":
                    reference.setdefault("stance", {})[unit.removeprefix("stance ")] = counts.index[0]
                else:
                    reference[key] = counts.index[0]
        return reference or None

    def show_reference(self, item: HitItem, reference: Any, settings: Mapping[str, Any] | None = None) -> str:
        reference = reference or {}
        parts = [f"{system}: {STANCES.get(s, s)}" for system, s in (reference.get("stance") or {}).items()]
        parts += [f"{key.replace('_', ' ')}: {reference[key]}" for key in QUESTIONS if key in reference]
        return "; ".join(parts)

    def label_words(self, field: str, value: Any) -> str:
        """"Less redundant: alpha" (a system's name, as stored) or "About equal"; a stance code as the HIT words it.

        Gold's tallies ("alpha ×2, equal ×1") keep their counts, each value said the same way.
        """
        said = plain_words(value)
        if field == "stance":
            return _STANCE_CODE.sub(lambda code: STANCES[code.group()], said)
        if field not in QUESTIONS or value is None:
            return said
        question = field.replace("_", " ").capitalize()
        if "×" in said:
            return f"{question}: " + re.sub(rf"\b{EQUAL}\b", "about equal", said)
        return "About equal" if said == EQUAL else f"{question}: {said}"

    def gold_summary(self, gold: pd.DataFrame) -> GoldSummary:
        return GoldSummary({"pairs judged": int(len(gold)), "judgments": int(gold["votes"].sum()) if len(gold) else 0})

    def agreement_units(self, labels: pd.DataFrame) -> dict[str, pd.DataFrame]:
        import pandas as pd
        out = {}
        for key in (*QUESTIONS, "stance"):
            rows = labels[labels["field"] == key]
            unit = rows["item"] + "|" + rows["unit"] if key == "stance" else rows["item"]
            out[key] = pd.DataFrame({"unit": unit, "coder": rows["user_id"], "value": rows["value"]})
        return out


TASK_TYPE = KeyPointSetCompare()


def _variety(summary: list[dict[str, Any]]) -> float:
    """The share of a summary's words (lower case) that are distinct: 1 when no key point repeats another's."""
    words = [w for point in summary for w in point["text"].lower().split()]
    return len(set(words)) / len(words) if words else 0.0


def _better(a: float, b: float, margin: float) -> str:
    return EQUAL if abs(a - b) < margin else "A" if a > b else "B"
