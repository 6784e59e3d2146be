"""Crowd quality control (issue 11, parts 1-6): what counts, control items, quiz, blocking, annotator
agreement and dynamic overlap. Everything here is shared code: nothing names a task type; what differs
per type is asked of the TaskType (`control_score`, `control_reference`).

Design
------
Settings. A project's quality settings live in `Project.quality` (JSON), declared once as Options in
`core/quality_settings.py` (read by the admin form and `quality_settings`). Every feature is off by
default except the control rate (10%): the leases that draw a control (one in ten) ask for one, a
single indexed query that finds none while the project has no control item. With every feature off
(rate 0, no quiz, no blocking, fixed k) `next` and `submit` run the queries they ran before.

1. Complete items only (`results.labels_frame`, the one place label rows are read). An item counts
   once it has its target number of votes: `done_count >= coalesce(items.target, projects.k)`
   (dynamic overlap raises `target`; NULL means k; targets count only while dynamic overlap is on).
   The rest is "pending": counted by
   `project_progress`, shown on the admin page, and left out of gold, agreement and exports.
   Exports run through `exports.run_export`, which can include pending items
   (`flask export FORMAT --include-incomplete`, the admin export form's checkbox) and then writes a
   README.txt into the output saying so. Modules that read votes other than through the label frame
   use `results.counted_votes` for the same rule.
2. Control items (`quality/controls.py`). `items.is_control` flags an item whose `reference` is
   the known answer (imports carry references; an admin can turn an item's current gold into one,
   `TaskType.control_reference`). The engine (`assignment._lease`) draws a control with the project's
   rate; a control has unlimited slots (it never counts toward k, any annotator may get it once: the
   unique (item, user) does the rest) and the page and API show it exactly like any item. Label rows
   of control items are left out of the label frame (so never in gold or agreement). A submit to a
   control is scored by `TaskType.control_score` and stored in `control_answers` (one row per answer,
   so accuracy per annotator is one AVG). With `control_feedback` the HIT page tells the annotator,
   for that control only, whether the answer was right and what the known answer is.
3. Qualification (`quality/qualification.py`). With `quiz_items` > 0, an annotator's first HITs are
   that many control items; their scores (control_answers.quiz_attempt) are averaged when the last one
   is in: at least `quiz_pass_mark` passes, else the annotator is stopped with a page that says so.
   The state is `annotator_states` (one row per project and annotator, written only when something
   happens), each finished attempt a `quiz_results` row. An admin's retry starts a new attempt (with
   control items the annotator has not had).
4. Blocking (`quality/blocking.py`). After each control answer (and each submit when a minimum time is
   set), an annotator with at least `block_min_controls` control answers and accuracy below
   `block_accuracy`, or with at least that many HITs and a median time under `block_min_median_seconds`,
   is blocked. `next` then raises `assignment.Blocked` (API: 403 {"error", "blocked": true}; the page
   explains). With `blocked_votes = exclude` their votes stop counting: each such assignment is marked
   `excluded`, its label rows deleted and its item's done_count decremented, one item per transaction
   under the item's lock, so the item is offered again and gold/agreement (pure functions of the rows)
   change by themselves. Unblocking (admin) exempts the annotator from the automatic rules; excluded
   votes stay excluded (their slots may have been filled meanwhile).
5. Annotator agreement (`quality/annotators.py`). Per annotator: mean Cohen's kappa with each
   co-annotator over the units both labelled (pairs with fewer than `kappa_min_units` shared units are
   left out), control accuracy, volume and median seconds per HIT; admin table, CSV and
   `flask annotators --project SLUG [--json]`. With `gold_min_kappa` set, annotators below it are
   left out of gold (the label frame drops their rows).
6. Dynamic overlap (`quality/overlap.py`). With `max_k` > k, an item stops at k (= min k) when, for
   every unit and field, the majority answer's posterior is at least `confidence`, each vote weighted
   by its annotator's control accuracy with a uniform prior (Toloka's incremental relabeling);
   otherwise its `target` goes up by one, up to max_k. Decided in `submit` under the item lock, so the
   same on both engines; the engine reads the item's target where it read k.

`screen_out_reason(user, project)` says whether an annotator is screened out (blocked, failed quiz),
for crowd-entry pages that must answer the platform with a screen-out code.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from annotator.core.quality_settings import QUALITY_OPTIONS, quality_settings
from annotator.quality.state import screen_out

if TYPE_CHECKING:
    from annotator.core.models import Project, User


def screen_out_reason(user: User, project: Project) -> str | None:
    """Why this annotator may not work on this project any more, in words; None when they may.

    Blocked (by the automatic rules of the project's quality settings) or failed the qualification
    quiz. A crowd platform's entry page calls this to answer with the platform's screen-out code.
    Reads one row (annotator_states) and only when the project has a quiz or blocking.
    """
    return screen_out(user, project)


__all__ = ["QUALITY_OPTIONS", "quality_settings", "screen_out_reason"]
