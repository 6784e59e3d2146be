#!/usr/bin/env python3
"""Admin pages of a big project while annotators submit (not a test): each page's latency with the figures
computed on every request and with them kept (annotator/figures/kept.py), interleaved, on both engines.

For each engine the script
  1. builds the project as bench/aggregate.py does (`flask import`, then `python -m bench.synthetic`): items
     copied until there are enough for --labels labels and --open-items more, then k votes on the first ones
     until the project holds --labels labels; the items left without votes are what the load answers (a
     campaign under way: they are pending, so not yet in gold);
  2. makes --annotators annotators with API tokens and an admin account (`python -m bench.pages_setup`);
  3. for each round, for each variant ("computed": KEPT_RESULTS_FROM_VOTES above the project's votes, so
     every page computes; "kept": the default), starts gunicorn, logs the admin in, opens each page until it
     answers 200 (the kept variant's first figures: the time is reported), then for --seconds runs the load
     (next + submit pairs, each annotator at most one pair per --pace seconds) while the admin requests each
     page in turn, as fast as they come, or one every --admin-pace seconds;
  4. prints per variant and page the median and p99 latency, how many answers said "being computed" (202)
     and how many showed figures with their age, and the load's submits/s and p99.

Exit status: 0 when it ran, 2 on a setup error or the global timeout.
"""
from __future__ import annotations

import argparse
import http.cookiejar
import json
import os
import re
import statistics
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.common import HOST, SLUG, Deadline, SetupError, Timeout, run, venv_tool  # noqa: E402
from bench.data import describe, import_args  # noqa: E402
from bench.database import base_env, fresh_database  # noqa: E402
from bench.load import data_spec  # noqa: E402
from bench.pages_setup import ADMIN, ADMIN_PASSWORD  # noqa: E402
from bench.report import source_line  # noqa: E402
from bench.runs import LABELS, temp_dir  # noqa: E402
from bench.server import Gunicorn  # noqa: E402

PAGES = {"project": "", "dashboard": "/dashboard", "items (lowest agreement)": "/items/",
         "items (a later page, file order)": "/items/?order=position&page=40", "annotators": "/annotators",
         "adjudication list": "/review/", "ranking": "/ranking"}
VARIANTS = {"computed": {"KEPT_RESULTS_FROM_VOTES": str(10 ** 12)}, "kept": {"KEPT_RESULTS_FROM_VOTES": "0"}}
ENGINES = {"sqlite": ["sqlite"], "postgresql": ["postgresql"], "both": ["sqlite", "postgresql"]}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", choices=list(ENGINES), default="both")
    parser.add_argument("--format", help="a registered file format (default: the KPA-2021 demo split); e.g. "
                                         "ruarg2022 for the adjudication list, kpa2021-check for the ranking")
    parser.add_argument("--data", type=Path, help="the file or folder --format reads")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="an import option, project field or task setting of --format (repeatable)")
    parser.add_argument("--labels", type=int, default=1_000_000, help="labels of the finished part of the campaign")
    parser.add_argument("--k", type=int, default=9)
    parser.add_argument("--crowd", type=int, default=50)
    parser.add_argument("--open-items", type=int, default=4000, help="items without votes, for the load")
    parser.add_argument("--annotators", type=int, default=20)
    parser.add_argument("--pace", type=float, default=0.15, help="seconds per next + submit pair per annotator")
    parser.add_argument("--client-procs", type=int, default=2)
    parser.add_argument("--workers", type=int, default=3, help="gunicorn workers")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=30, help="load and page requests per phase")
    parser.add_argument("--variant", action="append", choices=list(VARIANTS),
                        help="only this variant (repeatable; default both): a type whose pages take longer to compute "
                             "than gunicorn's timeout has no computed figures to compare")
    parser.add_argument("--admin-pace", type=float, default=0.0,
                        help="seconds from one page request's start to the next's (0: one after the other)")
    parser.add_argument("--rounds", type=int, default=2, help="of the variants, interleaved")
    parser.add_argument("--seed", type=int, default=2021)
    parser.add_argument("--timeout", type=float, default=3600)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args(argv)
    args.variant = args.variant or list(VARIANTS)
    try:
        args.spec = data_spec(args)
    except ValueError as error:
        parser.error(str(error))
    return args


class Admin:
    """An admin's browser: logged in through the form (its CSRF token), cookies kept."""

    def __init__(self, port: int) -> None:
        self.base = f"http://{HOST}:{port}"
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        page = self.get("/login")[1]
        token = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page)
        if token is None:
            raise SetupError("no CSRF token on the login page")
        body = urllib.parse.urlencode({"username": ADMIN, "password": ADMIN_PASSWORD,
                                       "csrf_token": token.group(1)}).encode()
        self.opener.open(self.base + "/login", data=body, timeout=60).read()

    def get(self, path: str) -> tuple[int, str]:
        try:
            with self.opener.open(self.base + path, timeout=120) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()


def build(engine: str, url: str, tmp: Path, args: argparse.Namespace, deadline: Deadline) -> tuple[dict, dict]:
    env = base_env(tmp, url)
    flask = venv_tool("flask") + ["--app", "annotator"]
    run(flask + ["db", "upgrade"], env, deadline, "flask db upgrade")
    run(flask + import_args(args.spec, args.spec.path, SLUG, args.k), env, deadline, "flask import")
    synthetic = [sys.executable, "-m", "bench.synthetic", "--project", SLUG]
    # The votes first (on the first items, copying more as needed, whatever a vote's labels are for the type),
    # then copies up to --open-items items without votes.
    built = json.loads(run(synthetic + ["--labels", str(args.labels), "--k", str(args.k), "--crowd", str(args.crowd),
                                        "--seed", str(args.seed)], env, deadline, "building the project")
                       .strip().splitlines()[-1])
    total = built["voted"] + args.open_items
    run(synthetic + ["--items", str(total)], env, deadline, "copying items")
    made = json.loads(run([sys.executable, "-m", "bench.pages_setup", "--annotators", str(args.annotators),
                           "--admin", "--project", SLUG], env, deadline, "accounts").strip().splitlines()[-1])
    built["open"] = made["items"] - built["voted"]
    print(f"    built: {built['labels']:,} labels, {built['voted']:,} items x {args.k} votes, "
          f"{built['open']:,} open items", flush=True)
    return env, {"built": built, "tokens": made["tokens"]}


def first_figures(admin: Admin, deadline: Deadline) -> dict[str, float]:
    """Each page until it shows figures (200): how long that took (the kept variant computes them first). A page
    the project's type does not have (404: e.g. no adjudication for KPA matching) is left out."""
    took = {}
    for name, path in PAGES.items():
        started = time.perf_counter()
        while (status := admin.get(f"/admin/projects/{SLUG}{path}")[0]) == 202:
            deadline.left("the first figures")
            time.sleep(0.5)
        if status == 404:
            continue
        if status != 200:
            raise SetupError(f"{name} answered {status}")
        took[name] = round(time.perf_counter() - started, 3)
    return took


def phase(engine: str, variant: str, env: dict[str, str], tokens: dict[str, str], tmp: Path,
          args: argparse.Namespace, deadline: Deadline) -> dict[str, Any]:
    from bench.clients import run_load

    server = Gunicorn("annotator:create_app()", {**env, **VARIANTS[variant]}, args, tmp / f"{variant}.log")
    try:
        server.wait_ready("/login", {}, deadline, args.workers)
        admin = Admin(server.port)
        first = first_figures(admin, deadline)
        stop, samples = threading.Event(), []  # (page, status, seconds, aged)

        def watch() -> None:
            while not stop.is_set():
                for name, path in [(n, p) for n, p in PAGES.items() if n in first]:
                    started = time.perf_counter()
                    status, body = admin.get(f"/admin/projects/{SLUG}{path}")
                    samples.append((name, status, time.perf_counter() - started, "Figures as of" in body))
                    stop.wait(max(0.0, args.admin_pace - (time.perf_counter() - started)))
                    if stop.is_set():
                        break
        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        try:
            records, _, _ = run_load([server.port], tokens, describe(args.spec, 0).task, args,
                                     Deadline(args.seconds + 20), [server.proc.pid])
        finally:
            stop.set()
            watcher.join(timeout=180)
    finally:
        server.stop()
    submits = [r for r in records if r.kind == "submit" and r.status == 201]
    span = (max(r.end for r in records) - min(r.start for r in records)) if records else 0.0
    pages = {}
    for name in first:
        shown = sorted(s for n, status, s, _ in samples if n == name and status == 200)
        pages[name] = {"n": len(shown), "median_ms": _ms(statistics.median(shown)) if shown else None,
                       "p99_ms": _ms(_p99(shown)) if shown else None,
                       "computing": sum(1 for n, status, _, _ in samples if n == name and status == 202),
                       "aged": sum(1 for n, status, _, aged in samples if n == name and status == 200 and aged),
                       "first_figures_s": first[name]}
    latencies = sorted(r.end - r.start for r in records if r.kind == "submit")
    return {"engine": LABELS[engine], "variant": variant, "pages": pages,
            "submits_per_s": round(len(submits) / span, 1) if span else 0.0,
            "submit_p99_ms": _ms(_p99(latencies)) if latencies else None}


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def _p99(values: list[float]) -> float:
    return values[min(len(values) - 1, int(0.99 * len(values)))]


def print_table(results: list[dict[str, Any]]) -> None:
    print(f"\n{'engine / variant / page':52s}{'n':>5s}{'median ms':>11s}{'p99 ms':>10s}{'202':>5s}{'aged':>6s}"
          f"{'first s':>9s}")
    for r in results:
        print(f"-- {r['engine']}, {r['variant']}: {r['submits_per_s']} submits/s, submit p99 {r['submit_p99_ms']} ms")
        for name, p in r["pages"].items():
            print(f"   {name:49s}{p['n']:5d}{_cell(p['median_ms']):>11s}{_cell(p['p99_ms']):>10s}"
                  f"{p['computing']:5d}{p['aged']:6d}{p['first_figures_s']:9.2f}")


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    deadline = Deadline(args.timeout)
    print(f"bench/pages.py: nproc {os.cpu_count()}; {args.labels:,} labels + {args.open_items:,} open items; "
          f"{args.annotators} annotators at one pair per {args.pace} s; {source_line()}; "
          f"load average {os.getloadavg()[0]:.2f}", flush=True)
    results: list[dict[str, Any]] = []
    status = 0
    try:
        for engine in ENGINES[args.engine]:
            print(f"\n== {LABELS[engine]}", flush=True)
            with temp_dir(f"bench-pages-{engine}-", args.keep) as tmp, fresh_database(engine, tmp) as url:
                env, made = build(engine, url, tmp, args, deadline)
                for n in range(args.rounds):
                    order = list(VARIANTS) if n % 2 == 0 else list(reversed(VARIANTS))
                    for variant in [v for v in order if v in args.variant]:
                        result = phase(engine, variant, env, made["tokens"], tmp, args, deadline)
                        result["round"] = n + 1
                        results.append(result)
                        print_table([result])
    except (SetupError, Timeout) as error:
        print(f"\nERROR: {error}", file=sys.stderr)
        status = 2
    if results:
        print_table(results)
    if args.json and results:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"date": time.strftime("%Y-%m-%d %H:%M:%S %z"), "source": source_line(),
                                         "args": {k: str(v) for k, v in vars(args).items()}, "runs": results},
                                        indent=2))
    return status


if __name__ == "__main__":
    sys.exit(main())
