#!/usr/bin/env python3
"""A million items into a declared campaign, by `flask import custom` and by the admin's upload form (issue 42).

Makes a JSON Lines file of N items (default 1,000,000: an id and a six-word sentence each, about 60 MB, under the
upload limit of 64 MB) and a one-question definition, then for each engine, on a fresh database:
  - cli:  `flask --app annotator import custom ITEMS --definition TASK.yaml --project cli`, timed whole (Python
          start-up included), its peak RSS and CPU time from wait4;
  - form: a process that makes the app as a server worker does, logs an admin in and posts both files to the new
          declared project page (/admin/projects/declared/new, "Create the project": no preview) through Flask's
          test client; the POST's wall time, its status, and the process's peak RSS (VmHWM, reset after the
          app and the admin were made, so it is the upload's own) and CPU time.
Each path must store every item (checked with a count afterwards). The machine's load average is recorded too:
on a shared VM the wall time follows it, the CPU time much less.

Usage: python bench/uploads.py [--items N] [--engine sqlite|postgresql|both] [--json PATH] [--keep]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):   # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import ROOT, Deadline, SetupError, run, venv_tool  # noqa: E402
from bench.database import base_env, fresh_database  # noqa: E402

DEFINITION = """name: Sentence sentiment
description: Is the sentence positive, negative or neutral?
show:
  - field: text
questions:
  - id: sentiment
    kind: choice
    prompt: What is the sentence's sentiment?
    options: [positive, negative, neutral]
"""
WORDS = ("the service was quick and friendly but food came cold again today not bad at all really good great "
         "slow").split()
LABELS = {"sqlite": "SQLite", "postgresql": "PostgreSQL"}


def make_items(path: Path, count: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as out:
        for n in range(1, count + 1):
            out.write(json.dumps({"id": f"s{n:07d}", "text": " ".join(rng.choice(WORDS) for _ in range(6))}) + "\n")


def timed(cmd: list[str], env: dict[str, str], log: Path) -> dict[str, Any]:
    """Run `cmd`; its wall time, peak RSS and CPU time (user + system) from wait4; SetupError when it fails."""
    started = time.perf_counter()
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SetupError(f"{' '.join(cmd)} failed:\n{log.read_text()[-3000:]}")
    return {"wall_s": round(wall, 2), "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
            "peak_mb": round(usage.ru_maxrss / 1024, 1), "output": log.read_text().strip().splitlines()[-1]}


def count_items(env: dict[str, str], slug: str) -> int:
    code = ("from annotator import create_app\nfrom annotator.core.extensions import db\n"
            "from sqlalchemy import text\napp = create_app()\nwith app.app_context():\n"
            "    print(db.session.scalar(text('SELECT count(*) FROM items JOIN projects ON projects.id = "
            f"items.project_id WHERE projects.slug = :s'), {{'s': '{slug}'}}))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    return int(done.stdout.strip().splitlines()[-1])


def run_engine(engine: str, args: argparse.Namespace, items: Path, definition: Path, tmp: Path,
               deadline: Deadline) -> dict[str, Any]:
    print(f"\n== {LABELS[engine]}: {args.items:,} items", flush=True)
    result: dict[str, Any] = {"engine": LABELS[engine], "load_before": os.getloadavg()[0]}
    with fresh_database(engine, tmp) as url:
        env = base_env(tmp, url)
        flask = venv_tool("flask") + ["--app", "annotator"]
        run(flask + ["db", "upgrade"], env, deadline, "flask db upgrade")
        cli = timed(flask + ["import", "custom", str(items), "--definition", str(definition), "--project", "cli"],
                    env, tmp / f"cli-{engine}.log")
        cli["stored"] = count_items(env, "cli")
        result["cli"] = cli
        print(f"    cli:  {cli['wall_s']:.1f} s wall, {cli['cpu_s']:.1f} s CPU, peak {cli['peak_mb']} MB, "
              f"{cli['stored']:,} stored ({cli['output']})", flush=True)
        form = timed([sys.executable, "-m", "bench.upload_form", "--items", str(items), "--definition",
                      str(definition), "--slug", "form"], env, tmp / f"form-{engine}.log")
        form.update(json.loads(form.pop("output")))
        form["stored"] = count_items(env, "form")
        result["form"] = form
        print(f"    form: {form['post_s']:.1f} s for the POST ({form['status']}), {form['cpu_s']:.1f} s CPU in all, "
              f"peak {form['upload_peak_mb']} MB above {form['rss_before_mb']} MB, {form['stored']:,} stored",
              flush=True)
    result["load_after"] = os.getloadavg()[0]
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--engine", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--timeout", type=float, default=3600)
    parser.add_argument("--keep", action="store_true", help="keep the temp folder (items, logs)")
    args = parser.parse_args(argv)
    deadline = Deadline(args.timeout)
    tmp = Path(tempfile.mkdtemp(prefix="bench-uploads-"))
    items, definition = tmp / "items.jsonl", tmp / "task.yaml"
    definition.write_text(DEFINITION, encoding="utf-8")
    make_items(items, args.items)
    print(f"{items.stat().st_size / 1e6:.1f} MB of items in {items}", flush=True)
    engines = ["sqlite", "postgresql"] if args.engine == "both" else [args.engine]
    results = []
    for engine in engines:
        engine_tmp = tmp / engine
        engine_tmp.mkdir()
        results.append(run_engine(engine, args, items, definition, engine_tmp, deadline))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout
    report = {"items": args.items, "file_mb": round(items.stat().st_size / 1e6, 1), "commit": commit.strip(),
              "cores": os.cpu_count(), "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
              "engines": results}
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    if not args.keep:
        subprocess.run(["rm", "-rf", str(tmp)], check=False)
    missing = [r["engine"] for r in results for path in ("cli", "form") if r[path]["stored"] != args.items]
    if missing:
        print(f"not every item stored: {missing}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())


