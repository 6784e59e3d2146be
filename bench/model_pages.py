#!/usr/bin/env python3
"""The annotator model's pages on a big project (not a test): the kept figures' memory and the pages' time.

Issue 47 aims the Dawid-Skene page under 300 ms on the million-label KPA project with its figures kept, and the
kept-figures computation of a million-label project under 500 MB of memory. For one engine the script
  1. builds the project as bench/aggregate.py does (`flask import`, then `python -m bench.synthetic`: k votes per
     item from a crowd, items copied until the project holds --labels labels) and an admin account;
  2. keeps its figures with `flask refresh-figures --project agg --group G` for each group (votes, items, model),
     each in a process of its own, timed, with the process's peak RSS (wait4): what the server's own computation
     (a `flask refresh-figures` process too) takes;
  3. in a process of its own (`python -m bench.model_pages --pages`), logs the admin in and opens each page
     --rounds times, the pages interleaved: the project page (the baseline: it reads kept figures only), the
     Dawid-Skene page and two pages of items; prints each page's median and its ratio to the
     baseline's median of the same run (on a loaded machine the ratio, not the time, is what compares);
  4. with --computed, opens the Dawid-Skene page once more with the figures computed on the request (as every
     page was before the model was kept).

Exit status: 0 when it ran, 2 on a setup error or the global timeout.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.aggregate import timed_command  # noqa: E402
from bench.common import Deadline, SetupError, Timeout, run, venv_tool  # noqa: E402
from bench.data import DEFAULT, DataSpec, import_args, parse_option_args  # noqa: E402
from bench.database import base_env, fresh_database  # noqa: E402
from bench.pages_setup import ADMIN, ADMIN_PASSWORD  # noqa: E402
from bench.report import source_line  # noqa: E402
from bench.runs import temp_dir  # noqa: E402

SLUG = "agg"
GROUPS = ("votes", "items", "model")
PAGES = {"project (baseline)": "", "dawid-skene": "/dawid-skene", "items": "/items/",
         "items (a later page)": "/items/?order=position&page=40"}
CSRF = re.compile(r'name="csrf_token"[^>]*value="([^"]+)"')


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--labels", type=int, default=1_000_000, help="labels the project holds (at least)")
    parser.add_argument("--k", type=int, default=9, help="votes per item")
    parser.add_argument("--crowd", type=int, default=50, help="annotators the k votes of an item are drawn from")
    parser.add_argument("--format", help="a registered file format (default: the KPA-2021 demo split)")
    parser.add_argument("--data", type=Path, help="the file or folder --format reads")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--rounds", type=int, default=15, help="requests of each page")
    parser.add_argument("--computed", action="store_true", help="also one Dawid-Skene page computed on the request")
    parser.add_argument("--seed", type=int, default=2021)
    parser.add_argument("--timeout", type=float, default=3600, help="global time budget in seconds")
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (and SQLite file)")
    parser.add_argument("--pages", action="store_true", help=argparse.SUPPRESS)  # step 3, in the app's process
    args = parser.parse_args(argv)
    if (args.format is None) != (args.data is None):
        parser.error("--format and --data go together")
    args.spec = DEFAULT if args.format is None else DataSpec(args.format, args.data, parse_option_args(args.option))
    return args


def time_pages(rounds: int, computed: bool) -> dict[str, Any]:
    """Step 3 (and 4), run inside the app: each page's times in ms, interleaved."""
    from annotator import create_app
    app = create_app()
    client = app.test_client()
    page = client.get("/login").get_data(as_text=True)
    found = CSRF.search(page)
    if found is None:
        raise SetupError("no CSRF token on the login page")
    client.post("/login", data={"username": ADMIN, "password": ADMIN_PASSWORD, "csrf_token": found.group(1)})
    base = f"/admin/projects/{SLUG}"
    times: dict[str, list[float]] = {name: [] for name in PAGES}
    statuses: dict[str, set[int]] = {name: set() for name in PAGES}
    for _ in range(rounds + 1):   # the first round warms the process (imports, templates) and is left out
        for name, path in PAGES.items():
            started = time.perf_counter()
            response = client.get(base + path)
            response.get_data()
            times[name].append((time.perf_counter() - started) * 1000)
            statuses[name].add(response.status_code)
    result: dict[str, Any] = {"pages": {name: {"median_ms": round(statistics.median(ms[1:]), 1),
                                               "max_ms": round(max(ms[1:]), 1), "status": sorted(statuses[name])}
                                        for name, ms in times.items()}}
    baseline = result["pages"]["project (baseline)"]["median_ms"]
    for figures in result["pages"].values():
        figures["ratio_to_baseline"] = round(figures["median_ms"] / baseline, 2)
    if computed:
        app.config["KEPT_RESULTS_FROM_VOTES"] = 10 ** 12
        started = time.perf_counter()
        status = client.get(base + "/dawid-skene").status_code
        result["dawid_skene_computed_ms"] = round((time.perf_counter() - started) * 1000, 1)
        result["dawid_skene_computed_status"] = status
    return result


def run_engine(args: argparse.Namespace, deadline: Deadline) -> dict[str, Any]:
    result: dict[str, Any] = {"engine": args.engine, "groups": {}}
    with temp_dir(f"bench-model-{args.engine}-", args.keep) as tmp, fresh_database(args.engine, tmp) as url:
        env = base_env(tmp, url)
        flask = venv_tool("flask") + ["--app", "annotator"]
        run(flask + ["db", "upgrade"], env, deadline, "flask db upgrade")
        run(flask + import_args(args.spec, args.spec.path, SLUG, args.k), env, deadline, "flask import")
        build = [sys.executable, "-m", "bench.synthetic", "--project", SLUG, "--labels", str(args.labels),
                 "--k", str(args.k), "--crowd", str(args.crowd), "--seed", str(args.seed)]
        result["built"] = json.loads(run(build, env, deadline, "building the project").strip().splitlines()[-1])
        b = result["built"]
        print(f"    built in {b['seconds']:.1f} s: {b['voted']:,} items with {b['assignments']:,} votes, "
              f"{b['labels']:,} labels", flush=True)
        run([sys.executable, "-m", "bench.pages_setup", "--admin"], env, deadline, "the admin account")
        for group in GROUPS:
            cmd = flask + ["refresh-figures", "--project", SLUG, "--group", group]
            figures = timed_command(cmd, env, tmp / f"refresh-{group}.log")
            result["groups"][group] = figures
            print(f"    refresh-figures --group {group}: {figures['wall_s']:.1f} s, peak RSS {figures['peak_mb']} MB",
                  flush=True)
        cmd = [sys.executable, "-m", "bench.model_pages", "--pages", "--rounds", str(args.rounds)]
        out = run(cmd + (["--computed"] if args.computed else []), env, deadline, "timing the pages")
        result.update(json.loads(out.strip().splitlines()[-1]))
        for name, figures in result["pages"].items():
            print(f"    {name:20s} median {figures['median_ms']:8.1f} ms  max {figures['max_ms']:8.1f} ms  "
                  f"{figures['ratio_to_baseline']:.2f} x baseline  status {figures['status']}", flush=True)
        if args.computed:
            print(f"    dawid-skene computed on the request: {result['dawid_skene_computed_ms']:.0f} ms", flush=True)
    return result


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.pages:
        print(json.dumps(time_pages(args.rounds, args.computed)))
        return 0
    deadline = Deadline(args.timeout)
    print(f"bench/model_pages.py: nproc {os.cpu_count()}; {args.spec.format} {args.spec.path}; {args.labels:,} "
          f"labels; {source_line()}; "
          f"load average {os.getloadavg()[0]:.2f}", flush=True)
    try:
        result = run_engine(args, deadline)
    except (SetupError, Timeout) as error:
        print(f"\nERROR: {error}", file=sys.stderr)
        return 2
    result["load_average_at_end"] = os.getloadavg()
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"date": time.strftime("%Y-%m-%d %H:%M:%S %z"), "source": source_line(),
                                         "nproc": os.cpu_count(), "args": {k: str(v) for k, v in vars(args).items()},
                                         "run": result}, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
