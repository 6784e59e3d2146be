"""The judged mAP of each system of a match-check project: the verdicts' gold per judged pair, and the overview's
one mAP over a system's judged pairs (track2_map.py).

A module of its own because two readers need it: the check project's ranking (check_exchange.py) and the
comparison's proposal of the best systems by matching (track2_proposals.py), which check_exchange imports.
"""
from __future__ import annotations

from sqlalchemy import select

from annotator.campaigns.projects import project_data
from annotator.core.extensions import db
from annotator.core.models import Item, Project
from annotator.shared_tasks.kpa2021 import track2_files as track2
from annotator.shared_tasks.kpa2021.declared_gold import check_gold
from annotator.shared_tasks.kpa2021.files import Argument
from annotator.shared_tasks.kpa2021.track2_map import JudgedMap, judged_map
from annotator.tasks import project_settings

ARGUMENTS, SYSTEM = "track2:arguments", "system:"  # the project data's keys: the arguments, each system's run
OFFICIAL = "official"   # the mAP variant of a project without the setting


def stored_runs(project: Project) -> tuple[list[Argument], dict[str, track2.SystemRun]]:
    data = project_data(project)
    arguments = [Argument(*row) for row in data.get(ARGUMENTS, [])]
    runs = {name[len(SYSTEM):]: track2.SystemRun.from_json(name[len(SYSTEM):], content)
            for name, content in data.items() if name.startswith(SYSTEM)}
    return arguments, runs


def judged_labels(project: Project, include_incomplete: bool = False
                  ) -> tuple[dict[str, dict[tuple[str, str], int]], dict[str, int]]:
    """Per system, its judged pairs' labels {(arg_id, its key point id): 1 | 0}; and per system, how many of them
    the judges mostly called a faulty key point.

    The items' payloads are read as rows and the gold looked up in a dict: ORM items and a `gold.loc` per item
    took most of a big project's ranking."""
    items = db.session.execute(select(Item.external_id, Item.payload).where(Item.project_id == project.id)
                               .order_by(Item.position)).all()
    labels: dict[str, dict[tuple[str, str], int]] = {}
    faulty: dict[str, int] = {}
    if not items:
        return labels, faulty
    gold = check_gold(project, include_incomplete)
    verdicts = dict(zip(gold["item"], zip(gold["label"], gold["faulty_majority"])))
    for external_id, payload in items:
        if (verdict := verdicts.get(external_id)) is None:
            continue
        label, faulty_majority = verdict
        for entry in payload["systems"]:
            labels.setdefault(entry["name"], {})[(payload["arg_id"], entry["key_point_id"])] = int(label)
            faulty[entry["name"]] = faulty.get(entry["name"], 0) + bool(faulty_majority)
    return labels, faulty


def maps(project: Project, labels: dict[str, dict[tuple[str, str], int]] | None = None) -> dict[str, JudgedMap]:
    """Each system's one mAP over its judged pairs (track2_map.py), with the project's mAP variant (a declared
    project's setting too: the bridge's `kept_settings`)."""
    arguments, runs = stored_runs(project)
    split = project.source.get("split", "dev")
    variant = project_settings(project).get("map_variant", OFFICIAL)
    labels = judged_labels(project)[0] if labels is None else labels
    return {name: judged_map(split, arguments, run, labels.get(name, {}), variant=variant)
            for name, run in runs.items()}
