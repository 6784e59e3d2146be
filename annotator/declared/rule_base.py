"""What a named rule declares: a rule a shared task's paper needs that the definition format cannot express.

Why: a declared campaign's gold rules (majority, share, agree, ...) look at one question at a time. Some papers'
rules read several questions of an item at once (ReCAM keeps a question by the chosen option, both evidence spans
and the difficulty) or check several questions against each other (RuArg-2022's stance and premise of one claim).
A shared task contributes such a rule as a `NamedRule` in its `SharedTask(rules=...)`; a definition uses it by
name and binds the rule's inputs to its own questions (annotator/declared/named_rules.py reads and checks that,
docs/declared-named-rules.md documents it). The rule's code is the built-in HIT type's own pure code, called on
label rows converted to that type's shape, so a declared campaign and the built-in type decide alike.

Two uses:
  gold    on a question: `gold: {rule: <name>, <input>: <question id>, ..., <parameter>: value}`; the rule gives
          that question's gold rows (`GoldRow`, the columns of annotator/declared/gold.py);
  checks  at the definition's top level: `checks: [{rule: <name>, ...}]`; the rule gives consistency checks
          (tasks.base.Check) shown with the project's gold, like the built-in types' `checks`.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    import pandas as pd

    from annotator.core.hit_values import Check
    from annotator.declared.definition import Question

GoldRow = tuple[str, str, str, Any, int, float, str]   # item, question, unit, gold, n, score, votes


@dataclass(frozen=True)
class RuleInput:
    """A question the rule reads, bound by `key` in the definition (`passage_span: evidence`).

    `kinds` are the question kinds it may be; `values` answers it must offer (a choice's options: ReCAM's rule c
    needs "easy"); an input that is not `required` may be left out. `check`, when given, says what is wrong with a
    question of the right kind that the rule still cannot read (None when it can): a `spans` question marking
    several stretches cannot be one evidence span.
    """

    key: str
    kinds: tuple[str, ...]
    what: str
    values: tuple[str, ...] = ()
    required: bool = True
    check: Callable[[Question], str | None] | None = None


@dataclass(frozen=True)
class RuleParameter:
    """A setting of the rule written beside its inputs (`min_accuracy: 0.4`): a number between `low` and `high`,
    or true / false when `default` is a bool."""

    key: str
    default: float | bool
    what: str
    low: float = 0.0
    high: float = 1.0


@dataclass(frozen=True)
class Bound:
    """A rule as one definition uses it, checked: the questions bound to its inputs, and its parameters.

    `question` is the question whose gold a gold rule gives (None for checks); `inputs` maps each bound input's
    key to its question (a gold rule's carrier too, under `carrier_key`). `groups` are the repeated inputs
    (`repeat`, e.g. RuArg's claims): (the group's name, {input key: question}) in the definition's order.
    A repeated rule bound to a `repeat` group of the definition instead (`group: claims`) has that group's id as
    `group`, `inputs` holding the group's questions and no `groups`: the repeated inputs are the group's elements,
    the unit of the questions' label rows and gold rows (annotator/declared/rule_groups.py).
    """

    rule: NamedRule
    question: Question | None
    inputs: Mapping[str, Question]
    parameters: Mapping[str, Any]
    groups: tuple[tuple[str, Mapping[str, Question]], ...] = ()
    group: str | None = None


@dataclass(frozen=True)
class NamedRule:
    """A rule a definition can name.

    A `gold` rule is written on the question it decides, whose kind is one of `carrier` (the question itself is
    input `carrier_key`); `gold(bound, labels, references)` gives its gold rows from the project's label rows
    (declared answers' shape) and the items' reference answers ({item: {question id: answer}}).
    A `checks` rule is written under the top-level `checks`; `checks(bound, labels, gold, references)` gives
    tasks.base.Check rows. With `repeat`, the inputs are bound once per entry of a list under that key, each
    named by `repeat_name` (RuArg: `claims: [{claim: masks, stance: masks_stance, ...}]`).
    `needs(bound)` gives the keys of the inputs an annotation must answer for the rule to use it at all (an answer
    left empty there is dropped by the rule), so the declared HIT asks before such an answer is submitted.
    """

    name: str
    title: str
    paper: str
    used_as: Literal["gold", "checks"]
    inputs: tuple[RuleInput, ...]
    parameters: tuple[RuleParameter, ...] = ()
    carrier: tuple[str, ...] = ()
    carrier_key: str = ""
    repeat: str | None = None
    repeat_name: str = "name"
    gold: Callable[[Bound, pd.DataFrame, Mapping[str, Any]], list[GoldRow]] | None = None
    checks: Callable[[Bound, pd.DataFrame, pd.DataFrame, Mapping[str, Any]], list[Check]] | None = None
    needs: Callable[[Bound], tuple[str, ...]] | None = None
    keys: tuple[str, ...] = field(init=False, default=())

    def __post_init__(self) -> None:
        if (self.used_as == "gold") != (self.gold is not None) or (self.used_as == "checks") != \
                (self.checks is not None):
            raise ValueError(f"named rule {self.name!r}: a {self.used_as} rule gives {self.used_as}, and only that")
        if self.used_as == "gold" and (not self.carrier or not self.carrier_key or self.repeat):
            raise ValueError(f"named rule {self.name!r}: a gold rule names the kinds of question it is written on "
                             "(carrier, carrier_key) and repeats nothing")
        own = ("rule", *((self.repeat,) if self.repeat else (i.key for i in self.inputs)),
               *(p.key for p in self.parameters))
        object.__setattr__(self, "keys", own)
