"""The admin's "Check and preview" of a declared campaign, in Chromium with the app's Content-Security-Policy:
the frame shows the whole HIT of the first item as an annotator sees it, at laptop and at phone width."""
from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser
DEMO = Path(__file__).resolve().parents[2] / "annotator" / "campaigns" / "demo" / "custom"
QUESTIONS = ["tone", "cues", "aspects", "sarcastic", "strength", "helpful", "note"]


def preview(page: Page) -> None:
    """Upload the demo's declared campaign and press "Check and preview"; fails unless the page has the CSP."""
    page.goto("/admin/projects/declared/new")
    page.get_by_label("Definition (YAML or JSON)").set_input_files(DEMO / "campaign.yaml")
    page.get_by_label("Files the definition names").set_input_files(DEMO / "guidelines.md")
    page.get_by_label("Items (CSV, TSV or JSON Lines)").set_input_files(DEMO / "items.jsonl")
    page.get_by_label("Slug (in URLs").fill("tone")
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        page.get_by_role("button", name="Check and preview").click()
    assert "default-src 'self'" in answer.value.headers["content-security-policy"]
    page.wait_for_load_state("load")


@pytest.fixture
def admin_page(new_page, make_user, login):  # type: ignore[no-untyped-def]
    def open_at(width: int) -> Page:
        make_user("boss", role="admin")
        page = new_page(viewport={"width": width, "height": 800})
        violations: list[str] = []
        page.on("console", lambda message: violations.append(message.text)
                if "Content Security Policy" in message.text else None)
        page.violations = violations  # type: ignore[attr-defined]
        login(page, "boss")
        return page
    return open_at


@pytest.mark.parametrize("width", [1280, 375])
def test_the_preview_frame_is_as_wide_as_its_card_and_as_tall_as_the_whole_hit(admin_page, width: int) -> None:
    page = admin_page(width)
    preview(page)
    frame_element = page.locator("#hit-preview")
    frame = page.frame_locator("#hit-preview")
    expect(frame.locator("#submit")).to_be_attached()
    # The frame reports its height once its scripts ran; wait until the frame is as tall as the HIT in it.
    page.wait_for_function("""() => {
        const f = document.getElementById('hit-preview');
        return f.getBoundingClientRect().height >= 1000;
    }""")
    box = frame_element.bounding_box()
    card = page.locator("#preview").bounding_box()
    assert box and card
    assert box["width"] >= card["width"] - 2 * 16 - 2, (box, card)  # the card's width, less its padding
    inner = frame.locator("html").evaluate("html => html.getBoundingClientRect().height")
    assert abs(box["height"] - 2 - inner) <= 2, (box, inner)  # the whole HIT, with no scroll bar in the frame
    assert page.violations == []  # type: ignore[attr-defined]


def test_the_preview_shows_the_first_item_every_question_and_the_submit_button(admin_page) -> None:
    page = admin_page(1280)
    preview(page)
    frame = page.frame_locator("#hit-preview")
    expect(frame.locator("#shown")).to_contain_text("Arrived in two days and works perfectly")
    for qid in QUESTIONS:
        expect(frame.locator(f"#dq-{qid}")).to_be_attached()
    expect(frame.locator("#submit")).to_be_visible()
    expect(frame.locator("#submit")).to_be_disabled()
    expect(frame.locator("#preview-note")).to_contain_text("nothing is stored")


def test_the_preview_shows_no_admin_links(admin_page) -> None:
    page = admin_page(1280)
    preview(page)
    frame = page.frame_locator("#hit-preview")
    expect(frame.locator("#hit-form")).to_be_visible()
    expect(frame.get_by_role("link", name="Admin")).to_have_count(0)
    expect(frame.get_by_role("link", name="Audit")).to_have_count(0)


def test_the_frame_is_fitted_when_it_reported_its_height_before_the_page_listened(admin_page) -> None:
    """The page's script waits for the style sheet and the frame does not, so the frame may load and report its
    height before anyone listens (a run of the test above timed out so): the page then asks it to report again."""
    page = admin_page(1280)
    page.route("**/static/js/hit_preview.js*", lambda route: route.abort())  # the page's listener comes later
    preview(page)
    frame_element = page.locator("#hit-preview")
    expect(page.frame_locator("#hit-preview").locator("#submit")).to_be_attached()
    [framed] = [f for f in page.frames if f.parent_frame == page.main_frame]
    # the frame loaded (its script ran, and reported at once and on load) and then drew twice (its ResizeObserver's
    # first call reported too): every report it sends by itself has gone by then
    framed.wait_for_load_state("load")
    framed.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
    box = frame_element.bounding_box()
    assert box and box["height"] < 1000  # its reports went unheard: the frame keeps the style sheet's height
    page.unroute("**/static/js/hit_preview.js*")
    page.add_script_tag(url=page.locator("script[src*='hit_preview.js']").get_attribute("src"))
    page.wait_for_function("() => document.getElementById('hit-preview').getBoundingClientRect().height >= 1000")
    inner = page.frame_locator("#hit-preview").locator("html").evaluate("html => html.getBoundingClientRect().height")
    box = frame_element.bounding_box()
    assert box and abs(box["height"] - 2 - inner) <= 2, (box, inner)
