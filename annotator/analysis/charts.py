"""Small server-rendered SVG charts: horizontal bars, columns (histograms) and lines, with axes and labels.

The admin pages are served under a CSP of 'self' with no CDN, so the charts are plain SVG strings made
here: no script, no style attribute (presentation attributes only), every text escaped. Each function
returns Markup ready to put in a template, or a small SVG saying why there is nothing to draw.

The charts are drawn WIDTH (360) units wide, about a phone's width, so that scaled to a 375 px screen
their 12-unit text stays about 11 px tall; titles wrap, long labels are shortened (the whole label stays
in the bar's tooltip) and x labels are kept inside the box, so no text is cut at the SVG's edges.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from markupsafe import Markup, escape

FONT = 12
WIDTH = 360
CHAR = FONT * 0.75  # a generous average width of a character in the sans-serif fonts browsers pick (DejaVu: 0.7)
LINE = FONT + 4
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


def _text(x: float, y: float, content: object, anchor: str = "start", cls: str = "", extra: str = "",
          hover: str | None = None) -> str:
    css = f' class="{cls}"' if cls else ""
    tooltip = f"<title>{escape(hover)}</title>" if hover is not None else ""
    return (f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="{FONT}"{css}{extra}>'
            f"{tooltip}{escape(str(content))}</text>")


def text_width(content: object) -> float:
    return len(str(content)) * CHAR


def shortened(content: object, room: float) -> str:
    """The text, cut with an ellipsis to fit `room` units."""
    text = str(content)
    fits = max(1, int(room / CHAR))
    return text if len(text) <= fits else text[:max(fits - 1, 1)] + "…"


def _title(title: str, width: int) -> tuple[list[str], int]:
    """The title in bold, wrapped at words to the chart's width: (its text elements, the y below it)."""
    lines: list[str] = []
    for word in title.split():
        if lines and text_width(lines[-1] + " " + word) <= width - 16:
            lines[-1] += " " + word
        else:
            lines.append(shortened(word, width - 16))
    body = [_text(8, 18 + i * LINE, line, cls="chart-title", extra=' font-weight="bold"')
            for i, line in enumerate(lines)]
    return body, 18 + (len(lines) - 1) * LINE


def _svg(title: str, width: int, height: int, body: list[str]) -> Markup:
    return Markup(f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" width="{width}" '
                  f'height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif">'
                  f"<title>{escape(title)}</title>" + "".join(body) + "</svg>")


def empty_chart(title: str, message: str, width: int = WIDTH) -> Markup:
    """A chart frame with a message instead of data (e.g. "no control items yet")."""
    body, below = _title(title, width)
    body.append(_text(8, below + 26, shortened(message, width - 16), cls="chart-empty", extra=f' fill="{AXIS}"'))
    return _svg(title, width, below + 42, body)


def bar_chart(title: str, bars: Sequence[tuple[str, float]], value_label: str, empty: str = "No data yet.",
              domain: tuple[float, float] | None = None, width: int = WIDTH,
              hovers: Sequence[str] | None = None) -> Markup:
    """Horizontal bars, one per (label, value), labels on the left (shortened to at most 45 % of the width);
    negative values go left of zero. `hovers`: per bar, what its label and bar say on hover instead of the
    label alone (e.g. a key point's whole text and its id, where the label is the text)."""
    if not bars:
        return empty_chart(title, empty, width)
    body, below = _title(title, width)
    left = min(int(width * 0.45), 14 + max(text_width(label) for label, _ in bars))
    top, row, right = below + 12, 22, 44
    values = [float(v) for _, v in bars]
    low, high = domain or (min(0.0, *values), max(0.0, *values))
    ticks = nice_ticks(low, high)
    low, high = min(low, ticks[0]), max(high, ticks[-1])
    plot = width - left - right
    height = top + row * len(bars) + 44

    def x(value: float) -> float:
        return left + (value - low) / (high - low) * plot

    bottom = top + row * len(bars)
    for tick in ticks:
        body.append(f'<line x1="{x(tick):.1f}" y1="{top}" x2="{x(tick):.1f}" y2="{bottom}" stroke="{GRID}"/>')
        body.append(_text(_inside(x(tick), number(tick), width), bottom + 14, number(tick), "middle", "tick"))
    for index, (label, value) in enumerate(bars):
        y = top + index * row
        start, end = sorted((x(0.0), x(float(value))))
        hover = hovers[index] if hovers else label
        body.append(f'<rect class="bar" x="{start:.1f}" y="{y + 3}" width="{max(end - start, 0.5):.1f}" '
                    f'height="{row - 6}" fill="{BAR if value >= 0 else NEGATIVE}"><title>{escape(hover)}: '
                    f"{escape(number(float(value)))}</title></rect>")
        body.append(_text(left - 6, y + row / 2 + 4, shortened(label, left - 10), "end", "chart-label",
                          hover=hover if hovers else None))
        shown = number(float(value))
        body.append(_text(min(end + 4, width - 2 - text_width(shown)), y + row / 2 + 4, shown, "start", "value"))
    body.append(f'<line x1="{x(0.0):.1f}" y1="{top}" x2="{x(0.0):.1f}" y2="{bottom}" stroke="{AXIS}"/>')
    body.append(_text(left + plot / 2, bottom + 32, shortened(value_label, plot), "middle", "axis-label"))
    return _svg(title, width, height, body)


def _inside(x: float, content: object, width: float) -> float:
    """The x of a middle-anchored text moved so that the whole text is inside the chart."""
    half = text_width(content) / 2
    return min(max(x, half + 2), width - half - 2)


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
    body.append(_text(left + plot_w / 2, height - 8, shortened(x_label, plot_w), "middle", "axis-label"))
    body.append(_text(14, top + plot_h / 2, y_label, "middle", "axis-label",
                      f' transform="rotate(-90 14 {top + plot_h / 2:.1f})"'))


def column_chart(title: str, columns: Sequence[tuple[str, float]], x_label: str, y_label: str,
                 empty: str = "No data yet.", width: int = WIDTH, height: int = 260) -> Markup:
    """Vertical columns (a histogram: one per bin, labelled under it, slanted when they would not fit), with a
    y axis from 0."""
    if not columns:
        return empty_chart(title, empty, width)
    body, below = _title(title, width)
    left, top, right, bottom_margin = 48, below + 12, 12, 64
    height += below - 18
    values = [float(v) for _, v in columns]
    ticks = nice_ticks(0.0, max(values) or 1.0)
    high = ticks[-1]
    plot_w, plot_h = width - left - right, height - top - bottom_margin
    bottom = top + plot_h
    slot = plot_w / len(columns)

    def y(value: float) -> float:
        return bottom - value / high * plot_h

    slanted = max(text_width(label) for label, _ in columns) > slot - 4
    _grid(body, ticks, y, left, plot_w)
    for index, (label, value) in enumerate(columns):
        x0 = left + index * slot
        body.append(f'<rect class="bar" x="{x0 + 2:.1f}" y="{y(float(value)):.1f}" width="{max(slot - 4, 1):.1f}" '
                    f'height="{bottom - y(float(value)):.1f}" fill="{BAR}"><title>{escape(label)}: '
                    f"{escape(number(float(value)))}</title></rect>")
        if slanted:  # the end of the text at the column's middle, rising to the left: it never leaves the box
            body.append(_text(x0 + slot / 2, bottom + 12, shortened(label, 60), "end", "chart-label",
                              f' transform="rotate(-40 {x0 + slot / 2:.1f} {bottom + 12:.1f})"'))
        else:
            body.append(_text(x0 + slot / 2, bottom + 14, label, "middle", "chart-label"))
    _axes(body, left, top, plot_w, plot_h, height, x_label, y_label)
    return _svg(title, width, height, body)


def line_chart(title: str, points: Sequence[tuple[str, float]], x_label: str, y_label: str,
               empty: str = "No data yet.", width: int = WIDTH, height: int = 260) -> Markup:
    """A line through (label, value) points evenly spaced on x, with as many x labels as fit side by side."""
    if not points:
        return empty_chart(title, empty, width)
    body, below = _title(title, width)
    left, top, right, bottom_margin = 48, below + 12, 12, 48
    height += below - 18
    values = [float(v) for _, v in points]
    ticks = nice_ticks(min(0.0, *values), max(values) or 1.0)
    low, high = ticks[0], ticks[-1]
    plot_w, plot_h = width - left - right, height - top - bottom_margin
    bottom = top + plot_h

    def x(index: int) -> float:
        return left + (index / (len(points) - 1) * plot_w if len(points) > 1 else plot_w / 2)

    def y(value: float) -> float:
        return bottom - (value - low) / (high - low) * plot_h

    _grid(body, ticks, y, left, plot_w)
    path = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values))
    body.append(f'<polyline class="line" points="{path}" fill="none" stroke="{BAR}" stroke-width="2"/>')
    for i, (label, value) in enumerate(points):
        body.append(f'<circle class="point" cx="{x(i):.1f}" cy="{y(value):.1f}" r="2.5" fill="{BAR}">'
                    f"<title>{escape(label)}: {escape(number(float(value)))}</title></circle>")
    room = max(text_width(label) for label, _ in points) + 12  # a label's width and a gap
    labels = min(len(points), 1 + int(plot_w // room))          # the first, the last, and evenly between
    for i in sorted({round(n * (len(points) - 1) / max(labels - 1, 1)) for n in range(labels)}):
        body.append(_text(_inside(x(i), points[i][0], width), bottom + 14, points[i][0], "middle", "chart-label"))
    _axes(body, left, top, plot_w, plot_h, height, x_label, y_label)
    return _svg(title, width, height, body)
