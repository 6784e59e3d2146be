"""Agreement that counts "not asked" as a value, and one agreement figure per element of a `repeat` group.

A question shown only `when` an earlier answer calls for it has no label row from the annotators that answer hid
it from. That is right for gold (only those asked decide it; where the parent's gold hides it, its gold is n/a) and
for most agreement figures (a figure over those who answered). Some campaigns count it as a class of its own:
RuArg-2022 reports one Krippendorff's alpha over each claim's stance and premise where "irrelevant" is one of the
values (Kotelnikov et al., Dialogue 2022, sections 3.2 and 3.4), so two annotators who both found a claim
irrelevant agree on its stance. Said in the definition, on the question:

    agreement: {level: nominal, not_asked: irrelevant}

Each vote whose answers hid the question (its `when` not met by that vote's answers: for a group's question, by
the same element's answers) adds one row to the question's agreement frame with the value "irrelevant"; figures
pooled from the question (`pooled`) and its figures per element read the same rows. Gold does not change: the
rows are agreement's only. A vote that was shown the question and left it out (not `required`) adds nothing: it
was asked. The gold units (Dawid-Skene's comparison) read the question's n/a gold as that value, as the figure's
units count it.

    agreement: {per_element: true}        (a question of a `repeat` group)

adds one figure per element after the question's own (pooled over elements): "<question> / <element id>" (a field
no question's, option's, merged or pooled figure's name can be: those never hold " / "), whose units are the items
("<item> / <element id>"): RuArg's "masks stance", "quarantine stance", ... Declared elements in their order, an
item field's elements in the order they are first met in the votes.

definition_checks.py calls `not_asked_part` and `per_element_part`, definition_reader.py `refuse_outside_group`;
agreement.py `with_unasked`, `element_fields` and `element_gold`; words.py `field_question`; the data card
`card_words`.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from annotator.declared.asked import group_of
from annotator.declared.definition import (
    UNDECIDED,
    Definition,
    DefinitionError,
    Question,
    answer_values,
    join_path,
)
from annotator.declared.keys import Keys, plain_text

if TYPE_CHECKING:
    import pandas as pd

KEYS = ("not_asked", "per_element")
ELEMENT = " / "          # "<question> / <element id>": the field of a question's figure on one element
SINGLE = ("choice", "scale")   # one answer per unit, so "not asked" is one more value of it
READ = ("item", "unit", "value", "user_id")   # the label rows' columns a field with `not_asked` is made of


def _raw(keys: Keys) -> dict[str, Any] | None:
    raw = keys.data.get("agreement")
    return raw if isinstance(raw, dict) else None


def not_asked_part(keys: Keys, question: Question, earlier: Sequence[Question]) -> str | None:
    """The value `agreement.not_asked` names, checked: a question with `when`, one answer per unit, nominal, and
    a value that is none of its answers."""
    raw = _raw(keys)
    if raw is None or raw.get("not_asked") is None:
        return None
    path = join_path(keys.at("agreement"), "not_asked")
    value = plain_text(raw["not_asked"], path, 100, "the name of a value (text, e.g. irrelevant)")
    if not value.strip():
        raise DefinitionError(path, "must not be blank: it is the value counted for each annotator the question "
                                    "was not asked of")
    if value == UNDECIDED:
        raise DefinitionError(path, f"{value!r} is what gold says when it is not decided; name the value otherwise "
                                    "(irrelevant, n/a)")
    if not question.when:
        raise DefinitionError(path, "counts the annotators whose answers hid this question (its `when`); this "
                                    "question has no `when`, so everyone is asked it: leave not_asked out")
    if question.kind not in SINGLE:
        raise DefinitionError(path, "a not-asked value is one more answer of a question with one answer per unit: "
                                    "choice and scale questions")
    if question.agreement != "nominal":
        raise DefinitionError(path, "a not-asked value has no place in the answers' order: nominal agreement only "
                                    "(a scale: write level: nominal)")
    for parent_id, _ in question.when:
        parent = next((q for q in earlier if q.id == parent_id), None)
        if parent is not None and parent.kind == "pairwise":
            raise DefinitionError(path, f"whether {question.id} was shown depends on the pairwise question "
                                        f"{parent_id!r}, whose label rows are in the item's terms, not in those the "
                                        "annotator saw: who was not asked cannot be read from them")
    answers = answer_values(question) or ()
    if value in answers:
        raise DefinitionError(path, f"{value[:40]!r} is an answer of {question.id} ({', '.join(answers)}); the "
                                    "not-asked value is a value of its own: name it apart (irrelevant, n/a)")
    return value


def per_element_part(keys: Keys, question: Question) -> bool:
    """`agreement.per_element`, true or false (whether the question is in a group is the reader's check)."""
    raw = _raw(keys)
    if raw is None or raw.get("per_element") is None:
        return False
    value = raw["per_element"]
    if not isinstance(value, bool):
        raise DefinitionError(join_path(keys.at("agreement"), "per_element"),
                              f"must be true or false, not {value!r}"[:200])
    return value


def refuse_outside_group(question: Question, path: str) -> None:
    """A top-level question has no elements: `per_element` is for the questions of a `repeat` group."""
    if question.per_element and question.group is None:
        raise DefinitionError(join_path(join_path(path, "agreement"), "per_element"),
                              "gives one figure per element of a repeat group; this question is asked once per "
                              "item, not per element: leave per_element out or move the question into a group")


# --- agreement rows -----------------------------------------------------------------------------------------

def with_unasked(definition: Definition, question: Question, labels: pd.DataFrame,
                 rows: pd.DataFrame) -> pd.DataFrame:
    """The question's label rows (`rows`, with all of the label rows' columns or some of them) and, with `not_asked`,
    one row of that value for each vote whose answers hid the question, in the label rows' order.

    Each added row takes the index of the first label row of its vote (of its element, in a group): that row is
    another question's, so the index stays unique in the frame and still tells the vote's item (the per-item
    agreement reads it).

    Computed on columns, not row by row: at a million labels (RuArg-2022's project) a dictionary of each vote's
    answers cost some 400 MB of small objects for each question with `not_asked`, which the kept figures'
    computation paid several times over (bench/results/2026-11-28-kept-figures-memory.md). A vote (with its
    element) is a key (numbered by np.unique); whether its answers show the question is asked.is_shown's
    test on the columns: a single answer's last value given (a later row of the same answer overwrote an earlier
    one), a multi question's options ticked ("1")."""
    import numpy as np
    import pandas as pd

    if question.not_asked is None or labels.empty:
        return rows
    in_scope = [q for q in definition.questions if q.group == question.group]
    multi = {q.id for q in in_scope if q.kind == "multi"}
    per_element = question.group is not None
    # The scope's rows as positions in `labels`, its columns read through them: a copy of the scope (all of a
    # group's label rows: RuArg-2022's every row) and its fields as a text object per row held some 200 MB at a
    # million labels, twice (stance, premise) in each kept-figures group (2026-11-29-kept-figures-memory.md).
    at = np.flatnonzero(labels["field"].isin([q.id for q in in_scope]).to_numpy())
    if not len(at):
        return rows
    field_codes, field_names = pd.factorize(labels["field"])
    code_of = {name: code for code, name in enumerate(field_names)}
    fields = field_codes[at]
    del field_codes
    votes = labels["assignment_id"].to_numpy()[at]
    if per_element:   # a key per (vote, element): the element's code beside the vote's
        elements = pd.factorize(labels["unit"], use_na_sentinel=False)[0][at]
        _, first, keys = np.unique(votes * np.int64(elements.max() + 1) + elements, return_index=True,
                                   return_inverse=True)   # numbered in the keys' order (a sort, not a hash table)
        del elements
    else:
        _, first, keys = np.unique(votes, return_index=True, return_inverse=True)
    del votes
    count = int(keys.max()) + 1
    answered = np.zeros(count, dtype=bool)
    answered[keys[fields == code_of.get(question.id, -2)]] = True
    shown = np.ones(count, dtype=bool)
    for parent, wanted in question.when:
        wanted_text = [w for w in wanted if isinstance(w, str)]   # given values are text: nothing else matches
        of_parent = fields == code_of.get(parent, -2)
        given = np.zeros(count, dtype=bool)
        if parent in multi:   # any option ticked that the `when` names
            ticked = (of_parent & (labels["value"] == "1").to_numpy()[at]
                      & labels["unit"].astype(str).isin(wanted_text).to_numpy()[at])
            given[keys[ticked]] = True
        else:   # the last value given
            of = np.flatnonzero(of_parent)
            last = np.full(count, -1, dtype=np.int64)
            np.maximum.at(last, keys[of], of)
            has = last >= 0
            given[has] = labels["value"].iloc[at[last[has]]].astype(str).isin(wanted_text).to_numpy()
        shown &= given
    # `first`: each key's first row
    del keys, fields
    hidden = at[np.sort(first[~answered & ~shown])]   # in the rows' order
    del at, first
    if not len(hidden):
        return rows
    picked = labels.iloc[hidden]
    extra = pd.DataFrame({"item": picked["item"].array,
                          "unit": picked["unit"].array if per_element else question.id,
                          "field": question.id, "value": question.not_asked,
                          "user_id": picked["user_id"].to_numpy(), "assignment_id": picked["assignment_id"].to_numpy()},
                         index=picked.index)
    extra = extra[[column for column in extra.columns if column in rows.columns]]   # the columns `rows` has
    # What pd.concat([rows, extra]).sort_index(kind="stable") gives, made a column at a time: the whole concatenated
    # frame and its ordered copy were both held at once.
    order = np.argsort(np.concatenate([rows.index.to_numpy(), extra.index.to_numpy()]), kind="stable")
    index = pd.concat([rows.index.to_series(), extra.index.to_series()]).index[order]
    columns = {}
    for column in rows.columns:
        joined = pd.concat([rows[column], extra[column]]) if column in extra.columns else \
            pd.concat([rows[[column]], extra.iloc[:, :0]])[column]
        columns[column] = pd.Series(joined.array.take(order), index=index, name=column)
        del joined
    return pd.DataFrame(columns, columns=rows.columns, copy=False)


def element_order(definition: Definition, question: Question, units: Iterable[Any]) -> list[str]:
    """The elements a per-element question has figures for: the group's declared ones in order, then any other
    the rows name in the order first met (an item field's elements)."""

    declared = [e.id for e in group_of(definition, question.group).elements] if question.group else []
    met = dict.fromkeys(str(unit) for unit in units)
    return [e for e in declared if e in met] + [e for e in met if e not in declared]


def element_fields(definition: Definition, question: Question, frame: pd.DataFrame,
                   units: pd.Series) -> Iterator[tuple[str, pd.DataFrame]]:
    """With `per_element`, "<question> / <element>": the rows of the question's frame about that element (`units`
    holds each frame row's element, aligned with it), one field after another. The elements are compared as codes
    of their texts, not as a text object per row (some 30 MB for a RuArg-2022 field at a million labels)."""
    import numpy as np
    import pandas as pd

    if not question.per_element or frame.empty:
        return
    codes, names = pd.factorize(units.astype(str), use_na_sentinel=False)
    names = np.array(list(names), dtype=object)
    for element in element_order(definition, question, names):
        part = frame[(names == element)[codes]].copy()
        part.attrs.update(frame.attrs)
        yield f"{question.id}{ELEMENT}{element}", part
        del part


# --- gold units ---------------------------------------------------------------------------------------------

def element_gold(definition: Definition, question: Question,
                 kept: Sequence[tuple[str, str, str | None]]) -> dict[str, pd.Series]:
    """Each per-element figure's gold units from the question's (unit name, element, value) entries."""
    import pandas as pd

    if not question.per_element:
        return {}
    found = {}
    for element in element_order(definition, question, (unit for _, unit, _ in kept)):
        mine = [(name, value) for name, unit, value in kept if unit == element and value is not None]
        found[f"{question.id}{ELEMENT}{element}"] = pd.Series([v for _, v in mine], index=[n for n, _ in mine],
                                                              dtype=object)
    return found


def field_question(field: str) -> str:
    """The question a field belongs to: "<question> / <element>" is its question's."""
    return field.split(ELEMENT, 1)[0]


def card_words(question: Question) -> str | None:
    """The data card's words for the question's agreement keys of this module, or None."""
    parts = []
    if question.not_asked is not None:
        parts.append(f"an annotator not asked it (its `when` not met) counts as answering {question.not_asked!r}")
    if question.per_element:
        parts.append(f"one figure per element as well ({question.id}{ELEMENT}<element id>)")
    return "; ".join(parts) if parts else None

