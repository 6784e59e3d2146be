"""RuArg-2022's claims as a project's own: the definitions with other claims than the data set's three.

Why: the built-in type took its claims as a project setting (`claims`, "key | English | Russian" a line), so an
organiser could ask about other claims than masks, quarantine and vaccines. A declared project keeps its claims
in its definition instead: at stage "both" and "stance" they are the elements of the repeat group `claims`, at the
premise stage one question `<claim>_premise` per claim, asked where the item's `claims` list names it
(`when: {item.claims: <claim>}`). This module writes the claims into a definition (`with_claims`), reads them
back (`claim_keys`), and tells which stage a definition is whatever its claims (`stage_and_claims`): the bridges
(today's answers), the exports and the premise stage all read a project's claims from here.

The three definition files name the data set's claims; a definition with those claims and the files' wording is
the file's own, byte for byte (a premise question of a file claim keeps the file's wording).
"""
from __future__ import annotations

import copy
import functools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from annotator.declared.earlier_answers import answers_key
from annotator.declared.items import load_definition

FOLDER = Path(__file__).parent
FILES = {"both": FOLDER / "stance_premise.yaml", "stance": FOLDER / "stance.yaml", "premise": FOLDER / "premise.yaml"}
GROUP = "claims"                          # the repeat group of stance_premise.yaml and stance.yaml
ITEM_CLAIMS = "item.claims"               # the premise questions' item condition
PREMISE_SUFFIX = "_premise"
FILE_CLAIMS = ("masks", "quarantine", "vaccines")

Claim = tuple[str, str]                   # (key, text in the definition's language)


@functools.cache
def _file_data(stage: str) -> dict[str, Any]:
    data: dict[str, Any] = load_definition(FILES[stage]).to_data()
    return data


def file_data(stage: str) -> dict[str, Any]:
    """The checked data of the stage's definition file (a copy the caller may change)."""
    return copy.deepcopy(_file_data(stage))


def file_claim_texts() -> dict[str, str]:
    """The data set's claims as the files word them: key -> text."""
    return {element["id"]: element["text"] for element in _group(_file_data("both"))["elements"]}


def _group(data: Mapping[str, Any]) -> dict[str, Any]:
    return next(q for q in data["questions"] if q.get("repeat") == GROUP)


def _premise_claim(question: Mapping[str, Any]) -> str | None:
    """The claim a premise-stage question asks of (its item condition), or None for another question."""
    when = question.get("when")
    return str(when[ITEM_CLAIMS]) if isinstance(when, Mapping) and ITEM_CLAIMS in when else None


def claim_keys(data: Mapping[str, Any]) -> tuple[str, ...]:
    """The claims a RuArg definition asks about, in its order: its group's elements, or the claims its premise
    questions are asked of."""
    for question in data.get("questions", []):
        if isinstance(question, Mapping) and question.get("repeat") == GROUP:
            return tuple(str(element["id"]) for element in question.get("elements", []))
    return tuple(claim for q in data.get("questions", []) if isinstance(q, Mapping)
                 if (claim := _premise_claim(q)) is not None)


def claims_of(data: Mapping[str, Any]) -> list[Claim]:
    """The claims of a definition of stage "both" or "stance" with their texts (the group's elements)."""
    return [(str(e["id"]), str(e.get("text", ""))) for e in _group(data)["elements"]]


def with_claims(data: dict[str, Any], stage: str, claims: Sequence[Claim]) -> dict[str, Any]:
    """The stage's definition `data` asking about `claims` instead, in place and returned: the group's elements, or
    one premise question per claim (the file's question where the claim and its text are the file's)."""
    if stage != "premise":
        _group(data)["elements"] = [{"id": key, "text": text} for key, text in claims]
        return data
    own = {_premise_claim(q): q for q in data["questions"]}
    template = data["questions"][0]
    texts = file_claim_texts()
    questions = []
    for key, text in claims:
        if key in own and texts.get(key, "").rstrip(".") == text.rstrip("."):
            questions.append(own[key])
            continue
        question = copy.deepcopy(template)
        question.update(id=f"{key}{PREMISE_SUFFIX}", when={ITEM_CLAIMS: key},
                        prompt=f"Claim: {text.rstrip('.')}. Does the sentence give an argument for or against it?")
        questions.append(question)
    data["questions"] = questions
    return data


def stage_and_claims(data: Mapping[str, Any]) -> tuple[str, tuple[str, ...]] | None:
    """Which stage's definition `data` is, and its claims: the stage whose file with those claims takes the same
    answers (earlier_answers.answers_key: the wording and the rules aside); None for any other definition."""
    keys = claim_keys(data)
    if not keys:
        return None
    key = answers_key(data)
    for stage in FILES:
        if answers_key(with_claims(file_data(stage), stage, [(k, k) for k in keys])) == key:
            return stage, keys
    return None
