"""The one small interface every HIT type implements (the value types it speaks are core/hit_values.py's).

A task type turns an Item into what the annotator sees (a form, a JSON item), turns an answer
into Label rows (validating it on the way: this is the only place that knows what a valid
answer is), and derives gold and agreement units from Label rows by its task's published rule.
Everything else (assignment, storage, agreement statistics, admin pages, the API, the CLI) is
shared and reads what the type declares here.

`settings` arguments are the project's settings completed with the type's defaults
(`TaskType.settings_of(project)`; None stands for the defaults): types whose HIT depends on a setting (the
claims of a stance HIT, say) read it from there instead of from the item.
"""
from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from annotator.core.hit_values import AnswerError, Check, HitItem, LabelIn, plain_words
from annotator.core.jsonsafe import JSONValueError, check_value
from annotator.core.options import Option, OptionError, parse_options

if TYPE_CHECKING:
    import pandas as pd
    from flask_wtf import FlaskForm


STATIC = Path(__file__).resolve().parents[2] / "static"
VOTES_PER_VALUE = ": votes per value"  # ends the name of a field's distribution (TaskType.label_distribution)
GOLD_PER_OPTION = ": items whose gold chose each option"  # ends a question's options counted in gold


@dataclass
class GoldSummary:
    """Counts per gold class for the admin page, in display order."""

    counts: dict[str, int] = field(default_factory=dict)


class GoldFromReferences(Protocol):
    """The `gold` of a task type with `gold_uses_references`: it takes the items' reference answers too."""

    def gold(self, labels: pd.DataFrame, settings: Mapping[str, Any],
             references: Mapping[str, Any] | None = None) -> pd.DataFrame: ...


class TaskType:
    """Base of every HIT type: what a type must say about itself, and the defaults it may keep.

    A subclass lives in its own module of this package and is registered by that module's
    `TASK_TYPE = MyType()`. Its template is `templates/hits/<name>.html` (extending
    `hits/_frame.html`); `templates/admin/items/<name>.html`, when it exists, draws an item on the
    admin's item view (a generic table otherwise); `static/css/<name>.css`, when it exists, is
    loaded by both.
    """

    name: ClassVar[str]            # stored on Project.task_type; also names its template and files
    title: ClassVar[str]           # shown to people
    default_k: ClassVar[int]
    settings: ClassVar[tuple[Option, ...]] = ()
    # True for a type whose gold rule needs the items' reference answers (e.g. "was the known answer
    # chosen"): `gold` is then called with references={item external id: reference}.
    gold_uses_references: ClassVar[bool] = False
    # True for a type whose items may carry a reference answer that is not a control's known answer (a declared
    # items file's `reference.<question>`): the admin's items page shows it, in `show_reference`'s words.
    shows_references: ClassVar[bool] = False
    # True for a type whose gold of an item comes from that item's votes alone (a threshold, a count, a
    # majority), not from annotators' records across items: a big project's kept gold is then folded forward,
    # the items whose votes changed recomputed from their own votes (figures/kept_gold.py;
    # tests/unit/test_gold_per_item.py checks the claim on each type's demo data).
    gold_per_item: ClassVar[bool] = False
    # Columns of the gold frame that hold Python objects as the type wrote them (text, None on the rows they do not
    # concern), never typed again from their values: a folded gold keeps them as a computed one has them.
    gold_object_columns: ClassVar[tuple[str, ...]] = ()
    # The keys an answer object has; any other key is refused (422) instead of stored. None: not declared
    # (then only the generic checks of `normalised_answer` apply).
    answer_keys: ClassVar[frozenset[str] | None] = None

    @property
    def template(self) -> str:
        return f"hits/{self.name}.html"

    @property
    def item_template(self) -> str:
        return f"admin/items/{self.name}.html"

    @property
    def stylesheet(self) -> str | None:
        name = f"css/{self.name}.css"
        return name if (STATIC / name).is_file() else None

    def for_project(self, project: Any) -> TaskType:
        """The type as one project uses it: itself, for a type whose questions are the same in every project.

        A type whose questions come from the project (a declared campaign's definition) returns one bound to it.
        """
        return self

    def agreement_unit_words(self, field: str, unit: str) -> str:
        """A unit of agreement_units (and of the annotator model's fields) as an admin page says it; the stored unit
        by default. Exports, the CLI and the API keep the stored unit."""
        return unit

    def rule_options(self) -> tuple[Option, ...]:
        """The parameters of the project's gold rules an organiser may change at any time, votes or not, on the
        settings form (a declared project's: declared/rule_settings.py). They are no settings of `settings`: they are
        stored in the project's definition."""
        return ()

    def rule_values(self) -> dict[str, Any]:
        """The rule_options' values now, by name."""
        return {}

    def changed_rules(self, given: Mapping[str, Any]) -> dict[str, tuple[Any, Any]]:
        """Of `given` (text or typed, None for unchanged), the rule_options whose value differs from now's, as
        {name: (now, then)}; OptionError naming one whose value does not fit."""
        return {}

    def definition_with_rules(self, definition: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
        """The stored definition with the changed rule parameters (changed_rules' new values) written in, checked;
        OptionError saying why it cannot be."""
        raise OptionError(f"{self.title} projects have no gold rules to change")

    def settings_of(self, project: Any) -> dict[str, Any]:
        """The project's stored settings completed with this type's defaults: what the type's methods are given.
        A method, not a pairing made at each call site, so a type is never given another project's settings."""
        return settings_with_defaults(self, project.settings)

    def defaults(self, settings: Mapping[str, Any] | None) -> Mapping[str, Any]:
        """The settings a method was given, or the type's defaults for None."""
        return settings_with_defaults(self, settings) if settings is None else settings

    def validate_settings(self, values: Mapping[str, Any]) -> list[str]:
        """Problems of a complete set of settings taken together (each value is already checked)."""
        return []

    def import_refusal(self, values: Mapping[str, Any]) -> str | None:
        """Why a project with these (complete) settings may not get its items from files, or None.

        Some projects' items are made from another project, not read from a file (RuArg's premise stage
        from its stance stage's gold); an import into one would give it items of the wrong shape.
        """
        return None

    @property
    def draws_presentation(self) -> bool:
        """Whether `presentation` draws anything: the engine builds its seeded generator only for such types."""
        return False

    def presentation(self, item: HitItem, rng: random.Random) -> dict[str, Any] | None:
        """How this item is shown to one annotator, drawn when it is leased and stored on the assignment.

        For types that randomise what they show (e.g. which of two systems is "A"); None for the rest.
        `public_item` and `labels` get it back, so an answer given in the shown terms is stored in the item's.
        """
        return None

    def public_item(self, item: HitItem, settings: Mapping[str, Any] | None = None,
                    presentation: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """What an annotator may see of the item (never gold); also the API's item JSON."""
        raise NotImplementedError

    def public_questions(self, item: HitItem) -> list[dict[str, Any]] | None:
        """What the HIT asks, for API clients, when it differs from one project to another (a declared
        campaign's questions); None for the built-in types, whose answer shapes docs/api.md documents."""
        return None

    def form_for(self, item: HitItem, settings: Mapping[str, Any] | None = None, formdata: Any = None) -> FlaskForm:
        """The WTForms form of the HIT page, built from the item."""
        raise NotImplementedError

    def answer_from_form(self, item: HitItem, form: FlaskForm) -> dict[str, Any]:
        """The answer JSON a valid form stands for (the same shape the API accepts)."""
        raise NotImplementedError

    def labels(self, item: HitItem, answer: Any, settings: Mapping[str, Any] | None = None,
               presentation: Mapping[str, Any] | None = None) -> list[LabelIn]:
        """Validate the answer against the item and normalise it; raise AnswerError if invalid."""
        raise NotImplementedError

    def checked(self, item: HitItem, answer: Any, settings: Mapping[str, Any] | None = None,
                presentation: Mapping[str, Any] | None = None) -> tuple[dict[str, Any], list[LabelIn]]:
        """The answer as stored and its label rows; AnswerError if refused, `labels`' refusal first.

        What the engine and the vote import call for each vote: a type that reads the item to check an answer (a
        declared campaign's, through its view of the item) overrides it to check once for both."""
        labels = self.labels(item, answer, settings, presentation)
        return self.normalised_answer(item, answer, settings, presentation), labels

    def normalised_answer(self, item: HitItem, answer: Any, settings: Mapping[str, Any] | None = None,
                          presentation: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The answer as it is stored on the assignment (and echoed by the API); AnswerError if refused.

        Whatever a client sends is refused rather than stored when it holds a non-finite number, NUL
        or a lone surrogate anywhere, or a key outside `answer_keys` (the engine calls it after `labels`
        accepted the values, so a wrong shape gets the type's own message).
        A type whose answers have a canonical form other than "the declared keys" overrides this
        (calling it first).
        """
        if not isinstance(answer, dict):
            raise AnswerError("the answer must be a JSON object")
        try:
            check_value(answer)
        except JSONValueError as error:
            raise AnswerError(str(error)) from None
        keys = self.known_answer_keys()
        if keys is not None:
            unknown = sorted(set(answer) - keys)
            if unknown:
                shown = ", ".join(repr(k[:40]) for k in unknown[:5])
                raise AnswerError(f"unknown key(s) {shown} in the answer: it has only {', '.join(sorted(keys))}")
        return dict(answer)

    def known_answer_keys(self) -> frozenset[str] | None:
        """The keys an answer may have: `answer_keys`, or for a type bound to a project, its questions' ids."""
        return self.answer_keys

    def example_answer(self, item: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
        """A valid answer to the public item, drawn at random: load tests and concurrency tests send these."""
        raise NotImplementedError

    def likely_answer(self, item: Mapping[str, Any], reference: Any, rng: random.Random) -> dict[str, Any]:
        """The answer a careful annotator would likely give to the public item, knowing the item's reference
        answer (None when it has none): the demo's annotators give it most of the time (cli/demo.py), so
        its gold and agreement look like a campaign's. By default an example answer."""
        return self.example_answer(item, rng)

    def gold(self, labels: pd.DataFrame, settings: Mapping[str, Any]) -> pd.DataFrame:
        """Gold per unit by the task's published rule, from the project's label rows.

        A type with `gold_uses_references` takes a third argument, `references`.
        """
        raise NotImplementedError

    def gold_summary(self, gold: pd.DataFrame) -> GoldSummary:
        """How many units fall in each gold class."""
        raise NotImplementedError

    def agreement_units(self, labels: pd.DataFrame) -> dict[str, pd.DataFrame]:
        """Per label field: a frame of (unit, coder, value) rows that agreement is computed on.

        A field whose values are ordered says so in the frame's attrs: `level="ordinal"` and `order`, the
        values from lowest to highest; Krippendorff's alpha is then ordinal (nominal otherwise).

        The first field is the headline one (the admin's item view ranks items by it). Rows keep the
        index of the label rows they come from, so each can be traced back to its item.
        """
        raise NotImplementedError

    def agreement_fields(self, labels: pd.DataFrame) -> Iterator[tuple[str, pd.DataFrame]]:
        """agreement_units' (name, frame) pairs one after another, in its order: a type that can make its fields one
        at a time makes each when the one before it is done with, so that a caller that lets each go (agreement,
        the counts per value, the annotator model) holds one field, not all (RuArg-2022's ten held some 190 MB at a
        million labels)."""
        yield from self.agreement_units(labels).items()

    def headline_units(self, labels: pd.DataFrame) -> tuple[str, pd.DataFrame] | None:
        """(name, units) of the first agreement field, the headline one, or None when there is none: what the items'
        ranking and the annotators' kappas read. A type whose fields are made one after another makes only the
        first: at a million labels RuArg-2022's ten fields held some 190 MB to give the first (relevance)."""
        return next(iter(self.agreement_units(labels).items()), None)

    def gold_units(self, gold: pd.DataFrame) -> dict[str, pd.Series]:
        """Per agreement field: the gold value of each unit (a Series indexed by the agreement units' `unit`,
        with their values), so other aggregations (Dawid-Skene) can be compared with the task's rule.

        Fields missing here are shown without a comparison; units the rule leaves undecided are left out.
        """
        return {}

    def model_fields(self, fields: Iterable[str]) -> list[str]:
        """Of the annotator model's fields (the agreement fields, analysis/aggregation.py), those whose label and
        posterior the items and adjudication pages show beside each item: the categorical questions. Every one by
        default; a type whose agreement fields also hold numbers or derived figures keeps its categorical ones."""
        return list(fields)

    def label_distribution(self, labels: pd.DataFrame, gold: pd.DataFrame) -> dict[str, dict[str, int]]:
        """For the dashboard: named distributions of counts (name -> {value: count}).

        By default how often each value was given in each agreement field; a type may say something closer
        to its task (e.g. how many arguments gold matches with each key point).
        """
        found = {}
        for name, frame in self.agreement_fields(labels):   # each field let go before the next is made
            found[f"{name}{VOTES_PER_VALUE}"] = {str(value): int(count) for value, count
                                                 in frame["value"].value_counts().sort_index().items()}
            del frame
        return found

    def checks(self, labels: pd.DataFrame, gold: pd.DataFrame, references: Mapping[str, Any]) -> list[Check]:
        """The task's consistency checks over votes and gold (and reference labels by item), for the admin."""
        return []

    # Control items (annotator/quality): an item with a known answer, `Item.reference`, in the shape the
    # type's imports give it (e.g. key point id -> 0/1). A type that can score an answer against it
    # can have control items; the defaults say it cannot.
    def control_score(self, item: HitItem, answer: Any, reference: Any, settings: Mapping[str, Any] | None = None,
                      presentation: Mapping[str, Any] | None = None) -> float | None:
        """How right a (valid) answer is against the known answer, from 0 to 1; None: cannot be scored."""
        return None

    def control_reference(self, item: HitItem, labels: pd.DataFrame, gold: pd.DataFrame) -> Any:
        """The item's current gold (its gold rows, and its label rows) as a known answer; None when undecided."""
        return None

    def show_reference(self, item: HitItem, reference: Any, settings: Mapping[str, Any] | None = None) -> str:
        """The known answer in words, for the feedback an annotator may get after a control item."""
        return str(reference)

    # Words for the admin's HTML pages. Exports, the API and the CLI keep the stored values: the official
    # formats are exact. `field` is a label row's field, a gold column or an agreement field (a type names
    # them alike where they hold the same values); `value` as stored (a string in label rows).
    def label_words(self, field: str, value: Any) -> str:
        """A stored value of `field` in the task's own words ("Match" for the key-point match's 1)."""
        return plain_words(value)

    def field_words(self, field: str) -> str:
        """The name of a field, gold column or agreement field, as a heading says it."""
        return field.replace("_", " ")

    def unit_words(self, payload: Mapping[str, Any], row: Mapping[str, Any]) -> str | None:
        """What a gold row's unit is about, in words, for the admin's pages (a key point's text for its id, a
        span's word for its position); None where the unit's name says it already. `payload`: the item's."""
        return None

    def item_words(self, payload: Mapping[str, Any]) -> str:
        """The item in words, for a list of items (the adjudication's links): its first text beside its id."""
        text = next((v for k, v in payload.items() if k != "id" and isinstance(v, str) and v.strip()), None)
        return text if text is not None else str(payload.get("id", ""))

    def gold_words(self, row: Mapping[str, Any]) -> dict[str, str]:
        """A unit's gold row (a row of `gold`) in words, by column, without its item and unit."""
        return {column: self.label_words(column, value) for column, value in row.items()
                if column not in ("item", "unit")}

    # Adjudication: a type whose rule leaves items undecided may let an admin decide them. The admin
    # answers through the HIT's own form; the answer is checked by `labels` like any vote and stored
    # once per item (models.Adjudication); `adjudicate` makes it win over the rule in gold.
    adjudicable: ClassVar[bool] = False

    def undecided(self, gold: pd.DataFrame) -> list[str]:
        """The items (external ids, in gold order) that the rule leaves for an admin to decide."""
        return []

    def adjudicate(self, gold: pd.DataFrame, decided: pd.DataFrame) -> pd.DataFrame:
        """Gold with the admin's answers (label rows: item, unit, field, value) in place of the rule's."""
        raise NotImplementedError


def settings_with_defaults(task: TaskType, stored: Mapping[str, Any] | None) -> dict[str, Any]:
    """The project's settings completed with the task type's defaults for anything unset."""
    values = {s.name: s.default for s in task.settings}
    values.update({k: v for k, v in (stored or {}).items() if k in values})
    return values


def checked_settings(task: TaskType, stored: Mapping[str, Any] | None, given: Mapping[str, Any]) -> dict[str, Any]:
    """The stored settings with `given` applied (text or typed values), each and all together checked.

    Returns only the type's own settings; OptionError names the first problem.
    """
    current = settings_with_defaults(task, stored)
    wanted = {k: v for k, v in given.items() if v is not None}
    parsed = parse_options(task.settings, wanted, task.name)
    current.update({k: parsed[k] for k in wanted if parsed[k] is not None})
    problems = task.validate_settings(current)
    if problems:
        raise OptionError(problems[0])
    return current
