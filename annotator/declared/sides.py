"""The two sides of a pairwise comparison shared across a HIT (docs/declared-sides.md).

Two keys, each usable without the other:

- `pairwise_order: per_hit` (top level): one A / B order is drawn for the whole HIT, so every pairwise question
  shows the same field as "A" (the default, `per_question`, draws each question's sides on its own). It needs every
  pairwise question to compare the same two fields (and the same `players`): "A" then means one thing on the page.
  The draw is the lease's presentation, `{"swapped": [every pairwise question's id]}` or `{"swapped": []}`, from
  the generator the engine seeds with the project, the item and the annotator (engine/assignment.presentation_rng):
  the same annotator is shown the same item the same way on every lease, in every process.
- `sides: <pairwise question id>` on a `repeat` group (declared/repeat.py): the group's questions are asked once of
  each side of that question, the elements being "A" and "B" as the annotator was shown them. The answer is in the
  page's terms, `{"<group>": {"A": {...}, "B": {...}}}`; its label rows are in the players' terms: unit = the side's
  player (the item's value of the question's `players` entry), or "A" / "B" in the item's terms (A is field `a`)
  when the question has no players. So gold is per player and item, and agreement pools the group's questions over
  both sides of every item, as over the elements of any group. A known answer (control items) and the votes export
  key the sides in the item's terms, "A" being field `a`, as a pairwise question's known answer does.
"""
from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from annotator.declared.definition import Definition, DefinitionError, Element, Question, Repeat
from annotator.declared.keys import kind

ORDERS = ("per_question", "per_hit")
PER_HIT = "per_hit"
SIDE_IDS = ("A", "B")
SWAPPED = "swapped"   # the presentation's key (declared/answers.py)
OTHER = {"A": "B", "B": "A"}


# --- the definition -------------------------------------------------------------------------------------------

def order_part(value: Any) -> str:
    """The top-level `pairwise_order`, checked: per_question (the default) or per_hit."""
    if value is None:
        return ORDERS[0]
    if not isinstance(value, str) or value not in ORDERS:
        shown = repr(value)[:40] if isinstance(value, str) else kind(value)
        raise DefinitionError("pairwise_order", f"{shown} is not one of {', '.join(ORDERS)} (per_hit: one A / B "
                                                "order drawn for every pairwise question of the HIT)")
    return value


def check_order(order: str, questions: Sequence[Question], paths: Mapping[str, str]) -> None:
    """With per_hit every pairwise question compares the same fields a and b with the same players; `paths` gives
    each question's key path (questions[3]) for the message."""
    if order != PER_HIT:
        return
    pairs = [q for q in questions if q.kind == "pairwise"]
    if not pairs:
        raise DefinitionError("pairwise_order", "per_hit draws one A / B order for the HIT's pairwise questions, "
                                                "and this definition has none; leave pairwise_order out")
    first = pairs[0]
    for other in pairs[1:]:
        for key, mine, theirs in (("a", other.a, first.a), ("b", other.b, first.b),
                                  ("players", other.players, first.players)):
            if mine != theirs:
                raise DefinitionError(f"{paths[other.id]}.{key}", f"is {_said(mine)}, and {first.id!r} has "
                                      f"{key} {_said(theirs)}: with pairwise_order: per_hit every pairwise question "
                                      "compares the same two fields, so that A is the same on the whole page")


def _said(value: Any) -> str:
    if value is None:
        return "not given"
    return repr(list(value)) if isinstance(value, tuple) else repr(value)


def side_elements(label: str) -> tuple[Element, ...]:
    """A sides group's elements: "A" and "B", each shown as "<label> A" ("Summary A"; "Side A" without a label)."""
    return tuple(Element(side, f"{label or 'Side'} {side}") for side in SIDE_IDS)


def check_groups(groups: Sequence[Repeat], questions: Sequence[Question], paths: Mapping[str, str]) -> None:
    """Each sides group names a pairwise question of the definition (before or after the group)."""
    pairwise = [q.id for q in questions if q.kind == "pairwise" and q.group is None and q.derived is None]
    for group in groups:
        if group.sides is not None and group.sides not in pairwise:
            known = ", ".join(pairwise) or "it has none"
            raise DefinitionError(f"{paths[group.id]}.sides", f"{group.sides[:40]!r} is not a pairwise question of "
                                                              f"this definition (its pairwise questions: {known})")


# --- the draw -------------------------------------------------------------------------------------------------

def draw(definition: Definition, rng: random.Random) -> dict[str, Any] | None:
    """The presentation of a lease: which pairwise questions show field b as "A". per_hit: one draw for all of
    them; per_question: one draw each. None when the definition has no pairwise question."""
    pairs = [q.id for q in definition.questions if q.kind == "pairwise" and q.derived is None]   # derived: not shown
    if not pairs:
        return None
    if definition.pairwise_order == PER_HIT:
        return {SWAPPED: pairs if rng.random() < 0.5 else []}
    return {SWAPPED: [qid for qid in pairs if rng.random() < 0.5]}


def drawn_with(definition: Definition) -> str | None:
    """Where the HIT page draws the pair when one order holds for the HIT: "" in a sides group's cards, else the id
    of the first pairwise question; None when each pairwise question draws its own sides."""
    if definition.pairwise_order != PER_HIT:
        return None
    if any(group.sides for group in definition.repeats):
        return ""
    return next((q.id for q in definition.questions if q.kind == "pairwise" and q.derived is None), None)


def swapped(qid: str, presentation: Mapping[str, Any] | None) -> bool:
    return qid in ((presentation or {}).get(SWAPPED) or ())


# --- a sides group's units --------------------------------------------------------------------------------------

def item_units(definition: Definition, group: Repeat, payload: Mapping[str, Any]) -> dict[str, str]:
    """{"A": unit, "B": unit} in the item's terms (A is field `a`): the players' values, or "A" / "B" without
    players."""
    question = definition.question(group.sides or "")
    if not question.players:
        return {side: side for side in SIDE_IDS}
    return {side: str(payload.get(player, "")) for side, player in zip(SIDE_IDS, question.players)}


def shown_units(definition: Definition, group: Repeat, payload: Mapping[str, Any],
                presentation: Mapping[str, Any] | None) -> dict[str, str]:
    """{"A": unit, "B": unit} as the annotator was shown the sides: the label rows' unit of each answer."""
    units = item_units(definition, group, payload)
    if swapped(group.sides or "", presentation):
        return {side: units[OTHER[side]] for side in SIDE_IDS}
    return units


def in_item_terms(definition: Definition, group: Repeat, given: Any,
                  presentation: Mapping[str, Any] | None) -> Any:
    """A group's answer keyed by the sides as shown, keyed in the item's terms (A is field `a`)."""
    if not isinstance(given, Mapping) or not swapped(group.sides or "", presentation):
        return given
    return {OTHER.get(str(side), side): given[side] for side in sorted(given, key=lambda s: OTHER.get(str(s), s))}


def answers_in_item_terms(definition: Definition, answer: Mapping[str, Any],
                          presentation: Mapping[str, Any] | None) -> dict[str, Any]:
    """The answer with every sides group's answer in the item's terms (the votes export, control scores)."""
    out = dict(answer)
    for group in definition.repeats:
        if group.sides is not None and group.id in out:
            out[group.id] = in_item_terms(definition, group, out[group.id], presentation)
    return out


def units_as_sides(definition: Definition, group: Repeat, payload: Mapping[str, Any]) -> dict[str, str]:
    """{unit: "A" / "B" in the item's terms}: what a gold row's unit (a player) is as a known answer's key."""
    return {unit: side for side, unit in item_units(definition, group, payload).items()}


def player_problem(definition: Definition, payload: Mapping[str, Any]) -> tuple[str, str] | None:
    """What makes an item (as the definition reads it) unfit for a sides group: both sides naming the same player,
    so that the two sides' label rows would be one unit; (the field, the problem in words), or None."""
    for group in definition.repeats:
        if group.sides is None:
            continue
        units = item_units(definition, group, payload)
        if units["A"] == units["B"]:
            question = definition.question(group.sides)
            assert question.players is not None
            return question.players[1], (f"{question.players[0]} and {question.players[1]} are both "
                                         f"{units['A'][:40]!r}: group {group.id!r} stores its answers under each "
                                         "side's player, so the two must differ")
    return None
