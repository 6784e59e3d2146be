"""The admin's tables and charts on a laptop and on a phone: numbers never wrap, a wide table scrolls sideways in
its wrapper instead of widening the page, and the dashboard's chart text stays legible and inside its chart."""
from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import Page

from annotator import create_app
from annotator.core.extensions import db
from annotator.core.models import User
from annotator.engine import assignment as engine
from annotator.tasks import project_task
from tests.conftest import PASSWORD, load_project
from tests.support.type_data import MORE_FORMATS, format_data, type_data

PHONE = {"viewport": {"width": 375, "height": 667}, "is_mobile": True, "has_touch": True}
LAPTOP = {"viewport": {"width": 1280, "height": 800}}

# Per `.num` element: how many lines its text takes (distinct tops of its text's boxes).
NUM_LINES = """() => [...document.querySelectorAll('.num')].filter(el => el.textContent.trim()).map(el => {
  const range = document.createRange(); range.selectNodeContents(el);
  const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
  return [el.textContent.trim(), tops.size];
})"""

# Per chart text: its height on screen and whether it lies inside its SVG's box (1 px of rounding allowed).
CHART_TEXT = """() => [...document.querySelectorAll('svg.chart text')].map(t => {
  const box = t.getBoundingClientRect(), svg = t.ownerSVGElement.getBoundingClientRect();
  return [t.textContent, box.height, box.left >= svg.left - 1 && box.right <= svg.right + 1
          && box.top >= svg.top - 1 && box.bottom <= svg.bottom + 1];
})"""


def _vote(task_name: str, make_user, names: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    """The type's (or a format's) test project, the annotators answering every item at random (seeded), and an
    admin."""
    data = format_data(task_name) if task_name in MORE_FORMATS else type_data(task_name)
    project = load_project(data.format, data.path, "p", **{**data.options, "k": 3})
    task = project_task(project)
    settings = task.settings_of(project)
    rng = random.Random(1)
    for name in names:
        user = make_user(name)
        while (lease := engine.next_for(user, project)) is not None:
            engine.submit(lease.id, user, task.example_answer(task.public_item(lease.item, settings), rng))
    make_user("boss", role="admin")
    db.session.remove()


@pytest.fixture(scope="module")
def voted_database(sqlite_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The match-check project (counts, shares, κ and times in its tables), three annotators, an admin: voted
    once for the module in a copy of the migrated template, which each test of it then copies (see
    `database_url`), rather than voted again by each of its 15 tests."""
    path = tmp_path_factory.mktemp("voted") / "annotator.db"
    shutil.copy(sqlite_template, path)
    app = create_app("config.TestConfig", SQLALCHEMY_DATABASE_URI=f"sqlite:///{path}")

    def make_user(name: str, role: str = "annotator") -> User:
        user = User(username=name, role=role)
        user.set_password(PASSWORD)
        db.session.add(user)
        db.session.commit()
        return user
    with app.app_context():
        _vote("kpa2021-check", make_user, ("annotator-with-a-long-name-1", "b", "c"))
        db.engine.dispose()
    return path


@pytest.fixture
def database_url(request: pytest.FixtureRequest, sqlite_template: Path, tmp_path: Path) -> str:
    """The test's private copy of the migrated template, or of the voted project's database for the tests that
    take `voted`."""
    source = request.getfixturevalue("voted_database") if "voted" in request.fixturenames else sqlite_template
    path = tmp_path / "annotator.db"
    shutil.copy(source, path)
    return f"sqlite:///{path}"


@pytest.fixture
def voted() -> None:
    """The test's database holds the voted match-check project (`voted_database`, copied by `database_url`)."""


def _open(new_page, login, size: dict, path: str) -> Page:  # type: ignore[no-untyped-def]
    page = new_page(**size)
    login(page, "boss")
    page.goto(path, timeout=30_000)  # the dashboard computes every figure: slow on a busy machine
    return page


@pytest.mark.parametrize("size", [LAPTOP, PHONE], ids=["1280px", "375px"])
@pytest.mark.parametrize("path", ["/admin/projects/p/annotators", "/admin/projects/p/items/",
                                  "/admin/projects/p/dawid-skene", "/admin/annotators"])
def test_no_number_in_an_admin_table_wraps(new_page, login, voted, size, path) -> None:  # type: ignore[no-untyped-def]
    """A number broken over two lines ("0.2 / 45") reads as two numbers."""
    lines = _open(new_page, login, size, path).evaluate(NUM_LINES)
    assert lines and [cell for cell in lines if cell[1] != 1] == []


def test_a_wide_table_scrolls_in_its_wrapper_on_a_phone(new_page, login, voted) -> None:  # type: ignore[no-untyped-def]
    """The quality table has eleven columns: on a phone it scrolls sideways, the page itself does not."""
    page = _open(new_page, login, PHONE, "/admin/projects/p/annotators")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    wrapper = page.locator(".table-scroll").filter(has=page.locator("#annotators"))
    assert wrapper.evaluate("w => getComputedStyle(w).overflowX") == "auto"
    assert wrapper.evaluate("w => w.scrollWidth > w.clientWidth")


@pytest.mark.parametrize("path", ["/admin/projects/p", "/admin/projects/p/items/", "/admin/projects/p/dawid-skene",
                                  "/admin/projects/p/ranking", "/admin/projects/p/stats", "/admin/annotators"])
def test_no_admin_page_is_wider_than_a_phone(new_page, login, voted, path) -> None:  # type: ignore[no-untyped-def]
    """Whatever their tables hold, the pages fit 375 px: a table wider than that scrolls in its wrapper."""
    page = _open(new_page, login, PHONE, path)
    assert page.evaluate("document.documentElement.scrollWidth") <= 375


def test_chart_text_is_legible_and_inside_its_chart_on_a_phone(new_page, login, voted) -> None:  # type: ignore[no-untyped-def]
    """Scaled to a 375 px screen, every title, label and tick is at least 10 px tall and none is cut off."""
    page = _open(new_page, login, PHONE, "/admin/projects/p/dashboard")
    texts = page.evaluate(CHART_TEXT)
    assert texts and page.evaluate("document.documentElement.scrollWidth") <= 375
    assert [t for t in texts if t[1] < 10] == []
    assert [t[0] for t in texts if not t[2]] == []


def test_the_dashboard_shows_annotator_names_as_they_are_written(new_page, login, voted) -> None:  # type: ignore[no-untyped-def]
    """The charts' labels had the class of the HIT pages' small upper-case labels: "B" for the annotator "b"."""
    page = _open(new_page, login, LAPTOP, "/admin/projects/p/dashboard")
    labels = page.locator("#chart-votes text.chart-label").evaluate_all(
        "texts => texts.map(t => [t.textContent, getComputedStyle(t).textTransform])")
    assert [name for name, _ in labels][1:] == ["b", "c"]  # the first, long name is shortened
    assert {transform for _, transform in labels} == {"none"}


@pytest.mark.parametrize("size", [LAPTOP, PHONE], ids=["1280px", "375px"])
def test_the_items_to_adjudicate_do_not_overlap(new_page, login, make_user, size) -> None:  # type: ignore[no-untyped-def]
    """The list's numbers ("1.", "2.", ...) stood outside their items and ran into the item before them: now each
    is inside its item's box, and no two boxes overlap."""
    _vote("ruarg2022", make_user, ("a", "b", "c"))   # RuArg-2022: m of n leaves sentences to adjudicate
    page = _open(new_page, login, size, "/admin/projects/p/review/")
    boxes = page.locator("#undecided li").evaluate_all(
        "items => items.map(li => { const r = li.getBoundingClientRect();"
        " return [r.left, r.right, r.top, r.bottom, getComputedStyle(li).listStylePosition]; })")
    assert len(boxes) > 1 and {box[4] for box in boxes} == {"inside"}  # each number inside its item's box
    overlapping = [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:]
                   if a[0] < b[1] - 0.5 and b[0] < a[1] - 0.5 and a[2] < b[3] - 0.5 and b[2] < a[3] - 0.5]
    assert overlapping == []
