"""A project's crowd study: its link for a platform (made or changed, a new secret on request) and who may take
it (worker filters, the MTurk HIT's settings). The rules are people/crowd.py and people/crowd_filters.py.

Neither changes what the votes give; the filters are kept in `Project.quality`, part of the kept figures'
configuration digest, so those are recomputed after a change of filters by the stamp alone.
"""
from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from annotator.actions.base import action
from annotator.core.audit import Actor, record
from annotator.core.models import CrowdLink, Project
from annotator.people import crowd
from annotator.people.crowd_filters import CROWD_OPTIONS, checked_crowd, store_crowd


@action("crowd.link")
def save_link(project: Project, platform: str, hits: int, completion_code: str, screen_out_code: str,
              new_secret: bool, by: Actor) -> CrowdLink:
    """Make or change the project's link for `platform`; a new link, or `new_secret`, has a new secret (every
    link given out before stops working). CrowdError, with nothing changed, for a value that does not fit."""
    link = crowd.save_link(project, platform, hits, completion_code, screen_out_code, new_secret=new_secret)
    record("crowd.link", project, {"platform": platform, "hits": hits, "new_secret": new_secret}, actor=by)
    return link


@action("crowd.filters")
def change_filters(project: Project, given: Mapping[str, Any], by: Actor, clear: Collection[str] = (),
                   replace: bool = False) -> dict[str, Any]:
    """Apply `given` (and put the settings named in `clear` back to their defaults); the settings as they are now.

    `replace`: the page's form, which sends every field (an empty one clears its setting); else only the settings
    given change (the command line). OptionError, with nothing changed, names the setting that does not fit.
    The event holds the settings as stored (those that differ from the defaults)."""
    current = checked_crowd(project, given, replace=replace)
    current.update({o.name: o.default for o in CROWD_OPTIONS if o.name in clear})
    record("crowd.filters", project, store_crowd(project, current), actor=by)
    return current
