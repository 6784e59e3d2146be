"""Which systems the KPA-2021 Track-2 projects take, proposed from the results that decide it.

The task README: "Scoring as one of the top 10 teams on track 1 is a perquisite for being evaluated on track
2", and the key-point sets are ranked "for the 3 systems that obtain the best results for matching in this
track". Nothing in the files says who that is, so an organiser had to read two rankings and type names:

* a check project (match check) is proposed the top 10 teams of a Track-1 leaderboard (a gold set of the
  Track-1 scorer, its standings in the leaderboard's own order, a team counted once, by its best place);
* a comparison project is proposed the 3 best systems by the one mAP of a check project (its ranking), and
  that project as its `check_project`, so the generation-track ranking combines the two.

They are proposals (`only`, `check_project`): the admin may edit them, and the overview itself compared four
sets (Table 6), the ones not near zero in mAP. Systems are told apart by `name_key`: a leaderboard's team
"NLP@UIT" is the Track-2 folder nlp_uit (a folder name has letters, digits, '.', '_' and '-' only).
"""
from __future__ import annotations

import re

from sqlalchemy import ColumnElement, func, select

from annotator.analysis.reports import Report, Table
from annotator.core.errors import FormatError
from annotator.core.extensions import db
from annotator.core.models import GoldSet, Project, Submission
from annotator.lookups.format_base import Proposal, Proposed
from annotator.shared_tasks.kpa2021.check_maps import maps
from annotator.shared_tasks.kpa2021.scorer import TASK as TRACK_1

TRACK_1_PLACES, COMPARED = 10, 3
CHECK_FORMAT = "kpa2021-check"


def _is_check_project() -> ColumnElement[bool]:
    """A match-check project: one imported from the check's files (a declared project of match_check.yaml; the
    built-in type's projects were migrated with their source, 0023_kpa_declared)."""
    found: ColumnElement[bool] = Project.source["format"].as_string() == CHECK_FORMAT
    return found


def name_key(name: str) -> str:
    """A system or team name as compared: case and every character but letters and digits left out."""
    return re.sub(r"[\W_]", "", name.casefold())


def _leaderboards() -> list[tuple[str, str]]:
    counts = select(func.count()).where(Submission.gold_set_id == GoldSet.id).scalar_subquery()
    rows = db.session.execute(select(GoldSet.id, GoldSet.name, counts).where(GoldSet.task == TRACK_1)
                              .order_by(GoldSet.id)).all()
    return [(str(id_), f"{name} ({n} submission{'' if n == 1 else 's'})") for id_, name, n in rows]


def track_1_top(source: str) -> Proposed:
    """The top 10 teams of the Track-1 leaderboard (gold set) `source`, by its id."""
    from annotator.campaigns.leaderboard import standings  # here: the leaderboard imports the format registry

    gold_set = db.session.get(GoldSet, int(source)) if source.strip().isdigit() else None
    if gold_set is None or gold_set.task != TRACK_1:
        raise FormatError(f"there is no Track-1 leaderboard {source!r}: give the id of a gold set of the "
                          f"{TRACK_1} scorer ({', '.join(v for v, _ in _leaderboards()) or 'there is none yet'})")
    rows = standings(gold_set)
    if not rows:
        raise FormatError(f"the leaderboard {gold_set.name!r} has no submission yet, so no team qualifies")
    teams: dict[str, str] = {}
    table = []
    for standing in rows:
        team, key = standing.submission.team, name_key(standing.submission.team)
        proposed = key not in teams and len(teams) < TRACK_1_PLACES
        if proposed:
            teams[key] = team
        metrics = standing.submission.metrics
        table.append([standing.position, team, standing.submission.system, metrics.get("strict"),
                      metrics.get("relaxed"), *standing.columns.values(), "yes" if proposed else ""])
    columns = ["place", "team", "system", "strict mAP", "relaxed mAP", *rows[0].columns, "proposed"]
    report = Report(f"Track 2 admits the top {TRACK_1_PLACES} teams of Track 1 ({gold_set.name})",
                    [Table("track_1_top", "Track-1 standings", columns, table,
                           "a team counts once, by its best place; name each Track-2 system folder after its team")])
    return Proposed({"only": tuple(teams.values())}, {}, report)


def _check_projects() -> list[tuple[str, str]]:
    rows = db.session.execute(select(Project.slug, Project.name).where(_is_check_project())
                              .order_by(Project.name)).all()
    return [(slug, f"{name} ({slug})") for slug, name in rows]


def best_of(maps: dict[str, float | None], count: int = COMPARED) -> tuple[list[str], str | None]:
    """The `count` systems of highest mAP (None: nothing judged, never chosen), best first, the order of
    `maps` breaking ties; and a note when a system left out has the same mAP as the last one chosen."""
    ranked = sorted((name for name, value in maps.items() if value is not None), key=lambda n: -(maps[n] or 0.0))
    chosen = ranked[:count]
    tied = [n for n in ranked[count:] if chosen and maps[n] == maps[chosen[-1]]]
    note = (f"{', '.join(tied)} {'has' if len(tied) == 1 else 'have'} the same mAP as {chosen[-1]}; add "
            f"{'it' if len(tied) == 1 else 'them'} to the list to compare {'it' if len(tied) == 1 else 'them'} too"
            if tied else None)
    return chosen, note


def best_by_matching(source: str) -> Proposed:
    """The 3 best systems by the one mAP of the check project `source` (a slug), and that project."""
    project = db.session.scalar(select(Project).where(Project.slug == source.strip(), _is_check_project()))
    if project is None:
        known = ", ".join(slug for slug, _ in _check_projects()) or "there is none yet"
        raise FormatError(f"there is no match-check project {source!r} ({known})")
    results = maps(project)
    values = {name: result.value for name, result in results.items()}
    chosen, note = best_of(values)
    if len(chosen) < 2:
        raise FormatError(f"the check project {project.slug!r} has judged pairs of {len(chosen)} system(s): a "
                          "comparison needs two or more; let the judges work first")
    rows = [[name, values[name], results[name].judged, "yes" if name in chosen else ""]
            for name in sorted(values, key=lambda n: (values[n] is None, -(values[n] or 0.0)))]
    report = Report(f"Key-point sets compared: the {COMPARED} best systems by matching ({project.name})",
                    [Table("best_by_matching", "mAP by system (the check project's ranking)",
                           ["system", "mAP", "judged", "proposed"], rows)], [note] if note else [])
    return Proposed({"only": tuple(chosen)}, {"check_project": project.slug}, report)


TRACK_1_TOP = Proposal("Track-1 leaderboard", f"propose the top {TRACK_1_PLACES} teams of Track 1 as the systems",
                       _leaderboards, track_1_top)
BEST_BY_MATCHING = Proposal("Match-check project", f"propose the {COMPARED} best systems by its mAP and link it",
                            _check_projects, best_by_matching)
