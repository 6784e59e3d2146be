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
    votes_frame,
)

if TYPE_CHECKING:
    import numpy as np
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

    pairs = _pairs(bound, labels)
    if pairs is None:
        return pd.DataFrame([], columns=ROWS)
    at_vote, claim_of, text, asked = pairs
    n = len(asked)
    return pd.DataFrame({
        "item": labels["item"].take(np.repeat(at_vote, n)).array,
        "unit": np.repeat(claim_of, n),
        "field": np.tile(np.array(asked, dtype=object), len(at_vote)),
        "value": text.reshape(-1),
        "user_id": np.repeat(labels["user_id"].to_numpy()[at_vote], n),
        "assignment_id": np.repeat(labels["assignment_id"].to_numpy()[at_vote], n)}, columns=ROWS)


def stance_votes(bound: Bound, labels: pd.DataFrame) -> pd.DataFrame:
    """rules.votes_frame(stance_labels(bound, labels)) when the bound questions ask both labels, made from the
    (vote, claim) pairs without the label rows and their pivot (some 210 MB at a million labels): one row per pair,
    item, unit, assignment_id, user_id, stance, premise, in the pivot's order (by item, claim, assignment and
    annotator, each numbered in the order first met)."""
    import numpy as np
    import pandas as pd

    pairs = _pairs(bound, labels)
    assert _labels(bound) == FIELDS, "the votes of both labels"
    if pairs is None:
        return votes_frame(stance_labels(bound, labels))
    at_vote, claim_of, text, _ = pairs
    item = labels["item"].take(at_vote)
    assignment, user = labels["assignment_id"].to_numpy()[at_vote], labels["user_id"].to_numpy()[at_vote]
    order = np.lexsort([pd.factorize(user)[0], pd.factorize(assignment)[0], pd.factorize(claim_of)[0],
                        pd.factorize(item)[0]])
    frame = pd.DataFrame({"item": item.array[order], "unit": claim_of[order], "assignment_id": assignment[order],
                          "user_id": user[order], "stance": text[order, 0].astype(np.int64),
                          "premise": text[order, 1].astype(np.int64)})
    frame.columns.name = "field"
    return frame


def _pairs(bound: Bound, labels: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[str, ...]] | None:
    """The (vote, claim) pairs checked, in the order stance_labels lists them: each one's vote's first row (a
    position in `labels`), its claim, its codes as text (a row per pair, a column per label asked), and the labels
    asked; None without a row of the bound questions."""
    import numpy as np
    import pandas as pd

    fields = _fields(bound)
    asked = _labels(bound)
    # The bound questions' rows as positions in `labels`, each column read through them (not a copy of the rows),
    # and every step on integer arrays (no frame per step, no pivot): at a million labels the copy, the frames of
    # entries and their pivot held some 300 MB at the kept figures' peak (2026-11-29-kept-figures-memory.md).
    own = np.flatnonzero(labels["field"].isin(list(fields)).to_numpy())
    if not len(own):
        return None
    # A vote is (item, assignment, annotator), numbered in the order first met (groupby's ngroup, sort=False).
    vote = _first_met(_first_met(pd.factorize(labels["item"].take(own))[0], labels["assignment_id"].to_numpy()[own]),
                      labels["user_id"].to_numpy()[own])
    unit, claims = pd.factorize(labels["unit"].take(own).astype(str))
    value, values = pd.factorize(labels["value"].take(own).astype(str))
    field, field_names = pd.factorize(labels["field"].take(own))
    claim_names = [*claims, *(c for c, _ in bound.groups if c not in set(claims))]
    keys = list(dict.fromkeys(key for pairs in fields.values() for _, key in pairs))
    # One entry per (row, input the row's question answers): its vote, claim and input key, in row then rank order
    # (a question's inputs in the order _fields lists them).
    ranks = np.zeros(len(field_names), dtype=np.int64)
    for code, name in enumerate(field_names):
        ranks[code] = len(fields[name])
    per_row = ranks[field]
    row = np.repeat(np.arange(len(own)), per_row)
    rank = np.arange(len(row)) - np.repeat(np.cumsum(per_row) - per_row, per_row)
    del per_row
    claim_of_pair = np.full((len(field_names), int(ranks.max())), -1, dtype=np.int64)   # -1: the row's unit
    key_of_pair = np.zeros_like(claim_of_pair)
    for code, name in enumerate(field_names):
        for place, (claim, key) in enumerate(fields[name]):
            claim_of_pair[code, place] = -1 if claim is None else claim_names.index(claim)
            key_of_pair[code, place] = keys.index(key)
    entry_claim = claim_of_pair[field[row], rank]
    grouped = entry_claim < 0
    entry_claim[grouped] = unit[row[grouped]]
    entry_key = key_of_pair[field[row], rank]
    entry_vote = vote[row]
    entry_value = value[row]
    del rank, field, unit, value
    # Each (vote, claim, input)'s value as the last of its entries says it (an answer given twice: the last row's).
    n_claims, n_keys = len(claim_names), len(keys)
    slot = (entry_vote * n_claims + entry_claim) * n_keys + entry_key
    last = len(slot) - 1 - np.unique(slot[::-1], return_index=True)[1]
    given_slots, given_values = slot[last], entry_value[last]   # sorted by slot (np.unique's order)
    del slot, last, entry_key, entry_value
    votes = int(vote.max()) + 1
    if bound.group is None:   # every vote, the bound claims in their order
        bound_claims = np.array([claim_names.index(claim) for claim, _ in bound.groups], dtype=np.int64)
        pair_vote = np.repeat(np.arange(votes), len(bound_claims))
        pair_claim = np.tile(bound_claims, votes)
    else:   # each vote's claims in the order its rows name them
        at = np.flatnonzero(grouped)
        pair = entry_vote[at] * n_claims + entry_claim[at]
        _, first = np.unique(pair, return_index=True)
        first = at[np.sort(first)]
        by_vote = np.argsort(entry_vote[first], kind="stable")
        pair_vote, pair_claim = entry_vote[first][by_vote], entry_claim[first][by_vote]
        del at, pair, first, by_vote
    del entry_vote, entry_claim, grouped, row

    def answer(key: str) -> np.ndarray:
        """Each (vote, claim)'s value of the input, as its number in `values`; -1 where none was given."""
        if key not in keys:
            return np.full(len(pair_vote), -1, dtype=np.int64)
        wanted = (pair_vote * n_claims + pair_claim) * n_keys + keys.index(key)
        found = np.minimum(np.searchsorted(given_slots, wanted), max(len(given_slots) - 1, 0))
        return np.where(given_slots[found] == wanted, given_values[found], -1).astype(np.int64)

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
    at_vote = own[first_row[pair_vote[checked]]]
    claim_of = np.array(claim_names, dtype=object)[pair_claim[checked]]
    return at_vote, claim_of, text[checked], asked


def _first_met(codes: np.ndarray, other: np.ndarray) -> np.ndarray:
    """The pairs (codes[i], other[i]) numbered 0, 1, ... in the order first met."""
    import numpy as np
    import pandas as pd

    other_codes, other_names = pd.factorize(other)
    numbered = pd.factorize(codes.astype(np.int64) * np.int64(len(other_names)) + other_codes)[0]
    return np.asarray(numbered, dtype=np.int64)


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
    if _labels(bound) == FIELDS:   # both labels' votes frame, made without the label rows (stance_votes)
        return consistency_checks(None, stance_gold(bound, gold), stance_references(bound, references),
                                  votes=stance_votes(bound, labels))
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
