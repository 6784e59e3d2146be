"""Agreement fields of a declared campaign: per question, the (unit, coder, value) frames agreement.py measures.

One field per question, named by its id, in the definition's order (the first is the headline):
  choice, pairwise   nominal, the value given
  scale              the question's `agreement` level; ordinal and interval carry attrs level and order (every
                     point of the scale, lowest first: the points are evenly spaced, so the interval alpha of
                     their positions is that of their values)
  multi              the pooled field (every option of every item, "1" ticked / "0" not), then with declared
                     options one field per option, "<question>: <option>"
  span               every word of every item, "1" selected / "0" not; with `boundaries`, then "<question>.bio":
                     every word's tag B / I / O (boundaries.py)
  spans              every word (every character, `edges: characters`) of every item, its label or "O" (spans.py;
                     the span rows are left out); with `attributes`, then "<question>.<attribute>": every span
                     marked, the value each annotator who marked it gave (span_attributes.py)
  ranking            every option of every item, its rank "1" .. "n" at the question's level (ordinal by default),
                     with a `block` column naming the item: Kendall's W is per item (ranking.py,
                     annotator/analysis/concordance.py)
  best_worst         every member of every tuple, "1" best, "-1" worst, "0" neither (ordinal by default: -1 < 0 <
                     1), with an `object` column naming the member: the split-half reliability of the scores
                     (best_worst.py, annotator/analysis/split_half.py)
  extractive         every item, the exact answer ("<start>:<end>" or "unanswerable"), nominal, with a column
                     `answer_text` (the stretch's text, None for unanswerable): exact match and token F1 between
                     annotators (extractive.py, annotator/analysis/answer_match.py)
  distribution       every option of every item, its share "0" .. total, interval by default (distribution.py)
  pairwise, graded   the collapsed A / B / equal as any pairwise question, and "<question>.grade": the signed
                     grade "-3" .. "3", ordinal (graded.py)
  relations          every item, the whole set of relations each annotator of its spans question gave ("none" for
                     none), nominal, with a column `relation_set`: relation F1 between annotators, pooled
                     (relations.py, annotator/analysis/relation_match.py)
  text               none (free text is not compared)
With `agreement: {not_asked: <value>}` a question's field also holds that value for each vote its `when` hid it
from, and with `per_element: true` a group's question has one more field per element, "<question> / <element>"
(unasked.py).
A unit is named "<item> / <label unit>" (as the key-point match HIT does), so names are unique across items.
Rows keep the label rows' index, so each can be traced back to its item.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from annotator.declared import (
    best_worst,
    boundaries,
    distribution,
    extractive,
    graded,
    groups,
    option_values,
    ranking,
    relations,
    rules,
    span_attributes,
    spans,
    unasked,
)
from annotator.declared.definition import NOT_ASKED, UNDECIDED, Definition, Question, number_text

if TYPE_CHECKING:
    import pandas as pd

ANSWER_TEXT = "answer_text"   # the column analysis/answer_match.py reads (analysis lies above this layer)
RELATION_SET = "relation_set"   # the column analysis/relation_match.py reads
DISTRIBUTION_ITEM, DISTRIBUTION_OPTION = "distribution_item", "distribution_option"   # analysis/distribution_match.py


def agreement_units(definition: Definition, labels: pd.DataFrame,
                    first_only: bool = False) -> dict[str, pd.DataFrame]:
    """The fields in the module docstring's order; `first_only`: the first (the headline) alone, the others not made
    (TaskType.headline_units)."""
    fields: dict[str, pd.DataFrame] = {}
    for name, frame in agreement_fields(definition, labels):
        fields[name] = frame
        if first_only:
            break
    return fields


def agreement_fields(definition: Definition, labels: pd.DataFrame) -> Iterator[tuple[str, pd.DataFrame]]:
    """(name, frame) of each field, one after another in agreement_units' order, each made when the one before it
    is done with: a caller that lets each go before taking the next holds one field at a time (and the pooled
    questions' own frames, which the pooled fields, last, are made of). At a million labels RuArg-2022's ten fields
    held together some 190 MB, made at once for figures that read one field at a time
    (bench/results/2026-11-29-kept-figures-memory.md)."""
    import pandas as pd

    pooled: dict[str, pd.DataFrame] = {}   # the pooled questions' own fields, for groups.pooled_fields
    for question in definition.questions:
        if question.kind == "text":
            continue
        if question.kind == "relations":   # one row per vote, its whole set; annotators from the spans question
            frame = _relation_frame(question, labels)
            if question.pooled is not None:
                pooled[question.id] = frame
            yield question.id, frame
            continue
        mine = (labels["field"] == question.id).to_numpy()
        # A question with `not_asked` (choice, scale) is read as item, unit, value and annotator only, the columns
        # its field is made of: with_unasked adds rows to them and puts them in order, at a million labels some
        # 40 MB less than with every column of the label rows (2026-11-29-kept-figures-memory.md).
        rows = labels.loc[mine, list(unasked.READ)] if question.not_asked is not None else labels[mine]
        del mine
        if question.kind == "spans":
            rows = spans.word_rows(rows)   # per word: its label or "O"; the span rows are gold's
        rows = unasked.with_unasked(definition, question, labels, rows)   # `not_asked`: a value of those not asked
        frame = pd.DataFrame({"unit": _names(rows["item"], rows["unit"]), "coder": rows["user_id"],
                              "value": rows["value"].astype(str)}, index=rows.index)
        if question.kind == "scale" and question.agreement in ("ordinal", "interval"):
            frame.attrs.update(level=question.agreement, order=scale_order(question))
        if (order := option_values.ordinal_order(question)) is not None:   # an ordinal choice
            frame.attrs.update(level="ordinal", order=order)
        if question.kind == "extractive":   # the texts, for exact match and token F1 (analysis/answer_match.py)
            frame[ANSWER_TEXT] = pd.Series(extractive.answer_texts(question, labels, rows), index=rows.index,
                                           dtype=object)
        if question.kind == "ranking":
            frame[ranking.BLOCK] = rows["item"].astype(str)
            if question.agreement in ("ordinal", "interval"):
                frame.attrs.update(level=question.agreement, order=ranking.rank_order(question))
        if question.kind == "best_worst":
            frame[best_worst.OBJECT] = rows["unit"].astype(str)
            frame.attrs.update(seed=question.best_worst.seed if question.best_worst else 0)
            if question.agreement in ("ordinal", "interval"):
                frame.attrs.update(level=question.agreement, order=best_worst.value_order())
        if question.kind == "distribution":   # each row's item and option, for the distributions' distance
            frame[DISTRIBUTION_ITEM], frame[DISTRIBUTION_OPTION] = rows["item"].astype(str), rows["unit"].astype(str)
            frame.attrs.update(total=question.total)
            if question.agreement in ("ordinal", "interval"):
                frame.attrs.update(level=question.agreement, order=distribution.share_order(question))
        if question.pooled is not None:   # held for the pooled field with its unit names as codes (groups.py)
            pooled[question.id] = groups.held_for_pool(frame)
        row_units = rows["unit"]   # each row's unit, all that is read of the rows from here on
        del rows
        yield question.id, frame
        yield from graded.agreement_fields(question, labels, _names).items()   # "<id>.grade": the signed grades
        yield from boundaries.agreement_fields(question, labels, _names).items()   # "<id>.bio": the three tags
        for name in span_attributes.agreement_fields(question):   # "<id>.<attribute>": per span marked
            given = labels[labels["field"] == name]
            yield name, pd.DataFrame({"unit": _names(given["item"], given["unit"]), "coder": given["user_id"],
                                      "value": given["value"].astype(str)}, index=given.index)
        yield from groups.merged_fields(question, frame).items()   # agreement over merged options (groups.py)
        yield from unasked.element_fields(definition, question, frame, row_units)   # `per_element`
        if question.kind == "multi":
            for option in question.option_values():
                yield f"{question.id}: {option}", frame[(row_units == option).to_numpy()]
        del frame, row_units
    del labels   # not read again: a caller that has let go of the label rows holds the pooled fields without them
    made = groups.pooled_fields(definition, pooled)   # figures over several questions (groups.py)
    pooled.clear()   # their questions' frames let go before the pooled fields are read
    while made:
        name = next(iter(made))
        yield name, made.pop(name)


def _relation_frame(question: Question, labels: pd.DataFrame) -> pd.DataFrame:
    """A relations question's field: unit "<item> / <question>", each vote's set of relations as its value (sorted,
    "; " between them, "none" for none) and as `relation_set` (relations.answer_sets)."""
    import pandas as pd

    found = relations.answer_sets(question, labels)
    index = pd.Index([at for at, _, _, _ in found], dtype=labels.index.dtype)
    frame = pd.DataFrame({"unit": pd.Series([f"{item} / {question.id}" for _, item, _, _ in found], index=index,
                                            dtype=object),
                          "coder": pd.Series([user for _, _, user, _ in found], index=index,
                                             dtype=labels["user_id"].dtype),
                          "value": pd.Series(["; ".join(sorted(given)) or "none" for _, _, _, given in found],
                                             index=index, dtype=object)})
    frame[RELATION_SET] = pd.Series([given for _, _, _, given in found], index=frame.index, dtype=object)
    return frame


def scale_order(question: Question) -> list[str]:
    return [number_text(v) for v in question.scale_values()]


def _names(items: pd.Series, units: pd.Series) -> pd.Series:
    return items.astype(str) + " / " + units.astype(str)


def gold_units(definition: Definition, gold: pd.DataFrame) -> dict[str, pd.Series]:
    """Per agreement field, the decided gold of its units in the field's values (undecided and n/a left out; n/a
    is the question's not-asked value where it has one, as its field counts it).

    A choice's share gold is its `value` or the other option when there are two ("not <value>" is left out); a
    median or mean between two points of the scale is left out; a span word's probability counts as selected
    above 0.5, as the emphasis HIT's does.
    """
    import pandas as pd

    found: dict[str, pd.Series] = {}
    for question in definition.questions:
        if question.gold is None:
            continue
        rows = gold[gold["question"] == question.id] if not gold.empty else gold
        if question.kind == "spans":
            found[question.id] = spans.gold_units(rows)
            continue
        if question.kind in ("distribution", "relations"):   # mean shares, relations: no one vote's value
            found[question.id] = pd.Series(dtype=object)
            continue
        kept = [(f"{item} / {unit}", str(unit), _as_value(question, value))
                for item, unit, value in zip(rows["item"], rows["unit"], rows["gold"])] if not rows.empty else []
        kept = [entry for entry in kept if entry[2] is not None]
        found[question.id] = pd.Series([v for _, _, v in kept], index=[n for n, _, _ in kept], dtype=object)
        found.update(groups.merged_gold(question, found[question.id]))
        found.update(unasked.element_gold(definition, question, kept))   # `per_element` (unasked.py)
        if question.kind == "multi":
            for option in question.option_values():
                chosen = [(n, v) for n, unit, v in kept if unit == option]
                found[f"{question.id}: {option}"] = pd.Series([v for _, v in chosen], index=[n for n, _ in chosen],
                                                              dtype=object)
    found.update(groups.pooled_gold(definition, found))
    return found


def _as_value(question: Question, gold: object) -> str | None:
    """A unit's gold as the value its agreement field uses, or None when it is not one of them."""
    if gold == NOT_ASKED:
        return question.not_asked   # the value agreement counts for those not asked (unasked.py), or left out
    if gold == UNDECIDED:
        return None
    assert question.gold is not None
    rule = question.gold.rule
    if question.kind == "span" and rule == "probability":
        return rules.TICKED if float(str(gold)) > 0.5 else rules.NOT_TICKED
    if question.kind == "choice" and rule == "share":
        return str(gold) if str(gold) in question.option_values() else None  # "not <value>" is no one option
    if question.kind == "scale":
        return str(gold) if str(gold) in scale_order(question) else None
    if question.kind == "best_worst":   # "best" / "worst" / "neither" as the field's "1" / "-1" / "0"
        return {**best_worst.VALUES, best_worst.GOLD_NEITHER: best_worst.NEITHER}.get(str(gold))
    return str(gold)
