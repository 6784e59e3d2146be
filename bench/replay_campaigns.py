"""Two finished campaigns to replay with `flask replay` (docs/replay.md): the emphasis data as a majority campaign
of words, and a synthetic campaign with known truth and spammers.

Why: a stopping rule is measured by replaying votes that were all collected (design: "Votes where they change the
answer"). The emphasis data is a real one: SemEval-2020 Task 10's nine annotators per word. Its rule is a word's
probability, not a decision, so here each word is an item of a declared choice question "emphasise it?" with the
majority rule and k = 9, and an annotator's vote is "yes" when their tag is B or I. The synthetic campaign knows
the truth (each item's reference answer) and who the spammers are, so the replay also reports accuracy.

    python -m bench.replay_campaigns emphasis --database sqlite:////tmp/replay-emphasis.db
    python -m bench.replay_campaigns synthetic --spammers 0.1 --database sqlite:////tmp/replay-synthetic.db

each makes the database (`flask db upgrade`), imports the items with `flask import custom` and then the votes as
imported votes (campaigns/votes_import.py: one account per vote column), and prints the `flask replay` commands to
run on it. Votes are stored in the order they came: the emphasis file's column order within each word (the file
says no more), and for the synthetic campaign a random arrival time per vote (seeded).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import select, update

ROOT = Path(__file__).resolve().parents[1]
EMPHASIS = ROOT.parent / "shared" / "data" / "emphasis2020" / "train_dev_data"

EMPHASIS_DEFINITION = """\
# SemEval-2020 Task 10's words as items: would you emphasise this word? Majority of nine (bench/replay_campaigns.py).
name: Emphasis per word, majority of nine
licence: none stated for the SemEval-2020 Task 10 texts (check before publishing them)
k: 9
show:
  - {field: sentence, label: Text}
  - {field: word, label: Word}
questions:
  - {id: emphasis, kind: choice, prompt: "Would you emphasise this word?", options: ["yes", "no"], gold: majority}
"""

SYNTHETIC_DEFINITION = """\
# A synthetic campaign with known truth and spammers (bench/replay_campaigns.py).
name: Synthetic sentiment with spammers
k: {k}
show:
  - {{field: text, label: Text}}
questions:
  - {{id: sentiment, kind: choice, prompt: "Sentiment?", options: [negative, neutral, positive], gold: majority}}
"""
CLASSES = ("negative", "neutral", "positive")


def emphasis(files: list[Path]) -> tuple[str, list[dict[str, Any]], dict[str, list[dict[str, Any] | None]]]:
    """(definition, items, answers per item by column) of the emphasis files' words."""
    from annotator.shared_tasks.emphasis2020.files import read_file
    items, answers = [], {}
    for path in files:
        for sentence in read_file(path):
            text = " ".join(token.word for token in sentence.tokens)
            for token in sentence.tokens:
                word = f"{path.stem}/{token.word_id}"   # train and dev share ids (Q_2_0 in both)
                items.append({"id": word, "word": token.word, "sentence": text})
                answers[word] = [{"emphasis": "no" if tag == "O" else "yes"} for tag in token.tags or ()]
    return EMPHASIS_DEFINITION, items, answers


def synthetic(spammer_share: float, seed: int, n_items: int, n_annotators: int,
              k: int) -> tuple[str, list[dict[str, Any]], dict[str, list[dict[str, Any] | None]], dict[str, Any]]:
    """(definition, items with their truth as reference, answers by annotator column, what was drawn).

    Honest annotators are right with an accuracy drawn from 0.6 to 0.95, otherwise give another class at random;
    spammers (round(share * annotators) of them) alternate between answering at random and always one class. Each
    item gets k distinct annotators at random."""
    rng = random.Random(seed)
    spammers = set(rng.sample(range(n_annotators), round(spammer_share * n_annotators)))
    accuracy = {a: rng.uniform(0.6, 0.95) for a in range(n_annotators)}
    constant = {a: rng.choice(CLASSES) for a in spammers}
    items, answers = [], {}
    for n in range(n_items):
        truth = rng.choice(CLASSES)
        item = f"s{n:05d}"
        items.append({"id": item, "text": f"synthetic item {n}", "reference.sentiment": truth})
        row: list[dict[str, Any] | None] = [None] * n_annotators
        for a in rng.sample(range(n_annotators), k):
            if a in spammers:
                value = rng.choice(CLASSES) if a % 2 else constant[a]
            elif rng.random() < accuracy[a]:
                value = truth
            else:
                value = rng.choice([c for c in CLASSES if c != truth])
            row[a] = {"sentiment": value}
        answers[item] = row
    drawn = {"spammers": sorted(spammers), "honest_accuracy": {a: round(accuracy[a], 3) for a in sorted(accuracy)
                                                               if a not in spammers}}
    return SYNTHETIC_DEFINITION.format(k=k), items, answers, drawn


def build(database: str, slug: str, definition: str, items: list[dict[str, Any]],
          answers: dict[str, list[dict[str, Any] | None]], shuffle_seed: int | None) -> dict[str, Any]:
    env = {**os.environ, "DATABASE_URL": database}
    flask = [str(Path(sys.executable).parent / "flask"), "--app", "annotator"]
    with tempfile.TemporaryDirectory(prefix="replay-") as tmp:
        folder = Path(tmp)
        (folder / "task.yaml").write_text(definition, encoding="utf-8")
        with (folder / "items.jsonl").open("w", encoding="utf-8") as f:
            f.writelines(json.dumps(item, ensure_ascii=False) + "\n" for item in items)
        for command in (["db", "upgrade"], ["import", "custom", str(folder / "items.jsonl"), "--definition",
                                            str(folder / "task.yaml"), "--project", slug]):
            done = subprocess.run(flask + command, cwd=ROOT, env=env, capture_output=True, text=True)
            if done.returncode:
                raise SystemExit(f"{' '.join(command[:2])} failed:\n{done.stdout}{done.stderr}")
    os.environ["DATABASE_URL"] = database
    from annotator import create_app
    from annotator.campaigns.votes_import import import_votes
    from annotator.core.extensions import db
    from annotator.core.models import Assignment, Project
    app = create_app()
    with app.app_context():
        project = db.session.scalar(select(Project).where(Project.slug == slug))
        imported = import_votes(project, answers)
        if shuffle_seed is not None:   # arrival times: each vote at a random second of a day
            rng = random.Random(shuffle_seed)
            ids = db.session.scalars(select(Assignment.id).where(Assignment.project_id == project.id)).all()
            start = db.session.scalar(select(Assignment.submitted_at).where(Assignment.project_id == project.id))
            db.session.execute(update(Assignment), [{"id": i, "submitted_at": start + timedelta(
                seconds=rng.uniform(0, 86_400))} for i in ids])
        db.session.commit()
    return {"items": len(items), "votes": imported.votes, "annotators": imported.coders}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("campaign", choices=("emphasis", "synthetic"))
    parser.add_argument("--database", required=True, help="a new database's URL (DATABASE_URL)")
    parser.add_argument("--project", help="the project's slug [replay-emphasis / replay-synthetic-SHARE]")
    parser.add_argument("--spammers", type=float, default=0.1, help="synthetic: the share of spammers")
    parser.add_argument("--items", type=int, default=2000, help="synthetic: items")
    parser.add_argument("--annotators", type=int, default=40, help="synthetic: annotators")
    parser.add_argument("--k", type=int, default=5, help="synthetic: votes per item")
    parser.add_argument("--seed", type=int, default=47)
    args = parser.parse_args()
    if args.campaign == "emphasis":
        slug = args.project or "replay-emphasis"
        definition, items, answers = emphasis([EMPHASIS / "train.txt", EMPHASIS / "dev.txt"])
        built = build(args.database, slug, definition, items, answers, None)
    else:
        slug = args.project or f"replay-synthetic-{round(args.spammers * 100)}"
        definition, items, answers, drawn = synthetic(args.spammers, args.seed, args.items, args.annotators, args.k)
        built = {**build(args.database, slug, definition, items, answers, args.seed), **drawn}
    print(json.dumps({"project": slug, **built}))
    # with a prior per group of items: the emphasis words grouped by the word (docs/declared-stopping.md, prior_by);
    # the synthetic items' texts are all different, so there it is the project's shares alone
    grouped = "confidence:0.985:2:word" if args.campaign == "emphasis" else "confidence:0.985:2:text"
    for rule in ("decided", "confidence:0.95:3", grouped):
        print(f"DATABASE_URL={args.database} flask --app annotator replay --project {slug} --stopping {rule} --json")


if __name__ == "__main__":
    main()
