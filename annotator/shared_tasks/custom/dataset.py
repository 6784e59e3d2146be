"""The publishable dataset of a declared campaign as typed Parquet tables: items, votes and gold.

Why typed: a reader of the dataset (pandas, Hugging Face `datasets`, DuckDB) should get a scale's points as
numbers, a multi question's ticks as a list, the time of a vote as a time, without parsing text. Each
column's type follows from the definition (a question's kind, a scale's step) where it can, and from the
values otherwise (an item field holds whatever the items file gave: text, numbers, lists); a field whose
values mix kinds (text in one item, a number in another) is written as text, JSON for what is not text, and
its description says so. Every column carries a meaning in words, which the data card prints beside its
type, so the card and the files cannot disagree.
"""
from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from annotator.declared import also, best_worst, boundaries, graded, item_view, paths
from annotator.declared.definition import NOT_ASKED, UNDECIDED, Definition, Question
from annotator.declared.repeat import group_answer_meaning

TIME = pa.timestamp("ms", tz="UTC")   # Parquet has no seconds unit: it would store "s" as ms
# A spans question's answer: its marks as character offsets of the field (code points, end exclusive) and labels.
SPAN = pa.struct([pa.field("start", pa.int64()), pa.field("end", pa.int64()), pa.field("label", pa.string())])
# A best-worst question's answer: the ids of the two members picked (declared/best_worst.py).
BEST_WORST = pa.struct([pa.field(best_worst.BEST, pa.string()), pa.field(best_worst.WORST, pa.string())])
# An extractive question's answer: one stretch (offsets and its text) or unanswerable (the others null).
EXTRACTIVE = pa.struct([pa.field("start", pa.int64()), pa.field("end", pa.int64()), pa.field("text", pa.string()),
                        pa.field("unanswerable", pa.bool_())])
# A relations question's answer: its relations, each two marks of its spans question by their units and a type.
RELATION = pa.struct([pa.field("from", pa.string()), pa.field("to", pa.string()), pa.field("label", pa.string())])
# Kinds whose gold is a number (a scale's point, a probability, 1 / 0 per option or word): gold_number holds it.
NUMERIC_GOLD_KINDS = ("scale", "span", "multi", "ranking", "distribution")   # a distribution's option rows


@dataclass(frozen=True)
class Column:
    """One column of a table: its name, Arrow type and what it holds, in words (for the data card)."""

    name: str
    type: pa.DataType
    meaning: str


@dataclass(frozen=True)
class DatasetTable:
    """A table of the dataset: its file name, columns (with meanings) and rows, ready to write."""

    name: str
    columns: tuple[Column, ...]
    table: pa.Table

    @property
    def file_name(self) -> str:
        return f"{self.name}.parquet"

    def write(self, folder: Path) -> Path:
        path = folder / self.file_name
        pq.write_table(self.table, path)
        return path


def _table(name: str, columns: list[Column], rows: Sequence[Mapping[str, Any]]) -> DatasetTable:
    schema = pa.schema([pa.field(c.name, c.type) for c in columns])
    data = {c.name: pa.array([row.get(c.name) for row in rows], type=c.type) for c in columns}
    return DatasetTable(name, tuple(columns), pa.table(data, schema=schema))


# --- items --------------------------------------------------------------------------------------------------

def items_table(definition: Definition, items: Sequence[tuple[str, Mapping[str, Any], bool]]) -> DatasetTable:
    """`items` as (external id, payload, is control) in item order."""
    columns = [Column("id", pa.string(), "the item's id, as in the items file (or 1, 2, 3... when it had none)")]
    values: dict[str, list[Any]] = {}
    stored = [best_worst.TUPLE] if best_worst.question_of(definition) else item_view.stored_fields(definition)
    for field in stored:   # whole fields as the items file gave them, kept ones too (a best-worst item: its tuple)
        given = [in_jsonb_order(payload.get(field)) for _, payload, _ in items]
        column_type, as_json = _field_type(definition, field, given)
        values[field] = [_json_text(v) for v in given] if as_json else given
        columns.append(Column(field, column_type, _field_meaning(definition, field, as_json)))
    columns.append(Column("control", pa.bool_(), "true for a control item (an item with a known answer, served "
                                                 "to check annotators; its votes are not in votes or gold)"))
    rows = [{"id": external_id, **{f: values[f][n] for f in values}, "control": bool(control)}
            for n, (external_id, _, control) in enumerate(items)]
    return _table("items", columns, rows)


def in_jsonb_order(value: Any) -> Any:
    """The value with every object's keys in the order PostgreSQL's JSONB keeps them (shorter keys first, then by
    their bytes), at any depth. Why: an item field holding objects becomes a struct whose fields follow the keys'
    order (and JSON text too), and SQLite keeps the items file's order where JSONB sorts; in one order the files are
    the same bytes on either engine and after a move between them (the KPA check's `systems`, the comparison's
    `summaries` by system name)."""
    if isinstance(value, Mapping):
        return {key: in_jsonb_order(value[key]) for key in sorted(value, key=lambda k: (len(k.encode()), k.encode()))}
    if isinstance(value, list):
        return [in_jsonb_order(v) for v in value]
    return value


def _field_type(definition: Definition, field: str, values: list[Any]) -> tuple[pa.DataType, bool]:
    """The field's Arrow type from its values (and, with no value to go by, from the definition), and whether
    the values are written as text because they mix kinds."""
    present = [v for v in values if v is not None]
    if not present:
        listed = any(q.options_from == field for q in definition.questions)
        return (pa.list_(pa.string()) if listed else pa.string()), False
    if all(isinstance(v, str) for v in present):
        return pa.string(), False
    try:
        inferred = pa.array(present).type
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
        return pa.string(), True
    if pa.types.is_null(inferred) or _has_mixed_numbers(present):
        return pa.string(), True
    return inferred, False


def _has_mixed_numbers(values: list[Any]) -> bool:
    """True/False beside numbers (Arrow would read them as 1/0): not one kind of value."""
    kinds = {"bool" if isinstance(v, bool) else "number" if isinstance(v, (int, float)) else "other" for v in values}
    return "bool" in kinds and len(kinds) > 1


def _field_meaning(definition: Definition, field: str, as_json: bool) -> str:
    if (question := best_worst.question_of(definition)) is not None and field == best_worst.TUPLE:
        return (f"the tuple this item is: its members in the order shown, each the items file's item (its id and "
                f"fields, kept ones too) that question {question.id} picks the best and the worst of")
    if field in definition.keep:
        return (f"the item's field `{field}`: kept with the item as the items file gave it, never shown to "
                "annotators" + (" (its values mix kinds: text as is, anything else as JSON text)" if as_json else ""))
    named = [name for name in definition.item_fields() if name != field and field in paths.fields_read(name)]
    text = _roles(definition, field, as_json) if field in definition.item_fields() else \
        f"the item's field `{field}`, as the items file gave it" + \
        (" (its values mix kinds: text as is, anything else as JSON text)" if as_json else "")
    for name in named:
        if paths.root(name) == field:
            text += f"; at the key path `{name}`, " + _roles(definition, name, False).split(": ", 1)[1]
        else:
            text += f"; its value names the key read by the key path `{name}`"
    return text


def _roles(definition: Definition, field: str, as_json: bool) -> str:
    roles = [f"shown to the annotator as {s.kind}" + (f" ({s.label!r})" if s.label else "")
             for s in definition.show if s.field == field]
    for q in definition.questions:
        if q.options_from == field:
            roles.append(f"the options of question {q.id}")
        if q.players and field in q.players:
            roles.append(f"what {'A' if q.players[0] == field else 'B'} of question {q.id} is (ranked by "
                         "Bradley-Terry)")
        if q.kind == "span" and q.of == field:
            roles.append(f"its words are what question {q.id} selects")
        if q.kind == "spans" and q.of == field:
            roles.append(f"the text whose stretches question {q.id} marks (offsets count its characters)")
        if q.kind == "extractive" and q.of == field:
            roles.append(f"the passage whose stretch answers question {q.id} (offsets count its characters)")
    roles += [f"the highlighted stretches of `{s.field}` ([start, end] or {{start, end, label}}: character offsets, "
              "end exclusive)" for s in definition.show if field in s.reads]
    roles += [f"the elements (a list of {{id, text}}, or of text numbered 1, 2, ...) that the questions of group "
              f"{g.id} are asked of, one by one" for g in definition.repeats if g.elements_from == field]
    text = f"the item's field `{field}`: " + "; ".join(roles)
    return text + (" (its values mix kinds: text as is, anything else as JSON text)" if as_json else "")


def _json_text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


# --- votes --------------------------------------------------------------------------------------------------

def answer_type(question: Question) -> pa.DataType:
    """How a question's answers are typed: options and pairwise choices as text, ticks and words as lists, a
    scale's points as integers when every point is whole (else as floats)."""
    if question.kind in ("multi", "ranking"):
        return pa.list_(pa.string())
    if question.kind == "best_worst":
        return BEST_WORST
    if question.kind == "span":
        return pa.list_(pa.string()) if question.boundaries else pa.list_(pa.int64())
    if question.kind == "spans":   # with declared attributes, each a text field more (span_attributes.py)
        attributes = question.spans.attributes if question.spans is not None else ()
        return pa.list_(pa.struct([*SPAN, *(pa.field(a.id, pa.string()) for a in attributes)])) if attributes \
            else pa.list_(SPAN)
    if question.kind == "extractive":
        return EXTRACTIVE
    if question.kind == "relations":
        return pa.list_(RELATION)
    if question.kind == "scale":
        return pa.int64() if _whole_scale(question) else pa.float64()
    if question.kind == "distribution":   # a share per declared option, each a field of its own
        return pa.struct([pa.field(o.value, pa.int64()) for o in question.options])
    return pa.string()


def _whole_scale(question: Question) -> bool:
    return all(float(v).is_integer() for v in question.scale_values())


def _answer_meaning(question: Question) -> str:
    what = {
        "choice": "the option's value",
        "multi": "the values of the options ticked ([] when none)",
        "scale": f"the point chosen on the scale {_number(question.minimum)} to {_number(question.maximum)}",
        "span": f"the positions (0-based) of the words of `{question.of}` selected",
        "pairwise": (f"the grade, in the item's terms (A is field `{question.a}`, B field `{question.b}`): "
                     + ", ".join(f"{v} = {w}" for v, w in zip(graded.values(question), question.grades)))
                    if question.grades else f"A (field `{question.a}`), B (field `{question.b}`)"
                    + (" or equal" if question.allow_equal else "") + ", in the item's terms",
        "distribution": f"each option's share of {question.total} ({{option: share}}, whole numbers adding up to "
                        f"{question.total})",
        "text": "the text written",
        "spans": f"the stretches of `{question.of}` marked, each {{start, end, label}}: character offsets (code "
                 "points, end exclusive) and the label's value ([] when none)" + _attribute_words(question),
        "ranking": "the values of the options in the order given, best first, each once"
                   + (f" (the options are the item's fields {', '.join(question.ranked)})" if question.ranked else ""),
        "best_worst": "{best, worst}: the ids of the tuple's members picked as "
                      + (f"“{question.best_worst.best}” and “{question.best_worst.worst}”" if question.best_worst
                         else "best and worst") + ", never the same",
        "extractive": f"the stretch of `{question.of}` given as the answer, {{start, end, text, unanswerable}}: "
                      "character offsets (code points, end exclusive), the stretch's text and false; or "
                      "unanswerable true with the others null",
        "relations": "the relations between the marks of question "
                     f"{question.relations.of if question.relations else ''} in the same answer, each {{from, to, "
                     "label}: the two marks by their start:end:label and the type's value ([] when none)",
    }[question.kind] if not question.boundaries else boundaries.answer_words(question)
    return f"the answer to question {question.id}: {what}; null when it was not asked or not answered"


def _attribute_words(question: Question) -> str:
    """A spans question's declared attributes of each mark, in words (none: nothing, as before they existed)."""
    attributes = question.spans.attributes if question.spans is not None else ()
    return "".join(f"; each mark's {a.id}: one of {', '.join(a.value_names())}" for a in attributes)


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _typed_answer(question: Question, value: Any) -> Any:
    if value is None:
        return None
    if question.kind == "scale":
        return int(value) if _whole_scale(question) else float(value)
    if question.kind == "span":
        return [str(v) for v in value] if question.boundaries else [int(v) for v in value]
    if question.kind == "spans":
        attributes = [a.id for a in question.spans.attributes] if question.spans is not None else []
        return [{"start": int(s["start"]), "end": int(s["end"]), "label": str(s["label"]),
                 **{a: s.get(a) for a in attributes}} for s in value]
    if question.kind == "extractive":
        if value.get("unanswerable") is True:
            return {"start": None, "end": None, "text": None, "unanswerable": True}
        return {"start": int(value["start"]), "end": int(value["end"]), "text": str(value.get("text", "")),
                "unanswerable": False}
    if question.kind == "relations":
        return [{"from": str(r["from"]), "to": str(r["to"]), "label": str(r["label"])} for r in value]
    if question.kind in ("multi", "ranking"):
        return [str(v) for v in value]
    if question.kind == "best_worst":
        return {key: str(value.get(key)) for key in (best_worst.BEST, best_worst.WORST)}
    if question.kind == "distribution":
        return {o.value: int(value[o.value]) if value.get(o.value) is not None else None for o in question.options}
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


# The votes table's own columns; a question or group whose id is one of them gets a column named otherwise.
VOTE_COLUMNS = ("item", "annotator", "submitted_at", "answer")


def answer_columns(ids: Sequence[str]) -> dict[str, str]:
    """The votes table's column of each question or group id: the id itself, or "<id>_question" (and another "_"
    while that is taken) when the id is one of the table's own columns (a question `answer`, as ReCAM's example
    definitions have): two columns of one name made a file that pyarrow and pandas refuse to read."""
    taken = set(VOTE_COLUMNS) | set(ids)
    columns = {}
    for qid in ids:
        name = qid
        if qid in VOTE_COLUMNS:
            name = f"{qid}_question"
            while name in taken:
                name += "_"
            taken.add(name)
        columns[qid] = name
    return columns


def votes_table(definition: Definition, votes: Sequence[Mapping[str, Any]], names: Mapping[int, str]) -> DatasetTable:
    """`votes` as custom.exchange.vote_rows gives them; annotators by pseudonym (`names`: user id -> name)."""
    asked = [q for q in definition.questions if q.group is None and q.derived is None]  # a derived one: no one's
    named = answer_columns([q.id for q in asked] + [g.id for g in definition.repeats])
    columns = [Column("item", pa.string(), "the item's id (items.id)"),
               Column("annotator", pa.string(), "who voted: annotator_1, annotator_2, ... numbered by account, "
                                                "the same number in every row; no names"),
               Column("submitted_at", TIME, "when the vote was submitted (UTC, to the second)")]
    columns += [Column(named[q.id], answer_type(q), _renamed(q.id, named, _answer_meaning(q))) for q in asked]
    columns += [Column(named[g.id], pa.string(), _renamed(g.id, named, group_answer_meaning(definition, g)))
                for g in definition.repeats]
    columns.append(Column("answer", pa.string(), "the whole answer as a JSON object {question id: answer}, "
                                                 "pairwise answers in the item's terms"))
    rows = [{"item": v["item"], "annotator": names.get(v["user_id"], "annotator"),
             "submitted_at": _utc(v["submitted_at"]),
             **{named[q.id]: _typed_answer(q, v["answer"].get(q.id)) for q in asked},
             **{named[g.id]: _json_text(v["answer"].get(g.id)) for g in definition.repeats},
             "answer": json.dumps(v["answer"], ensure_ascii=False)} for v in votes]
    return _table("votes", columns, rows)


def _renamed(qid: str, named: Mapping[str, str], meaning: str) -> str:
    """The column's meaning, saying whose answer it holds when its name is not the question's id."""
    return meaning if named[qid] == qid else f"the answer to question `{qid}`: {meaning}"


def _utc(text: str | None) -> datetime | None:
    """The stored time (naive, in UTC) as an aware one: Parquet then records the time zone."""
    return datetime.fromisoformat(text).replace(tzinfo=UTC) if text else None


# --- gold ---------------------------------------------------------------------------------------------------

GOLD_MEANINGS = {
    "item": "the item's id (items.id)",
    "question": "the question's id",
    "unit": "what the gold is of: the question's id for choice, scale and text questions, the option for a "
            "multi question, the word's position (0-based) for a span question{spans_unit}{ranking_unit}"
            "{distribution_unit}{relations_unit}, the pair "
            "of players as a JSON list [A, B] for a pairwise question with players (else the question's "
            "id){repeat_unit}",
    "gold": "the gold in words, as gold.csv has it: an option, a point, 1 / 0 per option or word, a "
            f"probability{{spans_gold}}{{ranking_gold}}{{extractive_gold}}{{distribution_gold}}{{relations_gold}}; "
            f"{UNDECIDED} when the rule could not decide, {NOT_ASKED} when the question was not asked",
    "gold_number": "the gold as a number where the question's gold is one (scale, multi, span); null where it "
                   f"is {UNDECIDED} or {NOT_ASKED}, and for the other kinds",
    "n": "how many votes the gold is from",
    "score": "the rule's score: the share of votes for the gold (majority, share, agree), the mean or median, "
             "the probability; null where the rule has none",
    "votes": "the votes in words: each answer with its count",
}


def gold_meanings(definition: Definition) -> dict[str, str]:
    """The gold table's columns in words, saying what a spans question's or a repeat group's units and gold are
    only where the definition has one: a card describes its own data (and a project's card stays the same bytes
    when the format learns a kind the project does not use)."""
    spans = any(q.kind == "spans" for q in definition.questions)
    parts = {"spans_unit": ", for a spans question a span's start:end:label or a word's start:end (character "
                           "offsets)" if spans else "",
             "repeat_unit": ", the element's id for a question of a repeat group (asked once per element)"
                            if definition.repeats else "",
             "spans_gold": ", 1 / 0 per span marked and a word's gold label (O outside every gold span) for a "
                           "spans question" if spans else "",
             **_ranking_parts(definition), **_extractive_parts(definition), **_distribution_parts(definition),
             **_relations_parts(definition)}
    meanings = {name: meaning.format(**parts) if name in ("unit", "gold") else meaning
                for name, meaning in GOLD_MEANINGS.items()}
    if (question := best_worst.question_of(definition)) is not None:   # said only where there is one
        meanings["unit"] += f"; for best-worst question {question.id}, the id of a member of the tuple"
        meanings["gold"] += (f"; for best-worst question {question.id}, best, worst or neither: what most annotators "
                             "chose the member as in this tuple (a tie: undecided); its score is the member's (best "
                             "- worst) / appearances over every tuple it was in (scores.parquet has one row per item)")
    attributed = [q for q in definition.questions if q.kind == "spans" and q.spans is not None and q.spans.attributes]
    if attributed:   # declared/span_attributes.py: rows of their own, after the question's
        meanings["question"] += ("; `<id>.<attribute>` for the attribute of each span marked (unit the span; gold the "
                                 f"value most of those who marked exactly that span gave, {UNDECIDED} on a tie), "
                                 "`<id>.mqm` for a spans question's MQM score (unit the question's id; gold and "
                                 "score the mean of the annotators' scores)")
    for question in definition.questions:   # further decisions (gold.also: annotator/declared/also.py)
        for decision in question.decisions():
            meanings[decision.name] = (f"a further decision about {question.id}: {also.rule_words(decision)}; "
                                       f"{UNDECIDED} when the rule could not decide, {NOT_ASKED} when the question "
                                       "was not asked, null on the other questions' rows")
    return meanings


def _ranking_parts(definition: Definition) -> dict[str, str]:
    """What a ranking question's gold rows are, said only where the definition has one (declared/ranking.py)."""
    ranked = any(q.kind == "ranking" for q in definition.questions)
    return {"ranking_unit": ", the option (its value) for a ranking question" if ranked else "",
            "ranking_gold": ", for a ranking question the option's place in the consensus order (1 the first; "
                            "gold_number holds it too; score is its mean rank, or its Borda points, by the rule)"
                            if ranked else ""}


def _extractive_parts(definition: Definition) -> dict[str, str]:
    """What an extractive question's gold is, said only where the definition has one (declared/extractive.py)."""
    asked = any(q.kind == "extractive" for q in definition.questions)
    return {"extractive_gold": ", for an extractive question (unit: its id) the answer most annotators gave, "
                               "<start>:<end> (character offsets of the passage, end exclusive) or unanswerable; a "
                               f"tie is {UNDECIDED}" if asked else ""}


def _relations_parts(definition: Definition) -> dict[str, str]:
    """What a relations question's gold rows are, said only where the definition has one (relations.py)."""
    related = any(q.kind == "relations" for q in definition.questions)
    return {"relations_unit": ", for a relations question a relation given, <from>-><to>:<type> (each end a mark's "
                              "start:end:label)" if related else "",
            "relations_gold": ", 1 / 0 per relation given for a relations question (1: enough annotators gave it "
                              f"and both ends are gold spans; {UNDECIDED} when an end is)" if related else ""}


def _distribution_parts(definition: Definition) -> dict[str, str]:
    """What a distribution question's gold rows are, said only where the definition has one (distribution.py)."""
    shared = any(q.kind == "distribution" for q in definition.questions)
    return {"distribution_unit": ", the option (its value) for a distribution question, and the question's id for "
                                 "its hard label" if shared else "",
            "distribution_gold": ", for a distribution question each option's mean share (gold_number holds it "
                                 "too; score is it divided by the total) and on the hard label's row the option "
                                 "with the largest mean share" if shared else ""}


SCORE_TYPES = {"question": pa.string(), "item": pa.string(), "text": pa.string(), "appearances": pa.int64(),
               "best": pa.int64(), "worst": pa.int64(), "score": pa.float64(), "rank": pa.int64()}


def scores_table(definition: Definition, rows: Sequence[Mapping[str, Any]]) -> DatasetTable:
    """A best-worst question's scores, one row per item of the items file (declared/best_worst.score_rows)."""
    question = best_worst.question_of(definition)
    spec = question.best_worst if question is not None else None
    field = spec.text if spec is not None else "text"
    meanings = {"question": "the best-worst question's id",
                "item": "the id of the item scored, as in the items file (a member of the tuples)",
                "text": f"the item's field `{field}`, as shown",
                "appearances": "how often the item was shown in a tuple somebody answered (once per vote)",
                "best": "how often it was chosen as " + (f"“{spec.best}”" if spec else "best"),
                "worst": "how often it was chosen as " + (f"“{spec.worst}”" if spec else "worst"),
                "score": "(best - worst) / appearances, from -1 to 1; null when no answered tuple showed it",
                "rank": "its place by score, 1 the highest; equal scores share a place; null when not scored"}
    typed = [{name: (_text(row.get(name)) if SCORE_TYPES[name] == pa.string() else row.get(name))
              for name in SCORE_TYPES} for row in rows]
    return _table("scores", [Column(name, kind, meanings[name]) for name, kind in SCORE_TYPES.items()], typed)


def gold_table(definition: Definition, rows: Sequence[Mapping[str, Any]],
               model: Mapping[str, str] | None = None) -> DatasetTable:
    """`rows` as custom.exchange.gold_rows gives them (plain Python, one per item, question and unit); `model`:
    the annotator model's columns (name -> meaning: the label, then the posterior), when the export asks for
    them (custom/model_columns.py)."""
    numeric = {q.id for q in definition.questions if q.kind in NUMERIC_GOLD_KINDS}
    decisions = [d.name for d in definition.decisions()]
    typed = [{"item": r.get("item"), "question": r.get("question"), "unit": _text(r.get("unit")),
              "gold": _text(r.get("gold")),
              "gold_number": _gold_number(r.get("gold")) if r.get("question") in numeric else None,
              "n": None if r.get("n") is None else int(r["n"]), "score": _float(r.get("score")),
              "votes": _text(r.get("votes")), **{name: _text(r.get(name)) for name in decisions},
              **{name: r.get(name) for name in model or {}}} for r in rows]
    types = {"n": pa.int64(), "score": pa.float64(), "gold_number": pa.float64()}
    if model:
        types[list(model)[-1]] = pa.float64()   # the posterior
    columns = [Column(name, types.get(name, pa.string()), meaning)
               for name, meaning in {**gold_meanings(definition), **(model or {})}.items()]
    return _table("gold", columns, typed)


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, float) and value.is_integer():
        return str(int(value)) if abs(value) < 1e15 else repr(value)
    return str(value) if isinstance(value, (int, float)) else json.dumps(value, ensure_ascii=False)


def _gold_number(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


def type_name(data_type: pa.DataType) -> str:
    """An Arrow type as the data card writes it: list<string>, not list<item: string>."""
    return str(data_type).replace("item: ", "")
