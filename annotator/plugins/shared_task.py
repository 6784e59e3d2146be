"""What a shared task declares: the one object its folder registers, `SHARED_TASK = SharedTask(...)`.

Why one object: a shared task used to be found by three mechanisms (module constants `FORMAT` / `SCORER` /
`STATS`, hooks on the format for its commands and pages, and the hand-kept lists of the web and command-line
set-up), so a reader had to know all three to see what a task adds. Now `annotator/shared_tasks/<task>/__init__.py`
says all of it in one place, and the registry (registry.py) finds it by looking; nothing outside the folder
names the task.

Every part (formats, scorer, dataset table, named rules, commands, blueprints, bridges) is named, not imported: each
is a reference "module:attribute", the module relative to the task's own package (`"exchange:FORMAT"`) or absolute
(`"annotator.web.some_page:bp"`). Their modules import the analysis, web and command-line code, which import
the registries; naming them keeps the declaration (and so the registry) free of every import cycle, whatever
module is imported first, and each registry loads only what it lists (the scorers' registry loads no format).
Why this module imports none of the kinds it loads: it sits below the declared engine, which reads the registry
(named rules, bridges), so it cannot import the formats' or scorers' interfaces above it; each kind's own
registry loads its references with its class (`SharedTask.load`: formats.py, scorers.py, dataset_stats.py, the web
and command-line set-up, declared/named_rules.py and bridge_base.py).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class SharedTask:
    """One shared task: its files' formats, its official scorer, its dataset table, its named rules, and the
    commands, admin pages and definitions it adds.

    `package` is the folder's package (`annotator.shared_tasks.<task>`): the registry fills it in when it finds
    the declaration, and relative references are read from it. `definitions` are the definition files (YAML) of
    the task's campaigns for the declared engine, named relative to the folder, which holds them; the tests read
    each of them.
    `bridges` name the `Bridge` of each built-in HIT type the task's definitions are to replace
    (declared/bridge_base.py): how today's answers and stored label rows become the definition's.
    """

    name: str
    title: str
    formats: tuple[str, ...] = ()
    scorer: str | None = None
    dataset_stats: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()
    blueprints: tuple[str, ...] = ()
    definitions: tuple[str, ...] = ()
    bridges: tuple[str, ...] = ()
    package: str = ""

    def load(self, references: tuple[str, ...], kind: type[T], what: str) -> list[T]:
        """The objects the references name, each checked to be a `kind` (the class the caller's registry reads);
        a RuntimeError naming the task otherwise. E.g. `task.load(task.formats, FileFormat, "format")`."""
        return [self._resolve(ref, kind, what) for ref in references]

    def definition_paths(self) -> list[Path]:
        folder = Path(importlib.import_module(self.package).__path__[0])
        return [folder / name for name in self.definitions]

    def _resolve(self, reference: str, kind: type[T], what: str) -> T:
        """The object a reference names, checked to be a `kind`; a RuntimeError naming the task otherwise."""
        module_name, _, attribute = reference.partition(":")
        if not module_name or not attribute:
            raise RuntimeError(f"shared task {self.name!r}: the {what} reference {reference!r} is not "
                               "'module:attribute'")
        absolute = module_name if module_name.startswith("annotator.") else f"{self.package}.{module_name}"
        found: Any = getattr(importlib.import_module(absolute), attribute, None)
        if not isinstance(found, kind):
            raise RuntimeError(f"shared task {self.name!r}: {absolute}:{attribute} is not a {what} "
                               f"({type(found).__name__})")
        return found
