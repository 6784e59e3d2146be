"""The admin's tables on the demo's pages at a laptop's and a phone's width: at 1280 px a table uses the screen's
width and nothing in it is cut off; at 375 px a wide table scrolls inside its own region, which the keyboard can
reach and scroll, while the page itself never scrolls sideways."""
from __future__ import annotations

import pytest

from annotator.campaigns.demo_projects import demo_projects
from tests.browser.conftest import PAGE_LOAD_MS
from tests.conftest import DEMO_PASSWORDS

LAPTOP = {"viewport": {"width": 1280, "height": 800}}
PHONE = {"viewport": {"width": 375, "height": 667}, "is_mobile": True, "has_touch": True}
SLUGS = [spec["slug"] for spec in demo_projects()]
# Every admin page of the demo that has a table: the lists, and each project's annotators, data set and items
# pages; the rankings of the two Track-2 projects and the adjudication of the RuArg one.
PAGES = (["/admin/", "/admin/annotators", "/admin/demo", "/admin/projects/stance-demo/review/900",
          "/admin/projects/kpa-check-demo/ranking", "/admin/projects/kpa-compare-demo/ranking"]
         + [f"/admin/projects/{slug}/{page}" for slug in SLUGS for page in ("annotators", "stats", "items/")])

# Per table: its region's name, tabindex and overflow, the region's widths, and how far the table's right edge is
# past the region's once the region is scrolled to its end (0 or less: the last column can be seen).
TABLES = """() => [...document.querySelectorAll('main table')].map(table => {
  const region = table.closest('.table-scroll');
  if (!region) return {table: table.id || table.caption?.textContent || '?', region: null};
  region.scrollLeft = region.scrollWidth;
  const past = table.getBoundingClientRect().right - region.getBoundingClientRect().right;
  region.scrollLeft = 0;
  return {table: region.getAttribute('aria-label'), region: region.getAttribute('role'),
          tabindex: region.getAttribute('tabindex'), overflow: getComputedStyle(region).overflowX,
          client: region.clientWidth, scroll: region.scrollWidth, past: past,
          clipped: [...table.querySelectorAll('th, td')].filter(c => c.scrollWidth > c.clientWidth + 1)
                                                         .map(c => c.textContent.trim())};
})"""
PAGE_WIDTH = "() => [document.documentElement.scrollWidth, window.innerWidth]"


@pytest.fixture
def admin_page(demo, new_page, login):  # type: ignore[no-untyped-def]
    def make(device: dict):  # type: ignore[no-untyped-def,type-arg]
        page = new_page(**device)
        login(page, "admin", DEMO_PASSWORDS["ANNOTATOR_ADMIN_PASSWORD"])
        return page
    return make


def _tables(page, path: str) -> list[dict]:  # type: ignore[no-untyped-def,type-arg]
    response = page.goto(path, timeout=PAGE_LOAD_MS)
    assert response.status == 200, path
    return page.evaluate(TABLES)


def test_at_a_laptops_width_every_admin_table_fits_its_region_and_no_cell_is_cut(admin_page):
    page = admin_page(LAPTOP)
    tables = {path: _tables(page, path) for path in PAGES}
    cut = {path: [(t["table"], t.get("client"), t.get("scroll"), t.get("clipped")) for t in found
                  if t["region"] is None or t["scroll"] > t["client"] + 1 or t["clipped"]]
           for path, found in tables.items()}
    assert {path: found for path, found in cut.items() if found} == {}
    assert sum(map(len, tables.values())) > 20


def test_on_a_phone_a_wide_table_scrolls_inside_a_named_region_the_keyboard_reaches(admin_page):
    page = admin_page(PHONE)
    scrolled = 0
    for path in PAGES:
        for table in _tables(page, path):
            name = table["table"]
            assert table["region"] == "region" and name and table["tabindex"] == "0", (path, name)
            assert table["overflow"] in ("auto", "scroll"), (path, table)
            assert table["past"] <= 1 and not table["clipped"], (path, table)  # its end can be scrolled to
            scrolled += table["scroll"] > table["client"] + 1
        page_width, window = page.evaluate(PAGE_WIDTH)
        assert page_width <= window, path  # the page itself never scrolls sideways
    assert scrolled > 0  # a phone is narrow enough that some tables do scroll: the check above checked something


def test_the_keyboard_scrolls_a_wide_tables_region(admin_page):
    page = admin_page(PHONE)
    page.goto("/admin/projects/kpa-demo/annotators")
    region = page.get_by_role("region", name="Annotators")
    region.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("End")
    # The browser scrolls after the key's event, and may animate it: wait (up to 5 s) for the region to have moved
    # rather than read it at once (read at once, it said 0 once in a loaded run).
    page.wait_for_function("r => r.scrollLeft > 0", arg=region.element_handle(), timeout=5000)
