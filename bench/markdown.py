"""The README's tables from load.py's JSON files: one markdown table per file, the same columns each time.

    .venv/bin/python -m bench.markdown bench/results/load-after-2026-11-23.json [more.json ...]
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

HEADER = ("| run | submits/s | ceiling submits/s (same run) | ratio | submit p50 / p99 ms | next p50 / p99 ms "
          "| worker RSS MB at start → after | CPU ms per pair: workers / our PG backends "
          "| other CPU s during the load (of capacity) | invariants |\n"
          "|---|---:|---:|---:|---|---|---|---|---|---|")


def _pair(latency: dict, name: str) -> str:
    figures = latency.get(name) or {}
    return f"{figures.get('p50', 0):.1f} / {figures.get('p99', 0):.1f}" if figures else "–"


def _rss(memory: dict) -> str:
    """Workers' RSS at start → after; with several servers ("at start, server 1", ...) separated by ';'."""
    def workers(phase: str) -> str:
        servers = [figures for name, figures in memory.items() if name.split(",")[0] == phase]
        return "; ".join(", ".join(f"{mb:.0f}" for mb in figures.get("workers_rss_mb", [])) for figures in servers)
    return f"{workers('at start')} → {workers('after the run')}"


def _row(run: dict) -> str:
    cpu, pairs = run.get("cpu_s") or {}, max(run.get("submits_201") or 0, 1)
    ratio = run.get("ratio_to_ceiling")
    ceiling = run.get("ceiling_submits_per_s")
    backends = f"{1000 * cpu.get('our_postgres_s', 0) / pairs:.2f}" if cpu.get("our_backends") else "–"
    passed = [check for check in run.get("invariants", []) if check[1]]  # [name, passed, detail]
    verdict = f"{'pass' if run.get('ok') else 'FAIL'} ({len(passed)} of {len(run.get('invariants', []))})"
    return (f"| {run['label']} | **{run['submits_per_s']:.1f}** | {f'{ceiling:.1f}' if ceiling else '–'} | "
            f"{f'**{ratio:.3f}**' if ratio else '–'} | {_pair(run['latency_ms'], 'submit')} | "
            f"{_pair(run['latency_ms'], 'next')} | {_rss(run.get('memory_mb') or {})} | "
            f"{1000 * cpu.get('server_s', 0) / pairs:.2f} / {backends} | "
            f"{cpu.get('other_s', 0):.1f} of {cpu.get('machine_capacity_s', 0):.0f} | {verdict} |")


def table(path: Path) -> str:
    data = json.loads(path.read_text())
    lines = [f"Run {data['date']}, {data['source']}; {data['machine']}; {data['data']} "
             f"(`{path.as_posix()}`).", "", HEADER]
    lines += [_row(run) for run in data["runs"]]
    return "\n".join(lines)


if __name__ == "__main__":
    print("\n\n".join(table(Path(p)) for p in sys.argv[1:]))
