"""How independent_models.json was made: synthetic votes, and two annotator models fitted by plain Python loops.

Run by hand (`python make_independent.py` in this folder, no third-party package); the suite only reads the file.
This is a second implementation, written apart from annotator/analysis (dictionaries and loops, no numpy, no
pandas), of the same two models with the same start and stop, so that the product's vectorised code is checked
against figures it did not compute:

- Dawid & Skene (1979) with known answers fixed (Ipeirotis, Provost & Wang 2010): a unit of known class has
  posterior 1 for it at the start and after every E-step.
- the one-coin model: annotator w is right with probability a_w and otherwise gives one of the other K - 1
  classes at random; spammer score (K a_w - 1) / (K - 1) (Raykar & Yu 2012: 0 for an annotator whose answers
  do not depend on the truth, 1 for a perfect one).

Both start from each unit's vote shares (the known units from their class), run an M-step, then alternate E- and
M-steps until the log-likelihood of the data moves by less than 1e-5, or for 100 E-steps.

The campaign: 60 items, 3 classes; 7 annotators, 5 of accuracy 0.85, 0.8, 0.75, 0.7, 0.65 and two spammers
(one answers at random, one always "pos"); each item gets 5 of the 7 annotators; 12 items are control items whose
answer is known.
"""
import json
import math
import random

TOL, MAX_ITER, TINY = 1e-5, 100, 1e-300
CLASSES = ["neg", "neu", "pos"]


def campaign() -> tuple[list[tuple[str, str, str]], dict[str, str], dict[str, str]]:
    rng = random.Random(47)
    annotators = {"w1": 0.85, "w2": 0.8, "w3": 0.75, "w4": 0.7, "w5": 0.65, "random": None, "always_pos": None}
    truth = {f"u{n:02d}": rng.choice(CLASSES) for n in range(1, 61)}
    votes = []
    for unit, true in truth.items():
        for w in rng.sample(sorted(annotators), 5):
            accuracy = annotators[w]
            if w == "random":
                value = rng.choice(CLASSES)
            elif w == "always_pos":
                value = "pos"
            else:
                value = true if rng.random() < accuracy else rng.choice([c for c in CLASSES if c != true])
            votes.append((unit, w, value))
    known = {unit: truth[unit] for unit in sorted(truth)[:12]}
    return votes, truth, known


def start(votes, units, known):
    post = {}
    for u in units:
        if u in known:
            post[u] = {c: 1.0 if c == known[u] else 0.0 for c in CLASSES}
            continue
        given = [v for (unit, _, v) in votes if unit == u]
        post[u] = {c: given.count(c) / len(given) for c in CLASSES}
    return post


def normalise(logs, u, known):
    if u in known:
        logs = {c: (logs[c] if c == known[u] else -math.inf) for c in CLASSES}
    top = max(logs.values())
    total = sum(math.exp(x - top) for x in logs.values())
    return {c: math.exp(x - top) / total for c, x in logs.items()}, top + math.log(total)


def dawid_skene(votes, known):
    units = sorted({u for u, _, _ in votes})
    coders = sorted({w for _, w, _ in votes})
    post = start(votes, units, known)

    def m_step(post):
        priors = {c: sum(post[u][c] for u in units) / len(units) for c in CLASSES}
        conf = {}
        for w in coders:
            conf[w] = {}
            for t in CLASSES:
                row = {c: 0.0 for c in CLASSES}
                for (u, who, v) in votes:
                    if who == w:
                        row[v] += post[u][t]
                total = sum(row.values())
                conf[w][t] = {c: (row[c] / total if total > 0 else 1 / len(CLASSES)) for c in CLASSES}
        return priors, conf

    priors, conf = m_step(post)
    previous, steps = -math.inf, 0
    while steps < MAX_ITER:
        likelihood, new = 0.0, {}
        for u in units:
            logs = {t: math.log(max(priors[t], TINY)) for t in CLASSES}
            for (unit, w, v) in votes:
                if unit == u:
                    for t in CLASSES:
                        logs[t] += math.log(max(conf[w][t][v], TINY))
            new[u], part = normalise(logs, u, known)
            likelihood += part
        post = new
        priors, conf = m_step(post)
        steps += 1
        if abs(likelihood - previous) < TOL:
            break
        previous = likelihood
    return {"posteriors": {u: [round(post[u][c], 9) for c in CLASSES] for u in units},
            "labels": {u: max(CLASSES, key=lambda c: (post[u][c], -CLASSES.index(c))) for u in units},
            "priors": [round(priors[c], 9) for c in CLASSES], "iterations": steps}


def one_coin(votes, known):
    units = sorted({u for u, _, _ in votes})
    coders = sorted({w for _, w, _ in votes})
    k = len(CLASSES)
    post = start(votes, units, known)

    def m_step(post):
        priors = {c: sum(post[u][c] for u in units) / len(units) for c in CLASSES}
        accuracy = {}
        for w in coders:
            mine = [(u, v) for (u, who, v) in votes if who == w]
            accuracy[w] = sum(post[u][v] for u, v in mine) / len(mine)
        return priors, accuracy

    priors, accuracy = m_step(post)
    previous, steps = -math.inf, 0
    while steps < MAX_ITER:
        likelihood, new = 0.0, {}
        for u in units:
            logs = {t: math.log(max(priors[t], TINY)) for t in CLASSES}
            for (unit, w, v) in votes:
                if unit == u:
                    for t in CLASSES:
                        p = accuracy[w] if v == t else (1 - accuracy[w]) / (k - 1)
                        logs[t] += math.log(max(p, TINY))
            new[u], part = normalise(logs, u, known)
            likelihood += part
        post = new
        priors, accuracy = m_step(post)
        steps += 1
        if abs(likelihood - previous) < TOL:
            break
        previous = likelihood
    return {"posteriors": {u: [round(post[u][c], 9) for c in CLASSES] for u in units},
            "labels": {u: max(CLASSES, key=lambda c: (post[u][c], -CLASSES.index(c))) for u in units},
            "priors": [round(priors[c], 9) for c in CLASSES], "iterations": steps,
            "accuracy": {w: round(a, 9) for w, a in accuracy.items()},
            "spammer_score": {w: round((k * a - 1) / (k - 1), 9) for w, a in accuracy.items()}}


if __name__ == "__main__":
    votes, truth, known = campaign()
    result = {
        "source": "tests/data/dawid_skene/make_independent.py (plain Python loops, written apart from "
                  "annotator/analysis); posteriors rounded to 9 decimals, classes in the order of `classes`",
        "classes": CLASSES, "votes": votes, "truth": truth, "known": known,
        "dawid_skene_seeded": dawid_skene(votes, known), "dawid_skene_unseeded": dawid_skene(votes, {}),
        "one_coin_seeded": one_coin(votes, known), "one_coin_unseeded": one_coin(votes, {}),
    }
    with open("independent_models.json", "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
