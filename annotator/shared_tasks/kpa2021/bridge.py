"""The bridges from KPA-2021's three built-in HIT types, removed since (docs/one-engine.md, step 6 for KPA-2021), to
their definitions (match.yaml, match_check.yaml, set_compare.yaml): the answers API clients sent the built-in types,
still taken, in the definitions' shapes, and the built-in's stored label rows as the definitions' rows (the mapping
migration 0023_kpa_declared froze, which tests/unit/test_migration_kpa_declared.py holds against this one).

Why each mapping is what it is (bridge_base.py says what a bridge is for):

- kp_match -> match.yaml. The answer is the same object ({"matches": [key point ids]}, [] for none: the
  definition's `none:` box is that empty list); an answer the definition refuses goes through today's checks, so
  it is refused with today's message (`shared_keys`). A built-in row (key point id, "match", "1" / "0") becomes
  (key point id, "matches", "1" / "0"): the unit is the option's value, the field the question's id. A known answer
  of the labels file ({key point id: 1 / 0}, which every import keeps as it is, since the dataset table reads it so)
  is scored as the built-in scored it, the share of its labelled key points the answer gets right (`known_score`):
  the definition's `multi` scoring reads only {"matches": [...]} and counts the overlap of the ticked sets.
- kp_match_check -> match_check.yaml. The answer is the same object ({"verdict": "yes" | "no" | "faulty"}), today's
  checks and messages for what the definition refuses. The
  built-in's unit is the constant "pair" (one decision per item); a declared choice's unit is the question's id,
  so ("pair", "verdict", v) becomes ("verdict", "verdict", v). The built-in gold's `faulty_majority` column (more
  than half of the verdicts "faulty") is the definition's further decision of the same name (`gold.also`,
  annotator/declared/also.py): "1" / "0" where the built-in has True / False.
- kp_set_compare -> set_compare.yaml. The built-in draws, per assignment, which system is shown as summary A
  (`presentation` {"a": system, "b": system}), and its answer is in the page's terms: stance_a is the stance of
  the set shown as A. The definition draws one order for the HIT too (`pairwise_order: per_hit`, presentation
  `{"swapped": [both comparisons]}` when field b, the item's second system, is shown as "A"), and asks the stance of
  each side as shown (the group `each_summary` with `sides:`), so the converted answer keeps every letter the
  annotator gave: {"each_summary": {"A": {"stance": stance_a}, "B": {"stance": stance_b}}, "less_redundant": ...,
  "more_central": ...}, with the presentation that shows the same system as "A". Label rows: the built-in stores
  system names ("pair", "less_redundant", "beta"; "stance beta", "stance", "all_contest"), the definition the
  comparisons in the item's terms under the players' pair (unit '["alpha", "beta"]', value "A" for the first
  system, "B" for the second, or "equal") and the stances under the system's name (unit "beta", field "stance").
  Both put a vote in the players' terms the same way: "A" of the declared row is the item's first system
  whichever side it was shown on. The definition's `right_stance` (derived from the two stances, asked of nobody)
  has one more row per vote, made from the built-in's two stance rows as the declared check makes it: "A" when
  only the first system's stance is the right one (all_support on a pro item, all_contest on a con one), "B" when
  only the second's, else "equal" (compare_exchange._winner's tie).

A project's settings are no label rows. Those that are rules go into the project's copy of the definition (at an
import: declared_rules.py): kp_match's positive_threshold / negative_threshold are the `share` rule's
positive / negative, kp_match_check's tie "match" is `ties: "yes"` (the file's `ties: "no"` is the default no_match).
Those that are no rules but what the task's rankings read stay project settings of a declared project
(`kept_settings`, the options below, as the built-in types had them): the check's map_variant (the mAP per system),
the comparison's check_project (the generation-track ranking) and equal (half a win, or dropped from the format's
Bradley-Terry ranking; the definition's own `bradley_terry` gold always counts half).
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from annotator.core.jsonsafe import JSONValueError, check_value
from annotator.core.options import Option
from annotator.declared.bridge_base import Bridge, LabelRow
from annotator.tasks.base import AnswerError

# --- kp_match ---------------------------------------------------------------------------------------------------

MATCH_FIELD, MATCH_QUESTION = "match", "matches"


def _match_answer(answer: Mapping[str, Any], payload: Mapping[str, Any],
                  presentation: Mapping[str, Any] | None) -> dict[str, Any]:
    """Today's answer as it is, once today's checks pass, so that what today refuses is refused with today's message
    (the definition's check would name the question in its own words): `matches` a list of this item's key point
    ids, none twice, and no other key. Reached for an answer the definition's check refuses (`shared_keys`)."""
    if not isinstance(answer, Mapping) or MATCH_QUESTION not in answer:
        raise AnswerError('the answer must be an object with a "matches" list (empty for none)')
    matches = answer[MATCH_QUESTION]
    if not isinstance(matches, list) or not all(isinstance(m, str) for m in matches):
        raise AnswerError('"matches" must be a list of key point ids')
    known = [str(kp.get("id")) for kp in payload.get("key_points") or () if isinstance(kp, Mapping)]
    unknown = [m for m in matches if m not in known]
    if unknown:
        raise AnswerError(f"key point {', '.join(unknown)} is not one of this item's key points ({', '.join(known)})")
    if len(set(matches)) != len(matches):
        raise AnswerError('"matches" names a key point twice')
    _only_keys(answer, MATCH_QUESTION)
    return dict(answer)


def _only_keys(answer: Mapping[str, Any], key: str) -> None:
    """Today's message for a key the type's answers do not have (the checks every built-in type ran), after today's
    refusal of a non-finite number, NUL or lone surrogate anywhere in the answer, which came first."""
    try:
        check_value(answer)
    except JSONValueError as error:
        raise AnswerError(str(error)) from None
    other = sorted(str(k) for k in answer if k != key)
    if other:
        shown = ", ".join(repr(k[:40]) for k in other[:5])
        raise AnswerError(f"unknown key(s) {shown} in the answer: it has only {key}")


def _match_labels(rows: Sequence[LabelRow], payload: Mapping[str, Any]) -> list[LabelRow]:
    return [LabelRow(row.unit, MATCH_QUESTION, row.value) for row in _only(rows, MATCH_FIELD, "kp_match")]


def _labels_file_known(reference: Any) -> dict[str, int] | None:
    """A known answer of the labels file ({key point id: 1 / 0}, kept by every import), its labelled key points;
    None for another shape (the definition's {"matches": [...]}, a control made from a declared project's gold)."""
    if not isinstance(reference, Mapping) or MATCH_QUESTION in reference:
        return None
    known = {str(kp): int(v) for kp, v in reference.items() if v in (0, 1, "0", "1")}
    return known or None


def _match_known_score(answer: Any, reference: Any, payload: Mapping[str, Any]) -> float | None:
    """The built-in's control score against the labels file's known answer: the share of its labelled key points
    the answer gets right (ticked where 1, not where 0). The definition's own scoring of a `multi` question (the
    overlap of the ticked sets) cannot read that shape, and would count otherwise."""
    known = _labels_file_known(reference)
    if known is None:
        return None
    ticked = answer.get(MATCH_QUESTION) if isinstance(answer, Mapping) else None
    chosen = {str(kp) for kp in ticked} if isinstance(ticked, list) else set()
    return sum((kp in chosen) == (label == 1) for kp, label in known.items()) / len(known)


def _match_known_words(reference: Any, payload: Mapping[str, Any]) -> str | None:
    """The labels file's known answer in the built-in's words: the matching key points' texts, or that none does."""
    known = _labels_file_known(reference)
    if known is None:
        return None
    matched = [str(kp.get("text")) for kp in payload.get("key_points") or ()
               if isinstance(kp, Mapping) and known.get(str(kp.get("id"))) == 1]
    return "Matching key points: " + "; ".join(matched) if matched else "No key point matches this argument."


MATCH = Bridge(task_type="kp_match", definition="match.yaml", answer=_match_answer, labels=_match_labels,
               shared_keys=frozenset({MATCH_QUESTION}), known_score=_match_known_score,
               known_words=_match_known_words)

# --- kp_match_check ---------------------------------------------------------------------------------------------

CHECK_UNIT, CHECK_FIELD = "pair", "verdict"


VERDICTS = ("yes", "no", "faulty")


def _check_answer(answer: Mapping[str, Any], payload: Mapping[str, Any],
                  presentation: Mapping[str, Any] | None) -> dict[str, Any]:
    """Today's answer as it is, once today's checks pass (one key `verdict`, yes / no / faulty), so that what today
    refuses is refused with today's message. Reached for an answer the definition's check refuses."""
    if not isinstance(answer, Mapping) or set(answer) != {CHECK_FIELD}:
        raise AnswerError('the answer must be an object {"verdict": "yes" | "no" | "faulty"}')
    if answer[CHECK_FIELD] not in VERDICTS:
        raise AnswerError(f"verdict {answer[CHECK_FIELD]!r} is not one of yes, no, faulty")
    return dict(answer)


def _check_labels(rows: Sequence[LabelRow], payload: Mapping[str, Any]) -> list[LabelRow]:
    found = _only(rows, CHECK_FIELD, "kp_match_check")
    if any(row.unit != CHECK_UNIT for row in found):
        raise ValueError(f"kp_match_check: a verdict row's unit is {CHECK_UNIT!r}, not "
                         f"{next(r.unit for r in found if r.unit != CHECK_UNIT)!r}")
    return [LabelRow(CHECK_FIELD, CHECK_FIELD, row.value) for row in found]


def _check_item(payload: Mapping[str, Any], presentation: Mapping[str, Any] | None) -> dict[str, Any]:
    """Today's `key_point` of the API item, its id and text (the definition shows `key_point.text` only)."""
    key_point = payload.get("key_point") or {}
    return {"key_point": {"id": key_point.get("id"), "text": key_point.get("text")}}


MAP_VARIANT = Option("map_variant", str, "official", label="mAP per topic and stance",
                     help="official: the Track-1 code, AP x matches / judged pairs (1 only when every judged pair "
                          "matches); plain-ap: AP alone, as the Track-1 code before 2021-09-23",
                     choices=("official", "plain-ap"), required=True)

MATCH_CHECK = Bridge(
    task_type="kp_match_check", definition="match_check.yaml", answer=_check_answer, labels=_check_labels,
    kept_settings=(MAP_VARIANT,), item_keys=_check_item, shared_keys=frozenset({CHECK_FIELD}),
)

# --- kp_set_compare ---------------------------------------------------------------------------------------------

COMPARED = ("less_redundant", "more_central")
STANCE_FIELD, STANCE_UNIT = "stance", "stance "
STANCE_KEYS = ("stance_a", "stance_b")   # the built-in's: the sets shown as A and B
EACH_SUMMARY = "each_summary"            # the definition's group asking the stance of each side
RIGHT_STANCE = "right_stance"            # the definition's comparison derived from the two stances
RIGHT = {1: "all_support", -1: "all_contest"}   # the stance a set of a pro / con side should take
SIDES = ("A", "B")
EQUAL = "equal"
SWAPPED = "swapped"   # the declared presentation's key (annotator/declared/answers.py)


def _systems(payload: Mapping[str, Any]) -> tuple[str, str]:
    systems = payload.get("systems")
    if not isinstance(systems, list) or len(systems) != 2 or not all(isinstance(s, str) for s in systems):
        raise ValueError(f"kp_set_compare item {payload.get('id')!r}: 'systems' must name two systems")
    return systems[0], systems[1]


def _shown_a(presentation: Mapping[str, Any] | None, payload: Mapping[str, Any]) -> str:
    """The system the page showed as summary A: the built-in presentation's, else the item's first (as
    kp_set_compare.order reads it). A declared presentation ({"swapped": [...]}, a lease drawn by the declared
    engine) is read too, as long as it shows one system as A in both comparisons, as the built-in page did: a
    built-in answer has one stance_a for both, so other sides per question are refused (the definition's
    `pairwise_order: per_hit` never draws them; a presentation written by hand might)."""
    first, second = _systems(payload)
    if presentation and SWAPPED in presentation:
        swapped = set(presentation[SWAPPED] or ()) & set(COMPARED)
        if swapped and swapped != set(COMPARED):
            raise AnswerError(f"this HIT showed the summaries in another order for {', '.join(sorted(swapped))} "
                              "than for the other comparison; answer it in the declared shape "
                              "(each_summary: the stance of each side as shown)")
        return second if swapped else first
    if not presentation or not {"a", "b"} <= set(presentation):
        return first
    if {presentation["a"], presentation["b"]} != {first, second}:
        raise ValueError(f"kp_set_compare item {payload.get('id')!r}: the presentation shows "
                         f"{presentation['a']!r} and {presentation['b']!r}, not the item's {first!r} and {second!r}")
    return str(presentation["a"])


def _compare_presentation(presentation: Mapping[str, Any] | None, payload: Mapping[str, Any]) -> dict[str, Any]:
    """Both comparisons show field b (the item's second system) as "A" exactly when the built-in page did."""
    swapped = _shown_a(presentation, payload) != _systems(payload)[0]
    return {SWAPPED: list(COMPARED) if swapped else []}


def _compare_answer(answer: Mapping[str, Any], payload: Mapping[str, Any],
                    presentation: Mapping[str, Any] | None) -> dict[str, Any]:
    """The stances as the group's answer of the sides shown (stance_a is side A's, whichever system it showed),
    the sides of the comparisons kept as given: both are read with `_compare_presentation`'s order. Missing,
    unknown or wrong values are left for the declared check to refuse, naming the question."""
    if not isinstance(answer, Mapping):
        raise AnswerError('the answer must be an object with "stance_a", "stance_b", "less_redundant" and '
                          '"more_central"')
    _shown_a(presentation, payload)   # refuses a presentation of other systems, or other sides per question
    converted = {key: value for key, value in answer.items() if key not in STANCE_KEYS}
    converted[EACH_SUMMARY] = {side: {STANCE_FIELD: answer[key]} if key in answer else {}
                               for side, key in zip(SIDES, STANCE_KEYS)}
    return converted


def _compare_labels(rows: Sequence[LabelRow], payload: Mapping[str, Any]) -> list[LabelRow]:
    first, second = _systems(payload)
    pair = json.dumps([first, second], ensure_ascii=False)   # declared/asked.pair_unit of the players
    side = {first: "A", second: "B", EQUAL: EQUAL}
    mapped = []
    stances: dict[str, str] = {}
    for row in rows:
        if row.field in COMPARED and row.unit == "pair" and row.value in side:
            mapped.append(LabelRow(pair, row.field, side[row.value]))
        elif row.field == STANCE_FIELD and row.unit in (STANCE_UNIT + first, STANCE_UNIT + second):
            stances[row.unit.removeprefix(STANCE_UNIT)] = row.value
            mapped.append(LabelRow(row.unit.removeprefix(STANCE_UNIT), STANCE_FIELD, row.value))
        else:
            raise ValueError(f"kp_set_compare item {payload.get('id')!r}: the label row {tuple(row)!r} is not one "
                             f"of this item's (systems {first!r}, {second!r})")
    topic_side = _stance(payload)
    right = RIGHT.get(topic_side) if topic_side is not None else None
    if right is not None and len(stances) == 2:
        first_right, second_right = stances[first] == right, stances[second] == right
        won = "A" if first_right and not second_right else "B" if second_right and not first_right else EQUAL
        mapped.append(LabelRow(pair, RIGHT_STANCE, won))
    return mapped


def _stance(payload: Mapping[str, Any]) -> int | None:
    """The item's topic side, 1 or -1 (a number, or its text as an items file keeps a shown number)."""
    try:
        return int(str(payload.get("stance")))
    except ValueError:
        return None


def _summary(summary: Sequence[Any]) -> list[dict[str, Any]]:
    """A summary as today's API item gives it: each key point's text and prevalence (None when it has none)."""
    return [{"text": p[0], "prevalence": p[1]} if isinstance(p, list) else {"text": p, "prevalence": None}
            for p in summary]


def _compare_item(payload: Mapping[str, Any], presentation: Mapping[str, Any] | None) -> dict[str, Any]:
    """Today's `summary_a` / `summary_b`: the summaries of the systems shown as A and B, in the declared lease's
    drawn order (the definition gives them under their key paths, with `sides`)."""
    first, second = _systems(payload)
    shown_a = _shown_a(presentation, payload)
    shown_b = second if shown_a == first else first
    summaries = payload.get("summaries") or {}
    return {"summary_a": _summary(summaries.get(shown_a, [])), "summary_b": _summary(summaries.get(shown_b, []))}


EQUAL_COUNTS = Option("equal", str, "half", label='An "equal" judgment counts as',
                      help="half: half a win to each set; drop: the judgment is left out of the ranking",
                      choices=("half", "drop"), required=True)
CHECK_PROJECT = Option("check_project", str, None, label="Slug of the retrospective-check project of the same systems",
                       help="its mAP ranks combine with these rankings into the generation-track ranking",
                       pattern=r"[a-z0-9][a-z0-9_-]{0,79}", rule="a project slug")

SET_COMPARE = Bridge(
    task_type="kp_set_compare", definition="set_compare.yaml", answer=_compare_answer, labels=_compare_labels,
    presentation=_compare_presentation, earlier_keys=frozenset(STANCE_KEYS), reads_declared_presentation=True,
    kept_settings=(EQUAL_COUNTS, CHECK_PROJECT), item_keys=_compare_item,
    not_carried_over=(
        "agreement on the comparisons in system names: the built-in pools each comparison's values (alpha, beta, "
        "gamma, equal) over items; the definition's values are A / B / equal in the item's terms, so the "
        "categories, and so the chance agreement, differ (docs/one-engine.md, 'Where the figures differ'); the "
        "stance field is the built-in's, both sets of every item pooled",
    ),
)


def _only(rows: Sequence[LabelRow], field: str, task_type: str) -> list[LabelRow]:
    """The rows, all of `field`; a ValueError naming the first other one (no row is dropped unsaid)."""
    other = [row for row in rows if row.field != field]
    if other:
        raise ValueError(f"{task_type}: a label row of field {other[0].field!r} ({tuple(other[0])!r}); "
                         f"this type stores only {field!r}")
    return list(rows)
