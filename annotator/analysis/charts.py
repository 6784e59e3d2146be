"""Small server-rendered SVG charts: horizontal bars, columns (histograms) and lines, with axes and labels.

The admin pages are served under a CSP of 'self' with no CDN, so the charts are plain SVG strings made
here: no script, no style attribute (presentation attributes only), every text escaped. Each function
returns Markup ready to put in a template, or a small SVG saying why there is nothing to draw.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from markupsafe import Markup, escape

FONT = 12
BAR = "#3b6ea5"
NEGATIVE = "#b5533c"
AXIS = "#555"
GRID = "#ddd"


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values covering [low, high] (1, 2 or 5 times a power of ten apart)."""
    if high <= low:
        high = low + 1
    raw = (high - low) / max(count, 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    start = math.floor(low / step) * step
    ticks, value = [], start
    while value < high + step * 1e-9:
        ticks.append(round(value, 10))
        value += step
    if ticks[-1] < high:
        ticks.append(round(value, 10))
    return ticks


def number(value: float) -> str:
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.3g}" if abs(value) < 1000 else f"{value:,.0f}"


def _text(x: float, y: float, content: object, anchor: str = "start", cls: str = "", extra: str = "") -> str:
    css = f' class="{cls}"' if cls else ""
    return (f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="{FONT}"{css}{extra}>'
            f"{escape(str(content))}</text>")


def _svg(title: str, width: int, height: int, body: list[str]) -> Markup:
    return Markup(f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" width="{width}" '
                  f'height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif">'
                  f"<title>{escape(title)}</title>" + "".join(body) + "</svg>")


def empty_chart(title: str, message: str, width: int = 480) -> Markup:
    """A chart frame with a message instead of data (e.g. "no control items yet")."""
    return _svg(title, width, 60, [_text(8, 18, title, cls="chart-title", extra=' font-weight="bold"'),
                                   _text(8, 44, message, cls="chart-empty", extra=f' fill="{AXIS}"')])


def bar_chart(title: str, bars: Sequence[tuple[str, float]], value_label: str, empty: str = "No data yet.",
              domain: tuple[float, float] | None = None, width: int = 640) -> Markup:
    """Horizontal bars, one per (label, value), labels on the left; negative values go left of zero."""
    if not bars:
        return empty_chart(title, empty, width)
    left, top, row, right = min(220, 16 + 7 * max(len(str(label)) for label, _ in bars)), 30, 22, 60
    values = [float(v) for _, v in bars]
    low, high = domain or (min(0.0, *values), max(0.0, *values))
    ticks = nice_ticks(low, high)
    low, high = min(low, ticks[0]), max(high, ticks[-1])
    plot = width - left - right
    height = top + row * len(bars) + 44

    def x(value: float) -> float:
        return left + (value - low) / (high - low) * plot

    body = [_text(8, 18, title, cls="chart-title", extra=' font-weight="bold"')]
    bottom = top + row * len(bars)
    for tick in ticks:
        body.append(f'<line x1="{x(tick):.1f}" y1="{top}" x2="{x(tick):.1f}" y2="{bottom}" stroke="{GRID}"/>')
        body.append(_text(x(tick), bottom + 14, number(tick), "middle", "tick"))
    for index, (label, value) in enumerate(bars):
        y = top + index * row
        start, end = sorted((x(0.0), x(float(value))))
        body.append(f'<rect class="bar" x="{start:.1f}" y="{y + 3}" width="{max(end - start, 0.5):.1f}" '
                    f'height="{row - 6}" fill="{BAR if value >= 0 else NEGATIVE}"><title>{escape(label)}: '
                    f"{escape(number(float(value)))}</title></rect>")
        body.append(_text(left - 6, y + row / 2 + 4, label, "end", "label"))
        body.append(_text(end + 4, y + row / 2 + 4, number(float(value)), "start", "value"))
    body.append(f'<line x1="{x(0.0):.1f}" y1="{top}" x2="{x(0.0):.1f}" y2="{bottom}" stroke="{AXIS}"/>')
    body.append(_text(left + plot / 2, bottom + 32, value_label, "middle", "axis-label"))
    return _svg(title, width, height, body)


def _grid(body: list[str], ticks: list[float], y: Callable[[float], float], left: float, plot_w: float) -> None:
    """Horizontal grid lines at the y ticks, each labelled on the left (column and line charts)."""
    for tick in ticks:
        body.append(f'<line x1="{left}" y1="{y(tick):.1f}" x2="{left + plot_w}" y2="{y(tick):.1f}" stroke="{GRID}"/>')
        body.append(_text(left - 6, y(tick) + 4, number(tick), "end", "tick"))


def _axes(body: list[str], left: float, top: float, plot_w: float, plot_h: float, height: int, x_label: str,
          y_label: str) -> None:
    """The x and y axis lines and their labels (column and line charts)."""
    bottom = top + plot_h
    body.append(f'<line x1="{left}" y1="{bottom}" x2="{left + plot_w}" y2="{bottom}" stroke="{AXIS}"/>')
    body.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" stroke="{AXIS}"/>')
    body.append(_text(left + plot_w / 2, height - 8, x_label, "middle", "axis-label"))
    body.append(_text(14, top + plot_h / 2, y_label, "middle", "axis-label",
                      f' transform="rotate(-90 14 {top + plot_h / 2:.1f})"'))


def column_chart(title: str, columns: Sequence[tuple[str, float]], x_label: str, y_label: str,
                 empty: str = "No data yet.", width: int = 640, height: int = 260) -> Markup:
    """Vertical columns (a histogram: one per bin, labelled under it), with a y axis from 0."""
    if not columns:
        return empty_chart(title, empty, width)
    left, top, right, bottom_margin = 56, 30, 16, 64
    values = [float(v) for _, v in columns]
    ticks = nice_ticks(0.0, max(values) or 1.0)
    high = ticks[-1]
    plot_w, plot_h = width - left - right, height - top - bottom_margin
    bottom = top + plot_h
    slot = plot_w / len(columns)

    def y(value: float) -> float:
        return bottom - value / high * plot_h

    body = [_text(8, 18, title, cls="chart-title", extra=' font-weight="bold"')]
    _grid(body, ticks, y, left, plot_w)
    for index, (label, value) in enumerate(columns):
        x0 = left + index * slot
        body.append(f'<rect class="bar" x="{x0 + 2:.1f}" y="{y(float(value)):.1f}" width="{max(slot - 4, 1):.1f}" '
                    f'height="{bottom - y(float(value)):.1f}" fill="{BAR}"><title>{escape(label)}: '
                    f"{escape(number(float(value)))}</title></rect>")
        body.append(_text(x0 + slot / 2, bottom + 14, label, "middle", "label",
                          f' transform="rotate(30 {x0 + slot / 2:.1f} {bottom + 14:.1f})"' if len(columns) > 8 else ""))
    _axes(body, left, top, plot_w, plot_h, height, x_label, y_label)
    return _svg(title, width, height, body)


def line_chart(title: str, points: Sequence[tuple[str, float]], x_label: str, y_label: str,
               empty: str = "No data yet.", width: int = 640, height: int = 260, labels: int = 6) -> Markup:
    """A line through (label, value) points evenly spaced on x, with about `labels` x labels shown."""
    if not points:
        return empty_chart(title, empty, width)
    left, top, right, bottom_margin = 56, 30, 24, 48
    values = [float(v) for _, v in points]
    ticks = nice_ticks(min(0.0, *values), max(values) or 1.0)
    low, high = ticks[0], ticks[-1]
    plot_w, plot_h = width - left - right, height - top - bottom_margin
    bottom = top + plot_h

    def x(index: int) -> float:
        return left + (index / (len(points) - 1) * plot_w if len(points) > 1 else plot_w / 2)

    def y(value: float) -> float:
        return bottom - (value - low) / (high - low) * plot_h

    body = [_text(8, 18, title, cls="chart-title", extra=' font-weight="bold"')]
    _grid(body, ticks, y, left, plot_w)
    path = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values))
    body.append(f'<polyline class="line" points="{path}" fill="none" stroke="{BAR}" stroke-width="2"/>')
    for i, (label, value) in enumerate(points):
        body.append(f'<circle class="point" cx="{x(i):.1f}" cy="{y(value):.1f}" r="2.5" fill="{BAR}">'
                    f"<title>{escape(label)}: {escape(number(float(value)))}</title></circle>")
    every = max(1, math.ceil(len(points) / labels))
    for i in range(0, len(points), every):
        body.append(_text(x(i), bottom + 14, points[i][0], "middle", "label"))
    _axes(body, left, top, plot_w, plot_h, height, x_label, y_label)
    return _svg(title, width, height, body)
