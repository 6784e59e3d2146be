"""RuArg-2022's consistency checks as a named rule, for a declared stance / premise campaign.

The checks are the built-in stance_premise type's (annotator/tasks/stance_premise_gold.py `consistency_checks`):
per claim, a vote or a gold that is irrelevant for one label only (the data set's -1 in one of stance and premise),
a stance and a premise of opposite polarity (for with a premise against, or against with a premise for), and gold
that differs from the imported reference labels. This module only turns a declared campaign's label rows, gold and
known answers into that type's shapes (codes 2 for, 0 against, 1 other, -1 irrelevant), so both flag alike.

A definition lists its claims under the top-level `checks`, each with the questions that ask about it:

    checks:
      - rule: ruarg_consistency
        claims:
          - {claim: masks, relevance: masks_relevance, stance: masks_stance, premise: masks_premise}

`stance` and `premise` are choice questions offering the codes "2", "0" and "1" (and "-1" where irrelevance is
answered there; a vote that leaves one of them out, or gives another answer, is not checked); `relevance`, when
the campaign asks it apart (examples/ruarg2022_stance_premise.yaml), is a choice offering "relevant" and
"irrelevant": an annotator (or gold) saying irrelevant gives -1 to both labels.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from annotator.declared.definition import NOT_ASKED, UNDECIDED
from annotator.shared_tasks.rule_base import Bound, NamedRule, RuleInput
from annotator.tasks.stance_premise_gold import (
    DECIDED,
    FIELDS,
    GOLD_COLUMNS,
    IRRELEVANT,
    NO_AGREEMENT,
    consistency_checks,
)

if TYPE_CHECKING:
    import pandas as pd

    from annotator.tasks.base import Check

RELEVANT, NOT_RELEVANT = "relevant", "irrelevant"
CODES = ("2", "0", "1")
ROWS = ["item", "unit", "field", "value", "user_id", "assignment_id"]


def stance_labels(bound: Bound, labels: pd.DataFrame) -> pd.DataFrame:
    """The declared votes as the stance_premise type's label rows: unit = the claim, field stance / premise, the
    code as value; a vote saying the claim is irrelevant gives -1 to both labels."""
    import pandas as pd
    answers: dict[tuple[Any, Any, Any], dict[str, str]] = {}
    asked = {q.id for _, inputs in bound.groups for q in inputs.values()}
    own = labels[labels["field"].isin(list(asked))]
    for item, field, value, user, assignment in zip(own["item"], own["field"], own["value"], own["user_id"],
                                                    own["assignment_id"]):
        answers.setdefault((item, assignment, user), {})[field] = str(value)
    rows = []
    for (item, assignment, user), given in answers.items():
        for claim, inputs in bound.groups:
            relevance = inputs.get("relevance")
            if relevance is not None and relevance.id in given and given[relevance.id] != RELEVANT:
                rows += [(item, claim, field, str(IRRELEVANT), user, assignment) for field in FIELDS]
                continue
            codes = [_as_code(given.get(inputs[field].id)) for field in FIELDS]
            if None in codes:    # a label left out (an optional question) or outside the codes: not checked
                continue
            rows += [(item, claim, field, str(code), user, assignment) for field, code in zip(FIELDS, codes)]
    return pd.DataFrame(rows, columns=ROWS)


def _as_code(value: Any) -> int | None:
    """A label's code (2, 0, 1, -1), or None for a value that is none of them."""
    return int(value) if value in (*CODES, str(IRRELEVANT)) else None


def stance_gold(bound: Bound, gold: pd.DataFrame) -> pd.DataFrame:
    """The declared gold as the stance_premise type's: per (item, claim) the stance and premise codes (-1 where
    the claim is irrelevant or the label not asked) and "no agreement" where a label is undecided."""
    import pandas as pd
    by_key = {(item, question): value for item, question, value in zip(gold["item"], gold["question"], gold["gold"])}
    items = list(dict.fromkeys(gold["item"]))
    rows = []
    for item in items:
        for claim, inputs in bound.groups:
            present = [q for q in inputs.values() if (item, q.id) in by_key]
            if not present:
                continue
            relevance = inputs.get("relevance")
            said = by_key.get((item, relevance.id)) if relevance is not None else None
            if said is not None and said not in (RELEVANT, UNDECIDED):
                codes: dict[str, Any] = dict.fromkeys(FIELDS, IRRELEVANT)
            elif said == UNDECIDED:
                codes = dict.fromkeys(FIELDS, NO_AGREEMENT)
            else:
                codes = {field: _code(by_key.get((item, inputs[field].id))) for field in FIELDS}
            status = NO_AGREEMENT if NO_AGREEMENT in codes.values() else DECIDED
            rows.append((item, claim, 0, 0, codes["stance"], codes["premise"], "", "", status))
    return pd.DataFrame(rows, columns=GOLD_COLUMNS)


def _code(value: Any) -> Any:
    if value == NOT_ASKED:
        return IRRELEVANT
    code = _as_code(value)
    return NO_AGREEMENT if code is None else code    # undecided, no gold, or an answer outside the codes


def stance_references(bound: Bound, references: Mapping[str, Any]) -> dict[str, Any]:
    """Known answers ({item: {question id: answer}}) as the type's references ({item: {claim: {label: code}}})."""
    found: dict[str, Any] = {}
    for item, known in references.items():
        if not isinstance(known, Mapping):
            continue
        for claim, inputs in bound.groups:
            relevance = inputs.get("relevance")
            if relevance is not None and known.get(relevance.id) not in (None, RELEVANT):
                found.setdefault(item, {})[claim] = dict.fromkeys(FIELDS, IRRELEVANT)
                continue
            codes = {field: _as_code(known.get(inputs[field].id)) for field in FIELDS}
            labels = {field: code for field, code in codes.items() if code is not None}
            if labels:
                found.setdefault(item, {})[claim] = labels
    return found


def checks(bound: Bound, labels: pd.DataFrame, gold: pd.DataFrame, references: Mapping[str, Any]) -> list[Check]:
    return consistency_checks(stance_labels(bound, labels), stance_gold(bound, gold),
                              stance_references(bound, references))


RUARG_CONSISTENCY = NamedRule(
    name="ruarg_consistency", title="RuArg-2022's consistency checks of stance and premise per claim",
    paper="Kotelnikov et al. (2022), RuArg-2022: Argument Mining Evaluation, Dialogue 2022, section 3",
    used_as="checks", repeat="claims", repeat_name="claim",
    inputs=(RuleInput("relevance", ("choice",), "whether the sentence is about the claim",
                      values=(RELEVANT, NOT_RELEVANT), required=False),
            RuleInput("stance", ("choice",), "the author's stance towards the claim (codes 2, 0, 1)", values=CODES),
            RuleInput("premise", ("choice",), "whether the sentence argues for or against the claim (codes 2, 0, 1)",
                      values=CODES)),
    checks=checks,
)
