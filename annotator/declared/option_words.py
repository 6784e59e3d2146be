"""Words beside the answers: a description under an option, and words on every point of a scale.

Why: a label of a word or two ("neutral", "3") leaves an annotator to guess where one category ends; campaigns moved
from other tools give each option a sentence ("Sarcastic: the literal meaning is the opposite of what is meant") and a
Likert scale a phrase on every point ("Strongly disagree" ... "Strongly agree"), not only on its ends. So:

    options:
      - {value: pos, label: Positive, description: The writer approves of the subject.}
    ...
    kind: scale
    min: 1
    max: 5
    labels: [Strongly disagree, Disagree, Neither, Agree, Strongly agree]

A description is shown under its option on the HIT and read out with it (the option's input names it with
aria-describedby), listed by the JSON API with the option and written on the data card; the stored answer is the
option's value as before. A scale's `labels` are one per point, lowest first (the count must be the scale's number of
points), shown on each point beside its number, which stays the point's value and its key; `anchors` (words under the
two ends) and `labels` are one or the other. docs/declared-options.md is the user's page.

definition_checks.py calls `description_part` for each declared option and `point_labels_part` for a scale.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from annotator.declared.definition import DefinitionError, number_text
from annotator.declared.keys import plain_text

if TYPE_CHECKING:
    from annotator.declared.keys import Keys

OPTION_KEYS = ("value", "label", "description")   # an option written as a mapping
DESCRIPTION_LENGTH = 500
POINT_LABEL_LENGTH = 100
LABELS = "labels"      # a scale's key of words on every point


def description_part(option: Keys) -> str:
    """An option's `description`, checked: text of at most 500 characters, not blank when given; "" without."""
    if not option.has("description"):
        return ""
    text = option.text("description", limit=DESCRIPTION_LENGTH)
    if not text.strip():
        raise DefinitionError(option.at("description"), "must not be blank (leave it out for an option without one)")
    return text


def point_labels_part(keys: Keys, points: list[float]) -> tuple[str, ...]:
    """A scale's `labels`: one text per point, lowest first; () without. Refused with `anchors` (the ends' words)."""
    if not keys.has(LABELS):
        return ()
    path = keys.at(LABELS)
    if keys.has("anchors"):
        raise DefinitionError(path, "give words on every point (labels) or under the two ends (anchors), not both")
    entries = keys.listed(LABELS)
    if len(entries) != len(points):
        span = f"{number_text(points[0])} to {number_text(points[-1])}"
        raise DefinitionError(path, f"lists {len(entries)} labels; the scale has {len(points)} points ({span}): one "
                                    "label per point, lowest first")
    found: list[str] = []
    for index, entry in enumerate(entries):
        where = f"{path}[{index}]"
        text = plain_text(entry, where, POINT_LABEL_LENGTH, "the words of a point (text)")
        if not text.strip():
            raise DefinitionError(where, f"the label of point {number_text(points[index])} must not be blank")
        if text in found:
            raise DefinitionError(where, f"{text[:40]!r} is the label of another point already; each point's words "
                                         "must differ")
        found.append(text)
    return tuple(found)
