"""A comparison derived from other answers: a pairwise question nobody is asked, whose label rows are made from the
answers of a question asked of each side (docs/declared-derived.md).

    - id: right_stance
      kind: pairwise
      prompt: Which summary takes the stance of the arguments it summarises?
      derived:
        from: stance                 # a choice question of a group with `sides:` (declared/sides.py)
        wins: {field: stance, values: {"1": all_support, "-1": all_contest}}   # or a fixed answer: wins: all_support

Each vote gives one row: the side whose answer is the winning one wins when the other's is not, and "equal" when
both or neither are (a tie: half a win to each side in Bradley-Terry). The row is in the item's terms under the
players' pair, as a pairwise question's (asked.pair_unit), so gold (`bradley_terry`), agreement and
`gold.strengths` read it as any comparison. The question takes its two sides and `players` from the group's
pairwise question; it has no answer of its own (an answer giving it is refused as an unknown question), no place
on the HIT page, and no known answer of control items. An item whose `field` value `values` does not map, or a
vote without both sides' answers, gives no row.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from annotator.core.hit_values import LabelIn
from annotator.declared import sides
from annotator.declared.asked import pair_unit
from annotator.declared.definition import (
    FIELD_PATH,
    IDENTIFIER,
    PATH_WHAT,
    Definition,
    DefinitionError,
    Derived,
    Question,
    Repeat,
    join_path,
    number_text,
)
from annotator.declared.keys import Keys, plain_text

KEY = "derived"
NOT_WITH = ("a", "b", "players", "allow_equal", "required", "when")   # taken from the sides, or meaningless


def is_derived(question: Question) -> bool:
    return question.derived is not None


def asked(questions: Sequence[Question]) -> list[Question]:
    """The questions an annotator answers: all but the derived ones."""
    return [q for q in questions if q.derived is None]


# --- the definition -------------------------------------------------------------------------------------------

def parts(keys: Keys, fields: Mapping[str, Any], earlier: Sequence[Question]) -> dict[str, Any]:
    """A derived pairwise question's own keys, checked: {"derived": Derived}. Its sides are linked once every
    question is read (`link`)."""
    for key in NOT_WITH:
        if keys.has(key):
            raise DefinitionError(keys.at(key), "a derived question takes its sides and players from the pairwise "
                                                f"question its source is asked of; leave {key} out")
    spec = Keys(keys.data[KEY], keys.at(KEY), ("from", "wins"), "a mapping {from: question id, wins: ...}")
    source_id = spec.text("from", pattern=IDENTIFIER, what="a question's id")
    source = next((q for q in earlier if q.id == source_id), None)
    if source is None or source.group is None or source.kind != "choice":
        asked_of_sides = ", ".join(q.id for q in earlier if q.group is not None and q.kind == "choice") or "none"
        raise DefinitionError(spec.at("from"), f"{source_id[:40]!r} is not an earlier choice question of a group "
                                               f"(the choice questions of groups before it: {asked_of_sides})")
    options = source.option_values()
    raw = spec.data.get("wins")
    if raw is None:
        raise DefinitionError(spec.at("wins"), "is required: the answer that wins, or {field, values} mapping an "
                                               "item field's value to it")
    if not isinstance(raw, dict):
        wins = plain_text(raw, spec.at("wins"), 100, "an answer of the source question")
        _check_option(wins, options, spec.at("wins"), source_id)
        return {KEY: Derived(source_id, wins=wins)}
    mapping = Keys(raw, spec.at("wins"), ("field", "values"), "{field: item field, values: {item value: answer}}")
    field = mapping.text("field", pattern=FIELD_PATH, what=PATH_WHAT)
    if field not in fields:
        raise DefinitionError(mapping.at("field"), f"{field!r} must be one of the shown fields ({', '.join(fields)})")
    values = mapping.data.get("values")
    if not isinstance(values, dict) or not values:
        raise DefinitionError(mapping.at("values"), "must map each value of the item field to the answer that wins "
                                                    "there, e.g. {\"1\": all_support, \"-1\": all_contest}")
    pairs = []
    for value, answer in values.items():
        where = join_path(mapping.at("values"), str(value))
        text = plain_text(answer, where, 100, "an answer of the source question")
        _check_option(text, options, where, source_id)
        pairs.append((_text(value), text))
    return {KEY: Derived(source_id, field=field, values=tuple(pairs))}


def _check_option(value: str, options: tuple[str, ...], path: str, source: str) -> None:
    if value not in options:
        raise DefinitionError(path, f"{value[:40]!r} is not an answer of {source!r} ({', '.join(options)})")


def _text(value: Any) -> str:
    """An item value as `values` keys it: numbers as the labels write them (1, not 1.0), the rest as text."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return number_text(value)
    return str(value)


def link(questions: list[Question], groups: Sequence[Repeat], paths: Mapping[str, str]) -> None:
    """Give each derived question the sides and players of the pairwise question its source is asked of."""
    for index, question in enumerate(questions):
        if question.derived is None:
            continue
        source = next(q for q in questions if q.id == question.derived.source)
        group = next(g for g in groups if g.id == source.group)
        if group.sides is None:
            raise DefinitionError(f"{paths[question.id]}.derived.from",
                                  f"{source.id!r} is asked per element of group {group.id!r}, not of each side of a "
                                  "pairwise question: give the group sides: <pairwise question id>")
        pair = next((q for q in questions if q.id == group.sides and q.kind == "pairwise" and q.derived is None),
                    None)
        if pair is None:
            return   # sides.check_groups names the missing question
        questions[index] = dataclasses.replace(question, a=pair.a, b=pair.b, players=pair.players)


# --- answers ------------------------------------------------------------------------------------------------

def rows(definition: Definition, question: Question, payload: Mapping[str, Any], stored: Mapping[str, Any],
         presentation: Mapping[str, Any] | None) -> list[LabelIn]:
    """The derived question's label row of one vote, from the stored answer so far (the group's, as shown)."""

    assert question.derived is not None
    rule = question.derived
    source = definition.question(rule.source)
    group = next(g for g in definition.repeats if g.id == source.group)
    given = sides.in_item_terms(definition, group, stored.get(group.id), presentation)
    if not isinstance(given, Mapping):
        return []
    a, b = ((given.get(side) or {}).get(rule.source) for side in sides.SIDE_IDS)
    wins = rule.wins if rule.field is None else dict(rule.values).get(_text(payload.get(rule.field)))
    if a is None or b is None or wins is None:
        return []
    a_wins, b_wins = a == wins, b == wins
    outcome = "A" if a_wins and not b_wins else "B" if b_wins and not a_wins else "equal"
    return [LabelIn(pair_unit(question, payload), question.id, outcome)]


def words(question: Question) -> str:
    """The data card's line on a derived question."""
    assert question.derived is not None
    rule = question.derived
    wins = repr(rule.wins) if rule.field is None else \
        f"the answer the item's `{rule.field}` gives (" + ", ".join(f"{v}: {a}" for v, a in rule.values) + ")"
    return (f"  derived, not asked: the side whose answer to {rule.source} is {wins} wins when the other's is not; "
            "both or neither: equal")
