"""KPA-2021 / ArgKP files <-> key-point-match projects.

Import: one item per argument, its units the key points of the same topic and stance (file
order). Imported labels, when present, become the items' reference answers (never shown to
annotators) for later comparison. A project is a declared project of match.yaml (the built-in kp_match type of
before the switch to one engine is gone: docs/one-engine.md), the share thresholds given with the import its
`share` rule's (declared_rules.py); its gold is read in the columns the built-in type wrote (declared_gold.py), so
every file below is what the built-in type wrote for the same votes. Export: the three files exactly as the shared
task's, gold labels from the votes (undecided pairs left out, as the official data does),
plus votes.csv with the counts behind every pair.
"""
from __future__ import annotations

from pathlib import Path

from sqlalchemy import func, select

from annotator.core.csv_cells import write_frame
from annotator.core.errors import FormatError
from annotator.core.extensions import db
from annotator.core.models import Item, Project
from annotator.core.options import Option
from annotator.declared import TYPE_NAME as DECLARED_TYPE
from annotator.declared.items import load_definition
from annotator.lookups.format_base import Exported, FileFormat, Loaded
from annotator.shared_tasks.kpa2021 import declared_rules
from annotator.shared_tasks.kpa2021 import files as fmt
from annotator.shared_tasks.kpa2021.declared_gold import MATCH_DEFINITION, declared_option, match_gold, refuse_built_in
from annotator.shared_tasks.kpa2021.declared_rules import NEGATIVE, POSITIVE, THRESHOLD_OPTIONS
from annotator.tasks import NewItem

VOTE_COLUMNS = ["arg_id", "key_point_id", "annotators", "matched", "share", "label"]


def items_from_split(split: fmt.KpaSplit) -> list[NewItem]:
    order = {kp.key_point_id: n for n, kp in enumerate(split.key_points)}
    items = []
    for arg in split.arguments:
        key_points = split.key_points_for(arg.topic, arg.stance)
        payload = {"id": arg.arg_id, "topic": arg.topic, "stance": arg.stance, "argument": arg.argument,
                   "key_points": [{"id": kp.key_point_id, "text": kp.key_point, "position": order[kp.key_point_id]}
                                  for kp in key_points]}
        reference = None
        if split.labels is not None:
            reference = {kp.key_point_id: split.labels[(arg.arg_id, kp.key_point_id)]
                         for kp in key_points if (arg.arg_id, kp.key_point_id) in split.labels}
        items.append(NewItem(arg.arg_id, payload, reference))
    return items


def load(directory: Path, *, split: str | None = None, declared: bool = True,
         positive_threshold: float = POSITIVE, negative_threshold: float = NEGATIVE) -> Loaded:
    """Read and validate the split's files; every argument needs a key point to be matched against.

    No split given: the one the file names give (files.split_of), recorded on the project like a chosen one.
    The project is a declared project of match.yaml with the thresholds as its `share` rule's (the file's 0.6 and
    0.15 by default). `declared` off asked for a project of the built-in type, which is gone since the switch to one
    engine: refused, saying so (the option stays so that a command or form that still sends it is told why).
    """
    refuse_built_in(declared, "kp_match", MATCH_DEFINITION)
    split = fmt.split_of(Path(directory), split)
    items = items_from_split(fmt.read_split(Path(directory), split))
    without = [i.external_id for i in items if not i.payload["key_points"]]
    if without:
        raise FormatError(f"argument {without[0]} has no key point of its topic and stance "
                          f"({len(without)} such arguments); nothing to match it against",
                          file=f"arguments_{split}.csv", column="arg_id")
    thresholds = {"positive_threshold": positive_threshold, "negative_threshold": negative_threshold}
    return Loaded(items, {"format": FORMAT.name, "split": split},
                  definition=declared_rules.match_definition(load_definition(MATCH_DEFINITION).to_data(), thresholds))


def _arguments_and_key_points(project: Project) -> tuple[list[fmt.Argument], list[fmt.KeyPoint]]:
    """The arguments (items in item order) and the key points of their payloads, sorted by position.

    Read as the few payload fields needed, not whole payloads: decoding every payload was a large share
    of a big project's export (bench/aggregate.py; figures in bench/results/2026-11-25-figures-from-docstrings.md). The
    arguments of a topic and stance share one key point list, so the key points come from each distinct list once, in
    the order of its last item (a key point in several lists is written as its last item in item order has
    it, as when every payload was read).
    """
    p = Item.payload
    arguments = [fmt.Argument(*row) for row in db.session.execute(
        select(p["id"].as_string(), p["argument"].as_string(), p["topic"].as_string(), p["stance"].as_integer())
        .where(Item.project_id == project.id).order_by(Item.position))]
    fields = (select(p["topic"].as_string().label("topic"), p["stance"].as_integer().label("stance"),
                     p["key_points"].label("key_points"), Item.position)
              .where(Item.project_id == project.id).subquery())
    lists = db.session.execute(select(fields.c.topic, fields.c.stance, fields.c.key_points)
                               .group_by(fields.c.topic, fields.c.stance, fields.c.key_points)
                               .order_by(func.max(fields.c.position)))
    key_points = {}
    for topic, stance, kps in lists:
        for kp in kps:
            key_points[kp["id"]] = (kp["position"], fmt.KeyPoint(kp["id"], kp["text"], topic, stance))
    return arguments, [kp for _, kp in sorted(key_points.values(), key=lambda pair: pair[0])]


def export(project: Project, out_dir: Path, *, include_incomplete: bool = False) -> Exported:
    split = project.source.get("split", "dev")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    arguments, key_points = _arguments_and_key_points(project)
    gold = match_gold(project, include_incomplete)
    decided = gold[gold["label"].isin([0, 1])] if not gold.empty else gold
    labels = [(row.item, row.unit, int(row.label)) for row in decided.itertuples()]
    paths = fmt.write_split(out_dir, split, arguments, key_points, labels)
    if not labels:  # the gold file is written with no pair decided too: its header only (as every format does)
        label_path = fmt.file_paths(out_dir, split)[2]
        fmt.write_labels_header(label_path)
        paths.append(label_path)
    votes = gold.rename(columns={"item": "arg_id", "unit": "key_point_id"}).reindex(columns=VOTE_COLUMNS)
    votes_path = out_dir / "votes.csv"
    write_frame(votes, votes_path, lineterminator="\n")
    notes = [] if labels else [f"No pair is decided yet, so labels_{split}.csv holds its header only."]
    return Exported(paths + [votes_path], notes, verbatim=paths)


def scoring_gold(project: Project, out_dir: Path) -> tuple[Path, dict[str, str]]:
    """The folder the kpa2021 scorer reads as gold, and the options to read it with."""
    export(project, out_dir)
    split = project.source.get("split", "dev")
    label_path = fmt.file_paths(out_dir, split)[2]
    if len(label_path.read_bytes().splitlines()) < 2:
        raise FormatError(f"project {project.slug!r} has no decided pair yet, so there is no gold to score against")
    (out_dir / "votes.csv").unlink()
    return out_dir, {"split": split}


FORMAT = FileFormat(
    name="kpa2021", title="KPA-2021 / ArgKP key-point matching", task=DECLARED_TYPE, reads="folder",
    kinds=("CSV",),
    expects="arguments_<split>.csv and key_points_<split>.csv, optionally labels_<split>.csv (kept as reference "
            "answers, never shown)",
    items="arguments", load=load, export=export,
    writes="arguments_<split>.csv and key_points_<split>.csv as imported, labels_<split>.csv (the gold: the pairs "
           "decided, the header only while none is) and votes.csv (each pair's annotators, matches, share and label)",
    import_options=(Option("split", str, None, help="reads arguments_<split>.csv, key_points_<split>.csv, ...; "
                                                  + fmt.SPLIT_FROM_NAMES,
                           label="Split", pattern=r"[A-Za-z0-9_-]{1,40}",
                           rule="1 to 40 letters, digits, - or _"),
                    declared_option(MATCH_DEFINITION), *THRESHOLD_OPTIONS),
    scorer="kpa2021", scoring_gold=scoring_gold, settings_of_definition=declared_rules.match_settings)
