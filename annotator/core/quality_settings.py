"""A project's quality-control settings, declared once (admin form, parsing, defaults).

Kept in `Project.quality` apart from the task type's settings: they are the same for every type. Here in core/,
beside the other declared options, because the engine, quality control and analysis (which items count: an
item's target) all read them, and analysis lies below quality control (docs/architecture.md).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, literal

from annotator.core.models import Item, Project
from annotator.core.options import Option, OptionError, parse_options, stored_with_changes

QUALITY_OPTIONS: tuple[Option, ...] = (
    Option("control_rate", float, 0.1, label="Share of HITs that are control items (0 = none)",
           help="control items are items with a known answer, served among the others", minimum=0, maximum=1),
    Option("control_feedback", bool, False, label="Tell the annotator after a control item whether the answer "
                                                  "was right (off for crowd work)"),
    Option("quiz_items", int, 0, label="Qualification quiz: control items before any real HIT (0 = no quiz)",
           minimum=0, maximum=100),
    Option("quiz_pass_mark", float, 0.8, label="Qualification quiz: mean score needed to pass (0 to 1)",
           minimum=0, maximum=1),
    Option("block_min_controls", int, 0, label="Blocking: control answers before accuracy is judged (0 = never)",
           minimum=0, maximum=10000),
    Option("block_accuracy", float, 0.6, label="Blocking: accuracy on control items below which an annotator is "
                                               "blocked", minimum=0, maximum=1),
    Option("block_min_median_seconds", float, 0.0, label="Blocking: minimum median seconds per HIT (0 = off)",
           minimum=0, maximum=3600),
    Option("block_spammer_below", float, 0.0, label="Blocking: one-coin spammer score below which an annotator is "
                                                    "blocked (0 = off)",
           help="accuracy above chance, 0 random, 1 perfect (docs/annotator-models.md); 0.3 flags a two-answer "
                "annotator right 65% of the time", minimum=0, maximum=1),
    Option("block_spammer_min_votes", int, 20, label="Blocking: votes an annotator gives before the spammer score "
                                                     "is judged", minimum=1, maximum=100000),
    Option("block_same_answer_share", float, 0.0, label="Blocking: share of HITs given one same answer above which "
                                                        "an annotator is blocked (0 = off)",
           help="one-button answering: the very same answer on this share of their HITs or more", minimum=0,
           maximum=1),
    Option("block_same_answer_min_items", int, 20, label="Blocking: HITs an annotator answers before one-button "
                                                         "answering is judged", minimum=1, maximum=100000),
    Option("blocked_votes", str, "keep", label="Votes of blocked annotators",
           help="keep: they still count; exclude: they stop counting and their items get new votes",
           choices=("keep", "exclude")),
    Option("kappa_min_units", int, 10, label="Annotator kappa: shared units needed for a pair of annotators",
           minimum=1, maximum=100000),
    Option("gold_min_kappa", float, None, label="Leave annotators whose mean kappa is below this out of gold "
                                                "(empty = keep everyone)", minimum=-1, maximum=1),
    Option("max_k", int, 0, label="Dynamic overlap: at most this many votes per item (0 = fixed k; k is the minimum)",
           minimum=0, maximum=1000),
    Option("confidence", float, 0.9, label="Dynamic overlap: posterior of each unit's majority answer that stops "
                                           "an item at k", minimum=0.5, maximum=1),
    Option("default_accuracy", float, 0.7, label="Dynamic overlap: accuracy assumed for an annotator with no "
                                                 "control answer", minimum=0.01, maximum=0.99),
)


@dataclass(frozen=True)
class Quality:
    """The settings as attributes, with what the engine asks of them in one word each."""

    values: Mapping[str, Any]

    def __getattr__(self, name: str) -> Any:
        try:
            return self.values[name]
        except KeyError:
            raise AttributeError(name) from None

    @property
    def quiz(self) -> bool:
        return int(self.values["quiz_items"]) > 0

    @property
    def blocking(self) -> bool:
        return (int(self.values["block_min_controls"]) > 0 or float(self.values["block_min_median_seconds"]) > 0
                or self.blocking_on_votes)

    @property
    def blocking_on_votes(self) -> bool:
        """Whether an annotator's ordinary votes are judged after each submit (quality/spammers.py)."""
        return float(self.values["block_spammer_below"]) > 0 or float(self.values["block_same_answer_share"]) > 0

    @property
    def screening(self) -> bool:
        """Whether an annotator's state (quiz, blocked) must be read before leasing."""
        return self.quiz or self.blocking

    @property
    def dynamic(self) -> bool:
        return int(self.values["max_k"]) > 0


def target_sql(project: Project) -> Any:
    """The votes an item needs now, as SQL: its own target while dynamic overlap or a stopping rule is on, else the
    project's k.

    Without dynamic overlap k stays a constant (which the pick index serves); turning it off returns every
    item to k.
    """
    return func.coalesce(Item.target, project.k) if reads_targets(project) else literal(project.k)


def target_of(item: Any, project: Project) -> int:
    """The same for one loaded item."""
    return (item.target if reads_targets(project) else None) or project.k


def stops_early(project: Project) -> bool:
    """Whether the project's definition declares a stopping rule (declared/stopping.py), which sets a stopped
    item's target to the votes it has. A key looked up on the project row: no query, nothing parsed."""
    return bool((project.definition or {}).get("stopping"))


def reads_targets(project: Project) -> bool:
    """Whether items' own targets count: dynamic overlap raises them, a stopping rule lowers them to the votes a
    stopped item has; otherwise every item's target is k."""
    return quality_settings(project).dynamic or stops_early(project)


def quality_settings(project: Project) -> Quality:
    """The project's quality settings completed with the defaults (no query: they are on the project row)."""
    values = {o.name: o.default for o in QUALITY_OPTIONS}
    values.update({k: v for k, v in (project.quality or {}).items() if k in values})
    return Quality(values)


def checked_quality(project: Project, given: Mapping[str, Any]) -> dict[str, Any]:
    """The project's quality settings with `given` applied, each checked; OptionError names a problem.

    Other keys kept in `Project.quality` (the crowd filters, people/crowd_filters.py) are carried over, and so
    is every setting as it was stored unless it changed (core/options.stored_with_changes).
    """
    current = dict(quality_settings(project).values)
    old = dict(current)
    parsed = parse_options(QUALITY_OPTIONS, {k: v for k, v in given.items() if v is not None}, "quality")
    current.update({k: parsed[k] for k in given if k in parsed and given[k] is not None})
    if "gold_min_kappa" in given and given["gold_min_kappa"] in (None, ""):
        current["gold_min_kappa"] = None
    if current["max_k"] and current["max_k"] < project.k:
        raise OptionError(f"max_k ({current['max_k']}) must be at least the project's k ({project.k}), or 0")
    return stored_with_changes(project.quality, current, old, QUALITY_OPTIONS)
