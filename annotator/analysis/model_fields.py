"""What an annotator model (aggregation.py) says of a field's units: per unit, and compact for keeping.

`FieldAggregate` with its `UnitAggregate` rows is what `flask aggregate` prints and writes. A big project's pages
read the same figures from what is kept (figures/kept_figures.py, "model"), where one object per unit would cost
the page its time: at a million labels a payload of some hundred thousand small objects took longer to read than
the page may. `FieldPosteriors` holds the same figures as arrays (the fit's summary, then the units, their items,
their gold and the posteriors rounded as `flask aggregate` rounds them), and makes `UnitAggregate` rows only for
the units a page shows; `aggregate()` gives back exactly what `flask aggregate` gives.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

METHODS = ("dawid-skene", "one-coin")
PLACES = 6  # posteriors, priors, confusions and accuracies are rounded to this many decimals, everywhere shown
SHOWN_UNITS = 300  # the Dawid-Skene page's units per field: the ones differing from gold first, then the least certain


@dataclass
class UnitAggregate:
    unit: str
    label: str
    posterior: dict[str, float]   # class -> probability
    gold: str | None              # the task rule's value, None when the rule has none for this unit

    @property
    def confidence(self) -> float:
        return self.posterior[self.label]

    @property
    def differs(self) -> bool | None:
        return None if self.gold is None else self.gold != self.label


@dataclass
class FieldAggregate:
    field: str
    classes: list[str]
    priors: dict[str, float]
    iterations: int
    converged: bool
    compared: bool                # the task type gives a gold value per unit for this field
    # dataclasses.field: the name `field` is this class's first attribute.
    units: list[UnitAggregate] = dataclasses.field(default_factory=list)
    confusion: dict[str, list[list[float]]] = dataclasses.field(default_factory=dict)  # annotator -> true x given
    method: str = METHODS[0]
    accuracy: dict[str, float] = dataclasses.field(default_factory=dict)    # one-coin: annotator -> accuracy
    spammers: list[str] = dataclasses.field(default_factory=list)          # one-coin: likely spammers
    seeded: int | None = None     # with seed_controls: the control units whose known answer was fixed

    @property
    def differing(self) -> int:
        return sum(1 for u in self.units if u.differs)

    def to_dict(self) -> dict[str, Any]:
        data = {"field": self.field, "classes": self.classes, "priors": self.priors,
                "iterations": self.iterations, "converged": self.converged, "compared_with_gold": self.compared,
                "differing_from_gold": self.differing if self.compared else None,
                "units": [{"unit": u.unit, "label": u.label, "posterior": u.posterior, "gold": u.gold,
                           "differs": u.differs} for u in self.units]}
        if self.method == "one-coin":
            data.update(accuracy=self.accuracy, spammers=self.spammers)
        else:
            data["confusion"] = {"rows": "true class", "columns": "given class", "by_annotator": self.confusion}
        if self.seeded is not None:
            data["seeded_control_units"] = self.seeded
        return data


@dataclass(frozen=True)
class FieldPosteriors:
    """One field's fit as arrays: `summary` is its FieldAggregate without units; row r of the arrays is unit
    `units[r]`, of item `item_names[items[r]]` (none where the task type's rows do not say), with the rule's
    `gold[r]` where `has_gold[r]`. Items are kept as numbers, each name once; the units' names as an array of Python
    strings: numpy's fixed-width text made the 111,112 units of a million-label Track-2 check 15.5 MB (each name 35
    characters of 4 bytes), whose read from the database cost the items page far more (about 80 ms on PostgreSQL)
    than unpickling 111,112 strings (11 ms) (bench/results/2026-11-29-items-pages.md). `gold` is short text (a
    class) and stays fixed-width."""

    summary: FieldAggregate
    units: np.ndarray         # text, as Python strings (dtype object)
    item_names: list[str]     # the items, each once (far fewer than the units)
    items: np.ndarray         # per unit: its item's index in item_names, -1 where unknown
    gold: np.ndarray          # text ("" where has_gold is False)
    has_gold: np.ndarray      # bool
    labels: np.ndarray        # per unit: the index in summary.classes of the model's label
    posteriors: np.ndarray    # units x classes, rounded to PLACES
    differs: np.ndarray       # per unit: the rule's gold is another class than the model's label

    @classmethod
    def of(cls, summary: FieldAggregate, units: list[str], items: list[str | None], gold: list[str | None],
           labels: np.ndarray, posteriors: np.ndarray) -> FieldPosteriors:
        import numpy as np
        has_gold = np.array([g is not None for g in gold], dtype=bool)
        gold_text = np.array([g or "" for g in gold], dtype=str)
        label_text = np.array(summary.classes, dtype=str)[labels] if len(units) else np.array([], dtype=str)
        differs = has_gold & (gold_text != label_text) if len(units) else np.zeros(0, dtype=bool)
        names: dict[str, int] = {}
        codes = np.array([-1 if i is None else names.setdefault(i, len(names)) for i in items], dtype=np.int64)
        return cls(summary, np.array(units, dtype=object), list(names), codes, gold_text, has_gold,
                   np.asarray(labels, dtype=np.int64), posteriors, differs)

    @property
    def field(self) -> str:
        return self.summary.field

    @property
    def count(self) -> int:
        return len(self.units)

    @property
    def differing(self) -> int:
        return int(self.differs.sum())

    @property
    def with_gold(self) -> int:
        """Units the rule gives a gold value."""
        return int(self.has_gold.sum())

    def unit(self, row: int) -> UnitAggregate:
        classes = self.summary.classes
        return UnitAggregate(str(self.units[row]), classes[int(self.labels[row])],
                             {c: float(p) for c, p in zip(classes, self.posteriors[row])},
                             str(self.gold[row]) if self.has_gold[row] else None)

    def aggregate(self) -> FieldAggregate:
        """The field as `flask aggregate` gives it, every unit listed."""
        return dataclasses.replace(self.summary, units=[self.unit(r) for r in range(self.count)])

    def shown(self, limit: int) -> list[UnitAggregate]:
        """The `limit` units a page lists: those differing from gold first, then the least certain (file order
        among equals)."""
        import numpy as np
        confidence = self.posteriors[np.arange(self.count), self.labels] if self.count else np.zeros(0)
        key = confidence + 2.0 * ~self.differs   # a posterior is at most 1: the differing units come first
        if self.count <= limit:
            return [self.unit(int(r)) for r in np.argsort(key, kind="stable")]
        # The first `limit` of a stable sort without sorting them all (70 ms at 100,000 units on a loaded
        # machine): every unit below the limit-th key, then those equal to it in file order.
        at = np.partition(key, limit - 1)[limit - 1]
        below = np.flatnonzero(key < at)
        chosen = np.concatenate([below, np.flatnonzero(key == at)[:limit - len(below)]])
        return [self.unit(int(r)) for r in chosen[np.lexsort((chosen, key[chosen]))]]

    def page(self, limit: int = SHOWN_UNITS) -> FieldPage:
        """What the Dawid-Skene page shows of the field: its fit, its counts and the `limit` units it lists."""
        return FieldPage(self.summary, self.count, self.differing, self.with_gold, self.shown(limit))

    def of_items(self, wanted: Collection[str]) -> dict[str, list[UnitAggregate]]:
        """item -> its units, for the items asked (a page of them)."""
        import numpy as np
        asked = set(wanted)
        codes = [code for code, name in enumerate(self.item_names) if name in asked]
        found: dict[str, list[UnitAggregate]] = {}
        for row in np.flatnonzero(np.isin(self.items, codes)) if codes else []:
            found.setdefault(self.item_names[self.items[row]], []).append(self.unit(int(row)))
        return found


@dataclass(frozen=True)
class FieldPage:
    """What the Dawid-Skene page shows of one field (FieldPosteriors.page): the fit's summary, how many units and how
    many of them differ from the rule's gold, and the page's units. Kept apart from the field's arrays (figures/
    kept_figures.py, "model_page"): at a million labels a RuArg-2022 project's model holds ten fields of 18,000 to
    111,000 units, and the page, which lists 300 of each, took several times the project page to read them all
    (bench/results/2026-11-28-kept-figures-memory.md)."""

    summary: FieldAggregate
    count: int
    differing: int
    with_gold: int
    shown: list[UnitAggregate]

    @property
    def field(self) -> str:
        return self.summary.field
