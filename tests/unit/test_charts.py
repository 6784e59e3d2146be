"""The SVG charts: valid XML with the expected bars, labels and axes, and every text escaped."""
from __future__ import annotations

import xml.etree.ElementTree as ET

from annotator.analysis.charts import CHAR, WIDTH, bar_chart, column_chart, empty_chart, line_chart, nice_ticks

NS = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(str(svg))
    assert root.tag == f"{NS}svg"
    return root


def texts(root: ET.Element) -> list[str]:
    return [t.text or "" for t in root.iter(f"{NS}text")]


def bars(root: ET.Element) -> list[ET.Element]:
    return [r for r in root.iter(f"{NS}rect") if r.get("class") == "bar"]


def test_bar_chart_draws_one_bar_per_value_with_its_label_and_value() -> None:
    root = parse(bar_chart("Votes per annotator", [("ann1", 12), ("ann2", 3)], "votes"))
    assert root.find(f"{NS}title").text == "Votes per annotator"
    drawn = bars(root)
    assert len(drawn) == 2 and float(drawn[0].get("width")) > 3 * float(drawn[1].get("width"))
    assert {"ann1", "ann2", "12", "3", "votes", "Votes per annotator"} <= set(texts(root))


def test_bar_chart_draws_negative_values_left_of_zero() -> None:
    root = parse(bar_chart("Kappa", [("a", 0.5), ("b", -0.25)], "kappa", domain=(-1, 1)))
    positive, negative = bars(root)
    assert float(negative.get("x")) + float(negative.get("width")) <= float(positive.get("x")) + 0.1
    assert {"-1", "0", "1"} <= set(texts(root))


def test_column_chart_has_a_column_per_bin_and_both_axis_labels() -> None:
    root = parse(column_chart("Time per HIT", [("0–10", 4), ("10–20", 1), ("20–30", 0)], "seconds", "HITs"))
    heights = [float(r.get("height")) for r in bars(root)]
    assert len(heights) == 3 and heights[0] == 4 * heights[1] and heights[2] == 0
    assert {"0–10", "10–20", "20–30", "seconds", "HITs"} <= set(texts(root))


def test_line_chart_has_a_point_per_value_and_a_polyline_through_them() -> None:
    root = parse(line_chart("Progress", [("10:00", 1), ("11:00", 5), ("12:00", 9)], "time", "votes"))
    assert len(list(root.iter(f"{NS}circle"))) == 3
    [line] = list(root.iter(f"{NS}polyline"))
    ys = [float(p.split(",")[1]) for p in line.get("points").split()]
    assert ys[0] > ys[1] > ys[2]  # rising: SVG's y grows downwards
    assert {"10:00", "time", "votes"} <= set(texts(root))


def test_text_is_escaped_and_stays_text() -> None:
    name = '<script>alert("x")</script> & co'
    svg = str(bar_chart(f"Title {name}", [(name, 1)], "votes & more"))
    assert "<script>" not in svg
    root = parse(svg)
    assert f"Title {name}" in texts(root) and "votes & more" in texts(root)
    assert bars(root)[0].find(f"{NS}title").text == f"{name}: 1"
    assert not list(root.iter(f"{NS}script"))


def test_charts_without_data_say_why() -> None:
    root = parse(bar_chart("Accuracy", [], "accuracy", empty="No control items yet."))
    assert "No control items yet." in texts(root) and not bars(root)
    assert "No votes yet." in texts(parse(empty_chart("x", "No votes yet.")))
    assert "No data yet." in texts(parse(line_chart("x", [], "t", "v")))
    assert "No data yet." in texts(parse(column_chart("x", [], "t", "v")))


def test_no_chart_uses_style_attributes_or_scripts() -> None:
    """CSP is 'self' only: inline style attributes would be blocked."""
    for svg in (bar_chart("a", [("x", 1)], "v"), column_chart("b", [("x", 1)], "v", "n"),
                line_chart("c", [("x", 1), ("y", 2)], "t", "v")):
        assert "style=" not in str(svg) and "<script" not in str(svg)


def test_nice_ticks_cover_the_range_with_round_steps() -> None:
    assert nice_ticks(0, 9) == [0, 2, 4, 6, 8, 10]
    assert nice_ticks(-1, 1) == [-1, -0.5, 0, 0.5, 1]
    assert nice_ticks(0, 0) == [0, 0.2, 0.4, 0.6, 0.8, 1]


def _extent(text: ET.Element) -> tuple[float, float]:
    """Where an unrotated text starts and ends on x, from its anchor and an upper bound of its width."""
    x, width = float(text.get("x")), len(text.text or "") * CHAR
    start = {"start": x, "middle": x - width / 2, "end": x - width}[text.get("text-anchor")]
    return start, start + width


def test_a_long_title_wraps_inside_the_chart() -> None:
    """A phone shows the chart scaled to its width: a title longer than that is cut unless it wraps."""
    title = "Mean pairwise Cohen's kappa per annotator (a rather long name of a headline field)"
    root = parse(bar_chart(title, [("a", 0.5)], "kappa"))
    lines = [t for t in root.iter(f"{NS}text") if t.get("class") == "chart-title"]
    assert len(lines) > 1 and " ".join(t.text or "" for t in lines) == title
    assert all(0 <= _extent(t)[0] and _extent(t)[1] <= WIDTH for t in lines)


def test_long_bar_labels_are_shortened_to_stay_inside_the_chart() -> None:
    """An annotator's or a field's long name would run off the chart's left edge; the tooltip keeps it whole."""
    name = "a-very-long-annotator-name-from-a-crowd-platform"
    root = parse(bar_chart("Votes", [(name, 3)], "votes"))
    [label] = [t for t in root.iter(f"{NS}text") if t.get("class") == "chart-label"]
    assert (label.text or "").endswith("…") and _extent(label)[0] >= 0
    assert bars(root)[0].find(f"{NS}title").text == f"{name}: 3"


def test_line_chart_x_labels_do_not_overlap_or_leave_the_chart() -> None:
    """Timestamps are long: only as many are labelled as fit side by side, the last one kept inside."""
    points = [(f"2026-11-26 {h:02d}:00", h) for h in range(24)]
    root = parse(line_chart("Progress", points, "time", "votes"))
    spans = sorted(_extent(t) for t in root.iter(f"{NS}text") if t.get("class") == "chart-label")
    assert len(spans) > 1 and spans[0][0] >= 0 and spans[-1][1] <= WIDTH
    assert all(left[1] <= right[0] for left, right in zip(spans, spans[1:]))
