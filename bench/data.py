"""What is benched: a file format, its input, and the options of its import.

Why generic: any registered format (and with it its task type) can be benched with
`--format NAME --data PATH [--option key=value ...]`; the clients answer with the type's own
`example_answer`, and the invariants are the shared ones, so nothing else here knows a type.
The default stays the KPA-2021 demo split, which the recorded figures (docs/performance.md, bench/results/) are of.

`--items N` benches the first N items. For a format listed in SMALLER_COPIES the script writes a
smaller copy of its input (what it always did for the default); any other format is imported
whole and trimmed to its first N items before the load (bench/provision.py).
"""
from __future__ import annotations

import csv
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from annotator.core.errors import FormatError
from annotator.core.models import Item
from annotator.core.options import Option, OptionError, parse_options
from annotator.lookups.formats import FileFormat, file_format
from annotator.tasks import TaskType, checked_settings, task_type

from .common import ROOT, SetupError

Options = dict[str, tuple[str, ...]]  # as given on the command line: name -> the texts given for it

# `flask import` takes these besides the format's options and the task type's settings.
PROJECT_FIELDS = (Option("name", str), Option("lease_minutes", int, minimum=1))


@dataclass(frozen=True)
class DataSpec:
    """A format, the file or folder it reads, and the options of its import (import options, the
    project's name and lease time, the task type's settings; k is `--k`)."""

    format: str
    path: Path
    options: Options


DEFAULT = DataSpec("kpa2021", ROOT / "annotator" / "campaigns" / "demo" / "kpa2021", {"split": ("dev",)})


@dataclass(frozen=True)
class Dataset:
    """What a run needs to know of its data before the load starts."""

    spec: DataSpec
    task: TaskType
    items: int                  # items the benched project holds
    sample_item: dict[str, Any]  # its first item as the API shows it: what the ceiling app serves


def parse_option_args(pairs: list[str]) -> Options:
    """`key=value` texts (repeatable) into options; dashes in keys count as underscores."""
    options: dict[str, list[str]] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--option {pair!r} is not key=value")
        options.setdefault(key.strip().replace("-", "_"), []).append(value)
    return {k: tuple(v) for k, v in options.items()}


def _declared(fmt: FileFormat) -> tuple[dict[str, Option], dict[str, Option]]:
    """(the format's import options with the project fields, the task type's settings), by name."""
    own = {o.name: o for o in (*fmt.import_options, *PROJECT_FIELDS)}
    settings = {s.name: s for s in task_type(fmt.task).settings if s.name not in own}
    return own, settings


def _values(options: Options, declared: dict[str, Option]) -> dict[str, Any]:
    """Text values of the declared options given, a tuple for a repeatable option."""
    chosen = {}
    for name, texts in options.items():
        if name in declared:
            if not declared[name].multiple and len(texts) > 1:
                raise OptionError(f"option {name} is given {len(texts)} times")
            chosen[name] = texts if declared[name].multiple else texts[0]
    return chosen


def check_spec(spec: DataSpec) -> None:
    """Refuse an unknown format, unknown options or bad values before anything starts (ValueError)."""
    try:
        fmt = file_format(spec.format)
    except KeyError as error:
        raise ValueError(error.args[0]) from None
    own, settings = _declared(fmt)
    unknown = sorted(set(spec.options) - set(own) - set(settings))
    if "k" in unknown:
        raise ValueError("give k with --k, not --option")
    if unknown:
        raise ValueError(f"{fmt.name}: unknown option(s) {', '.join(unknown)}; accepted: "
                         f"{', '.join([*own, *settings])}")
    parse_options(own.values(), _values(spec.options, own), fmt.name)
    checked_settings(task_type(fmt.task), None, _values(spec.options, settings))


def import_args(spec: DataSpec, path: Path, slug: str, k: int) -> list[str]:
    """The arguments of `flask import` for this data: `import FORMAT PATH --project SLUG --k K ...`."""
    fmt = file_format(spec.format)
    own, settings = _declared(fmt)
    args = ["import", fmt.name, str(path), "--project", slug, "--k", str(k)]
    for name, texts in spec.options.items():
        option = {**own, **settings}[name]
        if option.type is bool:
            args += [option.flag] if option.parse(texts[-1]) else []
        else:
            args += [part for text in texts for part in (option.flag, text)]
    return args


def describe(spec: DataSpec, items: int) -> Dataset:
    """Read the data in-process: how many items the run will have, and the first as the API shows it.

    SetupError when the format refuses the data (the import would refuse it too, later)."""
    fmt = file_format(spec.format)
    _, settings = _declared(fmt)
    values = parse_options(fmt.import_options, _values(spec.options, {o.name: o for o in fmt.import_options}),
                           fmt.name)
    try:
        loaded = fmt.load(spec.path, **values)
        read = list(loaded.items)   # a declared campaign's items come as a stream, read (and refused) here
    except FormatError as error:
        raise SetupError(f"{fmt.name} refuses {spec.path}: {error}") from None
    if not read:
        raise SetupError(f"{spec.path} holds no items")
    task = task_type(fmt.task)
    if loaded.definition is not None:
        # A declared campaign's type reads its questions from the definition the load made: bound to it here as a
        # project made by the import would bind it (tasks.project_task), so the sample is what the API shows.
        task = task.for_project(SimpleNamespace(definition=loaded.definition))
    first = read[0]
    sample = task.public_item(Item(external_id=first.external_id, payload=first.payload),
                              checked_settings(task, None, _values(spec.options, settings)))
    return Dataset(spec, task, min(items, len(read)) if items else len(read), sample)


# --------------------------------------------------------------------------------------- smaller copies

def _read_csv(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        return list(reader.fieldnames or []), list(reader)


def _write_csv(path: Path, header: list[str], rows: list[dict[str, str]]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=header, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def first_arguments(src: Path, dst: Path, items: int, options: Options) -> None:
    """The first `items` arguments of a KPA-2021 split, with their key points and labels only."""
    split = options.get("split", ("dev",))[-1]
    header, arguments = _read_csv(src / f"arguments_{split}.csv")
    arguments = arguments[:items]
    _write_csv(dst / f"arguments_{split}.csv", header, arguments)
    groups = {(a["topic"], a["stance"]) for a in arguments}
    header, key_points = _read_csv(src / f"key_points_{split}.csv")
    key_points = [kp for kp in key_points if (kp["topic"], kp["stance"]) in groups]
    _write_csv(dst / f"key_points_{split}.csv", header, key_points)
    if (src / f"labels_{split}.csv").exists():
        ids, kps = {a["arg_id"] for a in arguments}, {kp["key_point_id"] for kp in key_points}
        header, labels = _read_csv(src / f"labels_{split}.csv")
        _write_csv(dst / f"labels_{split}.csv", header,
                   [r for r in labels if r["arg_id"] in ids and r["key_point_id"] in kps])


# Per format: write the first N items of SRC as DST (a folder for a folder format, a file otherwise).
SMALLER_COPIES: dict[str, Callable[[Path, Path, int, Options], None]] = {"kpa2021": first_arguments}


def import_source(spec: DataSpec, items: int, tmp: Path) -> tuple[Path, int]:
    """(the path to import, the number of items to trim the import to afterwards; 0 = keep all)."""
    write = SMALLER_COPIES.get(spec.format)
    if not items or write is None:
        return spec.path, items
    dst = tmp / "data"
    if file_format(spec.format).reads == "folder":
        dst.mkdir(parents=True, exist_ok=True)
    else:
        dst = dst.with_suffix(spec.path.suffix)
    write(spec.path, dst, items, spec.options)
    return dst, 0
