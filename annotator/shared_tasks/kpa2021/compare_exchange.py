"""KPA-2021 Track 2 system outputs -> pairwise key-point-set comparison projects, ranked by Bradley-Terry.

Import (`flask import kpa2021-compare DIR --split SPLIT --system NAME=SYSDIR ... [--pairs all|FILE]`, or a
zip of DIR with systems/NAME/ folders; the same checks and `--only` as the match check, and
`--propose-from` a check project: its 3 best systems by mAP, track2_proposals.py): one item per (topic,
stance, pair of systems). Each side is the system's key points of that topic and stance with their
prevalence (the share of the topic+stance's matched arguments whose best key point it is), most prevalent
first, those of 1% or less left out (track2_files.summaries); judges see the prevalence beside each.

A project is a declared project of set_compare.yaml (the built-in kp_set_compare type of before the switch to one
engine is gone: docs/one-engine.md): its votes are read in the built-in's terms (`_as_built_in`), so judgments.csv and
the rankings are what the built-in type wrote for the same votes; the settings `equal` and `check_project` are its
project settings as they were a built-in project's (the bridge's `kept_settings`), so its rankings read them alike.

Ranking (`flask rank`, the project's ranking page, the export): for each question a Bradley-Terry fit
(bradley_terry.py): less redundant and more central from the judges' choices, an "equal" being half a
win to each side or dropped (project setting); stance a win for the set judged to take the right stance
(all support for a pro set, all contest for a con set) when the other is not, a tie otherwise. Strengths
on the scale of the overview's Table 6 (summing to 100) with errors; per question a rank; the KP-set rank
is the mean of the three. With the project's `check_project` (the retrospective check of the same
systems) the generation-track rank is the mean of the mAP rank and the KP-set rank, mAP breaking ties.
"""
from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from sqlalchemy import select

from annotator.analysis.reports import Report, Table
from annotator.analysis.results import counted_votes
from annotator.core.csv_cells import dict_rows, write_csv
from annotator.core.errors import FormatError
from annotator.core.extensions import db
from annotator.core.models import Assignment, Item, Project, User
from annotator.core.options import Option
from annotator.declared import TYPE_NAME as DECLARED_TYPE
from annotator.declared.items import load_definition
from annotator.estimation import bradley_terry
from annotator.estimation.ranks import competition_ranks
from annotator.lookups.format_base import Exported, FileFormat, Loaded
from annotator.shared_tasks.kpa2021 import track2_files as track2
from annotator.shared_tasks.kpa2021 import track2_proposals
from annotator.shared_tasks.kpa2021.bridge import (
    COMPARED,
    EACH_SUMMARY,
    SET_COMPARE,
    SIDES,
    STANCE_FIELD,
    STANCE_KEYS,
    SWAPPED,
)
from annotator.shared_tasks.kpa2021.check_exchange import (
    any_count_option,
    only_option,
    read_runs,
    split_option,
    system_option,
)
from annotator.shared_tasks.kpa2021.check_exchange import rank as check_rank
from annotator.shared_tasks.kpa2021.check_maps import ARGUMENTS
from annotator.shared_tasks.kpa2021.declared_gold import COMPARE_DEFINITION, declared_option, refuse_built_in
from annotator.shared_tasks.kpa2021.files import split_of
from annotator.tasks import NewItem, project_settings

QUESTIONS = {"less_redundant": "less redundant", "more_central": "more central", "stance": "right stance"}
HALF = "half"   # an "equal" judgment: half a win to each side


def _pairs(value: str, directory: Path, names: list[str]) -> list[tuple[str, str]]:
    """Every pair of systems, or the pairs listed one per line ("A,B" or "A B") in a file."""
    if value == "all":
        return list(itertools.combinations(names, 2))
    path = Path(value) if Path(value).is_file() else Path(directory) / value
    if not path.is_file():
        raise FormatError(f"the pairs file {value!r} is not there (give all, or a file of lines 'A,B')")
    pairs: list[tuple[str, str]] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        parts = [p for p in line.replace(",", " ").split() if p]
        if not parts or parts[0].startswith("#"):
            continue
        if len(parts) != 2 or parts[0] == parts[1] or not set(parts) <= set(names):
            raise FormatError(f"{line.strip()!r} is not two different systems of {', '.join(names)}", file=path.name,
                              line=number)
        if tuple(parts) in pairs or tuple(reversed(parts)) in pairs:
            raise FormatError(f"the pair {parts[0]}, {parts[1]} is listed twice", file=path.name, line=number)
        pairs.append((parts[0], parts[1]))
    if not pairs:
        raise FormatError("the pairs file lists no pair", file=path.name)
    return pairs


def load(directory: Path, *, split: str | None = None, system: tuple = (), only: tuple = (),
         any_key_point_count: bool = False, pairs: str = "all", declared: bool = True) -> Loaded:
    """The pairs of key-point sets to compare, for a declared project of set_compare.yaml. `declared` off asked for
    a project of the built-in type, which is gone since the switch to one engine: refused, saying so."""
    refuse_built_in(declared, "kp_set_compare", COMPARE_DEFINITION)
    split = split_of(Path(directory), split)
    arguments, runs = read_runs(directory, split, system, only, any_key_point_count)
    if len(runs) < 2:
        raise FormatError("a comparison needs at least two systems")
    chosen = _pairs(pairs, directory, list(runs))
    summaries = {name: track2.summaries(split, arguments, run) for name, run in runs.items()}
    topics = {topic: n for n, topic in enumerate(dict.fromkeys(a.topic for a in arguments), 1)}
    items = []
    for topic, stance in dict.fromkeys((a.topic, a.stance) for a in arguments):
        for x, y in chosen:
            sides = {name: [[text, share] for text, share in summaries[name][(topic, stance)]] for name in (x, y)}
            external = f"t{topics[topic]}{'pro' if stance == 1 else 'con'}:{x}:{y}"
            items.append(NewItem(external, {"id": external, "topic": topic, "stance": stance, "systems": [x, y],
                                            "summaries": sides}))
    data = {ARGUMENTS: [[a.arg_id, a.argument, a.topic, a.stance] for a in arguments], "track2:pairs": chosen}
    return Loaded(items, {"format": FORMAT.name, "split": split}, data=data,
                  definition=load_definition(COMPARE_DEFINITION).to_data())


def judgments(project: Project, include_incomplete: bool = False) -> list[dict[str, Any]]:
    """Every submitted judgment with the systems resolved: A and B as shown, and the answers in system names (the
    declared votes of set_compare.yaml read in the built-in's terms: `_as_built_in`)."""
    rows = db.session.execute(select(Assignment.id, Assignment.answer, Assignment.presentation, User.username,
                                     Item.payload)
                              .join(User, User.id == Assignment.user_id).join(Item, Item.id == Assignment.item_id)
                              .where(counted_votes(project, include_incomplete))
                              .order_by(Item.position, Assignment.id)).all()
    out = []
    for assignment_id, answer, shown, annotator, payload in rows:
        answer, shown = _as_built_in(answer, shown, payload)
        a, b = shown["a"], shown["b"]
        side = {"A": a, "B": b, "equal": "equal"}
        out.append({"item": payload["id"], "topic": payload["topic"], "stance": payload["stance"],
                    "system_a": a, "system_b": b, "annotator": annotator, "stance_a": answer["stance_a"],
                    "stance_b": answer["stance_b"], "less_redundant": side[answer["less_redundant"]],
                    "more_central": side[answer["more_central"]], "assignment": assignment_id})
    return out


def _as_built_in(answer: dict[str, Any], shown: dict[str, Any] | None,
                 payload: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """A declared vote of set_compare.yaml as the built-in stored it: the systems shown as A and B (the definition
    draws one order for the HIT: field b, the item's second system, shown as "A" when the comparisons are
    `swapped`), the stance of each set as shown, and the comparisons' A / B / equal as shown."""
    first, second = payload["systems"]
    swapped = bool(set((shown or {}).get(SWAPPED) or ()) & set(COMPARED))
    stances = answer.get(EACH_SUMMARY) or {}
    built_in = {key: (stances.get(side) or {}).get(STANCE_FIELD) for key, side in zip(STANCE_KEYS, SIDES)}
    built_in.update({question: answer.get(question) for question in COMPARED})
    return built_in, ({"a": second, "b": first} if swapped else {"a": first, "b": second})


def _winner(judgment: dict[str, Any], question: str) -> str | None:
    if question != "stance":
        return None if judgment[question] == "equal" else judgment[question]
    right = "all_support" if judgment["stance"] == 1 else "all_contest"
    a_right, b_right = judgment["stance_a"] == right, judgment["stance_b"] == right
    return (judgment["system_a"] if a_right and not b_right
            else judgment["system_b"] if b_right and not a_right else None)


def fits(project: Project, include_incomplete: bool = False) -> dict[str, bradley_terry.Strengths]:
    equal = project_settings(project).get("equal", HALF)   # a declared project: bradley_terry's only reading
    seen = judgments(project, include_incomplete)
    names = list(dict.fromkeys(s for pair in _stored_pairs(project) for s in pair))
    return {q: bradley_terry.fit(names, bradley_terry.tally(((j["system_a"], j["system_b"], _winner(j, q))
                                                             for j in seen), equal))
            for q in QUESTIONS}


def _stored_pairs(project: Project) -> list[tuple[str, str]]:
    return [tuple(item.payload["systems"]) for item in project.items]


def _map_ranks(project: Project, include_incomplete: bool = False) -> dict[str, tuple[int, float]] | None:
    """(mAP rank, mAP) per system with judged pairs in the check project named in the settings, or None."""
    slug = project_settings(project).get("check_project")
    check = db.session.scalar(select(Project).where(Project.slug == slug)) if slug else None
    if check is None:
        return None
    table = check_rank(check, include_incomplete).tables[0]
    return {row[1]: (row[0], row[2]) for row in table.rows if row[0] is not None}


def rank(project: Project, include_incomplete: bool = False) -> Report:
    results = fits(project, include_incomplete)
    names = next(iter(results.values())).players
    report = Report(f"{project.name}: key-point sets compared in pairs (Bradley-Terry)")
    for q, fitted in results.items():
        if not fitted.defined:
            report.notes.append(f"{QUESTIONS[q]}: no ranking, because {fitted.undefined_because}.")
    rows = [[n, *(v for q in QUESTIONS for v in (results[q].strength.get(n), results[q].strength_error.get(n),
                                                   results[q].rank.get(n)))] for n in names]
    columns = ["system", *(f"{QUESTIONS[q]} {c}" for q in QUESTIONS for c in ("strength", "error", "rank"))]
    report.tables.append(Table("strengths", "Strengths per question (each sums to 100)", columns, rows,
                               "Bradley-Terry, the errors by the delta method"))
    if all(f.defined for f in results.values()):
        mean = {n: sum(results[q].rank[n] for q in QUESTIONS) / len(QUESTIONS) for n in names}
        set_rank = dict(zip(names, competition_ranks([-mean[n] for n in names])))
        report.tables.append(Table("kp_set_ranking", "KP-set ranking: the mean of the three ranks",
                                   ["system", "mean rank", "KP-set rank"],
                                   sorted(([n, mean[n], set_rank[n]] for n in names), key=lambda r: r[2])))
        _generation(project, report, names, set_rank, include_incomplete)
    return report


def _generation(project: Project, report: Report, names: list[str], set_rank: dict[str, int],
                include_incomplete: bool = False) -> None:
    maps = _map_ranks(project, include_incomplete)
    if maps is None:
        report.notes.append("No generation-track ranking: set the project's check_project to the retrospective "
                            "check of the same systems.")
        return
    missing = [n for n in names if n not in maps]
    if missing:
        report.notes.append(f"No generation-track ranking: the check project has no mAP for {', '.join(missing)}.")
        return
    mean = {n: (maps[n][0] + set_rank[n]) / 2 for n in names}
    order = sorted(names, key=lambda n: (mean[n], -maps[n][1]))
    report.tables.append(Table("generation_ranking", "Generation-track ranking: mean of the mAP and KP-set ranks",
                               ["rank", "system", "mAP rank", "mAP", "KP-set rank", "mean rank"],
                               [[position, n, maps[n][0], maps[n][1], set_rank[n], mean[n]]
                                for position, n in enumerate(order, 1)], "mAP breaks ties"))


def export(project: Project, out_dir: Path, *, include_incomplete: bool = False) -> Exported:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "judgments.csv"
    rows = judgments(project, include_incomplete)
    columns = ["item", "topic", "stance", "system_a", "system_b", "annotator", "stance_a", "stance_b",
               "less_redundant", "more_central"]
    write_csv(path, columns, dict_rows(columns, rows))
    return Exported([path, *rank(project, include_incomplete).write(out_dir)])


FORMAT = FileFormat(
    name="kpa2021-compare", title="KPA-2021 Track 2: pairwise comparison of key-point sets",
    task=DECLARED_TYPE, reads="folder",
    expects="arguments_<split>.csv, and per system a folder systems/NAME/ with the Track-2 key_points.csv and "
            "predictions.p (and a pairs file if not every pair is compared)",
    items="pairs of key-point sets", load=load, export=export,
    writes="judgments.csv (every comparison), and the systems' ranking: strengths.csv, kp_set_ranking.csv once "
           "every question's strengths are defined, generation_ranking.csv once every system's mAP is known, and "
           "report.json",
    import_options=(split_option(), system_option(), only_option(), any_count_option(),
                    Option("pairs", str, "all", label="Pairs of systems to compare",
                           help="all, or a file (in the upload, or a path) of lines 'A,B'"),
                    declared_option(COMPARE_DEFINITION)),
    rank=rank, proposal=track2_proposals.BEST_BY_MATCHING, settings=SET_COMPARE.kept_settings)
