"""The annotator model's columns of a declared campaign's gold: `flask export custom --model dawid-skene`.

Each gold row of a categorical question (choice, multi, pairwise) gains the label and posterior that the annotator
model gives its unit: Dawid-Skene seeded with the control items' known answers, fitted on the votes the export
counts, so that the values are `flask aggregate --method dawid-skene --seed-controls`'s (its `label` and
`posterior`, rounded to six places). Rows of other questions, and units the model has no votes of, get none.

Asked for, not written by default: an export is a file set people compare and publish, and a project's export
must stay the same bytes from one version to the next (tests/lifecycle/test_upgrade_keeps_exports.py); two more
columns in every gold file would change every declared project's.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from annotator.analysis.model_fields import FieldPosteriors
from annotator.declared.definition import CATEGORICAL, Definition

MODELS = ("none", "dawid-skene")
LABEL, POSTERIOR = "model_label", "model_posterior"
MEANINGS = {
    LABEL: "the annotator model's most likely answer for the unit (Dawid-Skene seeded with the control items' known "
           "answers, as flask aggregate --method dawid-skene --seed-controls gives it); null on the rows of "
           "questions that are not categorical (choice, multi, pairwise)",
    POSTERIOR: "the model's posterior probability of that answer (0 to 1, six decimals); null where model_label is",
}


def with_model(definition: Definition, rows: Sequence[Mapping[str, Any]],
               fields: Sequence[FieldPosteriors]) -> list[dict[str, Any]]:
    """The gold rows (custom.exchange.gold_rows), each with the model's label and posterior of its unit."""
    categorical = {q.id for q in definition.questions if q.kind in CATEGORICAL}
    fitted: dict[tuple[str, str], tuple[str, float]] = {}
    for fit in fields:
        if fit.field not in categorical:
            continue
        for at, unit in enumerate(fit.units.tolist()):
            best = int(fit.labels[at])
            fitted[(fit.field, unit)] = (fit.summary.classes[best], float(fit.posteriors[at, best]))
    out = []
    for row in rows:
        found = fitted.get((str(row.get("question")), f"{row.get('item')} / {_unit(row.get('unit'))}"))
        out.append({**row, LABEL: found[0] if found else None, POSTERIOR: found[1] if found else None})
    return out


def _unit(unit: Any) -> str:
    """A gold row's unit as the label rows name it (a pairwise question's players: their JSON list)."""
    return json.dumps(unit, ensure_ascii=False) if isinstance(unit, list) else str(unit)
