"""How crowdkit_declared.json was made: synthetic votes, and crowd-kit's Dawid-Skene on them.

Run by hand in a virtual environment that has crowd-kit (1.4.2 made the file); the suite only reads the file.
Five annotators of accuracies 0.9, 0.8, 0.7, 0.6 and 0.35 answer 30 three-class items ("choice") and tick three
options of 20 items ("multi": each option one binary unit "item/option", pooled into one model as the declared
multi question does). Dawid-Skene differs from the strict majority on 3 of the 30 choice items, so a test built on
it tells the two rules apart.
"""
import json
import random

import pandas as pd
from crowdkit.aggregation import DawidSkene


def fitted(rows: list[tuple[str, int, str]]) -> dict:
    ds = DawidSkene(n_iter=100, tol=1e-5).fit(pd.DataFrame(rows, columns=["task", "worker", "label"]))
    probas = ds.probas_.to_dict("index")
    return {"labels": ds.labels_.to_dict(),
            "probas": {k: {c: round(float(v), 6) for c, v in d.items()} for k, d in probas.items()}}


rng = random.Random(48)
accuracies = [0.9, 0.8, 0.7, 0.6, 0.35]
classes = ["neg", "neu", "pos"]
truth = {f"i{n}": rng.choice(classes) for n in range(1, 31)}
votes = {item: [t if rng.random() < a else rng.choice([c for c in classes if c != t]) for a in accuracies]
         for item, t in truth.items()}
choice = {"votes": votes, **fitted([(i, w + 1, v) for i, vs in votes.items() for w, v in enumerate(vs)])}
ticks = {}
for n in range(1, 21):
    true = {o: rng.random() < 0.4 for o in "abc"}
    ticks[f"m{n}"] = [[o for o in "abc" if (true[o] if rng.random() < a else not true[o])] for a in accuracies]
multi = {"votes": ticks, **fitted([(f"{i}/{o}", w + 1, "1" if o in ticked else "0")
                                   for i, answers in ticks.items() for w, ticked in enumerate(answers) for o in "abc"])}
source = ("crowd-kit 1.4.2, crowdkit.aggregation.DawidSkene(n_iter=100, tol=1e-5).fit on these votes (task, worker = "
          "annotator number, label); probas rounded to 6 decimals")
with open("crowdkit_declared.json", "w") as f:
    json.dump({"source": source, "choice": choice, "multi": multi}, f, indent=1, sort_keys=True)
