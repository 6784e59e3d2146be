"""The values every HIT type speaks, whichever engine serves it: an answer refused (AnswerError), an item as
a HIT reads it (HitItem), one label row of an answer (LabelIn), an item as an import makes it (NewItem), a
consistency check's result (Check), and a stored value in plain words. In core/ because
the declared engine (declared/) and the built-in types (tasks/base.py, which builds its TaskType on them) both
speak them, and tasks/ lies above declared/."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol


class AnswerError(ValueError):
    """The answer does not fit the item; the message is shown to the annotator or API client."""


class HitItem(Protocol):
    """What a task type reads of an item: an `Item` entity (annotator/core/models.py) answers it, and so
    does a row of the item's columns (the engine's hot path reads items as rows of core/statements.ITEM_COLUMNS)."""

    @property
    def external_id(self) -> str: ...
    @property
    def payload(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class LabelIn:
    """One normalised piece of an answer: the `value` given for `field` of `unit`."""

    unit: str
    field: str
    value: str


@dataclass(frozen=True)
class Check:
    """A consistency check of a task over its votes or gold: how many of how many are flagged, and which."""

    name: str
    flagged: int
    of: int
    examples: tuple[str, ...] = ()
    note: str = ""


@dataclass(frozen=True)
class NewItem:
    """An item as an importer produces it, before it has a database row.

    `reference` is what the source file already says the answer is (imported labels): kept apart
    from the payload so that no page or API answer can show it to annotators by mistake.
    `control`: the item is a control item from the start, its `reference` the known answer (quality/).
    `file` and `line`: where the item was read, when the reader knows, so that a problem found while storing
    it (an id already taken) is named there too; not part of what the item is.
    """

    external_id: str
    payload: dict[str, Any]
    reference: Any = None
    control: bool = False
    file: str | None = field(default=None, compare=False)
    line: int | None = field(default=None, compare=False)


def plain_words(value: Any) -> str:
    """Any value in plain words: yes / no for a truth value, a dash for none, three decimals for a fraction."""
    import numpy as np
    if value is None or (isinstance(value, float) and value != value):
        return "–"
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, float) and not float(value).is_integer():
        return f"{value:.3f}"
    if isinstance(value, float):
        return str(int(value))
    return str(value)
