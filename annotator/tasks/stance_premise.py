"""Stance and premise per claim (RuArg-2022): what does this sentence say about each claim?

Item payload: {"id": "17024", "text": "..."}; the claims are a project setting (default the three
RuArg claims: masks, quarantine, vaccines, each "... is beneficial for society"). An answer gives,
for every claim, a stance and a premise label in the data set's codes: 2 for, 0 against, 1 other
(stance: neutral, unclear, or both) / no argument (premise), and -1 irrelevant, which is shared by
the two labels of a claim. One label row per claim and label: unit = claim, field "stance" or
"premise", value the code.

Gold per (sentence, claim) follows the organisers' rules (Kotelnikov et al., Dialogue 2022): the
claim is irrelevant unless at least `relevant_votes` annotators marked it relevant (§3.1: two); then
each label is the code given by at least `agree` annotators (§3.2: 2 of 3, 3 of 4 on test), otherwise
"no agreement". A sentence with every label decided is gold; the others go to an admin, whose answer
(adjudication) wins.

RuArg annotated in two stages, stance then premise, by different annotators. The `stage` setting
lets a project ask one of them: "stance" (relevance and stance), "premise" (the premise of the claims
its stance project, `stance_project`, found relevant; its items are made by `flask premise-stage`,
each naming those claims in its payload). "both", the default, asks all in one HIT.
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
from annotator.tasks.base import AnswerError, Check, GoldSummary, HitItem, LabelIn, TaskType, plain_words
from annotator.tasks.stance_premise_gold import FIELDS, IRRELEVANT, NO_AGREEMENT, STAGES

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


def asked(settings: Mapping[str, Any]) -> tuple[str, ...]:
    """The labels the project's HIT asks per claim: both, or its stage's one."""
    return STAGES[settings.get("stage", "both")]


def claims_asked(item: HitItem, settings: Mapping[str, Any]) -> list[str]:
    """The claims the HIT asks about: all of the project's, or in the premise stage those the item names
    (the ones its stance stage found relevant)."""
    keys = claim_keys(settings)
    if settings.get("stage") == "premise" and isinstance(item.payload.get("claims"), list):
        return [k for k in keys if k in item.payload["claims"]]
    return keys


def code_name(field: str, code: int, language: str = "en") -> str:
    return WORDS[language][f"{field} 1" if code == 1 else code] if code != IRRELEVANT else WORDS[language]["irrelevant"]


class StancePremiseForm(FlaskForm):
    """Three radio groups per claim, made by `form_for`; stance and premise count only for a relevant claim."""

    claims: list[str]
    asked: tuple[str, ...]

    def validate(self, extra_validators: Any = None) -> bool:
        valid: bool = super().validate(extra_validators)
        for key in self.claims:
            if f"{key}_relevant" in self and self[f"{key}_relevant"].data != "yes":
                continue
            for field in self.asked:
                if self[f"{key}_{field}"].data not in ("2", "0", "1"):
                    self[f"{key}_{field}"].errors = [*self[f"{key}_{field}"].errors, self.messages[field]]
                    valid = False
        return valid


class StancePremise(TaskType):
    name: ClassVar[str] = "stance_premise"
    title: ClassVar[str] = "Stance and premise per claim"
    default_k: ClassVar[int] = 3  # RuArg-2022: 3 annotators per sentence (4 on the test set)
    gold_per_item: ClassVar[bool] = True
    answer_keys: ClassVar[frozenset[str] | None] = frozenset({"claims"})
    adjudicable: ClassVar[bool] = True
    settings: ClassVar[tuple[Option, ...]] = (
        Option("agree", int, 2, label="A label needs the same code from at least this many annotators (m of n)",
               help="RuArg-2022: 2 of 3; 3 of 4 on the test set", minimum=1, maximum=100, required=True),
        Option("relevant_votes", int, 2,
               label="A claim is relevant when at least this many annotators marked it relevant",
               help="RuArg-2022: 2, whatever m the labels need (the paper, section 3.1)", minimum=1, maximum=100,
               required=True),
        Option("stage", str, "both", label="What the HIT asks per claim",
               help="both: relevance, stance and premise; stance: relevance and stance (RuArg's first stage); "
                    "premise: the premise of the claims the stance project found relevant (made by "
                    "flask premise-stage). Fixed once the project has votes", choices=tuple(STAGES), required=True,
               fixed_once_voted=True),
        Option("stance_project", str, None, label="Slug of the stance-stage project (premise stage only)",
               help="the project whose relevance and stance the export joins with this project's premises; "
                    "fixed once the project has votes",
               pattern=r"[a-z0-9][a-z0-9_-]{0,79}", rule="a project slug", fixed_once_voted=True),
        Option("claims", str, DEFAULT_CLAIMS, label="Claims, one per line: key | English | Russian",
               help="the keys name the label columns of the export and the votes answer these claims: "
                    "fixed once the project has votes",
               multiline=True, convert=parse_claims, show=show_claims, required=True, fixed_once_voted=True),
        Option("language", str, "en", label="Interface language of the HIT", choices=("en", "ru"), required=True),
    )

    def validate_settings(self, values: Mapping[str, Any]) -> list[str]:
        if values.get("stage") == "premise" and not values.get("stance_project"):
            return ["the premise stage needs stance_project, the slug of the stance-stage project it continues"]
        if values.get("stance_project") and values.get("stage") != "premise":
            return ["stance_project is a setting of the premise stage only (stage premise)"]
        return []

    def import_refusal(self, values: Mapping[str, Any]) -> str | None:
        """A premise-stage item names the claims its stance stage found relevant; a file has no such item."""
        if values.get("stage") != "premise":
            return None
        return ("a premise-stage project is not imported from a file: its sentences are the stance stage's "
                "decided ones that are relevant to a claim. Make it (or add to it) with flask premise-stage "
                "--from STANCE --project SLUG, or on the stance project's admin page (Create / extend the "
                "premise stage)")

    def public_item(self, item: HitItem, settings: Mapping[str, Any] | None = None,
                    presentation: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Id, text and the claims asked; a stage project also names the labels it asks ("labels")."""
        settings = self.defaults(settings)
        public = {"id": item.payload["id"], "text": item.payload["text"], "claims": claims_asked(item, settings)}
        if asked(settings) != FIELDS:
            public["labels"] = list(asked(settings))
        return public

    @staticmethod
    def words(settings: Mapping[str, Any]) -> dict[Any, str]:
        """The HIT's words in the project's interface language."""
        return words(settings)

    @staticmethod
    def asked(settings: Mapping[str, Any]) -> tuple[str, ...]:
        """The labels the HIT asks per claim (for the template)."""
        return asked(settings)

    def form_for(self, item: HitItem, settings: Mapping[str, Any] | None = None,
                 formdata: Any = None) -> StancePremiseForm:
        settings = self.defaults(settings)
        said = words(settings)
        labels = asked(settings)
        fields: dict[str, Any] = {}
        for key in claims_asked(item, settings):
            if "stance" in labels:  # the premise stage's claims are relevant already
                fields[f"{key}_relevant"] = RadioField(key, choices=[SelectChoice("yes", said["relevant"]),
                                                                     SelectChoice("no", said["irrelevant"])],
                                                       validators=[InputRequired(said["choose relevance"])])
            for field in labels:
                choices = [SelectChoice(str(code), code_name(field, code, settings["language"])) for code in CODES]
                fields[f"{key}_{field}"] = RadioField(said[field], choices=choices, validators=[Skippable()])
        form_class = type("StancePremiseItemForm", (StancePremiseForm,), fields)
        form: StancePremiseForm = form_class(formdata=formdata) if formdata is not None else form_class()
        form.claims = claims_asked(item, settings)
        form.asked = labels
        form.messages = {field: said[f"choose {field}"] for field in FIELDS}
        return form

    def answer_from_form(self, item: HitItem, form: StancePremiseForm) -> dict[str, Any]:
        def codes(key: str) -> dict[str, int]:
            if f"{key}_relevant" in form and form[f"{key}_relevant"].data != "yes":
                return {field: IRRELEVANT for field in form.asked}
            return {field: int(form[f"{key}_{field}"].data) for field in form.asked}
        return {"claims": {key: codes(key) for key in form.claims}}

    def labels(self, item: HitItem, answer: Any, settings: Mapping[str, Any] | None = None,
               presentation: Mapping[str, Any] | None = None) -> list[LabelIn]:
        settings = self.defaults(settings)
        keys, fields = claims_asked(item, settings), asked(settings)
        if not isinstance(answer, dict) or set(answer) != {"claims"} or not isinstance(answer["claims"], dict):
            shape = ", ".join(f'"{f}": code' for f in fields)
            raise AnswerError(f'the answer must be an object {{"claims": {{claim: {{{shape}}}}}}}')
        given = answer["claims"]
        missing, unknown = [k for k in keys if k not in given], [k for k in given if k not in keys]
        if missing or unknown:
            raise AnswerError("; ".join([f"claim {k!r} is missing" for k in missing] +
                                        [f"{k!r} is not one of this project's claims ({', '.join(keys)})"
                                         for k in unknown]))
        labels = []
        for key in keys:
            codes = _codes(key, given[key], fields)
            labels += [LabelIn(key, field, str(code)) for field, code in zip(fields, codes)]
        return labels

    def example_answer(self, item: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
        """Each claim relevant with probability 0.4 (always in the premise stage), then random codes."""
        fields = tuple(item.get("labels", FIELDS))
        relevance = "stance" in fields
        return {"claims": {key: ({f: rng.choice(CODES) for f in fields} if not relevance or rng.random() < 0.4
                                 else {f: IRRELEVANT for f in fields}) for key in item["claims"]}}

    def gold(self, labels: pd.DataFrame, settings: Mapping[str, Any]) -> pd.DataFrame:
        return rule.gold_by_agreement(labels, int(settings["agree"]), int(settings.get("relevant_votes", 2)),
                                      asked(settings))

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
                 for field in FIELDS if field in codes and field in given[claim]]
        return sum(int(a) == int(b) for a, b in pairs) / len(pairs) if pairs else None

    def control_reference(self, item: HitItem, labels: pd.DataFrame, gold: pd.DataFrame) -> Any:
        """The sentence's gold codes per claim, when every claim is decided (or adjudicated)."""
        rows = gold[gold["item"] == item.external_id] if not gold.empty else gold
        if rows.empty or (rows["status"] == NO_AGREEMENT).any():
            return None
        return {row.unit: {f: int(getattr(row, f)) for f in FIELDS if getattr(row, f) is not None}
                for row in rows.itertuples()}

    def show_reference(self, item: HitItem, reference: Any, settings: Mapping[str, Any] | None = None) -> str:
        language = self.defaults(settings).get("language", "en")
        return "; ".join(f"{claim}: " + ", ".join(code_name(f, int(codes[f]), language) for f in FIELDS if f in codes)
                         for claim, codes in (reference or {}).items())

    def label_words(self, field: str, value: Any) -> str:
        """A code in words: 2 For, 0 Against, -1 Irrelevant, 1 Other (stance) or No argument (premise).

        `field` is "stance" or "premise", a claim's ("masks stance"), its gold's votes ("stance_votes": codes
        joined by commas), or "all labels" (both, so 1 is "Other / no argument").
        """
        said = plain_words(value)
        label = field.removesuffix("_votes").rsplit(" ", 1)[-1]
        if label not in FIELDS and field != "all labels":
            return said
        return ", ".join(_code_words(label, code) for code in said.split(","))

    def undecided(self, gold: pd.DataFrame) -> list[str]:
        if gold.empty:
            return []
        return list(dict.fromkeys(gold.loc[gold["status"] == NO_AGREEMENT, "item"]))

    def adjudicate(self, gold: pd.DataFrame, decided: pd.DataFrame) -> pd.DataFrame:
        return rule.adjudicated(gold, decided)


def _code_words(label: str, code: str) -> str:
    if code == "1":
        return {"stance": "Other", "premise": "No argument"}.get(label, "Other / no argument")
    return {"2": "For", "0": "Against", str(IRRELEVANT): "Irrelevant"}.get(code, code)


def _codes(key: str, value: Any, fields: tuple[str, ...] = FIELDS) -> list[int]:
    """The claim's codes of the asked labels, checked; the premise stage has no -1 (its claims are relevant)."""
    if not isinstance(value, dict) or set(value) != set(fields):
        raise AnswerError(f"claim {key!r} needs exactly " + " and ".join(f'"{f}"' for f in fields) + " codes")
    allowed = (IRRELEVANT, *CODES) if "stance" in fields else CODES
    codes = []
    for field in fields:
        code = value[field]
        if isinstance(code, bool) or not isinstance(code, int) or code not in allowed:
            raise AnswerError(f"{field} of claim {key!r} is {code!r}; a code is 2 (for), 0 (against), "
                              "1 (other / no argument)" + (" or -1 (irrelevant)" if IRRELEVANT in allowed else
                                                           " (the stance stage found this claim relevant)"))
        codes.append(code)
    if len(codes) == 2 and (codes[0] == IRRELEVANT) != (codes[1] == IRRELEVANT):
        raise AnswerError(f"claim {key!r} is irrelevant (-1) for one label but not the other: both are -1 or neither")
    return codes


TASK_TYPE = StancePremise()
