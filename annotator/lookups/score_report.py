"""The one result type every task's scorer returns, so a CLI and a web leaderboard need no per-task code.

Kept apart from ``__init__`` so that the task modules can import it without importing the registry
(which imports them).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any


@dataclass
class ScoreReport:
    """Headline metrics, JSON-serialisable detail tables and the quirks met while scoring.

    ``warnings`` exist because the scorers reproduce the official programs bugs included: every time a
    bug or an undocumented rule changes this submission's numbers, the user is told in words.

    ``beside`` holds, per named alternative rule (e.g. ``"numeric comparison"``), the metrics that rule gives
    when they differ from the headline ones: the official figure stays the headline, and a reader who
    would rank by the other rule sees both side by side (empty when the rules agree).
    """

    task: str
    metrics: dict[str, float]
    detail: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    beside: dict[str, dict[str, float]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """One flat object: the metric names at the top (what leaderboards sort on), then detail, warnings and
        the alternatives' figures."""
        out: dict[str, Any] = dict(self.metrics)
        out["detail"] = self.detail
        out["warnings"] = list(self.warnings)
        out["beside"] = {label: dict(values) for label, values in self.beside.items()}
        return out

    def differing(self, name: str) -> dict[str, float]:
        """The alternatives' values of metric ``name`` that differ from the headline value, by rule name."""
        return {label: values[name] for label, values in self.beside.items()
                if name in values and values[name] != self.metrics.get(name)}

    def to_text(self) -> str:
        """A terminal-friendly rendering: metrics at full precision (they are compared to 1e-16), each with the
        alternatives' values where they differ, then tables."""
        lines = [f"{self.task}"]
        width = max((len(k) for k in self.metrics), default=0)
        for name, value in self.metrics.items():
            others = "".join(f"  ({label}: {other!r})" for label, other in self.differing(name).items())
            lines.append(f"  {name.ljust(width)}  {value!r}{others}")
        for key, value in self.detail.items():
            lines.extend(_render(key, value))
        if self.warnings:
            lines.append("")
            lines.append("warnings:")
            lines.extend(f"  - {w}" for w in self.warnings)
        return "\n".join(lines) + "\n"


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return "-" if math.isnan(value) else f"{value:.6f}"
    if value is None:
        return "-"
    return str(value)


def _render(key: str, value: Any) -> list[str]:
    """Lists of flat dicts become tables; other values a ``key: value`` line."""
    if isinstance(value, list) and value and all(isinstance(r, dict) for r in value):
        columns = list(value[0])
        rows = [[_cell(r.get(c)) for c in columns] for r in value]
        widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(columns)]
        out = ["", f"{key}:", "  " + "  ".join(c.ljust(w) for c, w in zip(columns, widths))]
        out.extend("  " + "  ".join(v.ljust(w) for v, w in zip(r, widths)) for r in rows)
        return out
    if isinstance(value, dict):
        return [f"{key}: " + ", ".join(f"{k}={_cell(v)}" for k, v in value.items())]
    return [f"{key}: {_cell(value)}"]


def first_few(items: list[Any], limit: int = 5) -> str:
    """Name a few offenders and the total, so a message stays short on a file with thousands of them."""
    shown = ", ".join(str(i) for i in items[:limit])
    return shown + (f", ... ({len(items)} in all)" if len(items) > limit else "")
