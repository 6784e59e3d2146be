"""RuArg-2022's consistency checks as a named rule, for a declared stance / premise campaign.

The checks are the task's (rules.py `consistency_checks`, the built-in stance_premise type's before it went):
per claim, a vote or a gold that is irrelevant for one label only (the data set's -1 in one of stance and premise),
a stance and a premise of opposite polarity (for with a premise against, or against with a premise for), and gold
that differs from the imported reference labels. This module only turns a declared campaign's label rows, gold and
known answers into that type's shapes (codes 2 for, 0 against, 1 other, -1 irrelevant), so both flag alike.

A definition lists its claims under the top-level `checks`, each with the questions that ask about it:

    checks:
      - rule: ruarg_consistency
        claims:
          - {claim: masks, relevance: masks_relevance, stance: masks_stance, premise: masks_premise}

A definition that asks the questions once per claim with a repeat group (the shared task's own definition,
stance_premise.yaml) names the group instead; its elements are the claims, and each input a question of the group:

    checks:
      - {rule: ruarg_consistency, group: claims, relevance: relevance, stance: stance, premise: premise}

`stance` and `premise` are choice questions offering the codes "2", "0" and "1" (and "-1" where irrelevance is
answered there; a vote that leaves one of them out, or gives another answer, is not checked); `relevance`, when
the campaign asks it apart (examples/ruarg2022_stance_premise.yaml), is a choice offering "relevant" and
"irrelevant": an annotator (or gold) saying irrelevant gives -1 to both labels. `premise` may be left out (RuArg's
first stage, stance.yaml): the stance alone is read, and, as the built-in type's stance-stage project, only the gold
against the known stances is checked (the pairs need both labels).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from annotator.declared.definition import NOT_ASKED, UNDECIDED
from annotator.declared.rule_base import Bound, NamedRule, RuleInput
from annotator.shared_tasks.ruarg2022.rules import (
    DECIDED,
    FIELDS,
    GOLD_COLUMNS,
    IRRELEVANT,
    NO_AGREEMENT,
    consistency_checks,
)

if TYPE_CHECKING:
    import pandas as pd

    from annotator.core.hit_values import Check

RELEVANT, NOT_RELEVANT = "relevant", "irrelevant"
CODES = ("2", "0", "1")
ROWS = ["item", "unit", "field", "value", "user_id", "assignment_id"]


def _fields(bound: Bound) -> dict[str, list[tuple[str | None, str]]]:
    """Question id -> the (claim, input key) pairs its rows answer; the claim is None for a group's question,
    whose rows name the claim in their unit."""
    found: dict[str, list[tuple[str | None, str]]] = {}
    if bound.group is not None:
        for key, question in bound.inputs.items():
            found.setdefault(question.id, []).append((None, key))
    for claim, inputs in bound.groups:
        for key, question in inputs.items():
            found.setdefault(question.id, []).append((claim, key))
    return found


def _labels(bound: Bound) -> tuple[str, ...]:
    """The labels the bound questions ask: stance and premise, or the stance alone (RuArg's first stage, whose
    definition has no premise question: then only its gold against the known stances is checked, as the built-in
    type checks a stance-stage project)."""
    bound_keys = set(bound.inputs) | {key for _, inputs in bound.groups for key in inputs}
    return tuple(field for field in FIELDS if field in bound_keys)


def _codes(given: Mapping[tuple[str, str], str], claims: list[str],
           asked: tuple[str, ...] = FIELDS) -> list[tuple[str, str, int]]:
    """(claim, label, code) of one vote's answers ({(claim, input key): value}) for the `asked` labels: -1 for each
    of a claim said irrelevant; a claim with a label left out (an optional question) or outside the codes is not
    checked."""
    rows: list[tuple[str, str, int]] = []
    for claim in claims:
        said = given.get((claim, "relevance"))    # None when the claim's relevance is not asked apart
        if said is not None and said != RELEVANT:
            rows += [(claim, field, IRRELEVANT) for field in asked]
            continue
        codes = {field: _as_code(given.get((claim, field))) for field in asked}
        rows += [(claim, field, code) for field, code in codes.items() if code is not None] \
            if None not in codes.values() else []
    return rows


def stance_labels(bound: Bound, labels: pd.DataFrame) -> pd.DataFrame:
    """The declared votes as label rows in the data set's terms: unit = the claim, field stance / premise, the
    code as value; a vote saying the claim is irrelevant gives -1 to both labels.

    Bound claim by claim, each claim is read from its own questions; bound to a repeat group, from the rows of the
    group's questions whose unit is the claim, the claims in the order the vote answered them (the group's).

    On columns, not vote by vote (what `_codes` says of one vote, for all at once): at a million labels a dictionary
    of each vote's answers, and a tuple per row made, held some 570 MB at the kept figures' peak
    (bench/results/2026-11-28-kept-figures-memory.md). A vote is (item, assignment, annotator), numbered in the
    order first met; an answer given twice counts as the last row says, as a dictionary's would."""
    import numpy as np
    import pandas as pd

    fields = _fields(bound)
    asked = _labels(bound)
    own = labels[labels["field"].isin(list(fields)).to_numpy()]
    if own.empty:
        return pd.DataFrame([], columns=ROWS)
    # Numbers, not text, through the steps below: claims, input keys and values are each a short list of names.
    vote = own.groupby(["item", "assignment_id", "user_id"], sort=False).ngroup().to_numpy()
    unit, claims = pd.factorize(own["unit"].astype(str))
    value, values = pd.factorize(own["value"].astype(str))
    claim_names = [*claims, *(c for c, _ in bound.groups if c not in set(claims))]
    keys = list(dict.fromkeys(key for pairs in fields.values() for _, key in pairs))
    # One entry per (row, input the row's question answers): its vote, claim and input key, in row order.
    parts = []
    for question, pairs in fields.items():
        rows = np.flatnonzero((own["field"] == question).to_numpy())
        for rank, (claim, key) in enumerate(pairs):
            parts.append(pd.DataFrame({"row": rows, "rank": rank, "vote": vote[rows],
                                       "claim": unit[rows] if claim is None else claim_names.index(claim),
                                       "key": keys.index(key), "grouped": claim is None, "value": value[rows]}))
    entries = pd.concat(parts, ignore_index=True).sort_values(["row", "rank"], kind="stable")
    given = entries.drop_duplicates(["vote", "claim", "key"], keep="last").pivot(
        index=["vote", "claim"], columns="key", values="value")
    votes = int(vote.max()) + 1
    if bound.group is None:   # every vote, the bound claims in their order
        bound_claims = [claim_names.index(claim) for claim, _ in bound.groups]
        pairs_of = pd.MultiIndex.from_arrays([np.repeat(np.arange(votes), len(bound_claims)),
                                              np.tile(np.array(bound_claims, dtype=np.int64), votes)],
                                             names=["vote", "claim"])
    else:   # each vote's claims in the order its rows name them
        first = entries[entries["grouped"]].drop_duplicates(["vote", "claim"], keep="first")
        first = first.sort_values("vote", kind="stable")
        pairs_of = pd.MultiIndex.from_arrays([first["vote"].to_numpy(), first["claim"].to_numpy()],
                                             names=["vote", "claim"])
    del entries
    wide = given.reindex(pairs_of)

    def answer(key: str) -> np.ndarray:
        """Each (vote, claim)'s value of the input, as its number in `values`; -1 where none was given."""
        at = keys.index(key) if key in keys else None
        return wide[at].fillna(-1).to_numpy(dtype=np.int64) if at is not None and at in wide.columns \
            else np.full(len(wide), -1, dtype=np.int64)

    names = np.array(list(values), dtype=object)
    a_code = np.isin(names, [*CODES, str(IRRELEVANT)])   # which values are codes (others are not checked)
    said = answer("relevance")
    irrelevant = (said >= 0) & (names[said] != RELEVANT)
    codes = np.stack([answer(name) for name in asked], axis=1)
    valid = (codes >= 0) & a_code[codes]                 # a code given (not left out, not outside the codes)
    checked = irrelevant | valid.all(axis=1)
    text = names[codes]
    text[irrelevant] = str(IRRELEVANT)
    _, first_row = np.unique(vote, return_index=True)        # each vote's first row: its item and annotator
    at_vote = first_row[wide.index.get_level_values("vote").to_numpy()[checked]]
    claim_of = np.array(claim_names, dtype=object)[wide.index.get_level_values("claim").to_numpy()[checked]]
    n = len(asked)
    return pd.DataFrame({
        "item": own["item"].take(np.repeat(at_vote, n)).array,
        "unit": np.repeat(claim_of, n),
        "field": np.tile(np.array(asked, dtype=object), int(checked.sum())),
        "value": text[checked].reshape(-1),
        "user_id": np.repeat(own["user_id"].to_numpy()[at_vote], n),
        "assignment_id": np.repeat(own["assignment_id"].to_numpy()[at_vote], n)}, columns=ROWS)


def _as_code(value: Any) -> int | None:
    """A label's code (2, 0, 1, -1), or None for a value that is none of them."""
    return int(value) if value in (*CODES, str(IRRELEVANT)) else None


def stance_gold(bound: Bound, gold: pd.DataFrame) -> pd.DataFrame:
    """The declared gold in the data set's terms (rules.py): per (item, claim) the stance and premise codes (-1 where
    the claim is irrelevant or the label not asked) and "no agreement" where a label is undecided.

    A group's questions have one gold row per claim (its unit); the claims of an item are then those rows'
    units, in their order (the group's)."""
    import pandas as pd
    fields = _fields(bound)
    by_claim: dict[tuple[Any, str], dict[str, Any]] = {}   # (item, claim) -> {input key: gold}
    claims_of: dict[Any, dict[str, None]] = {}              # a group's claims per item, in the rows' order
    own = gold[gold["question"].isin(list(fields))]
    for item, question, unit, value in zip(own["item"], own["question"], own["unit"], own["gold"]):
        for claim, key in fields[question]:
            by_claim.setdefault((item, claim if claim is not None else str(unit)), {})[key] = value
            if claim is None:
                claims_of.setdefault(item, {})[str(unit)] = None
    bound_claims = [claim for claim, _ in bound.groups]
    asked = _labels(bound)
    rows = []
    for item in dict.fromkeys(gold["item"]):
        claims = bound_claims if bound.group is None else list(claims_of.get(item, {}))
        for claim in claims:
            present = by_claim.get((item, claim))
            if not present:
                continue
            said = present.get("relevance")    # None when the claim's relevance is not asked apart
            if said is not None and said not in (RELEVANT, UNDECIDED):
                codes: dict[str, Any] = dict.fromkeys(asked, IRRELEVANT)
            elif said == UNDECIDED:
                codes = dict.fromkeys(asked, NO_AGREEMENT)
            else:
                codes = {field: _code(present.get(field)) for field in asked}
            codes = {field: codes.get(field) for field in FIELDS}   # a label not asked is None, as the built-in's
            status = NO_AGREEMENT if NO_AGREEMENT in codes.values() else DECIDED
            rows.append((item, claim, 0, 0, codes["stance"], codes["premise"], "", "", status))
    return pd.DataFrame(rows, columns=GOLD_COLUMNS)


def _code(value: Any) -> Any:
    if value == NOT_ASKED:
        return IRRELEVANT
    code = _as_code(value)
    return NO_AGREEMENT if code is None else code    # undecided, no gold, or an answer outside the codes


def stance_references(bound: Bound, references: Mapping[str, Any]) -> dict[str, Any]:
    """Known answers as the type's references ({item: {claim: {label: code}}}): {item: {question id: answer}}
    for claims bound one by one, {item: {group id: {claim: {question id: answer}}}} for a repeat group's."""
    found: dict[str, Any] = {}
    asked = _labels(bound)
    for item, known in references.items():
        if not isinstance(known, Mapping):
            continue
        if bound.group is not None:
            per_claim = known.get(bound.group)
            claims = [(str(claim), bound.inputs, answers) for claim, answers in per_claim.items()
                      if isinstance(answers, Mapping)] if isinstance(per_claim, Mapping) else []
        else:
            claims = [(claim, inputs, known) for claim, inputs in bound.groups]
        for claim, inputs, answers in claims:
            relevance = inputs.get("relevance")
            if relevance is not None and answers.get(relevance.id) not in (None, RELEVANT):
                found.setdefault(item, {})[claim] = dict.fromkeys(asked, IRRELEVANT)
                continue
            codes = {field: _as_code(answers.get(inputs[field].id)) for field in asked}
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
                      values=CODES, required=False)),
    checks=checks,
)
