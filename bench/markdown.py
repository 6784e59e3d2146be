"""Tables for the dated readings in bench/results/ and docs/performance.md from the benchmarks' JSON files: one
markdown table per file, the same columns each time.

Reads both load.py's files and aggregate.py's (told apart by their runs: an aggregation run has phases).

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


AGGREGATE_HEADER = ("| engine | read s (driver fetch) | gold s = read + gold | agreement s = read + agreement "
                    "| export s (in process) | `flask export` command s | peak MB (+ above start-up): read / gold / "
                    "agreement / export / command |\n|---|---:|---|---|---:|---:|---|")


def _seconds(phase: dict, step: str) -> str:
    """A phase's total with its two steps, e.g. '1.61 (1.44 + 0.17)'."""
    read, own = phase["seconds"]["read"], phase["seconds"][step]
    return f"{read + own:.2f} ({read:.2f} + {own:.2f})"


def _aggregate_row(run: dict) -> str:
    phases, command = run["phases"], run.get("export_command") or {}
    def peak(name: str) -> str:
        phase = phases.get(name)
        return f"{phase['peak_mb']:.0f} (+{phase['peak_mb'] - phase['rss_before_mb']:.0f})" if phase else "–"
    cells = [run["engine"]]
    labels = phases.get("labels")
    cells.append(f"{labels['seconds']['read']:.2f} ({labels['seconds']['driver fetch']:.2f})" if labels else "–")
    cells.append(_seconds(phases["gold"], "gold") if "gold" in phases else "–")
    cells.append(_seconds(phases["agreement"], "agreement") if "agreement" in phases else "–")
    cells.append(f"{phases['export']['seconds']['export']:.2f}" if "export" in phases else "–")
    cells.append(f"{command['wall_s']:.2f}" if command else "–")
    cells.append(" / ".join([peak(name) for name in ("labels", "gold", "agreement", "export")]
                            + [f"{command['peak_mb']:.0f}" if command else "–"]))
    return "| " + " | ".join(cells) + " |"


def _aggregate_table(path: Path, data: dict) -> str:
    built = data["runs"][0].get("built") or {}
    lines = [f"Run {data['date']}, {data['source']}; nproc {data.get('nproc')}, load average at the end "
             f"{', '.join(f'{x:.2f}' for x in data.get('load_average_at_end', []))}; {built.get('labels', 0):,} labels "
             f"({built.get('assignments', 0):,} votes on {built.get('voted', 0):,} items) "
             f"(`{path.as_posix()}`).", "", AGGREGATE_HEADER]
    return "\n".join(lines + [_aggregate_row(run) for run in data["runs"]])


def table(path: Path) -> str:
    data = json.loads(path.read_text())
    if data["runs"] and "phases" in data["runs"][0]:
        return _aggregate_table(path, data)
    lines = [f"Run {data['date']}, {data['source']}; {data['machine']}; {data['data']} "
             f"(`{path.as_posix()}`).", "", HEADER]
    lines += [_row(run) for run in data["runs"]]
    return "\n".join(lines)


if __name__ == "__main__":
    print("\n\n".join(table(Path(p)) for p in sys.argv[1:]))
