"""ReCAM's selection rules as a named rule: which validated cloze questions a declared campaign keeps.

The rules are in rules.py (Zheng et al., SemEval-2021 Task 4, §3: a) the annotator's accuracy, b) both evidence
spans marked, c) "easy" means answered right; then a question is kept by its known answer's share, or by a clear
majority), written over one row per vote as the built-in cloze type of before the switch to one engine stored it;
this module only turns a declared campaign's label rows into those rows and the verdicts into gold rows.

A definition writes it on the question asking for the option (`choice`) and binds the other three inputs:

    - id: answer
      kind: choice
      options: ["0", "1", "2", "3", "4"]      # or any option values; known answers use the same values
      gold: {rule: recam_selection, difficulty: difficulty, passage_span: passage_evidence,
             question_span: question_evidence}

The parameters are rules.SELECTION_OPTIONS, with their defaults (min_accuracy 0.4, require_spans, ...).
The known answers are the items' reference answers ({"answer": "3"}: the `known.answer` column of a control item).
An evidence input is either
  - a `spans` question (docs/declared-spans.md) asking for one optional mark with a single label over whole words
    or any characters (`max: 1`, `labels: [evidence]`, `required: false`, `edges: code_points`, `characters` or
    words): marked
    when the answer has its mark, whose character offsets are the built-in type's [start, end]; `[]` or leaving the
    question out is no span; or
  - a `span` question (word selection): marked when any word is selected ("first:last" of the selected words).
Rule b only asks whether a span is marked, so both decide alike; the `spans` binding is the built-in's own
answer (a character span of the text, or none).
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from annotator.core.columns import cells
from annotator.declared.definition import UNDECIDED, Question, answer_values
from annotator.declared.rule_base import Bound, GoldRow, NamedRule, RuleInput, RuleParameter
from annotator.declared.spans import rules_of, span_of
from annotator.shared_tasks.recam2021.rules import DIFFICULTIES, SELECTION_OPTIONS, UNIT, Evaluation, evaluate

if TYPE_CHECKING:
    import pandas as pd

EVIDENCE_KINDS = ("spans", "span")   # an evidence input: one labelled character span, or a selection of words
ROWS = ["item", "unit", "field", "value", "user_id", "assignment_id"]


def evidence_problem(question: Question) -> str | None:
    """Why a `spans` question cannot be an evidence input (None when it can): the built-in's evidence is one
    character span or none, so the question must allow one mark (`max: 1`), with a single label, whose edges the
    HIT can mark: whole words, or any character (`edges: characters`, or `edges: code_points`, the built-in API's
    own span, any offset; not `whole_words: false`, whose sub-word offsets only an API client can send). A `span`
    question (word selection) always can."""
    if question.kind != "spans":
        return None
    rules = rules_of(question)
    wrong = [what for what, bad in (("max: 1 (one evidence span, or none)", rules.most != 1),
                                    ("a single label", len(rules.labels) != 1),
                                    ("whole_words: true or edges: characters",
                                     not rules.whole_words and not rules.characters)) if bad]
    if not wrong:
        return None
    edges = f"edges: {rules.edges}" if rules.characters else f"whole_words: {str(rules.whole_words).lower()}"
    return ("marks evidence as a spans question, which needs " + ", ".join(wrong) +
            f" (it has max: {rules.most}, {len(rules.labels)} label(s), {edges})")


def cloze_labels(bound: Bound, labels: pd.DataFrame, codes: Mapping[str, int]) -> pd.DataFrame:
    """The declared votes as the rows the rules read (the built-in cloze type's label rows): per vote, unit
    "question" and the fields option (as its code), difficulty, passage_span and question_span ("start:end": the
    mark's character offsets for a `spans` question, the selected words' positions for a `span` one; "" when
    none)."""
    import pandas as pd
    field_of = {question.id: key for key, question in bound.inputs.items()}
    marks = {question.id for question in bound.inputs.values() if question.kind == "spans"}
    own = labels[labels["field"].isin(list(field_of))]
    votes: dict[tuple[Any, Any, Any], dict[str, Any]] = {}
    marked: dict[tuple[Any, Any, Any, str], list[int]] = {}
    for item, field, unit, value, user, assignment in zip(cells(own["item"]), cells(own["field"]), cells(own["unit"]),
                                                         cells(own["value"]), own["user_id"], own["assignment_id"]):
        key, vote = field_of[field], (item, assignment, user)
        fields = votes.setdefault(vote, {})
        if field in marks:
            fields.setdefault(key, "")
            mark = span_of(unit)   # the mark row "<start>:<end>:<label>"; a word row (its label or "O") is None
            if mark is not None and str(value) == "1":
                fields[key] = f"{mark.start}:{mark.end}"
        elif key.endswith("_span"):
            fields.setdefault(key, "")
            if str(value) == "1":
                marked.setdefault((*vote, key), []).append(int(unit))
        elif key == "option":
            fields["option"] = str(codes[str(value)])
        else:
            fields[key] = str(value)
    for (item, assignment, user, key), positions in marked.items():
        votes[(item, assignment, user)][key] = f"{min(positions)}:{max(positions) + 1}"
    rows = [(item, UNIT, key, fields.get(key, ""), user, assignment)
            for (item, assignment, user), fields in votes.items() if "option" in fields
            for key in ("option", "difficulty", "passage_span", "question_span")]
    return pd.DataFrame(rows, columns=ROWS)


def option_codes(bound: Bound, labels: pd.DataFrame, references: Mapping[str, Any]) -> dict[str, int]:
    """The cloze rules count options as numbers: a value that is a whole number is its own code ("3": 3), other
    values are numbered in the question's option order, then as first met."""
    question = bound.inputs["option"]
    values = list(answer_values(question) or ())
    values += [str(v) for v in labels.loc[labels["field"] == question.id, "value"]]
    values += [str(ref[question.id]) for ref in references.values()
               if isinstance(ref, Mapping) and ref.get(question.id) is not None]
    values = list(dict.fromkeys(values))
    if all(v.isdigit() for v in values):
        return {v: int(v) for v in values}
    return {v: n for n, v in enumerate(values)}


def selection(bound: Bound, labels: pd.DataFrame, references: Mapping[str, Any]) -> tuple[Evaluation, dict[str, int]]:
    """The cloze rules run on the declared votes and known answers (the items' references, `{option id: value}`):
    the whole evaluation (annotations, annotators, questions), and the option codes it counts in."""
    question = bound.inputs["option"]
    codes = option_codes(bound, labels, references)
    known = {item: {"label": codes[str(ref[question.id])]} for item, ref in references.items()
             if isinstance(ref, Mapping) and ref.get(question.id) is not None}
    return evaluate(cloze_labels(bound, labels, codes), known, bound.parameters), codes


def selection_gold(bound: Bound, labels: pd.DataFrame, references: Mapping[str, Any]) -> list[GoldRow]:
    """One gold row per voted item, on the option question's unit: the kept question's answer (its known answer,
    else the valid annotations' majority) or "undecided" when the rules drop it; `n` the annotations, `score` the
    share that decided (known answer's share of the valid ones, else the majority's), `votes` the options chosen
    and the verdict in words ("kept: 2 of 3 valid annotations chose the known answer (0.67 ≥ 0.50)")."""
    assert bound.question is not None
    question = bound.question
    evaluation, codes = selection(bound, labels, references)
    decided = evaluation.questions
    values = {code: value for value, code in codes.items()}
    chosen = labels[labels["field"] == question.id]
    counts: dict[Any, Counter[str]] = {}
    for item, value in zip(chosen["item"], chosen["value"]):
        counts.setdefault(item, Counter())[str(value)] += 1
    found: list[GoldRow] = []
    for row in decided.itertuples():
        answer = row.known if row.known is not None and not _missing(row.known) else row.majority
        gold = values[int(answer)] if row.kept and not _missing(answer) else UNDECIDED
        share = row.share if row.known is not None and not _missing(row.known) else row.majority_share
        said = ", ".join(f"{value}: {n}" for value, n in sorted(counts.get(row.item, Counter()).items(),
                                                                 key=lambda pair: codes[pair[0]]))
        found.append((row.item, question.id, question.id, gold, int(row.votes),
                      math.nan if _missing(share) else float(share), f"{said}; {row.reason}"))
    return found


def evidence_needed(bound: Bound) -> tuple[str, ...]:
    """Rule b (`require_spans`, on by default) drops an annotation without both evidence marks: the HIT asks before
    one is submitted so, as the built-in's did ("Answers without both marks are not used")."""
    return ("passage_span", "question_span") if bound.parameters["require_spans"] else ()


def _missing(value: Any) -> bool:
    return value is None or isinstance(value, float) and math.isnan(value)


RECAM_SELECTION = NamedRule(
    name="recam_selection", title="ReCAM's selection rules: which validated cloze questions are kept",
    paper="Zheng et al. (2021), SemEval-2021 Task 4: Reading Comprehension of Abstract Meaning, section 3",
    used_as="gold", carrier=("choice",), carrier_key="option",
    inputs=(RuleInput("difficulty", ("choice",), "the difficulty rating (rule c needs the answer easy)",
                      values=(DIFFICULTIES[0],)),
            RuleInput("passage_span", EVIDENCE_KINDS, "the evidence marked in the passage (rule b)",
                      check=evidence_problem),
            RuleInput("question_span", EVIDENCE_KINDS, "the evidence marked in the question (rule b)",
                      check=evidence_problem)),
    parameters=tuple(RuleParameter(o.name, o.default, o.label or o.help, o.minimum or 0.0,
                                   1.0 if o.maximum is None else o.maximum) for o in SELECTION_OPTIONS),
    gold=selection_gold,
    needs=evidence_needed,
)
