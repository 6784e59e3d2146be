"""Stance and premise per claim (RuArg-2022): what does this sentence say about each claim?

Item payload: {"id": "17024", "text": "..."}; the claims are a project setting (default the three
RuArg claims: masks, quarantine, vaccines, each "... is beneficial for society"). An answer gives,
for every claim, a stance and a premise label in the data set's codes: 2 for, 0 against, 1 other
(stance: neutral, unclear, or both) / no argument (premise), and -1 irrelevant, which is shared by
the two labels of a claim. One label row per claim and label: unit = claim, field "stance" or
"premise", value the code.

Gold per (sentence, claim) follows the organisers' m-of-n rule (Kotelnikov et al., Dialogue 2022):
the claim is irrelevant unless at least `agree` annotators marked it relevant; then each label is the
code given by at least `agree` annotators, otherwise "no agreement". A sentence with every label
decided is gold; the others go to an admin, whose answer (adjudication) wins.
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
from wtforms.validators import Optional as Skippable

from annotator.core.options import Option
from annotator.tasks import stance_premise_gold as rule
from annotator.tasks.base import AnswerError, Check, GoldSummary, HitItem, LabelIn, TaskType
from annotator.tasks.stance_premise_gold import FIELDS, IRRELEVANT, NO_AGREEMENT

if TYPE_CHECKING:
    import pandas as pd

CODES = (2, 0, 1)  # for, against, other / no argument: the order the HIT offers them in
DEFAULT_CLAIMS = (
    {"key": "masks", "en": "Wearing masks is beneficial for society", "ru": "Ношение масок полезно для общества"},
    {"key": "quarantine", "en": "The introduction and observance of quarantine is beneficial for society",
     "ru": "Введение и соблюдение карантина полезно для общества"},
    {"key": "vaccines", "en": "Vaccination is beneficial for society", "ru": "Вакцинация полезна для общества"},
)
WORDS = {
    "en": {"relevant": "Relevant", "irrelevant": "Not relevant", "stance": "Stance of the author",
           "premise": "Premise (argument)", 2: "for", 0: "against", "stance 1": "other", "premise 1": "no argument",
           "choose relevance": "Say whether the sentence is about this claim.",
           "choose stance": "Choose the author's stance.", "choose premise": "Choose the premise label."},
    "ru": {"relevant": "Релевантно", "irrelevant": "Нерелевантно", "stance": "Позиция автора",
           "premise": "Довод", 2: "за", 0: "против", "stance 1": "другое", "premise 1": "нет довода",
           "choose relevance": "Укажите, относится ли предложение к этому утверждению.",
           "choose stance": "Выберите позицию автора.", "choose premise": "Выберите метку довода."},
}


def parse_claims(text: str) -> tuple[dict[str, str], ...]:
    """Claims from lines "key | English | Russian" (the Russian name may be left out)."""
    claims = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        parts = [p.strip() for p in line.split("|")]
        if len(parts) not in (2, 3) or not parts[1]:
            raise ValueError(f"line {number}: write a claim as key | English name | Russian name")
        if not re.fullmatch(r"[a-z][a-z0-9_]{0,30}", parts[0]):
            raise ValueError(f"line {number}: the key {parts[0]!r} must be lower-case letters, digits or _")
        claims.append({"key": parts[0], "en": parts[1], "ru": parts[2] if len(parts) == 3 and parts[2] else parts[1]})
    keys = [c["key"] for c in claims]
    if not claims or len(set(keys)) != len(keys):
        raise ValueError("give at least one claim, each key once")
    return tuple(claims)


def show_claims(claims: Any) -> str:
    return "\n".join(f"{c['key']} | {c['en']} | {c['ru']}" for c in claims)


def claim_keys(settings: Mapping[str, Any]) -> list[str]:
    return [c["key"] for c in settings["claims"]]


def words(settings: Mapping[str, Any]) -> dict[Any, str]:
    return WORDS[settings.get("language", "en")]


def code_name(field: str, code: int, language: str = "en") -> str:
    return WORDS[language][f"{field} 1" if code == 1 else code] if code != IRRELEVANT else WORDS[language]["irrelevant"]


class StancePremiseForm(FlaskForm):
    """Three radio groups per claim, made by `form_for`; stance and premise count only for a relevant claim."""

    claims: list[str]

    def validate(self, extra_validators: Any = None) -> bool:
        valid = super().validate(extra_validators)
        for key in self.claims:
            if self[f"{key}_relevant"].data != "yes":
                continue
            for field in FIELDS:
                if self[f"{key}_{field}"].data not in ("2", "0", "1"):
                    self[f"{key}_{field}"].errors = [*self[f"{key}_{field}"].errors, self.messages[field]]
                    valid = False
        return valid


class StancePremise(TaskType):
    name: ClassVar[str] = "stance_premise"
    title: ClassVar[str] = "Stance and premise per claim"
    default_k: ClassVar[int] = 3  # RuArg-2022: 3 annotators per sentence (4 on the test set)
    answer_keys: ClassVar[frozenset[str] | None] = frozenset({"claims"})
    adjudicable: ClassVar[bool] = True
    settings: ClassVar[tuple[Option, ...]] = (
        Option("agree", int, 2, label="A label needs the same code from at least this many annotators (m of n)",
               help="RuArg-2022: 2 of 3; 3 of 4 on the test set", minimum=1, maximum=100, required=True),
        Option("claims", str, DEFAULT_CLAIMS, label="Claims, one per line: key | English | Russian",
               help="the keys name the label columns of the export; change them only before annotating",
               multiline=True, convert=parse_claims, show=show_claims, required=True),
        Option("language", str, "en", label="Interface language of the HIT", choices=("en", "ru"), required=True),
    )

    def public_item(self, item: HitItem, settings: Mapping[str, Any] | None = None,
                    presentation: Mapping[str, Any] | None = None) -> dict[str, Any]:
        return {"id": item.payload["id"], "text": item.payload["text"], "claims": claim_keys(self.defaults(settings))}

    @staticmethod
    def words(settings: Mapping[str, Any]) -> dict[Any, str]:
        """The HIT's words in the project's interface language."""
        return words(settings)

    def form_for(self, item: HitItem, settings: Mapping[str, Any] | None = None,
                 formdata: Any = None) -> StancePremiseForm:
        settings = self.defaults(settings)
        said = words(settings)
        fields: dict[str, Any] = {}
        for key in claim_keys(settings):
            fields[f"{key}_relevant"] = RadioField(key, choices=[SelectChoice("yes", said["relevant"]),
                                                                 SelectChoice("no", said["irrelevant"])],
                                                   validators=[InputRequired(said["choose relevance"])])
            for field in FIELDS:
                choices = [SelectChoice(str(code), code_name(field, code, settings["language"])) for code in CODES]
                fields[f"{key}_{field}"] = RadioField(said[field], choices=choices, validators=[Skippable()])
        form_class = type("StancePremiseItemForm", (StancePremiseForm,), fields)
        form = form_class(formdata=formdata) if formdata is not None else form_class()
        form.claims = claim_keys(settings)
        form.messages = {field: said[f"choose {field}"] for field in FIELDS}
        return form

    def answer_from_form(self, item: HitItem, form: StancePremiseForm) -> dict[str, Any]:
        def codes(key: str) -> dict[str, int]:
            if form[f"{key}_relevant"].data != "yes":
                return {"stance": IRRELEVANT, "premise": IRRELEVANT}
            return {field: int(form[f"{key}_{field}"].data) for field in FIELDS}
        return {"claims": {key: codes(key) for key in form.claims}}

    def labels(self, item: HitItem, answer: Any, settings: Mapping[str, Any] | None = None,
               presentation: Mapping[str, Any] | None = None) -> list[LabelIn]:
        keys = claim_keys(self.defaults(settings))
        if not isinstance(answer, dict) or set(answer) != {"claims"} or not isinstance(answer["claims"], dict):
            raise AnswerError('the answer must be an object {"claims": {claim: {"stance": code, "premise": code}}}')
        given = answer["claims"]
        missing, unknown = [k for k in keys if k not in given], [k for k in given if k not in keys]
        if missing or unknown:
            raise AnswerError("; ".join([f"claim {k!r} is missing" for k in missing] +
                                        [f"{k!r} is not one of this project's claims ({', '.join(keys)})"
                                         for k in unknown]))
        labels = []
        for key in keys:
            codes = _codes(key, given[key])
            labels += [LabelIn(key, field, str(code)) for field, code in zip(FIELDS, codes)]
        return labels

    def example_answer(self, item: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
        """Each claim relevant with probability 0.4, then random codes."""
        return {"claims": {key: ({"stance": rng.choice(CODES), "premise": rng.choice(CODES)} if rng.random() < 0.4
                                 else {"stance": IRRELEVANT, "premise": IRRELEVANT}) for key in item["claims"]}}

    def gold(self, labels: pd.DataFrame, settings: Mapping[str, Any]) -> pd.DataFrame:
        return rule.gold_by_agreement(labels, int(settings["agree"]))

    def gold_summary(self, gold: pd.DataFrame) -> GoldSummary:
        return GoldSummary(rule.summary(gold))

    def agreement_units(self, labels: pd.DataFrame) -> dict[str, pd.DataFrame]:
        return rule.agreement_units(labels)

    def checks(self, labels: pd.DataFrame, gold: pd.DataFrame, references: Mapping[str, Any]) -> list[Check]:
        return rule.consistency_checks(labels, gold, references)

    def control_score(self, item: HitItem, answer: Any, reference: Any, settings: Mapping[str, Any] | None = None,
                      presentation: Mapping[str, Any] | None = None) -> float | None:
        """The share of known labels (claim x stance, premise) the answer gives the same code.

        reference, as the RuArg import gives it: {claim: {"stance": code, "premise": code}}.
        """
        if not isinstance(reference, dict):
            return None
        given = answer["claims"]
        pairs = [(given[claim][field], codes[field]) for claim, codes in reference.items() if claim in given
                 for field in FIELDS if field in codes]
        return sum(int(a) == int(b) for a, b in pairs) / len(pairs) if pairs else None

    def control_reference(self, item: HitItem, labels: pd.DataFrame, gold: pd.DataFrame) -> Any:
        """The sentence's gold codes per claim, when every claim is decided (or adjudicated)."""
        rows = gold[gold["item"] == item.external_id] if not gold.empty else gold
        if rows.empty or (rows["status"] == NO_AGREEMENT).any():
            return None
        return {row.unit: {"stance": int(row.stance), "premise": int(row.premise)} for row in rows.itertuples()}

    def show_reference(self, item: HitItem, reference: Any, settings: Mapping[str, Any] | None = None) -> str:
        language = self.defaults(settings).get("language", "en")
        return "; ".join(f"{claim}: " + ", ".join(code_name(f, int(codes[f]), language) for f in FIELDS)
                         for claim, codes in (reference or {}).items())

    def undecided(self, gold: pd.DataFrame) -> list[str]:
        if gold.empty:
            return []
        return list(dict.fromkeys(gold.loc[gold["status"] == NO_AGREEMENT, "item"]))

    def adjudicate(self, gold: pd.DataFrame, decided: pd.DataFrame) -> pd.DataFrame:
        return rule.adjudicated(gold, decided)


def _codes(key: str, value: Any) -> tuple[int, int]:
    if not isinstance(value, dict) or set(value) != set(FIELDS):
        raise AnswerError(f'claim {key!r} needs exactly "stance" and "premise" codes')
    codes = []
    for field in FIELDS:
        code = value[field]
        if isinstance(code, bool) or not isinstance(code, int) or code not in (IRRELEVANT, *CODES):
            raise AnswerError(f"{field} of claim {key!r} is {code!r}; a code is 2 (for), 0 (against), "
                              "1 (other / no argument) or -1 (irrelevant)")
        codes.append(code)
    if (codes[0] == IRRELEVANT) != (codes[1] == IRRELEVANT):
        raise AnswerError(f"claim {key!r} is irrelevant (-1) for one label but not the other: both are -1 or neither")
    return codes[0], codes[1]


TASK_TYPE = StancePremise()
