"""Leaderboards: a gold set kept (uploaded, or a snapshot of a project's gold) and a system's submission scored.

The rules are campaigns/leaderboard.py, whose functions check (FormatError, OptionError, SubmissionError: nothing
kept), write, record and commit whole; these actions are the pages' one entry to them, so that each is refused
(`base.Unrecorded`) if it ever kept something without its event. A leaderboard reads a project's gold; it changes
no vote, so no kept figure goes stale.
"""
from __future__ import annotations

from typing import Any

from annotator.actions.base import action
from annotator.campaigns import leaderboard
from annotator.core.audit import Actor
from annotator.core.models import GoldSet, Project, Submission


@action("goldset.create")
def create_gold_set(name: str, task: str, filename: str, content: bytes, options: dict[str, Any],
                    by: Actor) -> GoldSet:
    """A gold set from an uploaded file of the task's scorer, once its reader accepts it."""
    return leaderboard.create_gold_set(name, task, filename, content, options)


@action("goldset.create")
def gold_set_from_project(project: Project, by: Actor) -> GoldSet:
    """A gold set that is a snapshot of the project's current gold (complete items), in its task's format."""
    return leaderboard.gold_set_from_project(project)


@action("leaderboard.submit")
def submit(gold_set: GoldSet, team: str, system: str, filename: str, content: bytes, options: dict[str, Any],
           by: Actor) -> Submission:
    """Score a team's system output against the gold set and keep it on the board."""
    return leaderboard.score_submission(gold_set, team, system, filename, content, options)
