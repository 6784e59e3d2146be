"""Named rules in a definition: a shared task's rule (declared/rule_base.py) bound to the definition's questions.

Why: some papers' rules read several questions of an item at once, which the per-question gold rules cannot say.
A shared task contributes such a rule by name (`SharedTask(rules=...)`); a definition names it and says which of
its questions feed which input of the rule:

  questions:
    - id: answer
      kind: choice
      gold: {rule: recam_selection, difficulty: difficulty, passage_span: passage_evidence,
             question_span: question_evidence, min_accuracy: 0.4}
  checks:
    - rule: ruarg_consistency
      claims:
        - {claim: masks, relevance: masks_relevance, stance: masks_stance, premise: masks_premise}

Everything is checked when the definition is read (definition_checks.py calls `gold_rule`, definition.py calls
`check_rules`): an unknown rule is refused with the known ones, an input bound to a question that does not exist,
is of a kind the rule cannot read or lacks an answer the rule needs is refused with its key path (the line follows
from it). Gold (gold.py calls `question_gold`) and checks (`rule_checks`, the type's consistency checks) run the
shared task's own code. docs/declared-named-rules.md documents the two rules the shared tasks contribute.
"""
from __future__ import annotations

import difflib
import functools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from annotator.declared import rule_groups
from annotator.declared.definition import (
    IDENTIFIER,
    RULES,
    Definition,
    DefinitionError,
    GoldRule,
    Question,
    answer_values,
    join_path,
)
from annotator.declared.rule_base import Bound, GoldRow, NamedRule, RuleInput, RuleParameter
from annotator.plugins.registry import SHARED_TASKS, declared

if TYPE_CHECKING:
    import pandas as pd

    from annotator.core.hit_values import Check

CHECKS = "checks"          # the definition's top-level key of check rules


@functools.cache
def named_rules() -> dict[str, NamedRule]:
    """Every named rule the shared tasks declare (`SharedTask(rules=("module:RULE", ...))`), by name; a name two of
    them declare stops the app from starting, with both tasks named. Loaded once: the declarations do not change
    while the app runs."""
    return declared("named rule", [(task, rule) for task in SHARED_TASKS.values()
                                   for rule in task.load(task.rules, NamedRule, "named rule")])


def gold_rule(raw: Any, path: str, question: Question) -> GoldRule | None:
    """The GoldRule of a question whose `gold` names a named rule (its inputs are checked later, by `check_rules`,
    once every question is known); None when `gold` names a built-in rule, for the built-in checks to read.

    A name that is no rule at all is refused here, with the rules this question could use.
    """
    name = raw.get("rule") if isinstance(raw, dict) else None
    if not isinstance(name, str) or any(name in built_in for built_in in RULES.values()):
        return None
    rule = _rule(name, join_path(path, "rule"), "gold", RULES[question.kind], question.kind)
    if question.kind not in rule.carrier:
        raise DefinitionError(join_path(path, "rule"), f"{name} is written on a {' or '.join(rule.carrier)} "
                                                       f"question (its {rule.carrier_key}), not on a {question.kind} "
                                                       "one")
    return GoldRule(rule=name)


def check_rules(data: Mapping[str, Any], questions: Sequence[Question]) -> None:
    """Check every named rule of the definition: its inputs, its parameters, the top-level `checks`."""
    _bind(data, questions)


def bindings(definition: Definition) -> list[Bound]:
    """The definition's named rules, bound to its questions: its gold rules in question order, then its checks."""
    return _bind(definition.data, definition.questions)


def needed_answers(definition: Definition) -> frozenset[str]:
    """The questions a named rule drops an annotation without (`NamedRule.needs`: ReCAM's rule b, both evidence
    marks): the HIT asks before an answer leaving one of them empty is submitted, as the paper's own HIT did.
    Bound only where one of the definition's named rules says what it needs: the HIT's definition of a repeat
    group is the item's expanded one, whose group-bound checks do not bind again (and need nothing)."""
    if not any(named_rules()[name].needs is not None for name in _rule_names(definition.data) if name in named_rules()):
        return frozenset()
    return frozenset(bound.inputs[key].id for bound in bindings(definition) if bound.rule.needs is not None
                     for key in bound.rule.needs(bound) if key in bound.inputs)


def _rule_names(data: Mapping[str, Any]) -> set[str]:
    """The names of the rules a definition's data names: its questions' (a group's too) gold rules and its checks."""
    found: set[str] = set()
    for question in data.get("questions", []):
        gold = question.get("gold") if isinstance(question, Mapping) else None
        if isinstance(gold, Mapping) and isinstance(gold.get("rule"), str):
            found.add(gold["rule"])
        if isinstance(question, Mapping) and isinstance(question.get("questions"), list):
            found |= _rule_names({"questions": question["questions"]})
    for entry in data.get("checks") or []:
        if isinstance(entry, Mapping) and isinstance(entry.get("rule"), str):
            found.add(entry["rule"])
    return found


def question_gold(definition: Definition, question: Question, labels: pd.DataFrame,
                  references: Mapping[str, Any]) -> list[GoldRow] | None:
    """The question's gold rows by its named rule; None when its gold is a built-in rule."""
    for bound in bindings(definition):
        if bound.question is not None and bound.question.id == question.id and bound.rule.gold is not None:
            return bound.rule.gold(bound, labels, references)
    return None


def rule_checks(definition: Definition, labels: pd.DataFrame, gold: pd.DataFrame,
                references: Mapping[str, Any]) -> list[Check]:
    """The consistency checks of the definition's check rules, in the order of `checks`."""
    found: list[Check] = []
    for bound in bindings(definition):
        if bound.rule.checks is not None:
            found += bound.rule.checks(bound, labels, gold, references)
    return found


# --- binding ----------------------------------------------------------------------------------------------

def _named(used_as: str) -> dict[str, NamedRule]:
    return {n: r for n, r in named_rules().items() if r.used_as == used_as}


def _rule(name: str, path: str, used_as: str, built_in: Sequence[str] = (), kind: str = "") -> NamedRule:
    known = _named(used_as)
    if name in known:
        return known[name]
    other = named_rules().get(name)
    if other is not None:
        where = "under checks: at the definition's top level" if other.used_as == "checks" else \
            "as a question's gold: {rule: ...}"
        raise DefinitionError(path, f"{name} is a {other.used_as} rule; write it {where}")
    close = difflib.get_close_matches(name, [*built_in, *known], 1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    rules = f"for a {kind} question use one of {', '.join(built_in)}, or a named rule: " if kind else \
        "the named check rules: "
    raise DefinitionError(path, f"{name[:40]!r} is not a rule{hint}; {rules}{', '.join(known) or 'none is declared'}")


def _bind(data: Mapping[str, Any], questions: Sequence[Question]) -> list[Bound]:
    by_id = {q.id: q for q in questions}
    found: list[Bound] = []
    for index, question in enumerate(questions):
        if question.gold is None or any(question.gold.rule in built_in for built_in in RULES.values()):
            continue
        path = f"questions[{index}].gold"
        raw = data["questions"][index]["gold"]
        raw = {"rule": raw} if isinstance(raw, str) else raw   # `gold: <name>`, the short form
        rule = _rule(question.gold.rule, join_path(path, "rule"), "gold")
        _known_keys(raw, path, rule)
        bound = {rule.carrier_key: question, **_inputs(raw, path, rule.inputs, by_id, {question.id: rule.carrier_key})}
        found.append(Bound(rule, question, bound, _parameters(raw, path, rule.parameters)))
    entries = data.get(CHECKS)
    if entries is None:
        return found
    if not isinstance(entries, list) or not entries:
        raise DefinitionError(CHECKS, "must list the check rules the campaign uses, each {rule: <name>, ...} (the "
                                      f"named check rules: {', '.join(_named('checks')) or 'none is declared'})")
    for index, entry in enumerate(entries):
        path = f"{CHECKS}[{index}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("rule"), str):
            raise DefinitionError(path, "must be a mapping naming its rule: {rule: <name>, ...}")
        rule = _rule(entry["rule"], join_path(path, "rule"), "checks")
        if rule_groups.binds_group(entry, rule):   # bound to a repeat group's questions (rule_groups.py)
            gid = rule_groups.group_of_entry(entry, path, rule, questions)
            found.append(Bound(rule, None, _inputs(entry, path, rule.inputs, by_id, {}),
                               _parameters(entry, path, rule.parameters), group=gid))
            continue
        _known_keys(entry, path, rule)
        groups: tuple[tuple[str, Mapping[str, Question]], ...] = ()
        inputs: dict[str, Question] = {}
        if rule.repeat:
            groups = _groups(entry, join_path(path, rule.repeat), rule, by_id)
        else:
            inputs = _inputs(entry, path, rule.inputs, by_id, {})
        found.append(Bound(rule, None, inputs, _parameters(entry, path, rule.parameters), groups))
    return found


def _known_keys(raw: Mapping[str, Any], path: str, rule: NamedRule) -> None:
    for key in raw:
        if key not in rule.keys:
            close = difflib.get_close_matches(str(key), rule.keys, 1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise DefinitionError(join_path(path, str(key)), f"the {rule.name} rule has no {str(key)[:40]!r}{hint}; "
                                                             f"its keys: {', '.join(rule.keys)}")


def _groups(entry: Mapping[str, Any], path: str, rule: NamedRule,
            by_id: Mapping[str, Question]) -> tuple[tuple[str, Mapping[str, Question]], ...]:
    raw = entry.get(rule.repeat or "")
    if not isinstance(raw, list) or not raw:
        shape = ", ".join([f"{rule.repeat_name}: <name>", *(f"{i.key}: <question id>" for i in rule.inputs)])
        raise DefinitionError(path, f"must list the {rule.repeat} the rule checks, each {{{shape}}}")
    groups: list[tuple[str, Mapping[str, Question]]] = []
    used: dict[str, str] = {}
    for index, group in enumerate(raw):
        where = f"{path}[{index}]"
        if not isinstance(group, dict):
            raise DefinitionError(where, f"must be a mapping {{{rule.repeat_name}: <name>, <input>: <question id>}}")
        known = (rule.repeat_name, *(i.key for i in rule.inputs))
        for key in group:
            if key not in known:
                raise DefinitionError(join_path(where, str(key)), f"unknown key; known here: {', '.join(known)}")
        name = group.get(rule.repeat_name)
        if not isinstance(name, str) or not IDENTIFIER.match(name):
            raise DefinitionError(join_path(where, rule.repeat_name), "is required: a name (lower-case letters, digits "
                                                                      "and _, starting with a letter)")
        if any(name == other for other, _ in groups):
            raise DefinitionError(join_path(where, rule.repeat_name), f"{name!r} is named twice")
        groups.append((name, _inputs(group, where, rule.inputs, by_id, used)))
        rule_groups.refuse_group_questions(groups[-1][1], where, rule)   # a group's are bound with `group:`
    return tuple(groups)


def _inputs(raw: Mapping[str, Any], path: str, wanted: Sequence[RuleInput], by_id: Mapping[str, Question],
            used: dict[str, str]) -> dict[str, Question]:
    """{input key: question} of the bound inputs; `used` (question id -> the input it feeds) refuses one question
    bound to two inputs."""
    bound: dict[str, Question] = {}
    for spec in wanted:
        where = join_path(path, spec.key)
        qid = raw.get(spec.key)
        if qid is None:
            if spec.required:
                raise DefinitionError(where, f"is required: the id of the {' or '.join(spec.kinds)} question "
                                             f"holding {spec.what}")
            continue
        question = by_id.get(qid) if isinstance(qid, str) else None
        if question is None:
            shown = repr(qid[:40]) if isinstance(qid, str) else "that"
            raise DefinitionError(where, f"{shown} is not a question of the definition; name the "
                                         f"{' or '.join(spec.kinds)} question holding {spec.what} "
                                         f"(questions: {', '.join(by_id)})")
        if question.kind not in spec.kinds:
            raise DefinitionError(where, f"{qid!r} is a {question.kind} question; {spec.what} must be a "
                                         f"{' or '.join(spec.kinds)} question")
        if spec.values:
            offered = answer_values(question)
            if offered is None:
                raise DefinitionError(where, f"{qid!r} reads its options from the item (options_from); the rule needs "
                                             f"them declared (options:), with {', '.join(spec.values)}")
            missing = [v for v in spec.values if v not in offered]
            if missing:
                raise DefinitionError(where, f"{qid!r} must offer the answer{'s' if len(missing) > 1 else ''} "
                                             f"{', '.join(missing)} (it offers {', '.join(offered)})")
        if spec.check is not None and (problem := spec.check(question)) is not None:
            raise DefinitionError(where, f"{qid!r} {problem}")
        if qid in used:
            raise DefinitionError(where, f"{qid!r} is already bound to {used[qid]}; bind each question once")
        used[qid] = spec.key
        bound[spec.key] = question
    return bound


def _parameters(raw: Mapping[str, Any], path: str, wanted: Sequence[RuleParameter]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for spec in wanted:
        value = raw.get(spec.key, spec.default)
        where = join_path(path, spec.key)
        if isinstance(spec.default, bool):
            if not isinstance(value, bool):
                raise DefinitionError(where, f"must be true or false ({spec.what})")
        elif isinstance(value, bool) or not isinstance(value, (int, float)) or not spec.low <= value <= spec.high:
            raise DefinitionError(where, f"must be a number between {spec.low:g} and {spec.high:g} ({spec.what})")
        values[spec.key] = value
    return values
