"""Printing a run's figures, the summary of an invocation, and its JSON record."""
from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import time
from collections import Counter
from pathlib import Path

from .common import AIM_P99_MS, AIM_SUBMITS_PER_S, ROOT
from .data import Dataset
from .figures import Figures


def fmt_ms(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:.1f}"


def fmt_ratio(fig: Figures) -> str:
    return "-" if math.isnan(fig.ceiling_ratio) else f"{100 * fig.ceiling_ratio:.1f} %"


def _print_rates(fig: Figures) -> None:
    print(f"wall time of the load phase   {fig.wall:8.2f} s   ({fig.requests} requests)")
    print(f"submits answered 201          {fig.submits_201:8d}")
    print(f"submits/s (201, whole run)    {fig.submits_per_s:8.1f}   (10th-90th pct of completions: "
          f"{fig.steady_per_s:.1f}/s)")
    if fig.ceiling_per_s:
        print(f"share of the ceiling          {fmt_ratio(fig):>10s} (of {fig.ceiling_per_s:.1f} submits/s of the "
              "empty Flask app in this invocation)")
    if fig.slices:
        print(f"submits/s per tenth of the run  {' '.join(f'{v:.0f}' for v in fig.slices)}")


def _print_cpu(fig: Figures) -> None:
    c = fig.cpu
    print(f"CPU s during the load (machine {c['machine_capacity_s']:.0f} s of capacity, "
          f"{100 * c['machine_busy_s'] / max(c['machine_capacity_s'], 1e-9):.0f}% busy): "
          f"gunicorn {c['server_s']:.1f}, clients {c['clients_s']:.1f}, postgres {c['postgres_s']:.1f} "
          f"(of which our {c['our_backends']:.0f} backends {c['our_postgres_s']:.1f}), other {c['other_s']:.1f}")
    pairs = fig.statuses.get("submit", Counter()).total()
    if pairs:
        print(f"CPU ms per next+submit pair     gunicorn workers {1000 * c['server_s'] / pairs:.2f}, "
              f"our postgres backends {1000 * c['our_postgres_s'] / pairs:.2f}, "
              f"clients {1000 * c['clients_s'] / pairs:.2f}")


def _print_memory(fig: Figures) -> None:
    for when, m in fig.memory.items():
        workers = ", ".join(f"{rss:.0f}" for rss in m["workers_rss_mb"])  # type: ignore[union-attr]
        peaks = ", ".join(f"{p:.0f}" for p in m["workers_peak_mb"])  # type: ignore[union-attr]
        print(f"RSS MB {when:24s}  workers {workers} (peak {peaks}), master {m['master_rss_mb']:.0f}")


def worker_rss(fig: Figures) -> str:
    """The largest worker RSS (MB) after the run, over every server; '-' when not measured."""
    sizes = [rss for when, m in fig.memory.items() if when.startswith("after")
             for rss in m["workers_rss_mb"] if not math.isnan(rss)]  # type: ignore[attr-defined]
    return f"{max(sizes):.0f}" if sizes else "-"


def _print_latency(fig: Figures) -> None:
    for kind, counter in sorted(fig.statuses.items()):
        print(f"{kind + ' statuses':30s}{'  '.join(f'{s}: {n}' for s, n in sorted(counter.items()))}")
    print(f"\n{'latency ms':14s}{'n':>7s}{'mean':>8s}{'p50':>8s}{'p95':>8s}{'p99':>8s}{'max':>9s}")
    for kind in ("submit", "next", "next 200", "next other"):
        if kind in fig.latency_ms:
            m = fig.latency_ms[kind]
            print(f"{kind:14s}{m['n']:7d}{m['mean']:8.1f}{fmt_ms(m['p50']):>8s}{fmt_ms(m['p95']):>8s}"
                  f"{fmt_ms(m['p99']):>8s}{fmt_ms(m['max']):>9s}")


def print_figures(fig: Figures) -> None:
    print(f"\n-- {fig.label} " + "-" * max(0, 70 - len(fig.label)))
    _print_rates(fig)
    if fig.cpu:
        _print_cpu(fig)
    _print_memory(fig)
    _print_latency(fig)
    print("\ninvariants")
    for check in fig.invariants:
        print(f"  [{'PASS' if check.passed else 'FAIL'}] {check.name}: {check.detail}")
    if fig.note:
        print(fig.note)


def print_summary(figs: list[Figures], args: argparse.Namespace) -> None:
    print("\n== summary: " + machine_line(args))
    width = max([22, *(len(f.label) + 2 for f in figs)])
    head = (f"{'run':{width}s}{'submits/s':>10s}{'steady/s':>9s}{'% ceil':>9s}{'sub p50':>9s}{'sub p95':>9s}"
            f"{'sub p99':>9s}{'next p50':>9s}{'next p95':>9s}{'next p99':>9s}{'RSS MB':>8s}  invariants")
    print(head)
    print("-" * len(head))
    for f in figs:
        s, n = f.latency_ms.get("submit", {}), f.latency_ms.get("next", {})
        cells = [fmt_ms(s.get(p, math.nan)) for p in ("p50", "p95", "p99")] + \
                [fmt_ms(n.get(p, math.nan)) for p in ("p50", "p95", "p99")]
        passed = sum(c.passed for c in f.invariants)
        print(f"{f.label:{width}s}{f.submits_per_s:10.1f}{f.steady_per_s:9.1f}{fmt_ratio(f).rstrip(' %'):>9s}"
              + "".join(f"{c:>9s}" for c in cells) + f"{worker_rss(f):>8s}"
              + f"  {'PASS' if f.ok else 'FAIL'} ({passed} of {len(f.invariants)})")
    print("(% ceil = submits/s as a percentage of the empty Flask app's in this invocation; "
          "RSS MB = the largest gunicorn worker's VmRSS after the run)")
    for f in figs:
        if f.label.startswith("PostgreSQL"):
            p99 = f.latency_ms.get("submit", {}).get("p99", math.nan)
            met = f.submits_per_s >= AIM_SUBMITS_PER_S and p99 < AIM_P99_MS
            print(f"aim on PostgreSQL (>= {AIM_SUBMITS_PER_S:.0f} submits/s, submit p99 < {AIM_P99_MS:.0f} ms): "
                  f"{'met' if met else 'NOT met'} ({f.submits_per_s:.1f}/s, p99 {fmt_ms(p99)} ms)")


def source_line() -> str:
    """The commit the server code comes from, and whether its files differ from it."""
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, check=False,
                             text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "annotator", "migrations", "config.py"],
                               cwd=ROOT, capture_output=True, text=True, check=False, timeout=10).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return f"code at {ROOT} (no git)"
    if not rev:
        return f"code at {ROOT} (not a git checkout)"
    return f"code at commit {rev}" + (" with uncommitted changes to the server code" if dirty else "")


def machine_line(args: argparse.Namespace) -> str:
    return (f"nproc {os.cpu_count()}, Python {platform.python_version()}, gunicorn -w {args.workers}"
            + (f" --threads {args.threads}" if args.threads > 1 else " (sync)")
            + f", {args.annotators} annotators in {min(args.client_procs, args.annotators)} client processes "
            f"on the same machine")


def data_line(data: Dataset, args: argparse.Namespace) -> str:
    options = ", ".join(f"{k}={v}" for k, texts in data.spec.options.items() for v in texts)
    return (f"{data.spec.format} {data.spec.path}" + (f" ({options})" if options else "")
            + f", {data.task.name} HITs: items {data.items} x k {args.k}"
            + (f", copied to {args.grow_items} items" if getattr(args, "grow_items", 0) else "")
            + (f", {args.pairs} pairs per annotator" if getattr(args, "pairs", 0) else "")
            + (f", {args.servers} servers" if getattr(args, "servers", 1) > 1 else ""))


def _run_json(f: Figures) -> dict:
    return {"label": f.label, "wall_s": f.wall, "submits_201": f.submits_201, "submits_per_s": f.submits_per_s,
            "steady_submits_per_s": f.steady_per_s, "ceiling_submits_per_s": f.ceiling_per_s,
            "ratio_to_ceiling": None if math.isnan(f.ceiling_ratio) else f.ceiling_ratio,
            "submits_per_s_by_tenth": f.slices, "cpu_s": f.cpu, "memory_mb": f.memory, "latency_ms": f.latency_ms,
            "statuses": {k: dict(v) for k, v in f.statuses.items()},
            "invariants": [[c.name, c.passed, c.detail] for c in f.invariants], "ok": f.ok}


def write_json(path: Path, figs: list[Figures], data: Dataset, args: argparse.Namespace) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({
        "date": time.strftime("%Y-%m-%d %H:%M:%S %z"), "source": source_line(), "machine": machine_line(args),
        "data": data_line(data, args), "args": {k: str(v) for k, v in vars(args).items()},
        "runs": [_run_json(f) for f in figs]}, indent=2, default=str))
