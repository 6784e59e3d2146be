"""Writes the demo's one-topic excerpt of ArgKP dev and three sample Track-2 systems into
annotator/campaigns/demo/kpa2021_topic/ (python -m annotator.shared_tasks.kpa2021.demo_data).

arguments_dev.csv there: the first 10 con and the first 10 pro arguments of the KPA-2021 dev split on "We should
abandon the use of school uniform"; key_points_dev.csv: the topic's 10 key points; labels_dev.csv: the label rows
of those arguments (unchanged rows of the shipped dev split, shipped_demo_dir(), in file order).
alpha: key points close to the official ones, scores that follow the official labels (a good system);
beta: vaguer key points, scores half noise; gamma: key points and scores mostly at random (a weak one).
The key points are written for the demo. Everything is seeded, so the files are the same at every run.
"""
from __future__ import annotations

import csv
import json
import random
from collections.abc import Callable

from annotator.core.csv_cells import official_writer
from annotator.shared_tasks.kpa2021.files import shipped_demo_dir

OFFICIAL = shipped_demo_dir()
HERE = OFFICIAL.parent / "kpa2021_topic"
TOPIC = "We should abandon the use of school uniform"
PER_STANCE = 10
SYSTEMS: dict[str, dict[int, list[str]]] = {
    "alpha": {-1: ["Uniforms reduce bullying", "Uniforms help students focus on learning",
                   "Uniforms save families money", "Uniforms make students equal",
                   "Students can express themselves in other ways"],
              1: ["Uniforms stop students expressing themselves", "Uniforms are expensive",
                  "Uniforms are uncomfortable", "Uniforms harm creativity", "Uniforms force conformity"]},
    "beta": {-1: ["Uniforms are good for schools", "Uniforms are practical", "Parents like uniforms",
                  "Uniforms look smart", "Rules matter at school"],
             1: ["Freedom matters", "Uniforms cost a lot", "Children dislike uniforms", "Uniforms are old-fashioned",
                 "Schools should trust students"]},
    "gamma": {-1: ["Uniforms are traditional", "Teachers prefer them", "Uniforms save money",
                   "Nobody complains", "It is the law"],
              1: ["Uniforms are ugly", "Fashion is important", "Students want change", "Uniforms are hot in summer",
                  "Everyone gains"]},
}
OFFICIAL_OF_ALPHA = {f"alpha_{s}_{n}": f"kp_4_{kp}" for s, kps in (("con", (1, 2, 3, 4, 0)), ("pro", (5, 6, 7, 8, 9)))
                     for n, kp in enumerate(kps)}
SIGNAL = {"alpha": 0.8, "beta": 0.4, "gamma": 0.0}


def _excerpt(name: str, keep: Callable[[dict[str, str]], bool]) -> None:
    """The header and the rows of the dev split's file `name` that `keep` accepts, bytes unchanged."""
    with open(OFFICIAL / name, encoding="utf-8", newline="") as source:
        lines = source.read().splitlines(keepends=True)
    rows = list(csv.DictReader(lines))
    assert len(rows) == len(lines) - 1
    (HERE / name).write_text(lines[0] + "".join(lines[n + 1] for n, row in enumerate(rows) if keep(row)),
                             encoding="utf-8", newline="")


def main() -> None:
    with open(OFFICIAL / "arguments_dev.csv", encoding="utf-8", newline="") as source:
        lines = source.read().splitlines(keepends=True)
    rows = list(csv.DictReader(lines))
    chosen = [n for stance in ("-1", "1")
              for n in [i for i, r in enumerate(rows) if r["topic"] == TOPIC and r["stance"] == stance][:PER_STANCE]]
    assert len(rows) == len(lines) - 1  # one line per row, so lines[n + 1] is row n
    (HERE / "arguments_dev.csv").write_text(lines[0] + "".join(lines[n + 1] for n in sorted(chosen)),
                                            encoding="utf-8", newline="")
    arguments = [rows[n] for n in sorted(chosen)]
    ids = {a["arg_id"] for a in arguments}
    _excerpt("key_points_dev.csv", lambda row: row["topic"] == TOPIC)
    _excerpt("labels_dev.csv", lambda row: row["arg_id"] in ids)
    labels = {(r["arg_id"], r["key_point_id"]): int(r["label"])
              for r in csv.DictReader(open(OFFICIAL / "labels_dev.csv", encoding="utf-8", newline=""))}
    for name, points in SYSTEMS.items():
        rng = random.Random(name)
        folder = HERE / "systems" / name
        folder.mkdir(parents=True, exist_ok=True)
        kps = [(f"{name}_{'pro' if stance == 1 else 'con'}_{n}", text, TOPIC, stance)
               for stance in (-1, 1) for n, text in enumerate(points[stance])]
        with open(folder / "key_points.csv", "w", encoding="utf-8", newline="") as out:
            writer = official_writer(out, lineterminator="\n")  # the Track-2 layout, as the systems hand it in
            writer.writerow(["key_point_id", "key_point", "topic", "stance"])
            writer.writerows(kps)
        predictions: dict[str, dict[str, float]] = {}
        for argument in arguments:
            stance = int(argument["stance"])
            scores: dict[str, float] = {}
            for kp_id, _, _, kp_stance in kps:
                if kp_stance != stance:
                    continue
                official = labels.get((argument["arg_id"], OFFICIAL_OF_ALPHA.get(kp_id, "")), 0)
                signal = SIGNAL[name] * official
                scores[kp_id] = round(signal + rng.random() * (1 - signal), 4)
            predictions[argument["arg_id"]] = scores
        (folder / "predictions.p").write_text(json.dumps(predictions, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
