"""A repeated named rule bound to a `repeat` group: `checks: [{rule: ruarg_consistency, group: claims, ...}]`.

Why: a rule that repeats its inputs (RuArg-2022's consistency checks, once per claim) can be bound claim by claim
(`claims: [{claim: masks, stance: masks_stance, ...}]`), which suits a definition that writes every claim's
questions out. A definition that asks them once per claim with a repeat group (docs/declared-repeat.md) has one
question per input for every claim; it names the group and binds each input to a question of the group:

    checks:
      - {rule: ruarg_consistency, group: claims, relevance: relevance, stance: stance, premise: premise}

The repeated inputs are then the group's elements: a label row's unit is the element (the claim), its field the
question's id, so the rule reads each element's answers from the rows of that unit (the rule's own code,
e.g. annotator/shared_tasks/ruarg2022/consistency_rule.py, sees `Bound.group`). Elements come from the
definition's list or from each item's own list alike.

This module checks the group side when the definition is read, each problem with its key path: the group exists,
is not given with the per-element list, and every bound input is a question of that group. The inputs' kinds and
answers are checked as every binding's are (named_rules._inputs). A question of a group bound one element at a
time is refused too: its label rows hold every element, so a per-element binding would mix them.
"""
from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import Any

from annotator.declared.definition import DefinitionError, Question, join_path
from annotator.declared.rule_base import NamedRule

GROUP = "group"     # the key of a check rule naming the repeat group it is bound to


def binds_group(entry: Mapping[str, Any], rule: NamedRule) -> bool:
    """Whether a `checks` entry binds a repeated rule to a repeat group (`group:`) rather than element by element."""
    return bool(rule.repeat) and GROUP in entry


def group_of_entry(entry: Mapping[str, Any], path: str, rule: NamedRule, questions: Sequence[Question]) -> str:
    """The id of the group a `checks` entry is bound to, once its keys and its questions' membership are checked."""
    keys = ("rule", GROUP, *(i.key for i in rule.inputs), *(p.key for p in rule.parameters))
    for key in entry:
        if key == rule.repeat:
            raise DefinitionError(join_path(path, str(key)), f"give the {rule.repeat} one by one ({rule.repeat}: "
                                                             f"[...]) or the repeat group asking them ({GROUP}: "
                                                             "<group id>), one of the two")
        if key not in keys:
            close = difflib.get_close_matches(str(key), keys, 1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise DefinitionError(join_path(path, str(key)), f"the {rule.name} rule bound to a group has no "
                                                             f"{str(key)[:40]!r}{hint}; its keys: {', '.join(keys)}")
    groups = list(dict.fromkeys(q.group for q in questions if q.group))
    gid = entry[GROUP]
    where = join_path(path, GROUP)
    if not isinstance(gid, str) or gid not in groups:
        shown = repr(gid[:40]) if isinstance(gid, str) else "that"
        if not groups:
            raise DefinitionError(where, f"{shown} is not a repeat group: the definition has none; bind the "
                                         f"{rule.repeat} one by one ({rule.repeat}: [{{{rule.repeat_name}: <name>, "
                                         "...}])")
        close = difflib.get_close_matches(gid, groups, 1) if isinstance(gid, str) else []
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise DefinitionError(where, f"{shown} is not a repeat group of the definition{hint}; its groups: "
                                     f"{', '.join(groups)}")
    own = [q.id for q in questions if q.group == gid]
    for spec in rule.inputs:
        qid = entry.get(spec.key)
        if qid is None or any(q.id == qid and q.group == gid for q in questions):
            continue   # left out (named_rules checks whether it may be) or a question of the group
        top = any(q.id == qid for q in questions)
        what = f"{qid[:40]!r} is asked once per item, not per element of group {gid!r}" if top else \
            f"{str(qid)[:40]!r} is not a question of group {gid!r}"
        raise DefinitionError(join_path(path, spec.key), f"{what}; name the {' or '.join(spec.kinds)} question of "
                                                         f"the group holding {spec.what} (its questions: "
                                                         f"{', '.join(own)})")
    return gid


def refuse_group_questions(bound: Mapping[str, Question], path: str, rule: NamedRule) -> None:
    """A question of a repeat group bound element by element (`claims: [{stance: stance}]`) is refused with the
    binding that reads it: its label rows hold every element's answer, which one element's binding would mix."""
    for key, question in bound.items():
        if question.group is not None:
            raise DefinitionError(join_path(path, key), f"{question.id!r} is asked once per element of group "
                                                        f"{question.group!r}; bind the group instead: {{rule: "
                                                        f"{rule.name}, {GROUP}: {question.group}, {key}: "
                                                        f"{question.id}, ...}}")
