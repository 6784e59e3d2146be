"""KPA-2021 / ArgKP files <-> key-point-match projects.

Import: one item per argument, its units the key points of the same topic and stance (file
order). Imported labels, when present, are kept on the item as a hidden `reference` (never shown
to annotators) for later comparison. Export: the three files exactly as the shared task's, gold
labels from the votes (undecided pairs left out, as the official data does), plus votes.csv
with the counts behind every pair.
"""
from __future__ import annotations

from pathlib import Path


from ..errors import FormatError
from ..formats import kpa2021 as fmt
from ..models import Item, Project
from ..projects import add_items, get_or_create_project
from ..results import gold_frame
from ..tasks import NewItem
from ..tasks.kp_match import KeyPointMatch

FORMAT = "kpa2021"
VOTE_COLUMNS = ["arg_id", "key_point_id", "annotators", "matched", "share", "label"]


def items_from_split(split: fmt.KpaSplit) -> list[NewItem]:
    order = {kp.key_point_id: n for n, kp in enumerate(split.key_points)}
    items = []
    for arg in split.arguments:
        key_points = split.key_points_for(arg.topic, arg.stance)
        payload = {"id": arg.arg_id, "topic": arg.topic, "stance": arg.stance, "argument": arg.argument,
                   "key_points": [{"id": kp.key_point_id, "text": kp.key_point, "position": order[kp.key_point_id]}
                                  for kp in key_points]}
        if split.labels is not None:
            payload["reference"] = {kp.key_point_id: split.labels[(arg.arg_id, kp.key_point_id)]
                                    for kp in key_points if (arg.arg_id, kp.key_point_id) in split.labels}
        items.append(NewItem(arg.arg_id, payload))
    return items


def import_files(directory: Path, *, split: str, project: str, k: int | None = None,
                 lease_minutes: int | None = None, name: str | None = None) -> tuple[Project, int]:
    """Read and validate the split, then create or extend the project (caller owns the transaction)."""
    data = fmt.read_split(Path(directory), split)
    items = items_from_split(data)
    without = [i.external_id for i in items if not i.payload["key_points"]]
    if without:
        raise FormatError(f"argument {without[0]} has no key point of its topic and stance "
                          f"({len(without)} such arguments); nothing to match it against",
                          file=f"arguments_{split}.csv", column="arg_id")
    target = get_or_create_project(project, KeyPointMatch.name, name=name, k=k, lease_minutes=lease_minutes,
                                   source={"format": FORMAT, "split": split})
    return target, add_items(target, items)


def _arguments_and_key_points(items: list[Item]) -> tuple[list[fmt.Argument], list[fmt.KeyPoint]]:
    arguments, key_points = [], {}
    for item in items:
        p = item.payload
        arguments.append(fmt.Argument(p["id"], p["argument"], p["topic"], p["stance"]))
        for kp in p["key_points"]:
            key_points[kp["id"]] = (kp["position"], fmt.KeyPoint(kp["id"], kp["text"], p["topic"], p["stance"]))
    return arguments, [kp for _, kp in sorted(key_points.values(), key=lambda pair: pair[0])]


def export_files(project: Project, out_dir: Path) -> list[Path]:
    split = project.source.get("split", "dev")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    arguments, key_points = _arguments_and_key_points(list(project.items))
    gold = gold_frame(project)
    decided = gold[gold["label"].isin([0, 1])] if not gold.empty else gold
    labels = [(row.item, row.unit, int(row.label)) for row in decided.itertuples()]
    # Before any pair is decided there is no labels file, as with an unlabelled official split.
    paths = fmt.write_split(out_dir, split, arguments, key_points, labels)
    votes = gold.rename(columns={"item": "arg_id", "unit": "key_point_id"}).reindex(columns=VOTE_COLUMNS)
    votes_path = out_dir / "votes.csv"
    votes.to_csv(votes_path, index=False, lineterminator="\n")
    return paths + [votes_path]


SCORING_TASK = "kpa2021"


def scoring_gold(project: Project, out_dir: Path) -> tuple[Path, dict[str, str]]:
    """The folder the kpa2021 scorer reads as gold, and the options to read it with."""
    export_files(project, out_dir)
    split = project.source.get("split", "dev")
    if not fmt.file_paths(out_dir, split)[2].exists():
        raise FormatError(f"project {project.slug!r} has no decided pair yet, so there is no gold to score against")
    (out_dir / "votes.csv").unlink()
    return out_dir, {"split": split}
