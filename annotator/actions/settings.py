"""A project's settings: the settings form (name, k, lease, guidelines and the HIT type's settings) and the quality
settings. The rules are campaigns/settings.py; a change of k or of dynamic overlap that moves items between
pending and complete is saved only once confirmed (`ToConfirm` until then, nothing changed).

Kept figures: settings are part of the stamp's configuration digest (figures/kept.py), so a change makes the
kept figures stale by itself, with no generation to move.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Generic, TypeVar

from annotator.actions.base import action
from annotator.campaigns.k_change import KChange, OverlapChange
from annotator.campaigns.settings import ProjectFields, save_project_settings, save_quality_settings
from annotator.core.audit import Actor, record
from annotator.core.models import Project
from annotator.tasks import project_task

Change = TypeVar("Change", KChange, OverlapChange)


class ToConfirm(Exception, Generic[Change]):
    """The change moves items between pending and complete: nothing is saved until the admin confirms it."""

    def __init__(self, change: Change) -> None:
        super().__init__("the change moves items between pending and complete; confirm it to save it")
        self.change: Change = change


@action("project.settings")
def change_project_settings(project: Project, fields: ProjectFields, given: Mapping[str, Any],
                            confirmed_k: int | None, by: Actor) -> None:
    """Save the settings form. OptionError or FormatError (k below the votes), or ToConfirm, with nothing changed.

    The event names the HIT settings the form holds, not their text (a guideline or a rule may be long), and each
    gold rule parameter changed, from and to (numbers or an option's value: short)."""
    rules = project_task(project).changed_rules(given)   # before the definition changes: what they were
    unconfirmed = save_project_settings(project, fields, given, confirmed_k=confirmed_k)
    if unconfirmed is not None:
        raise ToConfirm(unconfirmed)
    record("project.settings", project, {"k": project.k, "lease_minutes": project.lease_minutes,
                                         "settings": sorted(o.name for o in project_task(project).settings),
                                         **({"gold_rules": {name: {"from": old, "to": new}
                                                            for name, (old, new) in rules.items()}} if rules else {})},
           actor=by)


@action("quality.settings")
def change_quality_settings(project: Project, given: Mapping[str, Any], confirmed_max_k: int | None,
                            by: Actor) -> None:
    """Save the quality settings. OptionError or FormatError (a max_k the votes do not allow), or ToConfirm."""
    unconfirmed = save_quality_settings(project, given, confirmed_max_k=confirmed_max_k)
    if unconfirmed is not None:
        raise ToConfirm(unconfirmed)
    record("quality.settings", project, dict(project.quality), actor=by)
