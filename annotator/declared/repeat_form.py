"""The HIT page's form of a declared campaign with `repeat` groups: the questions of a group once per element.

The top-level questions are the declared form's own (form.py), built from the definition without its groups;
this form adds one field per (group, element, question), named `q_<group>__<element position>__<question id>`
(positions, not ids: an element's id may hold any character), reads them into the nested answer
{"<group>": {"<element id>": {"<question id>": value}}} and checks the whole answer as the API does.

The page (templates/hits/_declared_repeat.html) draws one fieldset per element, its text as the legend, and in it
one fieldset per question like a top-level one, with a `data-question` of "<group>.<position>.<question id>" and
its `when` naming the same element's questions: static/js/custom.js then gives the group the page's keyboard flow
(a digit answers the highlighted question and moves on, across elements) and hides a question whose `when` the
same element's answer does not meet.
"""
from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from annotator.core.hit_values import HitItem
from annotator.declared import item_when, repeat
from annotator.declared.asked import group_of, is_shown
from annotator.declared.definition import Definition, Question
from annotator.declared.form import (
    REQUIRED,
    DeclaredForm,
    QuestionView,
    _field,
    _sentence,
    choices_of,
    form_class,
    pair_sides,
)
from annotator.declared.form import declared_form as plain_form


def member_name(gid: str, position: int, question: Question) -> str:
    return f"q_{gid}__{position}__{question.id}"


def member_key(gid: str, position: int, qid: str) -> str:
    """A group question's key on the page (data-question) and in the form's errors: "<group>.<position>.<id>"."""
    return f"{gid}.{position}.{qid}"


@dataclass(frozen=True)
class MemberView:
    """One question of one element: the question's view, its page key, DOM id and `when` in page keys."""

    view: QuestionView
    key: str
    dom: str
    when: str


@dataclass(frozen=True)
class ElementView:
    """One element as the page draws it: the element, its fieldset's DOM id, its questions and its own errors."""

    element: repeat.Element
    dom: str
    members: tuple[MemberView, ...]
    errors: tuple[str, ...]
    side: Any = None   # a sides group's element: the side's shown field, as the annotator sees it (ShownField)


@dataclass(frozen=True)
class GroupView:
    """A group as the page draws it; `elements` tells the template (hits/custom.html) it is a group."""

    group: repeat.Repeat
    elements: tuple[ElementView, ...]


class RepeatForm(DeclaredForm):
    """A declared form whose `definition` holds the top-level questions only; `full` is the whole definition."""

    full: Definition

    def view(self, public: Mapping[str, Any]) -> list[Any]:
        """The top-level questions' views and the groups' views, in the definition's order."""
        top = iter(DeclaredForm.view(self, public))
        views: list[Any] = []
        for question in self.full.questions:
            if question.group is not None:
                if repeat.first_of_group(self.full, question):
                    views.append(self._group_view(question.group, public))
            elif question.derived is None:   # a derived question is not asked
                views.append(next(top))
        return views

    def _group_view(self, gid: str, public: Mapping[str, Any]) -> GroupView:
        group = group_of(self.full, gid)
        listed = repeat.elements(group, self.payload)
        # a sides group's cards show their side (A, B) as the pairwise question does (declared/sides.py)
        shown_sides = {s.label: s for s in pair_sides(self.full, self.full.question(group.sides), public)} \
            if group.sides else {}
        asked = repeat.group_questions(self.full, gid)
        shown = []
        for position, element in enumerate(listed):
            members = []
            for question in asked:
                key = member_key(gid, position, question.id)
                choices = choices_of(question, self.payload)
                view = QuestionView(question, self[member_name(gid, position, question)], None, choices, (), (),
                                    tuple(self.question_errors.get(key, [])))
                when = {member_key(gid, position, parent): list(values) for parent, values in question.when}
                members.append(MemberView(view, key, key.replace(".", "-"), json.dumps(when)))
            errors = tuple(self.question_errors.get(f"{gid}.{position}", []))
            shown.append(ElementView(element, f"dr-{gid}-{position}", tuple(members), errors,
                                     shown_sides.get(element.id)))
        return GroupView(group, tuple(shown))

    def answer_definition(self) -> Definition:
        return self.full

    def _error_from(self, message: str) -> None:
        """An error of a group's element ("claims: masks: stance: ...") goes next to that question (or element)."""
        gid, sep, rest = message.partition(": ")
        if not sep or not any(g.id == gid for g in self.full.repeats):
            DeclaredForm._error_from(self, message)
            return
        ids = [e.id for e in repeat.elements(group_of(self.full, gid), self.payload)]
        eid, sep, rest = rest.partition(": ")
        if not sep or eid not in ids:
            self.form_errors.append(_sentence(message))
            return
        position = ids.index(eid)
        qid, sep, detail = rest.partition(": ")
        if sep and qid in group_of(self.full, gid).questions:
            self.question_errors.setdefault(member_key(gid, position, qid), []).append(_sentence(detail))
        else:
            self.question_errors.setdefault(f"{gid}.{position}", []).append(_sentence(rest))

    def _answer(self) -> dict[str, Any]:
        """The top-level answers (the declared form's reading) and each group's, element by element."""
        answer = DeclaredForm._answer(self)
        for group in self.full.repeats:
            asked = repeat.group_questions(self.full, group.id)
            answers: dict[str, dict[str, Any]] = {}
            for position, element in enumerate(repeat.elements(group, self.payload)):
                mine: dict[str, Any] = {}
                for question in asked:
                    if not is_shown(question, mine):
                        continue   # hidden by the same element's answer: absent, whatever its field held
                    key = member_key(group.id, position, question.id)
                    try:
                        value = _value(question, self[member_name(group.id, position, question)].data)
                    except ValueError as error:
                        self.question_errors[key] = [str(error)]
                        continue
                    if value is None:
                        if question.required:
                            self.question_errors[key] = [REQUIRED]
                        continue
                    mine[question.id] = value
                answers[element.id] = mine
            answer[group.id] = answers
        return answer


def _value(question: Question, data: Any) -> Any:
    """A group question's field value in the answer's terms (choice, scale, text); None for no answer."""
    if question.kind == "choice":
        return data or None
    if question.kind == "scale":
        if not data:
            return None
        try:
            number = float(data)
        except ValueError:
            raise ValueError(f"{str(data)[:40]!r} is not a point of the scale.") from None
        return int(number) if number.is_integer() else number
    text = (data or "").strip()
    return text or None


def declared_form(definition: Definition, item: HitItem, formdata: Any = None) -> DeclaredForm:
    """The HIT's form for `item`: form.declared_form, with a field per group question and element when the
    definition has `repeat` groups."""
    if not definition.repeats:
        return plain_form(definition, item, formdata)
    definition = item_when.for_item(definition, item.payload)   # the questions this item asks (item_when.py)
    top = dataclasses.replace(definition, questions=tuple(q for q in definition.questions
                                                          if q.group is None and q.derived is None))
    attributes: dict[str, Any] = {}
    for group in definition.repeats:
        for position, _ in enumerate(repeat.elements(group, item.payload)):
            for question in repeat.group_questions(definition, group.id):
                attributes[member_name(group.id, position, question)] = _field(question, item.payload)
    cls = type("DeclaredRepeatHitForm", (RepeatForm, form_class(top, item.payload)), attributes)
    form: DeclaredForm = cls(formdata=formdata) if formdata is not None else cls()
    form.definition, form.full, form.payload, form.question_errors = top, definition, item.payload, {}
    return form
