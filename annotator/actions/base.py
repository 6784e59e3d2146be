"""The decorator every domain action wears (core/domain_action.py: one transaction, committed only with the action's
audit event), and what an action calls when it alters results without moving the kept figures' stamp.

The decorator lives in core so that a shared task's folder, below this package, can make its own change of state
an action too (RuArg-2022's premise stage); the actions here import it from this module, as they always did.
"""
from __future__ import annotations

from annotator.core.domain_action import REGISTRY, Unrecorded, action
from annotator.core.models import Project
from annotator.figures.kept import results_changed

__all__ = ["REGISTRY", "Unrecorded", "action", "figures_stale"]


def figures_stale(project: Project) -> None:
    """A big project's kept figures are dropped (figures/kept.py, `results_changed`): for a change that alters
    results without changing the stamp's counts or configuration (a decision replaced, controls swapped)."""
    results_changed(project.id)
