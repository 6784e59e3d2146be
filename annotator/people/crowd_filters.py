"""Which crowd workers may take a project's study, and the MTurk HIT that carries it: project settings.

Why: the shared tasks filtered their crowds, and a reannotation that wants comparable labels has to filter the
same way. SemEval-2020 Task 10 let only MTurk Masters work; SemEval-2021 Task 4 took
workers from English-speaking countries whose approval rate was above 90%. The filters are declared once
here (admin form, `flask crowd-filters`, parsing) and turned into MTurk qualification requirements by
`mturk_request.py` and into Prolific's matching screeners by `prolific_screeners`; Prolific's study is made
in Prolific's own pages, so for it they are words to follow, not a file.

Kept in `Project.quality` under the key "crowd" (they are crowd quality control; no schema change), apart
from the quality options, which `core.quality_settings.checked_quality` leaves alone.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from annotator.core.options import Option, OptionError, parse_options, stored_with_changes
from annotator.people.countries import COUNTRIES

if TYPE_CHECKING:
    from annotator.core.models import Project

CROWD_KEY = "crowd"
MAX_COUNTRIES = 30  # MTurk: at most 30 LocaleValues in one In / NotIn requirement (QualificationRequirement docs)


def country_code(text: str) -> str:
    """An ISO 3166-1 alpha-2 code, upper-cased; ValueError naming the code otherwise (e.g. UK, whose code is GB)."""
    code = text.strip().upper()
    if code not in COUNTRIES:
        hint = " (the United Kingdom's code is GB)" if code == "UK" else ""
        raise ValueError(f"{text.strip()!r} is not an ISO 3166-1 alpha-2 country code{hint}")
    return code


CROWD_OPTIONS: tuple[Option, ...] = (
    Option("masters", bool, False, label="MTurk: Masters only (workers holding MTurk's Masters qualification)"),
    Option("approval_rate_above", int, None, minimum=0, maximum=99,
           label="Approval rate above this percent (0 to 99; empty = any)",
           help="the share of a worker's past submissions that requesters approved; 90 admits 91% and up"),
    Option("min_approved", int, None, minimum=0, maximum=10_000_000,
           label="At least this many approved HITs / submissions (empty = any)"),
    Option("countries", str, (), multiple=True, convert=country_code,
           label=f"Countries the worker lives in (ISO 3166-1 alpha-2 codes, one per line, at most {MAX_COUNTRIES}; "
                 "empty = anywhere)"),
    Option("hit_title", str, None, label="MTurk HIT title (empty = the project's name)"),
    Option("hit_description", str, None, label="MTurk HIT description (empty = a sentence naming the project and "
                                               "its number of HITs)"),
    Option("reward", str, None, pattern=r"\d{1,5}(\.\d{1,2})?", rule="an amount in US dollars such as 0.50",
           label="MTurk reward per assignment, US dollars (needed for the create-HIT file)"),
    Option("max_assignments", int, None, minimum=1, maximum=1_000_000,
           label="MTurk assignments (workers) in the HIT (empty = enough for every item's k votes)"),
    Option("assignment_minutes", int, None, minimum=1, maximum=365 * 24 * 60,
           label="MTurk minutes a worker has for the assignment (empty = HITs per study × the lease time)"),
    Option("lifetime_hours", int, 168, minimum=1, maximum=365 * 24,
           label="MTurk hours the HIT stays open to new workers"),
    Option("frame_height", int, 800, minimum=0, maximum=10_000,
           label="MTurk frame height in pixels (0: MTurk sizes it)"),
)
NAMES = tuple(o.name for o in CROWD_OPTIONS)
FILTERS = ("masters", "approval_rate_above", "min_approved", "countries")  # the rest describe the MTurk HIT


def crowd_settings(project: Project) -> dict[str, Any]:
    """The project's crowd settings completed with the defaults (no query: they are on the project row)."""
    values = {o.name: o.default for o in CROWD_OPTIONS}
    stored = (project.quality or {}).get(CROWD_KEY) or {}
    values.update({k: (tuple(v) if k == "countries" else v) for k, v in stored.items() if k in values})
    return values


def checked_crowd(project: Project, given: Mapping[str, Any], replace: bool = False) -> dict[str, Any]:
    """The settings with `given` applied, each checked; OptionError names the setting and what fits.

    With `replace` (a form, which sends every field) an empty value clears a setting; otherwise (the command
    line) only the settings given change.
    """
    parsed = parse_options(CROWD_OPTIONS, {k: v for k, v in given.items() if v is not None}, "crowd settings")
    current = {o.name: o.default for o in CROWD_OPTIONS} if replace else crowd_settings(project)
    current.update({k: parsed[k] for k in given if given[k] is not None})
    countries = tuple(dict.fromkeys(current["countries"] or ()))  # once each, in the order given
    if len(countries) > MAX_COUNTRIES:
        raise OptionError(f"countries: at most {MAX_COUNTRIES} (MTurk's limit for one locale requirement), "
                          f"not {len(countries)}")
    current["countries"] = countries
    return current


def store_crowd(project: Project, values: Mapping[str, Any]) -> dict[str, Any]:
    """Write checked settings into `Project.quality` beside the quality options (the caller commits and records
    the change); returns them as stored. Only the settings that changed are written (core/options.py,
    stored_with_changes): saving the form unchanged leaves the project as it was."""
    previous = (project.quality or {}).get(CROWD_KEY) or {}
    kept = stored_with_changes(previous, values, crowd_settings(project), CROWD_OPTIONS)
    stored = {k: (list(v) if k == "countries" and v is not None else v) for k, v in kept.items()}
    if stored or CROWD_KEY in (project.quality or {}):
        project.quality = {**(project.quality or {}), CROWD_KEY: stored}
    return stored


def country_names(codes: tuple[str, ...]) -> str:
    return ", ".join(f"{COUNTRIES[c]} ({c})" for c in codes)


def filters_in_words(values: Mapping[str, Any]) -> list[str]:
    """The worker filters as an admin reads them, one line each (empty: every worker may take part)."""
    lines = []
    if values["masters"]:
        lines.append("MTurk Masters only")
    if values["approval_rate_above"] is not None:
        lines.append(f"approval rate above {values['approval_rate_above']}%")
    if values["min_approved"] is not None:
        lines.append(f"at least {values['min_approved']} approved HITs / submissions")
    if values["countries"]:
        lines.append("living in " + country_names(values["countries"]))
    return lines


def prolific_screeners(values: Mapping[str, Any]) -> list[str]:
    """Prolific's screeners that match the filters, to set in the study's audience on Prolific's site.

    Prolific has no API-free way to take them from us, and no Masters: that filter is named as left out.
    """
    lines = []
    if values["approval_rate_above"] is not None:
        lines.append(f"Approval Rate: above {values['approval_rate_above']}%")
    if values["min_approved"] is not None:
        lines.append(f"Approval Numbers: at least {values['min_approved']} approved submissions")
    if values["countries"]:
        lines.append("Current Country of Residence: " + country_names(values["countries"]))
    if values["masters"]:
        lines.append("(MTurk Masters has no Prolific screener; Approval Rate and Approval Numbers come closest)")
    return lines
