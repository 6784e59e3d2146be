"""The HIT page's form of a declared campaign: one field per question, built from the definition.

Field names are `q_<question id>` (a question id can never clash with the form's own attributes); a multi
question with a `none` box has a second field `q_<id>__none`. Kinds and their fields:
  choice, pairwise, scale   radio buttons (pairwise: A, B and, unless allow_equal is false, equal)
  multi                     check boxes, and the explicit "none" box when the definition names one
  span                      a hidden field holding the JSON list of selected word positions, kept by static/js/custom.js
  spans                     a hidden field holding the JSON list of marked spans, kept by static/js/declared_spans.js
  ranking                   one select per option, `q_<id>__<n>` (n its position), of the ranks 1..n; the answer is
                            the options in the order chosen (ranking.ranks_from_form), static/js/declared_ranking.js
                            swaps two options' ranks rather than let one be given twice
  best_worst                two radio groups of the tuple's members, `q_<id>__best` and `q_<id>__worst`; the answer
                            is {best, worst} (best_worst.from_form refuses the same member in both)
  extractive                the spans' hidden field (at most one mark, static/js/declared_spans.js) and, where the
                            definition allows it, the "unanswerable" box `q_<id>__none`
                            (static/js/declared_extractive.js clears the mark when it is ticked, and the reverse);
                            the answer: extractive.from_form
  distribution              one number input per option, `q_<id>__<n>` (n its position), of whole numbers 0..total;
                            the answer is {option: share} (distribution.shares_from_form), an empty input beside
                            filled ones 0; static/js/declared_distribution.js says the running sum
  pairwise with `grades`    radio buttons, one per grade, in the definition's words (graded.py)
  relations                 a hidden field holding the JSON list of relations {"from", "to", "label"}, kept by
                            static/js/declared_relations.js from selects of the spans question's current marks;
                            checked with that question's answer (its ends are its marks)
  text                      a one-line text input of at most max_length characters
The form reads its answer in the definition's order and keeps only the questions shown given the earlier
answers (`when`): a question hidden by its condition is not required and is sent as absent, whatever its
field held (a page without JavaScript shows every question and lets the server decide). Each question is
checked by `answers.check_answer`, then the whole answer is, so the page accepts exactly what the API
accepts; an error is shown next to the question it names.
"""
from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from wtforms import BooleanField, Field, RadioField, SelectField, SelectMultipleField, StringField, widgets
from wtforms.fields.choices import SelectChoice

from annotator.core.forms import Form
from annotator.core.hit_values import AnswerError, HitItem
from annotator.core.jsonsafe import JSONBodyError, JSONValueError, loads_text
from annotator.declared import (
    best_worst,
    distribution,
    extractive,
    graded,
    item_when,
    ranking,
    relations,
    sides,
    spans,
)
from annotator.declared import shown as shown_kinds
from annotator.declared.answers import check_answer, item_options, words
from annotator.declared.asked import is_shown
from annotator.declared.definition import SIDES, Definition, OptionSpec, Question, number_text
from annotator.declared.named_rules import needed_answers

PAIRWISE_LABELS = {"A": "A", "B": "B", "equal": "Equal"}
NO_SELECTION = "The selection did not arrive (is JavaScript on?). Please select the words again."
REQUIRED = "Please answer this question."
NO_MARKS = "The marks did not arrive (is JavaScript on?). Please mark the text again."
NO_RELATIONS = "The relations did not arrive (is JavaScript on?). Please add them again."
KEYS = 9  # options 1..9 have a digit key


def field_name(question: Question) -> str:
    return f"q_{question.id}"


def none_name(question: Question) -> str:
    return f"q_{question.id}__none"


def pick_name(question: Question, which: str) -> str:
    """The radio group of a best-worst question's best (or worst) pick."""
    return f"q_{question.id}__{which}"


def rank_name(question: Question, position: int) -> str:
    """The select of a ranking question's option at `position` (a position: option values need not be names)."""
    return f"q_{question.id}__{position}"


class SpanInput(widgets.Input):
    """A hidden input drawn where the template puts it, inside its question (form.hidden_tag() draws every field
    whose widget is a HiddenInput, so a span field would otherwise be sent twice)."""

    input_type = "hidden"
    validation_attrs = ["disabled"]


class CheckboxesField(SelectMultipleField):
    widget = widgets.ListWidget(prefix_label=False)
    option_widget = widgets.CheckboxInput()


@dataclass(frozen=True)
class ShownField:
    """One shown field as the page draws it: `kind` is the definition's `as`; `value` the item's value as text."""

    field: str
    kind: str
    label: str
    value: str
    view: shown_kinds.View | None = None   # a display kind's view model (blanks, list, highlighted, ...)

    @property
    def image(self) -> bool:
        """An image is drawn only from an http(s) URL; any other value is shown as text."""
        return self.kind == "image_url" and self.value.strip().lower().startswith(("http://", "https://"))


@dataclass(frozen=True)
class Choice:
    """One answer of a question as the page draws it: its value, label and key (digit) if it has one."""

    value: str
    label: str
    key: str | None
    description: str = ""   # an option's sentence, shown under it and read out with it (option_words.py)
    words: str = ""         # a scale point's words, shown beside its number (a scale's `labels`)


@dataclass(frozen=True)
class QuestionView:
    """What the template needs of one question: the question, its field(s), answers and words."""

    question: Question
    field: Field
    none: Field | None
    choices: tuple[Choice, ...]
    words: tuple[str, ...]
    sides: tuple[ShownField, ...]
    errors: tuple[str, ...]

    @property
    def when(self) -> str:
        """The `when` condition as JSON for static/js/custom.js: {"<earlier question id>": ["value", ...]}."""
        return json.dumps({parent: list(values) for parent, values in self.question.when})


class DeclaredForm(Form):
    """Built per definition by `declared_form`; `answer` is set by a successful `validate`."""

    definition: Definition
    payload: Mapping[str, Any]
    answer: dict[str, Any] | None = None
    question_errors: dict[str, list[str]]

    def question_field(self, question: Question) -> Field:
        return self[field_name(question)]

    def shown(self) -> list[ShownField]:
        return shown_fields(self.definition, self.payload)

    def needed(self) -> frozenset[str]:
        """The questions the definition's rules drop an annotation without: their fieldsets say so
        (`data-needed`), and the page asks before submitting with one left empty (static/js/declared_spans.js)."""
        return needed_answers(self.definition)

    def rank_fields(self, question: Question) -> list[tuple[OptionSpec, Field]]:
        """A ranking question's options and their selects (templates/hits/_declared_ranking.html)."""
        return [(option, self[rank_name(question, n)]) for n, option in enumerate(question.options)]

    def pick_fields(self, question: Question) -> list[tuple[str, Field]]:
        """A best-worst question's two radio groups with their words (templates/hits/_declared_best_worst.html)."""
        assert question.best_worst is not None
        return [(question.best_worst.best, self[pick_name(question, best_worst.BEST)]),
                (question.best_worst.worst, self[pick_name(question, best_worst.WORST)])]
    def share_fields(self, question: Question) -> list[tuple[OptionSpec, Field]]:
        """A distribution question's options and their number inputs (templates/hits/_declared_distribution.html)."""
        return [(option, self[rank_name(question, n)]) for n, option in enumerate(question.options)]

    def spans_view(self, question: Question) -> spans.SpansView:
        """A spans question's text in words and spaces, and its labels (templates/hits/_declared_spans.html)."""
        return spans.view(question, self.payload)

    def relations_view(self, question: Question) -> relations.RelationsView:
        """A relations question's types and its spans question (templates/hits/_declared_relations.html)."""
        return relations.view(question, relations.spans_question(self.definition.questions, question))

    def view(self, public: Mapping[str, Any]) -> list[QuestionView]:
        """The questions as the page draws them. A span question's words are those of the item's field (what its
        answer is checked against); a pairwise question's sides are those of `public`, the item as this
        annotator sees it (tasks.custom.public_item puts field b on the left for some annotators). With one order
        for the HIT the pair is drawn once (sides.drawn_with): in the sides group's cards, else the first question."""
        views = []
        drawn = sides.drawn_with(self.definition)
        for question in self.definition.questions:
            field = self.question_field(question)
            none = self[none_name(question)] if _has_none_box(question) else None
            choices = choices_of(question, self.payload)
            errors = tuple(self.question_errors.get(question.id, []))
            views.append(QuestionView(question, field, none, choices,
                                      tuple(words(question, self.payload)) if question.kind == "span" else (),
                                      pair_sides(self.definition, question, public)
                                      if question.kind == "pairwise" and drawn in (None, question.id) else (),
                                      errors))
        return views

    def validate(self, extra_validators: Mapping[str, Any] | None = None) -> bool:
        self.question_errors = {}
        self.answer = None
        valid = super().validate(extra_validators)  # CSRF; the fields have no checks of their own
        answer = self._answer()
        if not self.question_errors:
            try:
                check_answer(self.answer_definition(), self.payload, answer)  # the whole answer, as the API checks it
                self.answer = answer
            except AnswerError as error:
                self._error_from(str(error))
        return valid and not self.question_errors

    def answer_definition(self) -> Definition:
        """The definition the whole answer is checked against (a form with repeat groups checks the full one)."""
        return self.definition

    def _error_from(self, message: str) -> None:
        qid, sep, rest = message.partition(": ")
        if sep and any(q.id == qid for q in self.definition.questions):
            self.question_errors.setdefault(qid, []).append(_sentence(rest))
        else:
            self.form_errors.append(_sentence(message))

    def _answer(self) -> dict[str, Any]:
        """The answer the fields hold, question by question in order; each question checked on its own."""
        answer: dict[str, Any] = {}
        for question in self.definition.questions:
            if not is_shown(question, answer):
                continue  # hidden by its condition: absent, whatever its field held
            try:
                value = self._value(question)
            except ValueError as error:
                self.question_errors[question.id] = [str(error)]
                continue
            if value is None:
                if question.required and relations.needed(question, answer):
                    self.question_errors[question.id] = [REQUIRED]
                continue
            alone, given = self._alone(question, answer, value)
            try:
                checked = check_answer(alone, self.payload, given)[0]
            except AnswerError as error:
                self._error_from(str(error))
                continue
            if question.id in checked:
                answer[question.id] = checked[question.id]
            elif question.required:
                self.question_errors[question.id] = [REQUIRED]
        return answer

    def _alone(self, question: Question, answer: Mapping[str, Any],
               value: Any) -> tuple[Definition, dict[str, Any]]:
        """The definition and answer one question is checked by on its own: the question alone, or for relations
        with its spans question and that question's answer so far (a relation's ends are its marks)."""
        own = dataclasses.replace(question, when=())
        if question.kind != relations.KIND:
            return dataclasses.replace(self.definition, questions=(own,)), {question.id: value}
        of = relations.spans_question(self.definition.questions, question)
        marks = dataclasses.replace(of, when=(), required=False, item_when=())
        return (dataclasses.replace(self.definition, questions=(marks, own)),
                {of.id: answer.get(of.id), question.id: value})

    def _value(self, question: Question) -> Any:
        """The field's value in the answer's terms; None for no answer; ValueError says what is wrong."""
        data = self.question_field(question).data
        kind = question.kind
        if kind in ("choice", "pairwise"):
            return data or None
        if kind == "scale":
            if not data:
                return None
            try:
                number = float(data)
            except ValueError:
                raise ValueError(f"{str(data)[:40]!r} is not a point of the scale.") from None
            return int(number) if number.is_integer() else number
        if kind == "multi":
            chosen = [str(v) for v in (data or [])]
            if question.none is not None:
                none = bool(self[none_name(question)].data)
                if none and chosen:
                    raise ValueError(f'"{question.none}" cannot be combined with an option.')
                if none:
                    return []
                if not chosen and question.required:
                    raise ValueError(f'Tick every option that applies, or "{question.none}".')
            return chosen or None
        if kind == "best_worst":
            return best_worst.from_form(question, self[pick_name(question, best_worst.BEST)].data or None,
                                        self[pick_name(question, best_worst.WORST)].data or None)
        if kind == "ranking":
            ranks = {option.value: str(select.data or "") for option, select in self.rank_fields(question)}
            return ranking.ranks_from_form(question, ranks)
        if kind == "extractive":
            unanswerable = _has_none_box(question) and bool(self[none_name(question)].data)
            if not data and not unanswerable:
                return None   # nothing marked, nothing ticked: required says so
            try:
                marks = loads_text(data) if data else []
            except (JSONBodyError, JSONValueError):
                raise ValueError(NO_MARKS) from None
            return extractive.from_form(question, marks, unanswerable)
        if kind == "distribution":
            typed = {option.value: str(box.data or "") for option, box in self.share_fields(question)}
            return distribution.shares_from_form(question, typed)
        if kind == "relations":   # the script always sends them ("[]" for none); nothing: none, as without a mark
            if not data:
                return None
            try:
                return loads_text(data)
            except (JSONBodyError, JSONValueError):
                raise ValueError(NO_RELATIONS) from None
        if kind == "spans":
            if not data:   # the script always sends the marks ("[]" for none): nothing is a page without it
                if question.required:
                    raise ValueError(NO_MARKS)
                return None
            try:
                return loads_text(data)
            except (JSONBodyError, JSONValueError):
                raise ValueError(NO_MARKS) from None
        if kind == "span":
            if not data:
                if question.required:
                    raise ValueError(NO_SELECTION)
                return None
            try:
                return loads_text(data)
            except (JSONBodyError, JSONValueError):   # bounded as the API's JSON: deep nesting is not a 500
                raise ValueError(NO_SELECTION) from None
        text = (data or "").strip()
        return text or None


def _sentence(message: str) -> str:
    message = message.strip()
    if not message:
        return message
    message = message[0].upper() + message[1:]
    return message if message.endswith((".", "?", "!", ")")) else message + "."


def _choices(question: Question, payload: Mapping[str, Any]) -> list[tuple[str, str]]:
    if question.kind in ("choice", "multi"):
        return [(o.value, o.label) for o in item_options(question, payload)]
    if question.kind == "scale":
        return [(number_text(v), number_text(v)) for v in question.scale_values()]
    if question.kind == "pairwise" and question.grades:   # the graded values in the definition's words
        return list(zip(graded.values(question), question.grades))
    if question.kind == "pairwise":
        values = ("A", "B", "equal") if question.allow_equal else ("A", "B")
        return [(v, PAIRWISE_LABELS[v]) for v in values]
    return []


def choices_of(question: Question, payload: Mapping[str, Any]) -> tuple[Choice, ...]:
    """The question's answers as the page draws them: value, label, digit key, and the words beside them."""
    pairs = _choices(question, payload)
    return tuple(Choice(value, label, key, *extra)
                 for (value, label), key, extra in zip(pairs, _keys(question, pairs), _words(question, payload)))


def _words(question: Question, payload: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(description, words) of each answer in `_choices`' order: an option's description, a scale point's label."""
    if question.kind in ("choice", "multi"):
        return [(o.description, "") for o in item_options(question, payload)]
    if question.kind == "scale" and question.point_labels:
        return [("", words) for words in question.point_labels]
    return [("", "")] * len(_choices(question, payload))


def _keys(question: Question, choices: list[tuple[str, str]]) -> list[str | None]:
    """The digit key of each answer: 1 to 9 in order (later ones have none); on a scale of whole numbers from 0
    or 1 a point's own number when it has one digit (a 0 to 10 scale: keys 0 to 9, and 10 by Tab or arrows)."""
    points = question.scale_values() if question.kind == "scale" else []
    if points and all(float(p).is_integer() for p in points) and points[0] in (0, 1):
        return [value if len(value) == 1 else None for value, _ in choices]
    return [str(n) if n <= KEYS else None for n in range(1, len(choices) + 1)]


def _field(question: Question, payload: Mapping[str, Any]) -> Field:
    kind = question.kind
    label = question.prompt
    if kind in ("choice", "pairwise", "scale"):
        return RadioField(label, choices=[SelectChoice(v, t) for v, t in _choices(question, payload)],
                          validate_choice=False)
    if kind == "multi":
        return CheckboxesField(label, choices=[SelectChoice(v, t) for v, t in _choices(question, payload)],
                               validate_choice=False)
    if kind in ("span", "spans", "ranking", "best_worst", "extractive", "distribution", "relations"):   # a ranking's, a
        # best-worst question's and a distribution's own field is never drawn: its selects are (rank_fields), its
        # two radio groups are (pick_fields), its number inputs are (share_fields)
        return StringField(label, widget=SpanInput())
    return StringField(label, render_kw={"maxlength": question.max_length, "autocomplete": "off"})


def _has_none_box(question: Question) -> bool:
    """A multi question's "none of these" box, or an extractive question's "unanswerable" one."""
    return question.kind in ("multi", "extractive") and question.none is not None


def form_class(definition: Definition, payload: Mapping[str, Any]) -> type[DeclaredForm]:
    """A form class of this definition and item (choices read from the item when `options_from` is used)."""
    attributes: dict[str, Any] = {}
    for question in definition.questions:
        attributes[field_name(question)] = _field(question, payload)
        if _has_none_box(question):
            attributes[none_name(question)] = BooleanField(question.none)
        if question.kind == "ranking":
            ranks = [SelectChoice("", "–")] + [SelectChoice(r, r) for r in ranking.rank_order(question)]
            for n, option in enumerate(question.options):
                attributes[rank_name(question, n)] = SelectField(f"Rank of {option.label}", choices=ranks,
                                                                 validate_choice=False)
        if question.kind == "best_worst":
            members = [SelectChoice(oid, best_worst.member_label(definition, question, n))
                       for n, oid in enumerate(best_worst.member_ids(payload))]
            for which in (best_worst.BEST, best_worst.WORST):
                attributes[pick_name(question, which)] = RadioField(which, choices=members, validate_choice=False)
        if question.kind == "distribution":   # whole numbers 0..total; the server checks them, the page says the sum
            for n, option in enumerate(question.options):
                attributes[rank_name(question, n)] = StringField(
                    f"Share of {option.label}", render_kw={"type": "number", "min": 0, "max": question.total,
                                                           "step": 1, "inputmode": "numeric", "autocomplete": "off"})
    return type("DeclaredHitForm", (DeclaredForm,), attributes)


def declared_form(definition: Definition, item: HitItem, formdata: Any = None) -> DeclaredForm:
    """The HIT's form for `item` (posted data when `formdata` is given; otherwise Flask-WTF reads the request)."""
    definition = item_when.for_item(definition, item.payload)   # the questions this item asks (item_when.py)
    cls = form_class(definition, item.payload)
    form = cls(formdata=formdata) if formdata is not None else cls()
    form.definition, form.payload, form.question_errors = definition, item.payload, {}
    return form


def answer_from_form(definition: Definition, item: HitItem, form: DeclaredForm) -> dict[str, Any]:
    """The answer object of a validated form: `{"<question id>": value}` of the questions shown."""
    if form.answer is None:
        form.question_errors = {}
        return form._answer()
    return form.answer



def shown_fields(definition: Definition, payload: Mapping[str, Any]) -> list[ShownField]:
    """The item's shown fields in the definition's order, as the item has them (never a pairwise question's
    `players`): the questions other than pairwise ones are about these, and are labelled against these."""
    if (question := best_worst.question_of(definition)) is not None:   # a tuple: each member's fields, numbered
        text = question.best_worst.text if question.best_worst else None
        return [ShownField(f"{best_worst.TUPLE}.{n}.{s.field}", s.kind,
                           best_worst.member_label(definition, question, n) if s.field == text else s.label,
                           _text(member.get(s.field)), shown_kinds.view(s, member))
                for n, member in enumerate(best_worst.members(payload)) for s in definition.show]
    hidden = {p for q in definition.questions for p in (q.players or ())}
    if definition.pairwise_order == "per_hit":   # one order for the HIT: the pair is drawn on its sides (sides.py)
        hidden |= {f for q in definition.questions if q.kind == "pairwise" for f in (q.a, q.b) if f}
    return [ShownField(s.field, s.kind, s.label, _text(payload.get(s.field)), shown_kinds.view(s, payload))
            for s in definition.show if s.field not in hidden]


def pair_sides(definition: Definition, question: Question, public: Mapping[str, Any]) -> tuple[ShownField, ...]:
    """A pairwise question's two fields as A and B, on the sides this annotator sees them (`public`)."""
    by_name = {s.field: s for s in definition.show}
    sides = (public.get(SIDES) or {}).get(question.id) or {}
    return tuple(ShownField(shown["field"], by_name[shown["field"]].kind, side, _text(shown["value"]),
                            shown_kinds.view(by_name[shown["field"]], {**public, shown["field"]: shown["value"]}))
                 for side, shown in sides.items() if shown.get("field") in by_name)


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return " ".join(str(v) for v in value)
    return str(value)
