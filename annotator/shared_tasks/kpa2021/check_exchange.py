"""KPA-2021 Track 2 system outputs -> retrospective match-check projects, and the systems' mAP on the verdicts.

Import (`flask import kpa2021-check DIR --split SPLIT --system NAME=SYSDIR ... [--sample F]`, or on the web
a zip of DIR with a folder systems/NAME/ per system): each system's 5 to 10 key points per topic and stance
checked (`--any-key-point-count` for other campaigns), then per system each argument of arguments_<split>.csv
paired with its best key point and the top half per topic+stance kept, as the Track-1 scorer does
(track2_files.py); optionally a seeded sample of them per topic+stance; one item per pair, a pair
proposed by several systems (same argument, same key point text) being one item. The systems' whole
outputs are kept (ProjectData) so their pairs are the Track-1 scorer's own. `--only` imports some of the
systems given; `--propose-from` proposes the Track-1 top 10 of a leaderboard (track2_proposals.py).

A project is a declared project of match_check.yaml (the built-in kp_match_check type of before the switch to one
engine is gone: docs/one-engine.md), the tie given with the import its majority's `ties` (declared_rules.py) and the
mAP variant a project setting (the bridge's `kept_settings`); its gold is read in the columns the built-in type wrote
(declared_gold.py), so the exports and the ranking are what it wrote for the same votes.

Ranking: one mAP per system over the judged pairs (track2_map.py), as the overview computes it.
Export: judgments.csv (every verdict, once per system that proposed the pair, with the annotator's name as the
other exports give it: the Track-2 files are ours, no official format), pairs.csv (each pair's gold)
and the ranking tables (map.csv, map_groups.csv, report.json).
"""
from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from annotator.analysis.reports import Report, Table
from annotator.analysis.results import labels_frame
from annotator.core.csv_cells import write_csv, write_frame
from annotator.core.errors import FormatError
from annotator.core.extensions import db
from annotator.core.models import Project, User
from annotator.core.options import Option
from annotator.declared import TYPE_NAME as DECLARED_TYPE
from annotator.declared.items import load_definition
from annotator.estimation.ranks import competition_ranks
from annotator.lookups.format_base import Exported, FileFormat, Loaded
from annotator.shared_tasks.kpa2021 import declared_rules, track2_proposals
from annotator.shared_tasks.kpa2021 import track2_files as track2
from annotator.shared_tasks.kpa2021.bridge import MATCH_CHECK
from annotator.shared_tasks.kpa2021.check_maps import ARGUMENTS, SYSTEM, judged_labels, maps, stored_runs
from annotator.shared_tasks.kpa2021.declared_gold import CHECK_DEFINITION, check_gold, declared_option, refuse_built_in
from annotator.shared_tasks.kpa2021.files import SPLIT_FROM_NAMES, Argument, read_arguments, split_of
from annotator.tasks import NewItem

if TYPE_CHECKING:
    import pandas as pd



def split_option() -> Option:
    return Option("split", str, None, label="Split", help="reads arguments_<split>.csv; " + SPLIT_FROM_NAMES,
                  pattern=r"[A-Za-z0-9_-]{1,40}", rule="1 to 40 letters, digits, - or _")


def system_option() -> Option:
    return Option("system", str, (), label="Systems", multiple=True, cli_only=True, convert=track2.system_option,
                  help="NAME=FOLDER with the system's key_points.csv and predictions.p (repeat it); default: the "
                       "folders systems/NAME/ inside the input folder")


def only_option() -> Option:
    return Option("only", str, (), label="Only these systems", multiple=True,
                  help="system names, one a line or --only repeated (case and signs do not count: NLP@UIT is the "
                       "folder nlp_uit); the systems given that are not listed are left out; empty: every system")


def any_count_option() -> Option:
    return Option("any_key_point_count", bool, False, label="Allow any number of key points per topic and stance",
                  help=f"KPA-2021 Track 2 asks for {track2.FEWEST} to {track2.MOST}; set it for a campaign with other "
                       "rules")


def read_runs(directory: Path, split: str, systems: tuple[tuple[str, Path], ...], only: tuple[str, ...] = (),
              any_count: bool = False) -> tuple[list[Argument], dict[str, track2.SystemRun]]:
    """The split's arguments and every (chosen) system's checked outputs."""
    directory = Path(directory)
    path = directory / f"arguments_{split}.csv"
    if not path.is_file():
        raise FormatError(f"arguments_{split}.csv is missing (the split's arguments)", file=path.name)
    arguments = read_arguments(path)
    given = list(systems) or track2.discover_systems(directory)
    names = [name for name, _ in given]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise FormatError(f"system {repeated[0]} is given twice")
    if only:
        given = _chosen(given, only)
    return arguments, {name: track2.read_system(folder, name, arguments, any_count=any_count)
                       for name, folder in given}


def _chosen(given: list[tuple[str, Path]], only: tuple[str, ...]) -> list[tuple[str, Path]]:
    """The given systems that `only` names (compared by track2_proposals.name_key), in the given order.

    A listed name without a system is passed over (a Track-1 top-10 team that sent no Track-2 output), but a
    list that keeps none of the systems is a mistake, refused in words.
    """
    keys = {track2_proposals.name_key(name) for name in only}
    kept = [(name, folder) for name, folder in given if track2_proposals.name_key(name) in keys]
    if not kept:
        raise FormatError(f"none of the systems given ({', '.join(n for n, _ in given)}) is among those to import "
                          f"({', '.join(only)})")
    return kept


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:10]


def _sampled(pairs: list[tuple[str, str, Any]], groups: dict[str, tuple[str, int]], fraction: float,
             rng: random.Random) -> list[tuple[str, str, Any]]:
    """A share of the pairs of each topic+stance (at least one), in the pairs' order."""
    if fraction >= 1:
        return pairs
    chosen: set[int] = set()
    for group in dict.fromkeys(groups[arg] for arg, _, _ in pairs):
        members = [n for n, (arg, _, _) in enumerate(pairs) if groups[arg] == group]
        chosen.update(rng.sample(members, max(1, round(fraction * len(members)))))
    return [pair for n, pair in enumerate(pairs) if n in chosen]


def load(directory: Path, *, split: str | None = None, system: tuple = (), only: tuple = (),
         any_key_point_count: bool = False, sample: float = 1.0, seed: int = 0, declared: bool = True,
         tie: str = declared_rules.TIE_NO_MATCH) -> Loaded:
    """The pairs to judge, for a declared project of match_check.yaml with the tie as its majority's. `declared`
    off asked for a project of the built-in type, which is gone since the switch to one engine: refused, saying so."""
    refuse_built_in(declared, "kp_match_check", CHECK_DEFINITION)
    split = split_of(Path(directory), split)
    arguments, runs = read_runs(directory, split, system, only, any_key_point_count)
    by_id = {a.arg_id: a for a in arguments}
    groups = {a.arg_id: (a.topic, a.stance) for a in arguments}
    items: dict[tuple[str, str], dict[str, Any]] = {}
    for name, run in runs.items():
        pairs = _sampled(track2.evaluated_pairs(split, arguments, run), groups, sample, random.Random(f"{seed}:{name}"))
        for arg_id, kp_id, score in pairs:
            text = run.key_points[kp_id].key_point
            argument = by_id[arg_id]
            item = items.setdefault((arg_id, text), {
                "id": f"{arg_id}~{_digest(text)}", "arg_id": arg_id, "topic": argument.topic, "stance": argument.stance,
                "argument": argument.argument, "key_point": {"id": _digest(text), "text": text}, "systems": []})
            item["systems"].append({"name": name, "key_point_id": kp_id, "score": score})
    order = {a.arg_id: n for n, a in enumerate(arguments)}
    new = [NewItem(p["id"], p) for (arg, _), p in sorted(items.items(), key=lambda kv: (order[kv[0][0]], kv[1]["id"]))]
    data = {ARGUMENTS: [[a.arg_id, a.argument, a.topic, a.stance] for a in arguments],
            **{SYSTEM + name: run.to_json() for name, run in runs.items()}}
    return Loaded(new, {"format": FORMAT.name, "split": split}, data=data,
                  definition=declared_rules.check_definition(load_definition(CHECK_DEFINITION).to_data(), {"tie": tie}))


def rank(project: Project, include_incomplete: bool = False) -> Report:
    """Each system's one mAP over the judged pairs of its top half, best first (the overview's Table 3);
    systems with nothing judged yet come last, unranked."""
    arguments, runs = stored_runs(project)
    split = project.source.get("split", "dev")
    labels, faulty = judged_labels(project, include_incomplete)
    results = maps(project, labels)
    names = sorted(results, key=lambda n: (results[n].value is None, -(results[n].value or 0.0)))
    values = {n: r.value for n, r in results.items() if r.value is not None}
    places = dict(zip(values, competition_ranks(list(values.values()))))
    evaluated = {n: len(track2.evaluated_pairs(split, arguments, runs[n])) for n in names}
    rows = [[places.get(n), n, results[n].value, results[n].judged, evaluated[n], faulty.get(n, 0)] for n in names]
    groups = [[name, g["topic"], g["stance"], g["judged"], g["matches"], g["ap"]]
              for name in names for g in results[name].groups]
    judged = sum(r.judged for r in results.values())
    return Report(f"{project.name}: the systems' key-point matching (mAP on the judges' verdicts)", [
        Table("map", "mAP by system", ["rank", "system", "mAP", "judged", "top-half pairs", "mostly faulty"], rows,
              "one mAP over the judged pairs, as the overview computes it; pairs not judged are left out"),
        Table("map_groups", "AP per topic and stance", ["system", "topic", "stance", "judged", "matches", "AP"],
              groups)],
        [f"{judged} judged pairs of {sum(evaluated.values())} in the systems' top halves."])


def export(project: Project, out_dir: Path, *, include_incomplete: bool = False) -> Exported:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    labels = labels_frame(project, include_incomplete)
    items = {i.external_id: i for i in project.items}
    names = _usernames([int(i) for i in labels["user_id"].unique()])  # as kpa2021-compare's judgments.csv names them
    judgments = out_dir / "judgments.csv"
    write_csv(judgments, ["item", "arg_id", "key_point", "system", "system_key_point_id", "score", "annotator",
                          "verdict"], _judgment_rows(labels, items, names))
    gold = check_gold(project, include_incomplete)
    pairs = out_dir / "pairs.csv"
    write_frame(gold.assign(systems=[", ".join(e["name"] for e in items[i].payload["systems"]) for i in gold["item"]]),
                pairs, lineterminator="\n")
    return Exported([judgments, pairs, *rank(project, include_incomplete).write(out_dir)])


def _judgment_rows(labels: pd.DataFrame, items: dict[str, Any], names: dict[int, str]) -> Iterator[list[Any]]:
    """Every verdict once per system that proposed the pair, the annotator by account name."""
    for row in labels.itertuples():
        payload = items[row.item].payload
        for entry in payload["systems"]:
            yield [row.item, payload["arg_id"], payload["key_point"]["text"], entry["name"], entry["key_point_id"],
                   entry["score"], names[int(row.user_id)], row.value]


def _usernames(ids: list[int]) -> dict[int, str]:
    return dict(db.session.execute(select(User.id, User.username).where(User.id.in_(ids))).all()) if ids else {}


FORMAT = FileFormat(
    name="kpa2021-check", title="KPA-2021 Track 2: retrospective check of systems' top matches",
    task=DECLARED_TYPE, reads="folder",
    expects="arguments_<split>.csv, and per system a folder systems/NAME/ with the Track-2 key_points.csv and "
            "predictions.p",
    items="argument / key point pairs", load=load, export=export,
    writes="judgments.csv (every judgment of a system's match), pairs.csv (each pair's verdict and the systems that "
           "proposed it), and the systems' ranking: map.csv, map_groups.csv and report.json",
    import_options=(split_option(), system_option(), only_option(), any_count_option(),
                    Option("sample", float, 1.0, label="Share of each system's top-half pairs to judge",
                           help="1 judges them all; less draws a seeded sample per topic and stance",
                           minimum=0.01, maximum=1.0),
                    Option("seed", int, 0, label="Seed of the sample", minimum=0, maximum=2**31),
                    declared_option(CHECK_DEFINITION), declared_rules.TIE_OPTION),
    rank=rank, proposal=track2_proposals.TRACK_1_TOP, settings=MATCH_CHECK.kept_settings,
    settings_of_definition=declared_rules.check_settings)
