#!/usr/bin/env python3
"""Load benchmark of the JSON API (not a test): N annotators do next + submit until every item has k votes.

For each engine (SQLite file, PostgreSQL private schema) the script
  1. makes a fresh database and sets it up with the CLI, in the environment gunicorn gets too:
     `flask --app annotator db upgrade`, `flask --app annotator import FORMAT PATH --project bench --k K ...`,
     and the annotators ann1..annN with API tokens (one Python process: bench/provision.py);
  2. starts `gunicorn -w W "annotator:create_app()"` on a free 127.0.0.1 port;
  3. lets N concurrent annotators (threads spread over client processes, stdlib http.client) loop
     POST /api/v1/projects/bench/next + POST /api/v1/assignments/ID/submit until next answers 204,
     answering each HIT with its task type's `example_answer` (seeded);
  4. stops gunicorn, then checks the invariants (annotator/engine/invariants.py, in-process, with what the
     clients sent) and prints a table.

Before the engines it runs the same clients against bench/ceiling_app.py (an empty Flask app with the
same routes) for the same number of pairs: the upper bound of Flask + gunicorn + clients here, and
every engine run reports its submits/s as a share of it. `--engine ceiling` runs the ceiling alone.

The data is the KPA-2021 demo split by default; `--format NAME --data PATH [--option key=value ...]`
benches any registered format and so any task type.

Exit status: 0 when every invariant holds on every run, 1 when one fails, 2 on a setup error,
the global timeout or a crash. The modules are in bench/ (see bench/__init__.py).
"""
from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: import the bench package and the app from the repository root
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.common import Deadline, SetupError, Timeout  # noqa: E402
from bench.data import DEFAULT, Dataset, DataSpec, check_spec, describe, parse_option_args  # noqa: E402
from bench.figures import Figures  # noqa: E402
from bench.report import data_line, machine_line, print_figures, print_summary, source_line, write_json  # noqa: E402
from bench.runs import run_ceiling, run_engine  # noqa: E402

ENGINES = {"sqlite": ["sqlite"], "postgresql": ["postgresql"], "both": ["sqlite", "postgresql"],
           "all": ["sqlite", "postgresql"], "ceiling": []}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", choices=list(ENGINES), default="both",
                        help="both = sqlite then postgresql, all = the same (the ceiling runs first in every case); "
                             "ceiling = the empty Flask app alone")
    parser.add_argument("--annotators", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--threads", type=int, default=1, help="gunicorn threads per worker (>1: gthread)")
    parser.add_argument("--k", type=int, default=8)
    parser.add_argument("--items", type=int, default=0, help="only the first N items of the data")
    parser.add_argument("--format", help="a registered file format (default: the KPA-2021 demo split)")
    parser.add_argument("--data", type=Path, help="the file or folder --format reads")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="an import option, project field or task setting of --format (repeatable)")
    parser.add_argument("--servers", type=int, default=1,
                        help="gunicorn servers on one database, on ports of their own; the annotators are split "
                             "between them (by client process)")
    parser.add_argument("--pairs", type=int, default=0, metavar="N",
                        help="each annotator stops after N next+submit pairs (the campaign is then not complete; "
                             "the invariants are checked without 'every item has k votes')")
    parser.add_argument("--grow-items", type=int, default=0, metavar="N",
                        help="before the load, copy the imported items until the project holds N "
                             "(bench/synthetic.py; for the memory check: same --pairs, 1,000 vs 200,000 items)")
    parser.add_argument("--controls", type=int, default=0, metavar="N",
                        help="make the first N items that have a reference answer control items")
    parser.add_argument("--quality", action="append", default=[], metavar="KEY=VALUE",
                        help="repeatable: a quality-control setting of the project (e.g. control_rate=0.1)")
    parser.add_argument("--seed", type=int, default=2021)
    parser.add_argument("--client-procs", type=int, default=4,
                        help="client processes the annotator threads are spread over (not GIL-bound)")
    parser.add_argument("--timeout", type=float, default=600, help="global time budget in seconds")
    parser.add_argument("--wait-quiet", type=float, default=0, metavar="SECONDS",
                        help="before each load phase wait up to SECONDS for the machine to be idle (shared machines)")
    parser.add_argument("--ceiling-statements", type=int, default=0, metavar="N",
                        help="with --engine ceiling: every request also runs N trivial statements on PostgreSQL, "
                             "in a transaction (BEGIN ... COMMIT) unless --ceiling-autocommit (bench/ceiling_app.py)")
    parser.add_argument("--ceiling-autocommit", action="store_true",
                        help="with --ceiling-statements: each statement on its own, without BEGIN and COMMIT")
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directories (logs, SQLite file)")
    args = parser.parse_args(argv)
    if not 1 <= args.k <= args.annotators:
        parser.error("--k must be between 1 and --annotators (each item needs k distinct annotators)")
    if args.items < 0 or args.annotators < 1 or args.workers < 1 or args.client_procs < 1:
        parser.error("--items, --annotators, --workers and --client-procs must be positive")
    if any("=" not in setting for setting in args.quality):
        parser.error("--quality takes KEY=VALUE")
    if args.servers < 1 or args.pairs < 0 or args.grow_items < 0 or args.controls < 0:
        parser.error("--servers must be positive; --pairs, --grow-items and --controls not negative")
    if args.servers > min(args.client_procs, args.annotators):
        parser.error("--servers needs at least as many --client-procs and --annotators (each client process "
                     "talks to one server)")
    if args.ceiling_statements < 0:
        parser.error("--ceiling-statements must not be negative")
    if args.ceiling_statements and args.engine != "ceiling":
        parser.error("--ceiling-statements goes with --engine ceiling: the engines' share is of the empty app")
    if args.ceiling_autocommit and not args.ceiling_statements:
        parser.error("--ceiling-autocommit goes with --ceiling-statements")
    try:
        args.spec = data_spec(args)
    except ValueError as error:
        parser.error(str(error))
    return args


def data_spec(args: argparse.Namespace) -> DataSpec:
    """The data asked for on the command line (the default without --format), checked; ValueError if not."""
    if (args.format is None) != (args.data is None):
        raise ValueError("--format and --data go together")
    if args.format is None and args.option:
        raise ValueError("--option needs --format and --data")
    spec = DEFAULT if args.format is None else DataSpec(args.format, args.data, parse_option_args(args.option))
    check_spec(spec)
    if not spec.path.exists():
        raise ValueError(f"{spec.path} does not exist")
    return spec


def stop_now(signum: int, _frame: Any) -> None:
    # SIGTERM: unwind so that the `finally` blocks stop gunicorn and drop the schema.
    # SIGALRM: the hard backstop of the global timeout, for a wait that does not watch the deadline.
    raise Timeout("global timeout (hard stop)") if signum == signal.SIGALRM else SystemExit(128 + signum)


def run_all(data: Dataset, args: argparse.Namespace, deadline: Deadline, figs: list[Figures]) -> int:
    """The ceiling, then each engine; appends each run's figures as it ends. 0 when all hold, else 1."""
    ceiling = run_ceiling(data, args, deadline)
    print_figures(ceiling)
    figs.append(ceiling)
    for engine in ENGINES[args.engine]:
        fig = run_engine(engine, data, args, deadline, ceiling.submits_per_s)
        print_figures(fig)
        figs.append(fig)
    return 0 if all(f.ok for f in figs) else 1


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, stop_now)
    signal.signal(signal.SIGALRM, stop_now)
    signal.alarm(int(args.timeout) + 60)
    deadline = Deadline(args.timeout)
    figs: list[Figures] = []
    try:
        data = describe(args.spec, args.items)
        print(f"bench/load.py: {machine_line(args)}; {data_line(data, args)}; seed {args.seed}; "
              f"timeout {args.timeout:.0f} s; {source_line()}")
        status = run_all(data, args, deadline, figs)
    except (SetupError, Timeout) as error:
        print(f"\nERROR: {error}", file=sys.stderr)
        status = 2
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        status = 2
    except Exception:  # noqa: BLE001 - a bug in the benchmark itself: report it, clean up, exit 2
        import traceback
        traceback.print_exc()
        status = 2
    finally:
        signal.alarm(0)
    if figs:
        print_summary(figs, args)
        if args.json:
            write_json(args.json, figs, data, args)
    if status == 1:
        print("\nFAIL: an invariant does not hold (see above)", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
