"""The one small interface every HIT type implements, and the value types it speaks.

A task type turns an Item into what the annotator sees (a form, a JSON item), turns an answer
into Label rows (validating it on the way: this is the only place that knows what a valid
answer is), and derives gold and agreement units from Label rows by its task's published rule.
Everything else (assignment, storage, agreement statistics, admin pages, the API) is shared.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

if TYPE_CHECKING:
    import pandas as pd
    from flask_wtf import FlaskForm

    from ..models import Item


class AnswerError(ValueError):
    """The answer does not fit the item; the message is shown to the annotator or API client."""


@dataclass(frozen=True)
class LabelIn:
    """One normalised piece of an answer: the `value` given for `field` of `unit`."""

    unit: str
    field: str
    value: str


@dataclass(frozen=True)
class NewItem:
    """An item as an importer produces it, before it has a database row."""

    external_id: str
    payload: dict[str, Any]


@dataclass(frozen=True)
class Setting:
    """A project setting of a task type, editable on the admin page."""

    name: str
    label: str
    default: float
    minimum: float = 0.0
    maximum: float = 1.0
    help: str = ""


@dataclass
class GoldSummary:
    """Counts per gold class for the admin page, in display order."""

    counts: dict[str, int] = field(default_factory=dict)


class TaskType(Protocol):
    name: ClassVar[str]            # "kp_match"; stored on Project.task_type
    title: ClassVar[str]           # shown to people
    template: ClassVar[str]        # "hits/kp_match.html"
    default_k: ClassVar[int]
    settings: ClassVar[tuple[Setting, ...]]

    def public_item(self, item: Item) -> dict[str, Any]:
        """What an annotator may see of the item (never gold); also the API's item JSON."""

    def form_for(self, item: Item, formdata: Any = None) -> FlaskForm:
        """The WTForms form of the HIT page, built from the item."""

    def answer_from_form(self, item: Item, form: FlaskForm) -> dict[str, Any]:
        """The answer JSON a valid form stands for (the same shape the API accepts)."""

    def labels(self, item: Item, answer: dict[str, Any]) -> list[LabelIn]:
        """Validate the answer against the item and normalise it; raise AnswerError if invalid."""

    def gold(self, labels: pd.DataFrame, settings: dict[str, Any]) -> pd.DataFrame:
        """Gold per unit by the task's published rule, from the project's label rows."""

    def gold_summary(self, gold: pd.DataFrame) -> GoldSummary:
        """How many units fall in each gold class."""

    def agreement_units(self, labels: pd.DataFrame) -> dict[str, pd.DataFrame]:
        """Per label field: a frame of (unit, coder, value) rows that agreement is computed on.

        The first field is the headline one (the admin's item view ranks items by it). Rows keep the
        index of the label rows they come from, so each can be traced back to its item.
        """


def settings_with_defaults(task: TaskType, stored: dict[str, Any]) -> dict[str, Any]:
    """The project's settings completed with the task type's defaults for anything unset."""
    values = {s.name: s.default for s in task.settings}
    values.update({k: v for k, v in (stored or {}).items() if k in values})
    return values
