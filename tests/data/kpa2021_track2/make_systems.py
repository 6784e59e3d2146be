"""Writes the three synthetic Track-2 systems of this folder (run from here: python make_systems.py).

alpha: key points close to the official ones, scores that follow the official labels (a good system);
beta: vaguer key points, scores half noise; gamma: key points and scores at random (a weak one), one key point
worded exactly as one of alpha's.
Everything is seeded, so the files are the same at every run.
"""
import csv
import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
OFFICIAL = HERE.parent / "kpa2021"
TOPIC = "Social media platforms should be regulated by the government"
SYSTEMS = {
    "alpha": {-1: ["Regulation would not work", "Regulation invades privacy", "Regulation threatens free speech",
                   "Private companies should run themselves", "Governments could abuse the power"],
              1: ["Regulation protects children", "Regulation fights fake news", "Regulation helps society",
                  "Regulation removes harmful content", "Regulation stops malicious users"]},
    "beta": {-1: ["Freedom matters", "Government cannot be trusted", "It is a private matter", "Users can decide",
                  "Laws already exist"],
             1: ["Safety first", "Fake news is a problem", "Some rules are good", "Hate speech spreads",
                 "Companies will not act alone"]},
    "gamma": {-1: ["Regulation is costly", "People do not want it", "Technology moves too fast", "It is unclear",
                   "Nobody knows how"],
              1: ["Society benefits", "Regulation protects children", "Platforms are too big", "Rules are normal",
                  "Everyone gains"]},
}
OFFICIAL_OF_ALPHA = {f"alpha_{s}_{n}": f"kp_1_{n + (5 if s == 'pro' else 0)}" for s in ("con", "pro") for n in range(5)}


def main() -> None:
    arguments = list(csv.DictReader(open(HERE / "arguments_test.csv", encoding="utf-8", newline="")))
    labels = {(r["arg_id"], r["key_point_id"]): int(r["label"])
              for r in csv.DictReader(open(OFFICIAL / "labels_test.csv", encoding="utf-8", newline=""))}
    for name, points in SYSTEMS.items():
        rng = random.Random(name)
        folder = HERE / "systems" / name
        folder.mkdir(parents=True, exist_ok=True)
        rows = [(f"{name}_{'pro' if stance == 1 else 'con'}_{n}", text, TOPIC, stance)
                for stance in (-1, 1) for n, text in enumerate(points[stance])]
        with open(folder / "key_points.csv", "w", encoding="utf-8", newline="") as out:
            writer = csv.writer(out, lineterminator="\n")
            writer.writerow(["key_point_id", "key_point", "topic", "stance"])
            writer.writerows(rows)
        predictions = {}
        for argument in arguments:
            stance = int(argument["stance"])
            scores = {}
            for kp_id, _, _, kp_stance in rows:
                if kp_stance != stance:
                    continue
                official = labels.get((argument["arg_id"], OFFICIAL_OF_ALPHA.get(kp_id, "")), 0)
                signal = {"alpha": 0.8, "beta": 0.4, "gamma": 0.0}[name] * official
                scores[kp_id] = round(signal + rng.random() * (1 - signal), 4)
            predictions[argument["arg_id"]] = scores
        (folder / "predictions.p").write_text(json.dumps(predictions, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
