"""RuArg-2022 projects, declared ones of the task's definitions: their definition, and their rows in the task's terms.

Why: since the switch to one engine (docs/one-engine.md, "The switch, step by step") a RuArg project is a declared
project of one of the task's definitions (stance_premise.yaml, stance.yaml, premise.yaml), while the task's files,
its scorer's gold and its two stages stay what they are. The export, the scoring gold and the premise stage
(exchange.py, stages.py) read per (sentence, claim) a stance and a premise code (2 for, 0 against, 1 other / no
argument, -1 irrelevant) and a status (rules.py). This module gives a project's gold and votes in exactly those
shapes, read from the declared engine's own rows (the definition's rules decide the gold), so the files are the
bytes the built-in stance_premise type wrote for the same votes.

What the built-in type held in settings a project holds in its definition or source (the import's options,
import_options.py, make the definition):
- the stage: which of the three definitions it is (`stage_of`, by the questions it asks);
- m of the labels and the relevance votes (`agree`, `relevant_votes`): the `m` of the definition's agree rules
  (`definition_for`), so the test set's 3 of 4 is a definition with m 3;
- the premise stage's stance project: `stance_project` in the project's source (where its items come from);
- the HIT's language: the definition's wording (`definition_for`'s `language`: ru puts the built-in Russian HIT's
  words on its claims, questions and options; `language_of` reads it back, and a premise stage takes its stance
  stage's); the answers, rows and files do not change, and the bridges find the definition by what decides the
  answers (earlier_answers.answers_key, which leaves the wording out);
- the claims (`claims`, "key | English | Russian" a line): the definition's own (claims.py), the elements of its
  repeat group or its premise questions, in the HIT's language; a premise stage takes its stance stage's. The
  data set's three with the files' words leave the file's definition as it is.
The items' reference labels are stored as the definition's known answers (`known_answer`), in stance_premise.yaml's
terms at both the stance stage and stage "both" (relevance, stance and premise per claim: the stance stage's
definition reads its own questions of it, and the premise stage and the reference export read the premise), and
as premise.yaml's at the premise stage.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from annotator.core.errors import FormatError
from annotator.declared.adjudication import ADJUDICATED as DECIDED_BY_ADMIN
from annotator.declared.definition import NOT_ASKED
from annotator.declared.definition_reader import definition_from_data
from annotator.shared_tasks.ruarg2022.bridge import GROUP, IRRELEVANT_VALUE, convert_answer
from annotator.shared_tasks.ruarg2022.claims import (
    claim_keys,
    claims_of,
    file_claim_texts,
    file_data,
    stage_and_claims,
    with_claims,
)
from annotator.shared_tasks.ruarg2022.import_options import DEFAULT_CLAIMS, RU_WORDS
from annotator.shared_tasks.ruarg2022.rules import (
    ADJUDICATED,
    DECIDED,
    FIELDS,
    GOLD_COLUMNS,
    IRRELEVANT,
    NO_AGREEMENT,
    STAGES,
)

if TYPE_CHECKING:
    import pandas as pd

    from annotator.core.models import Project

RELEVANCE = "relevance"
STANCE_PROJECT = "stance_project"   # the premise stage's source: the stance stage its items come from


def definition_for(stage: str, agree: int = 2, relevant_votes: int = 2, language: str = "en",
                   claims: Sequence[Mapping[str, str]] | None = None) -> dict[str, Any]:
    """The checked definition of the stage, its labels decided by `agree` of the annotators and a claim relevant
    when `relevant_votes` found it so (the `m` of the relevance question's agree rule), asking about `claims`
    (the built-in setting's {"key", "en", "ru"}; the data set's three by default), worded in `language` (the
    built-in HIT's two: en as the files are, ru with the built-in's Russian words)."""
    data = file_data(stage)   # stance_premise.yaml, stance.yaml or premise.yaml
    texts = [(str(claim["key"]), str(claim[language])) for claim in (claims or DEFAULT_CLAIMS)]
    if language != "en" or not _the_files(texts):
        with_claims(data, stage, texts)
    for question in _questions(data):
        if (question.get("gold") or {}).get("rule") == "agree":
            question["gold"]["m"] = relevant_votes if question["id"] == RELEVANCE else agree
    if language == "ru":
        _in_russian(data, dict(texts))
    checked: dict[str, Any] = json.loads(json.dumps(definition_from_data(data).to_data()))
    return checked


def _the_files(texts: Sequence[tuple[str, str]]) -> bool:
    """Whether these claims are the data set's three, worded as the files word them (a final full stop aside)."""
    files = file_claim_texts()
    return [key for key, _ in texts] == list(files) and all(files[key].rstrip(".") == text.rstrip(".")
                                                           for key, text in texts)


# The Russian HIT: the built-in type's words (import_options.RU_WORDS), put on the definition's
# questions, options and shown field (the claims are worded by `definition_for`); the answers, label rows and files
# are the same.
RUSSIAN = {"show": "Предложение", "group": "Утверждение", "relevance": RU_WORDS["choose relevance"],
           "stance": RU_WORDS["stance"], "premise": RU_WORDS["premise"]}
RUSSIAN_OPTIONS = {"relevant": RU_WORDS["relevant"], "irrelevant": RU_WORDS["irrelevant"], "2": RU_WORDS[2],
                   "0": RU_WORDS[0]}


def _in_russian(data: dict[str, Any], claims: Mapping[str, str]) -> None:
    """The definition's wording in Russian, in place: what the built-in type's Russian HIT says; `claims` are the
    claims' Russian texts by key."""
    for shown in data.get("show", []):
        shown["label"] = RUSSIAN["show"]
    for entry in data.get("questions", []):
        if "repeat" in entry:
            entry["label"] = RUSSIAN["group"]
    for question in _questions(data):
        field = next((f for f in ("relevance", "stance", "premise") if question["id"].endswith(f)), None)
        if field is None:
            continue
        claim = question["id"].removesuffix(f"_{field}")   # the premise stage: one question per claim
        question["prompt"] = f"{claims[claim].rstrip('.')}. {RUSSIAN[field]}" if claim in claims else RUSSIAN[field]
        for option in question.get("options", []):
            option["label"] = RU_WORDS[f"{field} 1"] if option["value"] == "1" else \
                RUSSIAN_OPTIONS.get(option["value"], option["label"])


def stage_of(project: Project) -> str:
    """Which of the three definitions the declared project asks: "both", "stance" or "premise"."""
    stage = _stage(project.definition or {})
    if stage is None:
        raise FormatError(f"project {project.slug!r} is a declared project of none of RuArg-2022's definitions")
    return stage


def _stage(definition: Mapping[str, Any]) -> str | None:
    found = stage_and_claims(definition)
    return found[0] if found is not None else None


def project_claims(project: Project) -> tuple[str, ...]:
    """The claims the declared project asks about (its definition's), in their order."""
    return claim_keys(project.definition or {})


def claim_settings(definition: Mapping[str, Any]) -> list[dict[str, str]]:
    """A stage "both" or "stance" definition's claims as the built-in setting's {"key", "en", "ru"}, each text the
    definition's (in its one language): what its premise stage and a further import read."""
    return [{"key": key, "en": text, "ru": text} for key, text in claims_of(definition)]


def agree_of(project: Project) -> int:
    """The m of the project's stance or premise rule (the built-in's `agree`)."""
    return _m(project.definition or {}, stance=True)


def _m(definition: Mapping[str, Any], stance: bool) -> int:
    """The m of the definition's stance or premise rules (`stance`), or of its relevance rule."""
    return next(int(q["gold"]["m"]) for q in _questions(definition)
                if (q["id"] != RELEVANCE) == stance and (q.get("gold") or {}).get("rule") == "agree")


def language_of(definition: Mapping[str, Any]) -> str:
    """The language a RuArg definition is worded in: "ru" where its shown sentence is labelled in Russian."""
    shown = definition.get("show") or []
    return "ru" if any(isinstance(s, Mapping) and s.get("label") == RUSSIAN["show"] for s in shown) else "en"


def settings_of_definition(definition: Mapping[str, Any]) -> dict[str, Any]:
    """The format's hook (FileFormat.settings_of_definition): the import options a project's definition says (its
    stage, `agree`, `relevant_votes`, claims and language), so that a further import into it need not repeat them;
    nothing for a definition that is none of the stages'."""
    stage = _stage(definition)
    if stage is None:
        return {}
    said: dict[str, Any] = {"stage": stage, "agree": _m(definition, stance=True), "language": language_of(definition)}
    if stage != "premise":
        said["relevant_votes"] = _m(definition, stance=False)
        said["claims"] = claim_settings(definition)
    return said


def _questions(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The definition's questions, a repeat group's in its place."""
    found: list[dict[str, Any]] = []
    for question in data.get("questions", []):
        found += question["questions"] if "repeat" in question else [question]
    return found


# --- known answers --------------------------------------------------------------------------------------------------

def known_answer(reference: Mapping[str, Mapping[str, int]]) -> dict[str, Any]:
    """A sentence's reference labels of the file ({claim: {"stance": code, "premise": code}}) as
    stance_premise.yaml's answer: relevance, and for a relevant claim the stance and premise as texts."""
    return convert_answer({GROUP: {claim: dict(codes) for claim, codes in reference.items()}}, {})


def file_labels(reference: Any) -> dict[str, dict[str, int]] | None:
    """An item's known answer (`known_answer`'s shape) as the file's labels ({claim: {"stance": code, "premise":
    code}}); None without one."""
    if not isinstance(reference, Mapping) or not reference:
        return None
    claims = reference.get(GROUP)
    if not isinstance(claims, Mapping) or not all(isinstance(v, Mapping) and RELEVANCE in v for v in claims.values()):
        return None
    return {claim: dict.fromkeys(FIELDS, IRRELEVANT) if said[RELEVANCE] == IRRELEVANT_VALUE
            else {field: int(said[field]) for field in FIELDS} for claim, said in claims.items()}


def premise_known_answer(premises: Mapping[str, int]) -> dict[str, Any]:
    """The premise stage's reference ({claim: code}) as premise.yaml's known answer ({"<claim>_premise": "code"})."""
    return {f"{claim}_premise": str(code) for claim, code in premises.items()}


# --- gold and votes in the built-in's shapes ------------------------------------------------------------------------

def builtin_gold(stage: str, gold: pd.DataFrame) -> pd.DataFrame:
    """The declared gold (declared/gold.py's rows) as the built-in type's: one row per (sentence, claim) asked, in
    the rows' order, with the stance and premise codes (-1 for an irrelevant claim, None for a label the stage does
    not ask), "no agreement" for an undecided label, and the status ("adjudicated" where an admin decided the
    sentence: declared/adjudication.py). The vote columns are left empty."""
    import pandas as pd
    asked = STAGES[stage]
    codes: dict[tuple[Any, str], dict[str, Any]] = {}
    by_admin: set[tuple[Any, str]] = set()
    for item, question, unit, value, votes in zip(gold["item"], gold["question"], gold["unit"], gold["gold"],
                                                  gold["votes"]):
        if stage == "premise":
            claim, field = str(question).removesuffix("_premise"), "premise"
            if value == NOT_ASKED:   # a claim the sentence's stance stage found irrelevant
                continue
        else:
            claim, field = str(unit), str(question)
        codes.setdefault((item, claim), {})[field] = value
        if votes == DECIDED_BY_ADMIN:
            by_admin.add((item, claim))
    rows = []
    for (item, claim), given in codes.items():
        irrelevant = given.get(RELEVANCE) == IRRELEVANT_VALUE
        labels = {field: (IRRELEVANT if irrelevant else _code(given.get(field))) if field in asked else None
                  for field in FIELDS}
        status = ADJUDICATED if (item, claim) in by_admin else NO_AGREEMENT if NO_AGREEMENT in labels.values() \
            else DECIDED
        rows.append((item, claim, 0, 0, labels["stance"], labels["premise"], "", "", status))
    return pd.DataFrame(rows, columns=GOLD_COLUMNS)


def _code(value: Any) -> Any:
    return int(value) if value in ("2", "0", "1") else NO_AGREEMENT


def builtin_labels(stage: str, labels: pd.DataFrame) -> pd.DataFrame:
    """The declared label rows as the built-in type's (unit the claim, field stance or premise, the code as text),
    in their order: a relevance "irrelevant" is -1 for each label the stage asks, a premise-stage question's row
    the premise of its claim; the relevance "relevant" rows themselves have no built-in row."""
    asked = STAGES[stage]
    rows = []
    for row in labels.itertuples(index=False):
        field = str(row.field)
        if stage == "premise":
            rows.append(row._replace(unit=field.removesuffix("_premise"), field="premise"))
        elif field == RELEVANCE:
            if row.value == IRRELEVANT_VALUE:
                rows += [row._replace(field=f, value=str(IRRELEVANT)) for f in asked]
        elif field in asked:
            rows.append(row)
    return labels.iloc[0:0] if not rows else type(labels)(rows, columns=labels.columns)
