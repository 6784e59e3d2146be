"""Whether a crowd worker is screened out of a project (blocked, failed the qualification quiz).

Crowd entry calls this on every step of a study, so that a screened-out worker gets the platform's
screen-out code instead of the next HIT. Quality control owns the verdict (annotator/quality); this
module is the one seam between the two, which the crowd tests replace to try the screen-out path alone.
"""
from __future__ import annotations

from annotator.core.models import Project, User
from annotator.quality import screen_out_reason as quality_verdict


def screen_out_reason(user: User, project: Project) -> str | None:
    """Why `user` may not go on with `project` (shown to them), or None."""
    return quality_verdict(user, project)
