"""Options counted together: a majority over groups of options, strict "more than half", and agreement figures
over merged options.

The KPA-2021 match check asks yes / no / faulty and decides a match "by majority vote", faulty counting as no
(Friedman et al., 2021, section 3.3.2). Said in the definition as the paper says it:

  gold: {rule: majority, strict: true, groups: {"no": ["no", faulty]}, ties: "no"}

`groups` maps an option to the options counted as it (the option itself may be listed or not); an option left
out of every group counts as itself. Gold is always one of the question's options (the group's name is one), so
controls, `when` conditions and the exports read it as any other answer; `when` compares that gold, so a child
asked `when: {verdict: faulty}` is not asked where "faulty" was counted as "no".

`strict: true` makes the majority "more than half": the top count wins only when twice it is more than the
number of annotators, compared as whole numbers (no float threshold: 51 of 100 wins, 50 of 100 does not, at
any n). Anything less, a tie included, gives `ties` (undecided unless it names an option). Without `strict` the
most given option (or group) wins, a tie of the first places gives `ties`, as before. The score is the winning
count / n either way.

An agreement figure over merged options is declared beside the question's own:

  agreement: {level: nominal, merged: {match: {"yes": ["yes"], no match: ["no", faulty]}}}

gives the field "verdict" (the three verdicts) and "verdict: match" (values "yes" / "no match"). A merged
figure's names are its own categories (they need not be options); options outside its groups stay themselves.
Its gold units (for comparing with Dawid-Skene) are the question's gold mapped the same way.

A figure pooled over several questions (RuArg-2022's "all labels", one alpha over each claim's label):

  agreement: {level: nominal, pooled: all_labels}      (on each question pooled)

gives the field "all_labels (pooled)" (no question's, option's or merged figure's field can be named so): the
rows of each pooled question's own field, a unit named "<question>: <unit>", so two questions about one item are
two units and their values one set of categories. Nominal choice, scale and pairwise questions only.

definition_checks.py calls `gold_parts`, `agreement_level`, `merged_part` and `pooled_part`; gold.py `unit_gold`;
agreement.py `merged_fields`, `merged_gold`, `pooled_fields` and `pooled_gold`; the data card `rule_words`.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from annotator.declared.definition import (
    IDENTIFIER,
    UNDECIDED,
    Definition,
    DefinitionError,
    GoldRule,
    Question,
    join_path,
)

if TYPE_CHECKING:
    import pandas as pd

    from annotator.declared.keys import Keys

GOLD_KEYS = ("strict", "groups")
AGREEMENT_KEYS = ("level", "merged", "pooled", "not_asked", "per_element")   # the last two: unasked.py
POOLED = " (pooled)"   # a pooled figure's field: "<name> (pooled)", which no question's or option's field can be
Groups = tuple[tuple[str, tuple[str, ...]], ...]


def _quote(value: str) -> str:
    return repr(value[:40])


def _groups(data: Any, path: str, options: tuple[str, ...], *, names_are_options: bool) -> Groups:
    """{name: [option, ...]} checked: members are options, each in one group; a name is an option when asked."""
    if not isinstance(data, dict) or not data:
        raise DefinitionError(path, 'must map a name to the options counted as it, e.g. {"no": ["no", faulty]}')
    found: list[tuple[str, tuple[str, ...]]] = []
    placed: dict[str, str] = {}
    for name, members in data.items():
        where = join_path(path, str(name))
        if not isinstance(name, str) or not name.strip() or len(name) > 100:
            raise DefinitionError(where, "a group's name must be text of at most 100 characters (quote \"yes\" and "
                                         "\"no\", which YAML reads as true/false)")
        if names_are_options and name not in options:
            raise DefinitionError(where, f"{_quote(name)} is not an option ({', '.join(options)}): gold is one of the "
                                         "question's options, so a group is named by the option the others count as")
        listed = members if isinstance(members, list) else [members]
        if not listed:
            raise DefinitionError(where, "must list the options counted as it")
        texts: list[str] = [name] if names_are_options else []
        for index, member in enumerate(listed):
            at = f"{where}[{index}]" if isinstance(members, list) else where
            if isinstance(member, bool) or not isinstance(member, (str, int, float)):
                raise DefinitionError(at, "must be an option's value (quote \"yes\" and \"no\", which YAML reads as "
                                          "true/false)")
            text = str(member)
            if text not in options:
                raise DefinitionError(at, f"{_quote(text)} is not an option ({', '.join(options)})")
            if text in placed and placed[text] != name:
                raise DefinitionError(at, f"{_quote(text)} is already counted as {_quote(placed[text])}; an option "
                                          "counts in one group only")
            if text not in texts:
                texts.append(text)
            placed[text] = name
        found.append((name, tuple(texts)))
    for name, _ in found:
        if names_are_options and placed.get(name, name) != name:
            raise DefinitionError(join_path(path, name), f"{_quote(name)} names a group and is counted in the group "
                                                         f"{_quote(placed[name])}; one or the other")
    return tuple(found)


def gold_parts(gold: Keys, question: Question) -> dict[str, Any]:
    """`strict` and `groups` of a majority rule, checked (the rule's other keys are definition_checks')."""
    parts: dict[str, Any] = {}
    if gold.has("strict"):
        if question.kind not in ("choice", "scale", "pairwise"):
            raise DefinitionError(gold.at("strict"), f"a {question.kind} question's majority is per option or word, "
                                                     "already more than half of the annotators; leave strict out")
        parts["strict"] = gold.flag("strict", False)
    if gold.has("groups"):
        if question.kind != "choice" or question.options_from is not None:
            raise DefinitionError(gold.at("groups"), "groups count options together: a choice question with its "
                                                     "options declared (options: [...]) can have them")
        parts["groups"] = _groups(gold.data["groups"], gold.at("groups"), question.option_values(),
                                  names_are_options=True)
    return parts


def agreement_level(keys: Keys, default: str) -> str:
    """The level of `agreement: nominal` or of `agreement: {level: nominal, merged: {...}}`."""
    raw = keys.data.get("agreement")
    if not isinstance(raw, dict):
        return keys.text("agreement", default)
    mapping = type(keys)(raw, keys.at("agreement"), AGREEMENT_KEYS, "a level or a mapping {level, merged}")
    return mapping.text("level", default)


def merged_part(keys: Keys, question: Question) -> tuple[tuple[str, Groups], ...]:
    """The merged agreement figures, {figure name: {category: [options]}}, as ((name, groups), ...)."""
    raw = keys.data.get("agreement")
    if not isinstance(raw, dict) or raw.get("merged") is None:
        return ()
    path = join_path(keys.at("agreement"), "merged")
    if question.kind != "choice" or question.options_from is not None:
        raise DefinitionError(path, "merged figures count options together: a choice question with its options "
                                    "declared (options: [...]) can have them")
    if question.agreement != "nominal":
        raise DefinitionError(path, "a merged figure is nominal (its categories have no order); declare it on a "
                                    "question whose agreement is nominal")
    figures = raw["merged"]
    if not isinstance(figures, dict) or not figures:
        raise DefinitionError(path, 'must map a figure\'s name to its groups, e.g. {match: {"yes": ["yes"], '
                                    'no_match: ["no", faulty]}}')
    found = []
    for name, groups in figures.items():
        where = join_path(path, str(name))
        if not isinstance(name, str) or not IDENTIFIER.match(name):
            raise DefinitionError(where, "a figure's name must be an id (lower-case letters, digits and _)")
        made = _groups(groups, where, question.option_values(), names_are_options=False)
        if all(len(members) < 2 for _, members in made):
            raise DefinitionError(where, "merges nothing: list two or more options in a group")
        found.append((name, made))
    return tuple(found)


def pooled_part(keys: Keys, question: Question) -> str | None:
    """The name of the figure over several questions that this question's answers are pooled into, if any."""
    raw = keys.data.get("agreement")
    if not isinstance(raw, dict) or raw.get("pooled") is None:
        return None
    path = join_path(keys.at("agreement"), "pooled")
    name = raw["pooled"]
    if not isinstance(name, str) or not IDENTIFIER.match(name):
        raise DefinitionError(path, "must be a figure's name, an id (lower-case letters, digits and _), the same on "
                                    "every question pooled into it")
    if question.kind not in ("choice", "scale", "pairwise") or question.agreement != "nominal":
        raise DefinitionError(path, "a pooled figure is nominal over one answer per unit: choice, scale and pairwise "
                                    "questions whose agreement is nominal (a scale: write level: nominal)")
    return name


def held_for_pool(frame: pd.DataFrame) -> pd.DataFrame:
    """A pooled question's field as agreement_fields holds it until the pooled field is made: its unit names as
    codes of the distinct names (a categorical), not a text object per row, so the field itself can be let go once
    its figures are read. At a million labels RuArg-2022's stance field is held so while its premise field is made,
    the step at which the votes and model groups peak: some 4-10 MB less peak RSS measured
    (bench/results/2026-11-29-kept-figures-memory.md). The other columns are the field's own (not copied);
    `pooled_fields` gives the same names as from the field itself."""
    import pandas as pd

    if frame.empty or frame["unit"].isna().any():   # no names to code (codes would lose a missing one)
        return frame
    held = pd.DataFrame({column: frame[column].astype("category") if column == "unit" else frame[column]
                         for column in frame.columns}, index=frame.index)
    held.attrs = dict(frame.attrs)
    return held


def pooled_fields(definition: Definition, fields: Mapping[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """Each pooled figure, "<name> (pooled)": the rows of its questions' fields, a unit named
    "<question>: <unit>" so that two questions' answers about one item are two units, their values pooled."""
    import pandas as pd

    pools: dict[str, list[pd.DataFrame]] = {}
    for question in definition.questions:
        if question.pooled is not None and question.id in fields:
            own = fields[question.id]
            # the question's frame with its units renamed, its other columns not copied first (as .copy() did)
            frame = pd.DataFrame({column: _pooled_units(question.id, own["unit"]) if column == "unit"
                                  else own[column] for column in own.columns}, index=own.index)
            frame.attrs = dict(own.attrs)
            pools.setdefault(question.pooled, []).append(frame)
    return {name + POOLED: pd.concat(frames) for name, frames in pools.items()}


def _pooled_units(question_id: str, units: pd.Series) -> pd.Series:
    """"<question>: <unit>" for each row, as text objects (an object column, as from the field's own names)."""
    import numpy as np
    import pandas as pd

    if isinstance(units.dtype, pd.CategoricalDtype):   # held_for_pool's codes: each name made once
        names = np.array([f"{question_id}: {name}" for name in units.cat.categories.astype(str)], dtype=object)
        return pd.Series(names[units.cat.codes.to_numpy()], index=units.index, name=units.name, dtype=object)
    return question_id + ": " + units.astype(str)


def pooled_gold(definition: Definition, found: Mapping[str, pd.Series]) -> dict[str, pd.Series]:
    """Each pooled figure's gold units: its questions' decided gold, units named as in `pooled_fields`."""
    import pandas as pd

    pools: dict[str, list[pd.Series]] = {}
    for question in definition.questions:
        if question.pooled is not None and question.id in found:
            series = found[question.id]
            pools.setdefault(question.pooled, []).append(
                pd.Series(series.to_numpy(), index=[f"{question.id}: {n}" for n in series.index], dtype=object))
    return {name + POOLED: pd.concat(parts) for name, parts in pools.items()}


def never_gold(question: Question) -> set[str]:
    """Options a grouped majority never gives (each counts as its group's option), unless `ties` names one: the
    admin's summary leaves them out rather than list them at 0."""
    rule = question.gold
    if rule is None or rule.rule != "majority":
        return set()
    return {m for name, members in rule.groups for m in members if m != name} - {rule.ties}


def _merging(groups: Groups) -> dict[str, str]:
    return {member: name for name, members in groups for member in members}


def unit_gold(question: Question, counts: Mapping[str, int], n: int) -> tuple[str, float] | None:
    """A majority with `strict` or `groups` over one unit's counts; None when the rule is not one of these."""
    rule = question.gold
    if rule is None or rule.rule != "majority" or not (rule.strict or rule.groups):
        return None
    return grouped_majority(rule, counts, n)


def grouped_majority(rule: GoldRule, counts: Mapping[str, int], n: int) -> tuple[str, float]:
    """Counts merged by `rule.groups`; the top one wins (strict: only when 2 x count > n), else `rule.ties`."""
    if not counts or n == 0:
        return UNDECIDED, float("nan")
    merging = _merging(rule.groups)
    merged: Counter[str] = Counter()
    for value, count in counts.items():
        merged[merging.get(value, value)] += count
    top = max(merged.values())
    winners = [value for value, count in merged.items() if count == top]
    decided = len(winners) == 1 and (not rule.strict or 2 * top > n)
    return (winners[0] if decided else rule.ties), top / n


def merged_fields(question: Question, frame: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The question's merged agreement figures, "<question>: <figure>", from its (unit, coder, value) frame."""
    fields = {}
    for name, groups in question.merged:
        merging = _merging(groups)
        merged = frame.copy()
        merged["value"] = frame["value"].map(lambda value, m=merging: m.get(value, value))
        fields[f"{question.id}: {name}"] = merged
    return fields


def merged_gold(question: Question, gold: pd.Series) -> dict[str, pd.Series]:
    """Each merged figure's gold units: the question's decided gold mapped into the figure's categories."""
    found = {}
    for name, groups in question.merged:
        merging = _merging(groups)
        found[f"{question.id}: {name}"] = gold.map(lambda value, m=merging: m.get(value, value))
    return found


def rule_words(question: Question) -> str | None:
    """The data card's words for a majority with `strict` or `groups`, or an ordinal choice's median; else None."""
    rule = question.gold
    if rule is None or question.kind != "choice" and not rule.strict:
        return None
    ties = "undecided" if rule.ties == UNDECIDED else f"{rule.ties!r}"
    if rule.rule == "median":
        order = " < ".join(question.option_values())
        return (f"median: the middle answer in the order {order}; with an even count whose two middle answers "
                "differ, undecided")
    if rule.rule != "majority" or not (rule.strict or rule.groups):
        return None
    counted = "; ".join(f"{', '.join(repr(m) for m in members if m != name)} counted as {name!r}"
                        for name, members in rule.groups if any(m != name for m in members))
    what = "the answer given by more than half of the annotators" if rule.strict else "the answer most annotators gave"
    return f"majority: {what}{f' ({counted})' if counted else ''}; otherwise {ties}" if rule.strict else \
        f"majority: {what}{f' ({counted})' if counted else ''}; a tie gives {ties}"
