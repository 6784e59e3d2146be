"""Changing a project's HIT settings: the one function every path that changes them calls (the admin's
settings form, `flask import` into an existing project, `flask premise-stage`).

Why one function: most settings only change how votes are read (a threshold, a rule) and may change at
any time, but some decide what the HIT asks (Option.fixed_once_voted, e.g. RuArg's `stage`). Changed
after votes, the stored votes would answer another question than the one the settings now say, and
gold, agreement and exports would read them wrongly; so that refusal must hold on every path.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from annotator.campaigns.k_change import KChange, OverlapChange, check_k, check_overlap, k_change, overlap_change
from annotator.campaigns.projects import has_votes
from annotator.core.models import Project
from annotator.core.options import OptionError, stored_with_changes
from annotator.core.quality_settings import checked_quality
from annotator.tasks import checked_settings, project_task


@dataclass(frozen=True)
class ProjectFields:
    """The settings form's fields of the project row itself (beside the HIT type's settings)."""

    name: str
    k: int
    lease_minutes: int
    guidelines: str


def change_settings(project: Project, given: Mapping[str, Any], only_changed: bool = False) -> None:
    """Apply `given` (text or typed values; None leaves a setting as it is) to the project's settings.

    An import stores every setting, defaults included, as it always has. The settings form (`only_changed`)
    writes only the settings whose value changed: it sends every field, and saving it unchanged must leave
    the project's settings as they were (core/options.stored_with_changes).

    OptionError, with nothing changed, when a value does not fit, the settings do not fit together, or
    a setting fixed once voted would change on a project that has votes (the message names it).
    """
    task = project_task(project)
    new = checked_settings(task, project.settings, given)
    old = task.settings_of(project)
    # compared as shown: a value read back from JSON is a list where a parsed one is a tuple
    changed = [o for o in task.settings if o.fixed_once_voted and o.text(new[o.name]) != o.text(old[o.name])]
    if changed and has_votes(project):
        option = changed[0]
        current = "it keeps its value" if option.multiline else f"it is {option.text(old[option.name]) or '(none)'!r}"
        raise OptionError(f"the setting {option.name} cannot change now that project {project.slug!r} has votes: "
                          f"{current}, and the votes answer the HIT it made; to ask otherwise, make a new project")
    project.settings = stored_with_changes(project.settings, new, old, task.settings) if only_changed else new



def save_project_settings(project: Project, fields: ProjectFields, given: Mapping[str, Any],
                          confirmed_k: int | None) -> KChange | None:
    """Apply the settings form to the project (the caller commits), or return the change of k to confirm first.

    `given` holds the HIT type's settings and its gold rules' parameters (TaskType.rule_options): those go into the
    project's definition, whose change makes its kept figures stale (their stamp digests it).

    A change of k that moves items between pending and complete (campaigns/k_change.py) is saved only when
    `confirmed_k` is that k: the organiser has seen what it does. Until then nothing changes, but every other
    problem is said first. FormatError (k below the votes) or OptionError, with nothing changed, otherwise.
    """
    task = project_task(project)
    rules = {option.name for option in task.rule_options()}
    own = {key: value for key, value in given.items() if key not in rules}
    # The gold rules' parameters are the definition's (declared/rule_settings.py): checked first, as a whole.
    changes = {name: new for name, (_, new) in task.changed_rules(given).items()}
    definition = task.definition_with_rules(project.definition or {}, changes) if changes else None
    check_k(project, fields.k)
    change = k_change(project, fields.k)
    if change.moves_items and confirmed_k != fields.k:
        checked_settings(task, project.settings, own)  # its problems first, nothing stored
        return change
    change_settings(project, own, only_changed=True)
    if definition is not None:
        project.definition = definition
    project.name, project.k, project.lease_minutes = fields.name, fields.k, fields.lease_minutes
    project.guidelines = fields.guidelines
    return None


def save_quality_settings(project: Project, given: Mapping[str, Any],
                          confirmed_max_k: int | None) -> OverlapChange | None:
    """Apply the quality settings form (the caller commits), or return the change to confirm first.

    Turning dynamic overlap on or off (max_k to or from 0) moves the items whose target it raised between
    pending and complete (campaigns/k_change.py): saved only when `confirmed_max_k` is the new max_k.
    OptionError or FormatError (a max_k the votes do not allow), with nothing changed, otherwise.
    """
    new = checked_quality(project, given)
    max_k = int(new.get("max_k") or 0)  # stored only when not the default, 0 (core/options.stored_with_changes)
    check_overlap(project, max_k)
    change = overlap_change(project, max_k)
    if change.moves_items and confirmed_max_k != max_k:
        return change
    project.quality = new
    return None
