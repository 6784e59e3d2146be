"""Further decisions per unit from one question's votes: `gold.also`, each a named column of the gold frame.

A question's gold rule decides one thing per unit. Some campaigns need a second decision from the same votes: the
KPA-2021 match check decides a match (faulty counting as no) and also whether the key point is mostly faulty
(more than half of the verdicts "faulty"), which the check's exports report. Said in the definition:

  gold:
    rule: majority
    strict: true
    groups: {"no": ["no", faulty]}
    ties: "no"
    also:
      faulty_majority: {value: faulty, rule: majority, strict: true}

Each decision counts, per unit, the annotators whose answer is `value` (one answer, or a list of answers counted
together) against those whose answer is not, and decides as a multi question's option is decided, "1" or "0":

  majority   (the default) "1" when more than half gave it, "0" when fewer than half, `ties` at exactly half
             (undecided unless "1" or "0"); with `strict: true`, "1" only when more than half gave it, else "0"
             (counted in whole numbers: 2 x count > annotators).
  share      "1" at or above the share `positive` (0.6), "0" at or below `negative` (0.15), undecided between.
  agree      "1" when at least `m` (2) annotators gave it, else `otherwise` (undecided unless "1" or "0").

The gold frame (and gold.csv, gold.jsonl, the dataset's gold.parquet) gets one column per decision, named as the
decision, after its own columns (question by question, a question's decisions by name: PostgreSQL keeps a stored
definition's mappings in an order of its own): "1", "0" or undecided on the question's rows ("n/a" where the
question was not asked), empty on other questions' rows. A definition without `also` has the columns it always had.

With `known: true` (a decision of one value), a control item's known answer of the question is that value where the
decision is "1", whatever the question's gold says: the match check's known answer is "faulty" where the key point is
mostly faulty, as the built-in type's was, though its gold (faulty counting as no) is "no" (controls.py).

A decision's name is an id (lower-case letters, digits and _), unique in the definition, and none of the gold
frame's columns. Choice, scale and pairwise questions (one answer per annotator and unit) with a built-in rule.
definition_checks.py calls `decisions`; gold.py `unit_values`; gold.py's `gold_counts` and the dataset read
`Definition.decisions()`.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from annotator.declared import rules
from annotator.declared.definition import (
    IDENTIFIER,
    NOT_ASKED,
    UNDECIDED,
    Decision,
    DefinitionError,
    GoldRule,
    Question,
    join_path,
)
from annotator.declared.keys import Keys, add_once

KEY = "also"
KINDS = ("choice", "scale", "pairwise")
RULE_KEYS = {"majority": ("value", "rule", "ties", "strict", "known"),
             "share": ("value", "rule", "positive", "negative", "known"),
             "agree": ("value", "rule", "m", "otherwise", "known")}
# The gold frame's own columns and the dataset's gold_number: a decision cannot be named as one of them.
TAKEN = ("item", "question", "unit", "gold", "n", "score", "votes", "gold_number")
OUTCOMES = (rules.TICKED, rules.NOT_TICKED, UNDECIDED)


def decisions(gold: Keys, question: Question, k: int | None, earlier: list[Question],
              answer_text: Callable[[Any, str, Question], str],
              values: tuple[str, ...] | None) -> tuple[Decision, ...]:
    """The question's `gold.also`, checked; `answer_text` reads an answer written in the definition as labels store
    it, `values` are the answers the question can have (None when the item gives them)."""
    if not gold.has(KEY):
        return ()
    path = gold.at(KEY)
    if question.kind not in KINDS:
        raise DefinitionError(path, f"further decisions count one answer per annotator and unit: choice, scale and "
                                    f"pairwise questions have them, not a {question.kind} question")
    raw = gold.data[KEY]
    if not isinstance(raw, dict) or not raw:
        raise DefinitionError(path, "must map a decision's name to its rule, e.g. {faulty_majority: {value: faulty, "
                                    "rule: majority, strict: true}}")
    taken = {d.name: q.id for q in earlier for d in q.decisions()}
    found: list[Decision] = []
    for name, spec in raw.items():
        where = join_path(path, str(name))
        if not isinstance(name, str) or not IDENTIFIER.match(name):
            raise DefinitionError(where, "a decision's name must be an id (lower-case letters, digits and _, "
                                         "starting with a letter, at most 40): it names a gold column")
        if name in TAKEN:
            raise DefinitionError(where, f"{name!r} is a column of the gold already ({', '.join(TAKEN)}); name the "
                                         "decision otherwise")
        if name in taken:
            raise DefinitionError(where, f"{name!r} names a decision of question {taken[name]!r} already; a gold "
                                         "column has one name")
        found.append(_decision(name, spec, where, question, k, answer_text, values))
        taken[name] = question.id
    return tuple(sorted(found, key=lambda d: d.name))   # by name: a stored definition's mapping may be reordered


def _decision(name: str, spec: Any, path: str, question: Question, k: int | None,
              answer_text: Callable[[Any, str, Question], str], values: tuple[str, ...] | None) -> Decision:
    rule_name = spec.get("rule", "majority") if isinstance(spec, dict) else None
    if isinstance(spec, dict) and rule_name not in RULE_KEYS:
        shown = repr(rule_name[:40]) if isinstance(rule_name, str) else f"{rule_name!r}"
        raise DefinitionError(join_path(path, "rule"), f"{shown} is not a rule of a further decision; use one of "
                                                       f"{', '.join(RULE_KEYS)}")
    keys = Keys(spec, path, RULE_KEYS.get(str(rule_name), RULE_KEYS["majority"]),
                "a mapping {value: <answer>, rule: majority | share | agree, ...}")
    if not keys.has("value"):
        raise DefinitionError(keys.at("value"), "is required: the answer (or list of answers) the decision counts")
    listed = keys.data["value"] if isinstance(keys.data["value"], list) else [keys.data["value"]]
    if not listed:
        raise DefinitionError(keys.at("value"), "must list one answer or more")
    counted: list[str] = []
    for index, value in enumerate(listed):
        at = f"{keys.at('value')}[{index}]" if isinstance(keys.data["value"], list) else keys.at("value")
        text = answer_text(value, at, question)
        if values is not None and text not in values:
            raise DefinitionError(at, f"{text[:40]!r} is not an answer of this question ({', '.join(values)})")
        add_once(counted, text, at)
    rule = _rule(keys, str(rule_name), k)
    known = keys.flag("known", False)
    if known and len(counted) != 1:
        raise DefinitionError(keys.at("known"), "a known answer is one answer: give the decision one value, or leave "
                                                "known out")
    return Decision(name, tuple(counted), rule, known)


def _rule(keys: Keys, name: str, k: int | None) -> GoldRule:
    def outcome(key: str) -> str:
        text = keys.text(key, UNDECIDED)   # 0 and 1 may be written unquoted
        if text not in OUTCOMES:
            raise DefinitionError(keys.at(key), f"{text[:40]!r} is not an outcome of a further decision "
                                                f"({', '.join(OUTCOMES)})")
        return text

    if name == "majority":
        strict = keys.flag("strict", False)
        if strict and keys.has("ties"):
            raise DefinitionError(keys.at("ties"), "a strict majority gives \"0\" at exactly half; leave ties out")
        return GoldRule(rule=name, strict=strict, ties=outcome("ties"))
    if name == "share":
        positive, negative = rules.share_bounds(keys)
        return GoldRule(rule=name, positive=positive, negative=negative)
    m = int(keys.number("m", 2, low=1, high=100, integer=True))
    if k is not None and m > k:
        raise DefinitionError(keys.at("m" if keys.has("m") else "rule"),
                              f"m ({m}) is more than the k ({k}) annotators an item gets; at most {k}")
    return GoldRule(rule=name, m=m, value=rules.TICKED, otherwise=outcome("otherwise"))


def unit_values(question: Question, gold: Any, counts: Mapping[str, int] | None, n: int) -> dict[str, str]:
    """The question's decisions on one unit: {name: "1" | "0" | undecided | n/a}, from the unit's answer counts
    (None: nobody answered it) and its gold (n/a: the question was not asked)."""
    found: dict[str, str] = {}
    for decision in question.decisions():
        if gold == NOT_ASKED:
            found[decision.name] = NOT_ASKED
        elif not counts or n == 0:
            found[decision.name] = UNDECIDED
        else:
            found[decision.name] = decide(decision, sum(counts.get(v, 0) for v in decision.values), n)
    return found


def decide(decision: Decision, given: int, n: int) -> str:
    """"1" / "0" / undecided: `given` of the unit's `n` annotators gave one of the decision's answers."""
    rule = decision.rule
    if rule.rule == "majority" and rule.strict:
        return rules.TICKED if 2 * given > n else rules.NOT_TICKED
    binary = {rules.TICKED: given, rules.NOT_TICKED: n - given}
    gold, _ = rules.unit_gold("multi", rule, binary, n, rules.TICKED)
    return str(gold)


def rule_words(decision: Decision) -> str:
    """The data card's words for one decision."""
    rule = decision.rule
    said = " or ".join(repr(v) for v in decision.values)
    if rule.rule == "majority" and rule.strict:
        return f"1 when more than half of the annotators answered {said}, else 0"
    if rule.rule == "majority":
        return f"1 when more than half of the annotators answered {said}, 0 when fewer than half, {rule.ties} at half"
    if rule.rule == "share":
        return (f"1 when the share of annotators who answered {said} is at least {rule.positive:g}, 0 when at most "
                f"{rule.negative:g}, undecided between")
    return f"1 when at least {rule.m} annotators answered {said}, else {rule.otherwise}"
