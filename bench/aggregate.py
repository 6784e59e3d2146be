#!/usr/bin/env python3
"""Aggregation benchmark (not a test): gold, agreement and export of a project with a million labels.

For each engine (SQLite file, PostgreSQL private schema) the script
  1. makes a fresh database and imports the data with the CLI (`flask db upgrade`, `flask import
     FORMAT PATH --project agg --k K ...`; the KPA-2021 demo split by default, any format with
     --format/--data/--option as in bench/load.py);
  2. grows it with `python -m bench.synthetic`: k votes per item from a crowd of annotators, each the
     HIT type's `example_answer` stored as its `labels` give it, items copied as needed, until the
     project holds --labels labels (Core executemany on SQLite, COPY on PostgreSQL);
  3. runs each phase in a fresh process (`python -m bench.phases`): reading the label frame, gold,
     agreement (Fleiss and Krippendorff), the format's export; each timed, with its peak memory;
  4. runs the real `flask export FORMAT --project agg` and times it whole (start-up included);
  5. prints a table and, with --json, writes the figures.

Exit status: 0 when it ran, 2 on a setup error, the global timeout or a crash.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.common import ROOT, Deadline, SetupError, Timeout, run, venv_tool  # noqa: E402
from bench.data import DEFAULT, DataSpec, check_spec, import_args, parse_option_args  # noqa: E402
from bench.database import base_env, fresh_database  # noqa: E402
from bench.phases import PHASES  # noqa: E402
from bench.report import source_line  # noqa: E402
from bench.runs import LABELS, temp_dir  # noqa: E402

SLUG = "agg"
AIM_S = 3.0
ENGINES = {"sqlite": ["sqlite"], "postgresql": ["postgresql"], "both": ["sqlite", "postgresql"]}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", choices=list(ENGINES), default="both")
    parser.add_argument("--labels", type=int, default=1_000_000, help="labels the project holds (at least)")
    parser.add_argument("--k", type=int, default=9, help="votes per item")
    parser.add_argument("--crowd", type=int, default=50, help="annotators the k votes of an item are drawn from")
    parser.add_argument("--format", help="a registered file format (default: the KPA-2021 demo split)")
    parser.add_argument("--data", type=Path, help="the file or folder --format reads")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--phase", action="append", choices=PHASES, help="only these phases (repeatable)")
    parser.add_argument("--seed", type=int, default=2021)
    parser.add_argument("--timeout", type=float, default=1800, help="global time budget in seconds")
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    parser.add_argument("--keep", action="store_true", help="keep the SQLite temp dir")
    args = parser.parse_args(argv)
    if not 1 <= args.k <= args.crowd or args.labels < 1:
        parser.error("--labels must be positive and --k between 1 and --crowd")
    if (args.format is None) != (args.data is None) or (args.format is None and args.option):
        parser.error("--format and --data go together (and --option needs them)")
    args.spec = DEFAULT if args.format is None else DataSpec(args.format, args.data, parse_option_args(args.option))
    try:
        check_spec(args.spec)
    except ValueError as error:
        parser.error(str(error))
    return args


def timed_command(cmd: list[str], env: dict[str, str], log: Path) -> dict[str, Any]:
    """Run a command (output to `log`); its wall time and its own peak RSS (from wait4). SetupError if it fails."""
    started = time.perf_counter()
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SetupError(f"{' '.join(cmd)} failed:\n{log.read_text()}")
    return {"wall_s": round(wall, 3), "peak_mb": round(usage.ru_maxrss / 1024, 1)}


def run_engine(engine: str, args: argparse.Namespace, deadline: Deadline) -> dict[str, Any]:
    print(f"\n== {LABELS[engine]}: {args.labels:,} labels, k={args.k}, crowd {args.crowd}", flush=True)
    result: dict[str, Any] = {"engine": LABELS[engine], "phases": {}}
    with temp_dir(f"bench-agg-{engine}-", args.keep) as tmp, fresh_database(engine, tmp) as url:
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
        for phase in args.phase or PHASES:
            cmd = [sys.executable, "-m", "bench.phases", "--project", SLUG, "--phase", phase]
            out = run(cmd, env, deadline, f"phase {phase}")
            figures = json.loads(out.strip().splitlines()[-1])
            result["phases"][phase] = figures
            print(f"    {phase:10s} {json.dumps(figures['seconds'])}  peak {figures['peak_mb']} MB "
                  f"(from {figures['rss_before_mb']} MB)", flush=True)
        if not args.phase or "export" in args.phase:
            fmt = result["phases"].get("export", {}).get("format") or args.spec.format
            cmd = flask + ["export", fmt, "--project", SLUG, "--out", str(tmp / "export")]
            command = timed_command(cmd, env, tmp / "export.log")
            result["export_command"] = {"command": f"flask --app annotator export {fmt} --project {SLUG}", **command}
            print(f"    flask export: {command['wall_s']:.2f} s wall", flush=True)
    return result


def _row(name: str, seconds: float | None, peak: float | None, before: float | None, note: str = "") -> str:
    secs = f"{seconds:8.2f}" if seconds is not None else f"{'-':>8s}"
    mem = f"{peak:9.0f}{peak - before:+9.0f}" if peak is not None and before is not None else f"{'-':>9s}{'-':>9s}"
    aim = "" if seconds is None else ("  ok" if seconds <= AIM_S else "  > 3 s")
    return f"{name:34s}{secs}{mem}{aim}  {note}"


def print_table(results: list[dict[str, Any]]) -> None:
    print(f"\n{'phase':34s}{'seconds':>8s}{'peak MB':>9s}{'+MB':>9s}")
    for r in results:
        b = r["built"]
        print(f"-- {r['engine']}: {b['labels']:,} labels, {b['voted']:,} items x k, {b['assignments']:,} votes")
        for phase, f in r["phases"].items():
            s = f["seconds"]
            if phase == "export":
                print(_row("export (in process, reads itself)", s["export"], f["peak_mb"], f["rss_before_mb"],
                           f["format"]))
                continue
            total = s["read"] + s.get(phase, 0.0)
            if phase == "labels":
                print(_row("read the label frame", s["read"], f["peak_mb"], f["rss_before_mb"], f"{f['rows']:,} rows"))
                if "driver fetch" in s:
                    print(_row("    floor: the SELECT by the driver", s["driver fetch"], None, None,
                               "fetchall, no frame"))
                continue
            print(_row(f"{phase} (read + compute)", total, f["peak_mb"], f["rss_before_mb"],
                       f"read {s['read']:.2f} + {phase} {s[phase]:.2f}"))
            for step, secs in s.items():
                if step not in ("read", phase):
                    print(_row(f"    {step}", secs, None, None))
        if "export_command" in r:
            c = r["export_command"]
            print(_row("flask export (whole command)", c["wall_s"], c["peak_mb"], 0.0, "start-up included"))
    print(f"(aim: {AIM_S:.0f} s per phase; peak MB = the phase process's VmHWM, +MB = above its RSS after start-up)")


def _terminate(signum: int, _frame: Any) -> None:
    raise SystemExit(128 + signum)  # unwind, so that the `finally` blocks drop the schema


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, _terminate)
    deadline = Deadline(args.timeout)
    print(f"bench/aggregate.py: nproc {os.cpu_count()}; {args.spec.format} {args.spec.path}; "
          f"{args.labels:,} labels; {source_line()}; load average {os.getloadavg()[0]:.2f}")
    results: list[dict[str, Any]] = []
    status = 0
    try:
        for engine in ENGINES[args.engine]:
            results.append(run_engine(engine, args, deadline))
    except (SetupError, Timeout) as error:
        print(f"\nERROR: {error}", file=sys.stderr)
        status = 2
    if results:
        print_table(results)
    if args.json and results:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({
            "date": time.strftime("%Y-%m-%d %H:%M:%S %z"), "source": source_line(), "nproc": os.cpu_count(),
            "load_average_at_end": os.getloadavg(), "args": {k: str(v) for k, v in vars(args).items()},
            "runs": results}, indent=2, default=str))
    return status


if __name__ == "__main__":
    sys.exit(main())
