"""Label frames of declared campaigns for tests, made from answers through the real answer check.

`labels_of(definition, {item: [answer, ...]})` gives what `annotator.analysis.results.labels_frame` gives for
those votes: columns item, unit, field, value, user_id, assignment_id, id, one row per label, in item then vote
order. The n-th answer of every item is annotator n's (user_id n + 1), so an annotator's votes line up across items.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from annotator.declared.answers import check_answer
from annotator.declared.definition import Definition
from annotator.declared.definition_reader import definition_from_text

COLUMNS = ["item", "unit", "field", "value", "user_id", "assignment_id", "id"]


def labels_of(definition: Definition | str, answers: Mapping[str, list[dict[str, Any] | None]],
              payloads: Mapping[str, Mapping[str, Any]] | None = None,
              presentations: Mapping[tuple[str, int], Mapping[str, Any]] | None = None) -> pd.DataFrame:
    """Label rows of `answers` (item -> the annotators' answers; None: that annotator did not vote on it)."""
    if isinstance(definition, str):
        definition = definition_from_text(definition)
    rows = []
    assignment = 0
    for item, given in answers.items():
        payload = (payloads or {}).get(item, {})
        for annotator, answer in enumerate(given):
            if answer is None:
                continue
            assignment += 1
            shown = (presentations or {}).get((item, annotator))
            for label in check_answer(definition, payload, answer, shown)[1]:
                rows.append((item, label.unit, label.field, label.value, annotator + 1, assignment, len(rows) + 1))
    return pd.DataFrame(rows, columns=COLUMNS)
