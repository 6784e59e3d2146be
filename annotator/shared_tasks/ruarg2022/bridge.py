"""The bridge from the built-in "stance_premise" HIT type (gone since the switch to one engine, docs/one-engine.md)
to its definitions (stance_premise.yaml, stance.yaml, premise.yaml).

Why: RuArg projects are served by the declared engine, and the answers API clients send in the built-in type's shape
are still taken (declared/earlier_answers.py); the mapping of the votes the built-in projects held is frozen in
migration 0022_stance_premise_declared, which tests/unit/test_migration_stance_premise_declared.py checks against
this one (`map_vote`, `bridge_for`: a built-in project's settings). Today's answer is `{"claims": {claim: {"stance":
code, "premise": code}}}` with the data set's integer codes (2 for, 0 against, 1 other / no argument, -1 irrelevant,
both labels -1 or neither); the definition asks, per claim of its repeat group `claims`, the relevance and, only for
a relevant claim, the stance and premise as the texts "2", "0", "1". `convert_answer` turns one into the other and
refuses what today's code refuses (a code as text, a boolean, -1 for one label only: the declared check alone would
take "2" as text); `map_vote` maps a stored vote to the definition's answer and label rows.

Which definition (and which of the three Bridges, bridge_base.py) a project's votes go to depends on its `stage`
setting (`bridge_for`: the base's Bridge has no project settings, so the choice is made here):
- "both" (the default): stance_premise.yaml; the built-in rows `(claim, stance|premise, code)` become
  `(claim, relevance, relevant|irrelevant)` and, for a relevant claim, `(claim, stance|premise, code)`. The
  built-in's -1 rows have no declared label row (the definition does not ask a claim's stance of whoever found it
  irrelevant), so gold is equal; the built-in's per-claim agreement with "irrelevant" as a value comes from the
  definition's `agreement: {not_asked: irrelevant, per_element: true, pooled: all_labels}`
  (docs/declared-not-asked.md), each built-in field under the name `agreement_field` gives.
- "stance" (RuArg's first stage: relevance and stance only): stance.yaml, the same without the premise; rows
  `(claim, stance, code)` map as above.
- "premise": premise.yaml; `{"claims": {claim: {"premise": code}}}` becomes `{"<claim>_premise": "code"}`.
  The item's `claims` (which claims its stance stage found relevant) is read by the definition's item conditions
  (`when: {item.claims: masks}`, docs/declared-item-when.md): it asks those claims' premises only, each required.
  The converter still checks the answer against the item's claims first, for today's messages.
The claims are a project's own (claims.py): the definitions' three are the data set's, and a definition with other
claims (a declared project imported with `--claims`, or a built-in project's `claims` setting) takes today's
answers about its claims. The converters and row mappings take the claims (`claims=`, the three by default);
`adapted` gives the converter bound to a definition's claims (the Bridge's `adapts`, declared/earlier_answers.py),
and `bridge_for` a built-in project's bridge bound to its `claims` setting.
"""
from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from annotator.declared.answers import check_answer
from annotator.declared.bridge_base import AnswerConverter, Bridge, LabelRow
from annotator.declared.definition import Definition
from annotator.declared.item_view import view
from annotator.shared_tasks.ruarg2022.claims import FILE_CLAIMS as CLAIMS
from annotator.shared_tasks.ruarg2022.claims import FILES, GROUP, stage_and_claims
from annotator.shared_tasks.ruarg2022.claims import FOLDER as FOLDER
from annotator.tasks.base import AnswerError, LabelIn

BOTH, STANCE, PREMISE = FILES["both"], FILES["stance"], FILES["premise"]
IRRELEVANT = -1
CODES = (2, 0, 1)
RELEVANT_VALUE, IRRELEVANT_VALUE = "relevant", "irrelevant"
POOLED_FIGURE = "all_labels (pooled)"   # the definitions' figure over every stance and premise label


class BridgeGap(ValueError):
    """A built-in project the definitions cannot take: the message names why."""


def bridge_for(settings: Mapping[str, Any] | None) -> Bridge:
    """The bridge of a project with these built-in settings (its `stage`), bound to its `claims` where they are
    not the data set's three; BridgeGap for a stage no definition takes."""
    settings = settings or {}
    stage = settings.get("stage", "both")
    found = {"both": STANCE_PREMISE, "stance": STANCE_STAGE, "premise": PREMISE_STAGE}.get(stage)
    if found is None:
        raise BridgeGap(f"unknown stage {stage!r}")
    claims = tuple(_claim_keys(settings["claims"])) if settings.get("claims") is not None else CLAIMS
    return found if claims == CLAIMS else bound(found, claims)


def bound(found: Bridge, claims: tuple[str, ...]) -> Bridge:
    """The bridge `found` with its converter and row mapping reading `claims` instead of the data set's three."""
    answer, labels = _FUNCTIONS[found.definition]
    return dataclasses.replace(found, answer=functools.partial(answer, claims=claims),
                               labels=functools.partial(labels, claims=claims))


def adapted(stage: str) -> Callable[[Mapping[str, Any]], AnswerConverter | None]:
    """The Bridge's `adapts` of a stage: for a definition of that stage with other claims (claims.py), today's
    converter bound to them; None for any other definition."""
    answer, _ = _FUNCTIONS[FILES[stage].name]

    def adapts(definition: Mapping[str, Any]) -> AnswerConverter | None:
        found = stage_and_claims(definition)
        if found is None or found[0] != stage:
            return None
        return functools.partial(answer, claims=found[1])
    return adapts


def agreement_field(field: str, claims: Sequence[str] = CLAIMS) -> str:
    """The declared agreement field giving the built-in field `field` of stage "both" or "stance": "all labels" is
    the pooled figure, "relevance" itself, "<claim> <label>" the label's figure on that claim ("stance / masks")."""
    if field == "all labels":
        return POOLED_FIGURE
    claim, _, label = field.rpartition(" ")
    return f"{label} / {claim}" if claim in claims and label in ("stance", "premise") else field


def _claim_keys(claims: Any) -> list[str]:
    """The keys of a `claims` setting: one claim a line, "key | English | Russian" (or a list of such dicts)."""
    if isinstance(claims, str):
        return [line.split("|")[0].strip() for line in claims.splitlines() if line.strip()]
    return [str(claim.get("key")) if isinstance(claim, dict) else str(claim) for claim in claims]


def convert_answer(answer: Any, payload: Mapping[str, Any], presentation: Mapping[str, Any] | None = None, *,
                   claims: tuple[str, ...] = CLAIMS) -> dict[str, Any]:
    """Today's stage "both" answer about `claims` as stance_premise.yaml's; AnswerError, with today's message, for
    what today's code refuses."""
    given = _claims(answer, claims, ("stance", "premise"))
    converted: dict[str, dict[str, str]] = {}
    for claim in claims:
        stance, premise = _codes(claim, given[claim], ("stance", "premise"))
        converted[claim] = {"relevance": IRRELEVANT_VALUE} if stance == IRRELEVANT else \
            {"relevance": RELEVANT_VALUE, "stance": str(stance), "premise": str(premise)}
    return {GROUP: converted}


def convert_stance_answer(answer: Any, payload: Mapping[str, Any], presentation: Mapping[str, Any] | None = None,
                          *, claims: tuple[str, ...] = CLAIMS) -> dict[str, Any]:
    """Today's stage "stance" answer `{"claims": {claim: {"stance": code}}}` as stance.yaml's; AnswerError, with
    today's message, for what today's code refuses."""
    given = _claims(answer, claims, ("stance",))
    converted: dict[str, dict[str, str]] = {}
    for claim in claims:
        [stance] = _codes(claim, given[claim], ("stance",))
        converted[claim] = {"relevance": IRRELEVANT_VALUE} if stance == IRRELEVANT else \
            {"relevance": RELEVANT_VALUE, "stance": str(stance)}
    return {GROUP: converted}


def convert_premise_answer(answer: Any, payload: Mapping[str, Any], presentation: Mapping[str, Any] | None = None,
                           *, claims: tuple[str, ...] = CLAIMS) -> dict[str, Any]:
    """Today's premise-stage answer as premise.yaml's `{"<claim>_premise": "code"}`, for the claims the item
    asks (those of `claims` its stance stage found relevant); AnswerError, with today's message, for what today's
    code refuses."""
    asked = _asked(payload, claims)
    given = _claims(answer, asked, ("premise",))
    return {f"{claim}_premise": str(_codes(claim, given[claim], ("premise",))[0]) for claim in asked}


def _claims(answer: Any, asked: tuple[str, ...], fields: tuple[str, ...]) -> dict[str, Any]:
    """The answer's claims, each asked one present and no other."""
    shape = ", ".join(f'"{f}": code' for f in fields)
    if not isinstance(answer, dict) or set(answer) != {GROUP} or not isinstance(answer[GROUP], dict):
        raise AnswerError(f'the answer must be an object {{"claims": {{claim: {{{shape}}}}}}}')
    given: dict[str, Any] = answer[GROUP]
    missing = [claim for claim in asked if claim not in given]
    unknown = [str(claim) for claim in given if claim not in asked]
    if missing or unknown:
        raise AnswerError("; ".join([f"claim {k!r} is missing" for k in missing] +
                                    [f"{k[:40]!r} is not one of this project's claims ({', '.join(asked)})"
                                     for k in unknown]))
    return given


def _asked(payload: Mapping[str, Any], claims: tuple[str, ...]) -> tuple[str, ...]:
    """The claims a premise-stage item asks: those its stance stage found relevant (all without a list)."""
    relevant = payload.get("claims")
    return tuple(c for c in claims if c in relevant) if isinstance(relevant, list) else claims


def _codes(claim: str, value: Any, fields: tuple[str, ...]) -> list[int]:
    """The claim's codes, checked as today's code checks them; the premise stage has no -1."""
    if not isinstance(value, dict) or set(value) != set(fields):
        raise AnswerError(f"claim {claim!r} needs exactly " + " and ".join(f'"{f}"' for f in fields) + " codes")
    allowed = (IRRELEVANT, *CODES) if "stance" in fields else CODES
    codes = []
    for field in fields:
        code = value[field]
        if isinstance(code, bool) or not isinstance(code, int) or code not in allowed:
            raise AnswerError(f"{field} of claim {claim!r} is {repr(code)[:20]}; a code is 2 (for), 0 (against), "
                              "1 (other / no argument)" + (" or -1 (irrelevant)" if IRRELEVANT in allowed else
                                                           " (the stance stage found this claim relevant)"))
        codes.append(code)
    if len(codes) == 2 and (codes[0] == IRRELEVANT) != (codes[1] == IRRELEVANT):
        raise AnswerError(f"claim {claim!r} is irrelevant (-1) for one label but not the other: both are -1 or "
                          "neither")
    return codes


def map_vote(definition: Definition, payload: Mapping[str, Any], stored_answer: Any,
             settings: Mapping[str, Any] | None = None) -> tuple[dict[str, Any], list[LabelIn]]:
    """A stored built-in vote of a project with these settings as its definition's stored answer and label rows
    (the declared engine's check); `definition` is the file `bridge_for(settings).definition` names."""
    converted = bridge_for(settings).answer(stored_answer, payload, None)
    return check_answer(definition, view(definition, payload), converted)


def map_labels(rows: Sequence[LabelRow], payload: Mapping[str, Any], *,
               claims: tuple[str, ...] = CLAIMS) -> list[LabelRow]:
    """One stage "both" vote's built-in rows `(claim, stance | premise, code)` as stance_premise.yaml's, row by
    row: a stance of -1 is the claim's relevance "irrelevant" (its premise of -1 has no row: not asked), any other
    stance is "relevant" and the stance, a premise the premise."""
    return _relevance_rows(rows, ("stance", "premise"), "a stance_premise label row (a claim, stance or premise, "
                                                        "a code)", claims)


def map_stance_labels(rows: Sequence[LabelRow], payload: Mapping[str, Any], *,
                      claims: tuple[str, ...] = CLAIMS) -> list[LabelRow]:
    """One stage "stance" vote's rows `(claim, stance, code)` as stance.yaml's: -1 is the relevance "irrelevant",
    any other code "relevant" and the stance."""
    return _relevance_rows(rows, ("stance",), "a stance-stage label row (a claim, stance, a code)", claims)


def _relevance_rows(rows: Sequence[LabelRow], fields: tuple[str, ...], what: str,
                    claims: tuple[str, ...]) -> list[LabelRow]:
    mapped: list[LabelRow] = []
    for unit, field, value in rows:
        if unit not in claims or field not in fields or value not in _CODE_TEXTS:
            raise ValueError(f"({unit!r}, {field!r}, {value!r}) is not {what}")
        if field == "stance":
            mapped.append(LabelRow(unit, "relevance", IRRELEVANT_VALUE if value == str(IRRELEVANT)
                                   else RELEVANT_VALUE))
        if value != str(IRRELEVANT):
            mapped.append(LabelRow(unit, field, value))
    return mapped


def map_premise_labels(rows: Sequence[LabelRow], payload: Mapping[str, Any], *,
                       claims: tuple[str, ...] = CLAIMS) -> list[LabelRow]:
    """One premise-stage vote's rows `(claim, premise, code)` as premise.yaml's `(<claim>_premise, <claim>_premise,
    code)`: its questions are one per claim, each its own unit."""
    mapped: list[LabelRow] = []
    for unit, field, value in rows:
        if unit not in claims or field != "premise" or value not in _CODE_TEXTS[1:]:
            raise ValueError(f"({unit!r}, {field!r}, {value!r}) is not a premise-stage label row (a claim, premise, "
                             "a code)")
        mapped.append(LabelRow(f"{unit}_premise", f"{unit}_premise", value))
    return mapped


_CODE_TEXTS = (str(IRRELEVANT), *map(str, CODES))
# Today's answer and stance_premise.yaml's (and stance.yaml's) both hold "claims": the repeat group is named as
# the built-in's answer, so an answer refused as the definition's is read as today's.
_FUNCTIONS: dict[str, tuple[Callable[..., dict[str, Any]], Callable[..., list[LabelRow]]]] = {
    BOTH.name: (convert_answer, map_labels), STANCE.name: (convert_stance_answer, map_stance_labels),
    PREMISE.name: (convert_premise_answer, map_premise_labels)}
STANCE_PREMISE = Bridge(task_type="stance_premise", definition=BOTH.name, answer=convert_answer, labels=map_labels,
                        shared_keys=frozenset({GROUP}), adapts=adapted("both"))
STANCE_STAGE = Bridge(task_type="stance_premise", definition=STANCE.name, answer=convert_stance_answer,
                      labels=map_stance_labels, shared_keys=frozenset({GROUP}), adapts=adapted("stance"))
PREMISE_STAGE = Bridge(task_type="stance_premise", definition=PREMISE.name, answer=convert_premise_answer,
                       labels=map_premise_labels, adapts=adapted("premise"))
