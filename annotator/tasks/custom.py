"""Declared campaigns: a HIT type whose questions, gold rules and agreement come from a definition file.

One `DeclaredTask` per definition. Projects of this type have `task_type = "custom"` and keep their
checked definition on `Project.definition`; `tasks.project_task(project)` gives the project's bound type,
so the engine, the admin pages, the API and the exports treat it like any built-in type. The registered
`TASK_TYPE` is the unbound one, for the places that know only the type's name (listings, import forms).

The parts live in annotator/declared/: the definition and its validator, answers and label rows, gold
rules and agreement, the HIT's form, items in and results out.
"""
from __future__ import annotations

import json
import random
from collections.abc import Iterable, Iterator, Mapping
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any, ClassVar

from annotator.core.options import Option
from annotator.declared import TYPE_NAME, adjudication, best_worst, item_heat, item_page, item_view
from annotator.declared import answers as declared_answers
from annotator.declared import repeat as declared_repeat
from annotator.declared.definition import CATEGORICAL, SIDES, Definition
from annotator.declared.definition_reader import definition_from_data
from annotator.declared.earlier_answers import Earlier, converter_for, definition_key
from annotator.declared.form import answer_from_form
from annotator.declared.gold import (
    agreement_fields,
    agreement_units,
    control_reference,
    control_score,
    declared_gold,
    gold_counts,
    gold_units,
    per_item,
    rule_checks,
    show_reference,
)
from annotator.declared.repeat_form import declared_form  # the declared form, with `repeat` groups
from annotator.declared.rule_settings import changed_rules, rule_settings, rule_values, with_rules
from annotator.declared.rules import TICKED
from annotator.declared.words import agreement_unit_words, gold_row_words, unit_words, value_words
from annotator.tasks.base import GOLD_PER_OPTION, AnswerError, Check, GoldSummary, HitItem, LabelIn, TaskType

if TYPE_CHECKING:
    import pandas as pd
    from flask_wtf import FlaskForm

    from annotator.declared.bridge_base import ItemKeys

NAME = TYPE_NAME


class DeclaredTask(TaskType):
    name: ClassVar[str] = NAME
    title: ClassVar[str] = "Declared campaign"
    default_k: ClassVar[int] = 3
    adjudicable: ClassVar[bool] = True       # an item its rules leave undecided (declared/adjudication.py)
    gold_uses_references: ClassVar[bool] = True
    shows_references: ClassVar[bool] = True     # reference.<question> of an items file (declared/items.py)

    def __init__(self, definition: Definition | None = None, earlier: Earlier | None = None,
                 settings: tuple[Option, ...] = ()):
        self._definition = definition
        # The built-in type's settings a project of this definition keeps (its bridge's `kept_settings`): no rules,
        # what the shared task's exports and rankings read. An instance's own, as a bound type's definition is.
        self.settings = settings  # type: ignore[misc]
        self._earlier = earlier   # a built-in type's answers this definition also takes (declared/earlier_answers.py)
        self._item_keys: ItemKeys | None = earlier.item_keys if earlier is not None else None
        # A bound type's gold is per item when every rule of its definition reads one item's votes (a share, m of n,
        # a probability), as the built-in types' were; one with Dawid-Skene, Bradley-Terry or a named rule is not.
        self.gold_per_item = definition is not None and per_item(definition)  # type: ignore[misc]
        # Its further decisions' columns (`gold.also`): text on their question's rows, None on the others.
        decisions = definition.decisions() if definition is not None else ()
        self.gold_object_columns = tuple(d.name for d in decisions)  # type: ignore[misc]
        # The last item's view, (item, its payload, the view): a vote is checked, labelled and stored from one view,
        # and an import's votes come item by item (nine per sentence of the emphasis files).
        self._last_view: tuple[Any, Any, HitItem] | None = None
        # The last payload's view, (payload, the view): the dashboard asks each payload for several units' words
        # (every key point of a topic), and the view is most of the cost.
        self._last_payload_view: tuple[Mapping[str, Any], dict[str, Any]] | None = None

    @property
    def definition(self) -> Definition:
        if self._definition is None:
            raise LookupError("a declared campaign's type is bound to its project's definition: "
                              "use tasks.project_task(project)")
        return self._definition

    def for_project(self, project: Any) -> TaskType:
        """The type bound to the project's definition; one per definition, so a request builds none."""
        return _bound(definition_key(project.definition))

    def agreement_unit_words(self, field: str, unit: str) -> str:
        return agreement_unit_words(self.definition, field, unit)

    def rule_options(self) -> tuple[Option, ...]:
        return tuple(setting.option for setting in rule_settings(self.definition))

    def rule_values(self) -> dict[str, Any]:
        return rule_values(self.definition)

    def changed_rules(self, given: Mapping[str, Any]) -> dict[str, tuple[Any, Any]]:
        return changed_rules(self.definition, given)

    def definition_with_rules(self, definition: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
        return with_rules(definition, self.definition, changes)

    @property
    def heading(self) -> str:
        """The campaign's own name, where the built-in types show their title."""
        return self._definition.name if self._definition is not None else self.title

    # --- what annotators see and send ------------------------------------------------------------------

    @property
    def draws_presentation(self) -> bool:
        return declared_answers.presentation_drawn(self.definition)

    def presentation(self, item: HitItem, rng: random.Random) -> dict[str, Any] | None:
        return declared_answers.presentation(self.definition, rng)

    def public_item(self, item: HitItem, settings: Mapping[str, Any] | None = None,
                    presentation: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The item's id and the fields the HIT reads, as the item has them, and under `sides` each pairwise
        question's two fields on the sides this annotator sees them ({"A": {"field", "value"}, "B": ...}).

        The fields themselves are never swapped: other questions (a span of the same text) are about them.
        Fields naming what a pairwise question compares (`players`) stay hidden: the comparison is blind. The fields
        are read through the item's view (declared/item_view.py): a key path gives the value it leads to, never the
        object around it; options and tokens carry no other keys; a kept field is never sent.
        A definition that replaces a built-in type whose API item differed (its bridge's `item_keys`) also gives
        today's keys the item lacks, for API clients that read them.
        """
        payload = self._viewed(item).payload
        hidden = {p for q in self.definition.questions for p in (q.players or ())}
        public: dict[str, Any] = {"id": item.external_id}
        if best_worst.question_of(self.definition) is not None:   # a tuple: its members' ids and shown fields
            drawn = [s.field for s in self.definition.show]
            public[best_worst.TUPLE] = [{"id": m.get("id"), **{name: m.get(name) for name in drawn}}
                                        for m in best_worst.members(payload)]
            return public
        for name in self.definition.item_fields():
            if name not in hidden:
                public[name] = payload.get(name)
        sides = {}
        for question in self.definition.questions:
            if question.kind == "pairwise" and question.derived is None:   # a derived one is not shown
                shown = (question.b, question.a) if declared_answers.swapped(question, presentation) else \
                    (question.a, question.b)
                sides[question.id] = {side: {"field": name, "value": payload.get(name or "")}
                                      for side, name in zip(("A", "B"), shown)}
        if sides:
            public[SIDES] = sides
        if self._item_keys is not None:
            for key, value in self._item_keys(item.payload, presentation).items():
                public.setdefault(key, value)
        return public

    def _viewed(self, item: HitItem) -> HitItem:
        """The item as the definition reads it (key paths resolved, tokens as text): every method below reads it."""
        last = self._last_view   # one read: another thread may replace it meanwhile, never half of it
        if last is not None and last[0] is item and last[1] is item.payload:
            return last[2]
        seen: HitItem = item_view.viewed(self.definition, item)
        self._last_view = (item, item.payload, seen)
        return seen

    def public_questions(self, item: HitItem) -> list[dict[str, Any]] | None:
        return declared_answers.public_questions(self.definition, self._viewed(item).payload)

    def form_for(self, item: HitItem, settings: Mapping[str, Any] | None = None, formdata: Any = None) -> FlaskForm:
        return declared_form(self.definition, self._viewed(item), formdata)

    def answer_from_form(self, item: HitItem, form: FlaskForm) -> dict[str, Any]:
        return answer_from_form(self.definition, self._viewed(item), form)

    def _answer(self, item: HitItem, answer: Any, presentation: Mapping[str, Any] | None) -> Any:
        """The answer in the definition's terms: one in the shape of the built-in type the definition replaces is
        converted, read with the lease's drawn order (AnswerError with that type's message); which shape an answer
        is in, declared/earlier_answers.py decides."""
        return self._answer_checked(item, answer, presentation)[0]

    def _answer_checked(self, item: HitItem, answer: Any, presentation: Mapping[str, Any] | None
                        ) -> tuple[Any, tuple[dict[str, Any], list[LabelIn]] | None]:
        """`_answer`, and the check of it where deciding its shape took one (else None): a vote is checked once."""
        if self._earlier is None or not isinstance(answer, dict):
            return answer, None
        own = self._answer_keys
        if not self._earlier.is_todays(answer, own):
            try:
                return answer, declared_answers.check_answer(self.definition, self._viewed(item).payload, answer,
                                                             presentation)
            except AnswerError:
                if not self._earlier.falls_back(answer, own):
                    raise
        return self._earlier.convert(answer, item.payload, presentation), None

    @cached_property
    def _answer_keys(self) -> frozenset[str]:
        return frozenset(declared_repeat.answer_keys(self.definition))

    def labels(self, item: HitItem, answer: Any, settings: Mapping[str, Any] | None = None,
               presentation: Mapping[str, Any] | None = None) -> list[LabelIn]:
        answer = self._answer(item, answer, presentation)
        return declared_answers.check_answer(self.definition, self._viewed(item).payload, answer, presentation)[1]

    def checked(self, item: HitItem, answer: Any, settings: Mapping[str, Any] | None = None,
                presentation: Mapping[str, Any] | None = None) -> tuple[dict[str, Any], list[LabelIn]]:
        """One check of the answer against the item's view gives both the stored answer and its label rows."""
        answer, done = self._answer_checked(item, answer, presentation)
        stored, labels = done if done is not None else \
            declared_answers.check_answer(self.definition, self._viewed(item).payload, answer, presentation)
        super().normalised_answer(item, answer, settings, presentation)  # JSON-safe values only
        return stored, labels

    def known_answer_keys(self) -> frozenset[str]:
        return self._answer_keys

    def normalised_answer(self, item: HitItem, answer: Any, settings: Mapping[str, Any] | None = None,
                          presentation: Mapping[str, Any] | None = None) -> dict[str, Any]:
        answer = self._answer(item, answer, presentation)
        super().normalised_answer(item, answer, settings, presentation)  # JSON-safe values only
        return declared_answers.check_answer(self.definition, self._viewed(item).payload, answer, presentation)[0]

    def example_answer(self, item: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
        return declared_answers.example_answer(self.definition, item, rng)

    def likely_answer(self, item: Mapping[str, Any], reference: Any, rng: random.Random) -> dict[str, Any]:
        """An example answer that gives the item's known answers (its reference, `{question id: answer}`, the
        answer's shape) where it has them: a careful annotator mostly agrees with the data set's own answer, so a
        demo of a campaign whose rules read the references (a share of correct answers) keeps what a real one
        would. Only the questions the example answers are replaced (one the item does not ask stays out)."""
        answer = self.example_answer(item, rng)
        if isinstance(reference, Mapping):
            answer.update({key: value for key, value in reference.items() if key in answer})
        return answer

    # --- gold and agreement --------------------------------------------------------------------------

    def gold(self, labels: pd.DataFrame, settings: Mapping[str, Any],
             references: Mapping[str, Any] | None = None) -> pd.DataFrame:
        """Gold by the definition's rules; the items' known answers are there for a named rule that reads them
        (ReCAM's selection: an annotator's accuracy, a question's known answer)."""
        return declared_gold(self.definition, labels, references)

    def undecided(self, gold: pd.DataFrame) -> list[str]:
        return adjudication.undecided(gold)

    def adjudicate(self, gold: pd.DataFrame, decided: pd.DataFrame) -> pd.DataFrame:
        return adjudication.adjudicated(self.definition, gold, decided)

    def checks(self, labels: pd.DataFrame, gold: pd.DataFrame, references: Mapping[str, Any]) -> list[Check]:
        """The consistency checks of the definition's named check rules (`checks:`; e.g. RuArg-2022's)."""
        return rule_checks(self.definition, labels, gold, references)

    def gold_summary(self, gold: pd.DataFrame) -> GoldSummary:
        counts = gold_counts(self.definition, gold)
        if adjudication.summary_items(self.definition.data):
            counts = {**adjudication.item_counts(gold), **counts}
        return GoldSummary(counts)

    def agreement_units(self, labels: pd.DataFrame) -> dict[str, pd.DataFrame]:
        return agreement_units(self.definition, labels)

    def agreement_fields(self, labels: pd.DataFrame) -> Iterator[tuple[str, pd.DataFrame]]:
        return agreement_fields(self.definition, labels)

    def headline_units(self, labels: pd.DataFrame) -> tuple[str, pd.DataFrame] | None:
        return next(iter(agreement_units(self.definition, labels, first_only=True).items()), None)

    def gold_units(self, gold: pd.DataFrame) -> dict[str, pd.Series]:
        return gold_units(self.definition, gold)

    def model_fields(self, fields: Iterable[str]) -> list[str]:
        """The categorical questions' own fields (choice, multi, pairwise: the kinds a Dawid-Skene rule may
        decide); not the figures derived from them (merged options, a multi question's per-option fields)."""
        categorical = {q.id for q in self.definition.questions if q.kind in CATEGORICAL}
        return [f for f in fields if f in categorical]

    def label_words(self, field: str, value: Any) -> str:
        return value_words(self.definition, field, value)

    def label_distribution(self, labels: pd.DataFrame, gold: pd.DataFrame) -> dict[str, dict[str, int]]:
        """Beside the votes per value, each `multi` question's options counted in gold: how many items' gold chose
        each option (KPA-2021's key-point prevalence: how many arguments gold matches with each key point, which the
        built-in match type drew), the options in the order gold first lists them."""
        found: dict[str, dict[str, int]] = {}
        for question in self.definition.questions:
            rows = gold[gold["question"] == question.id] if question.kind == "multi" and not gold.empty else None
            if rows is None or rows.empty:
                continue
            chosen = rows.loc[rows["gold"] == TICKED, "unit"].astype(str).value_counts()
            found[f"{question.id}{GOLD_PER_OPTION}"] = {str(unit): int(chosen.get(str(unit), 0))
                                                        for unit in dict.fromkeys(rows["unit"])}
        return {**found, **super().label_distribution(labels, gold)}

    def unit_words(self, payload: Mapping[str, Any], row: Mapping[str, Any]) -> str | None:
        last = self._last_payload_view   # one read, as in _viewed; the payload it holds stays alive, so `is` is safe
        if last is not None and last[0] is payload:
            return unit_words(self.definition, last[1], row)
        seen = item_view.view(self.definition, payload)
        self._last_payload_view = (payload, seen)
        return unit_words(self.definition, seen, row)

    def vote_table(self, payload: Mapping[str, Any], votes: Iterable[tuple[str, Mapping[str, Any]]],
                   fields: Mapping[str, str]) -> tuple[list[str], list[tuple[str, list[str]]]]:
        """The items page's annotations of an item, each answer in words (declared/item_page.py)."""
        return item_page.vote_table(self.definition, payload, votes, fields)

    def shown_gold(self, gold: Mapping[str, Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
        """The items page's gold rows of an item, less the per-character ones (declared/item_page.py)."""
        return item_page.shown_gold(self.definition, gold)

    def gold_words(self, row: Mapping[str, Any]) -> dict[str, str]:
        return gold_row_words(self.definition, row, super().gold_words(row))

    # --- the admin's items page (templates/admin/items/custom.html) ---------------------------------------------

    def heat_views(self, row: Any) -> list[item_heat.HeatView]:
        """The item's span questions with boundaries, drawn as their text word by word (declared/item_heat.py);
        `row` is the page's ItemRow."""
        return item_heat.heat_views(self.definition, item_view.view(self.definition, row.item.payload), row.gold,
                                    row.votes, row.vote_fields)

    # --- control items: a known answer is an answer object, scored question by question ---------------

    def control_score(self, item: HitItem, answer: Any, reference: Any, settings: Mapping[str, Any] | None = None,
                      presentation: Mapping[str, Any] | None = None) -> float | None:
        """The definition's score, or, for a known answer in the built-in type's shape that the shared task's files
        give (KPA's labels), the built-in's score (the bridge's `known_score`)."""
        if self._earlier is not None and self._earlier.known_score is not None:
            built_in = self._earlier.known_score(answer, reference, item.payload)
            if built_in is not None:
                return built_in
        return control_score(self.definition, self._viewed(item).payload, answer, reference, presentation)

    def control_reference(self, item: HitItem, labels: pd.DataFrame, gold: pd.DataFrame) -> Any:
        return control_reference(self.definition, item.external_id, gold, self._viewed(item).payload)

    def show_reference(self, item: HitItem, reference: Any, settings: Mapping[str, Any] | None = None) -> str:
        if self._earlier is not None and self._earlier.known_words is not None:
            built_in = self._earlier.known_words(reference, item.payload)
            if built_in is not None:
                return built_in
        return show_reference(self.definition, self._viewed(item).payload, reference)


@lru_cache(maxsize=128)
def _bound(definition: str) -> DeclaredTask:
    """Bound types by definition (its JSON text); a project's definition is fixed once it has votes."""
    earlier = converter_for(definition)
    return DeclaredTask(definition_from_data(json.loads(definition)), earlier, kept_settings(earlier))


def kept_settings(earlier: Earlier | None) -> tuple[Option, ...]:
    """The built-in type's settings that a declared project of its bridge's definition keeps, as the type had them
    (names, checks, defaults: the bridge holds them), so a project's settings page, import and readers treat them as
    the built-in did."""
    return earlier.kept_settings if earlier is not None else ()


TASK_TYPE = DeclaredTask()
