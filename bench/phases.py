"""One aggregation phase in a process of its own, timed, with its peak memory: `python -m bench.phases`.

Why a process per phase: the peak resident memory of a phase is then its own (the kernel's VmHWM,
reset after the app and the libraries are loaded), not what an earlier phase left behind.

Phases (each first reads the label frame, timed apart as "read"):
  labels     `results.labels_frame`: the one SELECT and the frame built from it; then, as the floor
             of reading, the same rows through the bare driver cursor (fetchall, no frame, no order);
  gold       `results.gold_frame(project, labels)`: the task's gold rule (and adjudications);
  agreement  `results.project_agreement(project, labels)`: the task's agreement units, then Fleiss'
             kappa and Krippendorff's alpha per field; a second, separately timed pass splits it into
             units / count table / Fleiss / Krippendorff;
  export     the project's format's `export` into a temp folder, as `flask export FORMAT` calls it
             (it reads the labels itself, so its "read" is not subtracted).

Prints one JSON line: {"phase", "seconds": {step: s}, "rss_before_mb", "peak_mb", "rows", ...}.
"""
from __future__ import annotations

import argparse
import json
import re
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

PHASES = ("labels", "gold", "agreement", "export")


def _status_kb(key: str) -> int:
    match = re.search(rf"^{key}:\s+(\d+) kB", Path("/proc/self/status").read_text(), re.M)
    return int(match.group(1)) if match else 0


def reset_peak() -> None:
    """Reset VmHWM (Linux >= 4.0) so that it is the peak from now on."""
    Path("/proc/self/clear_refs").write_text("5")


class Timer:
    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def __call__(self, step: str) -> Iterator[None]:
        started = time.perf_counter()
        yield
        self.seconds[step] = round(time.perf_counter() - started, 4)


def _agreement_steps(task: Any, labels: Any, timer: Timer) -> dict[str, Any]:
    """The agreement again, step by step (the shared code's own functions), for where the time goes."""
    from annotator.analysis import agreement as ag
    with timer("units"):
        fields = task.agreement_units(labels)
    detail = {}
    for name, units in fields.items():
        with timer(f"{name}: count table"):
            table = ag.count_table(units)
        paired = table[table.sum(axis=1) >= 2]
        with timer(f"{name}: fleiss"):
            ag._fleiss(paired, [])
        with timer(f"{name}: krippendorff"):
            ag._alpha(paired, units.attrs.get("level", "nominal"))
        detail[name] = {"ratings": len(units), "units": len(table), "categories": len(table.columns)}
    return detail


def _driver_fetch(project: Any) -> list[tuple[Any, ...]]:
    """The rows labels_frame reads, by the driver alone (annotator/analysis/label_reader.py's fetch: plain tuples, no
    columns, no frame, no order): the floor of the "read" step."""
    from sqlalchemy import select

    from annotator.analysis.label_reader import _fetch_chunks
    from annotator.analysis.results import counted_items
    from annotator.core.extensions import db
    from annotator.core.models import Item, Label
    query = (select(Label.item_id, Label.unit, Label.field, Label.value, Label.user_id, Label.assignment_id, Label.id)
             .join(Item, Item.id == Label.item_id)
             .where(Label.project_id == project.id, counted_items(project)))
    return [row for rows in _fetch_chunks(db.session.connection(), query) for row in rows]


def run_phase(phase: str, slug: str) -> dict[str, Any]:
    from sqlalchemy import select

    from annotator import create_app
    from annotator.analysis.results import labels_frame, project_agreement
    from annotator.core.extensions import db
    from annotator.core.models import Project
    from annotator.figures.kept_gold import gold_frame
    from annotator.lookups.formats import project_format
    from annotator.tasks import task_type

    timer = Timer()
    result: dict[str, Any] = {"phase": phase}
    with create_app().app_context():
        project = db.session.scalar(select(Project).where(Project.slug == slug))
        task = task_type(project.task_type)
        result["rss_before_mb"] = round(_status_kb("VmRSS") / 1024, 1)
        reset_peak()
        if phase == "export":
            fmt = project_format(project)
            with tempfile.TemporaryDirectory(prefix="bench-export-") as out, timer("export"):
                exported = fmt.export(project, Path(out))
                result["files"] = {p.name: p.stat().st_size for p in exported.paths}
            result["format"] = fmt.name
        else:
            with timer("read"):
                labels = labels_frame(project)
            result["rows"] = len(labels)
            if phase == "labels":
                result["peak_mb"] = round(_status_kb("VmHWM") / 1024, 1)
                del labels
                with timer("driver fetch"):
                    result["driver_rows"] = len(_driver_fetch(project))
                labels = None
            if phase == "gold":
                with timer("gold"):
                    gold = gold_frame(project, labels)
                result["gold_rows"] = len(gold)
            elif phase == "agreement":
                with timer("agreement"):
                    fields = project_agreement(project, labels)
                result["coefficients"] = {f.field: {"fleiss_kappa": f.fleiss_kappa.value,
                                                    "krippendorff_alpha": f.krippendorff_alpha.value,
                                                    "units": f.units} for f in fields}
        result.setdefault("peak_mb", round(_status_kb("VmHWM") / 1024, 1))
        if phase == "agreement":  # after the peak is read: the split pass holds a second copy
            result["detail"] = _agreement_steps(task, labels, timer)
    result["seconds"] = timer.seconds
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", required=True)
    parser.add_argument("--phase", choices=PHASES, required=True)
    args = parser.parse_args()
    print(json.dumps(run_phase(args.phase, args.project)))


if __name__ == "__main__":
    main()
