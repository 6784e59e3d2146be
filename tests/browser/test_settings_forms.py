"""An admin saving a settings form without changing anything changes nothing: each settings form of each demo
project, saved as Chromium sends it (textareas with CRLF line ends), leaves the project's row and its lists
byte for byte as they were. Annotators then see the guidelines' paragraphs and numbered steps as written."""
from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import select

from annotator.campaigns.demo_projects import demo_projects
from annotator.core.extensions import db
from annotator.core.models import CrowdLink, Project, project_annotators
from tests.browser.conftest import PAGE_LOAD_MS, start_hit
from tests.conftest import DEMO_PASSWORDS

pytestmark = pytest.mark.browser
# (page below /admin/projects/<slug>, the form's section, its button, what the page says once saved)
FORMS = [("", "#settings", "Save settings", "Settings saved."),
         ("", "#quality", "Save quality settings", "Quality settings saved."),
         ("", "#access", "Save access", "Access saved."),
         ("/crowd", "#crowd-filters", "Save", "Crowd settings saved.")]


def project_rows(slug: str) -> dict[str, Any]:
    """Everything the settings forms could change, as a fresh session reads it."""
    db.session.remove()
    project = db.session.execute(select(Project.__table__).where(Project.slug == slug)).mappings().one()
    listed = db.session.execute(select(project_annotators.c.user_id).where(
        project_annotators.c.project_id == project["id"]).order_by(project_annotators.c.user_id)).scalars().all()
    links = db.session.execute(select(CrowdLink.__table__).where(CrowdLink.project_id == project["id"])
                               .order_by(CrowdLink.id)).mappings().all()
    db.session.remove()
    return {"project": dict(project), "listed": listed, "links": [dict(link) for link in links]}


@pytest.fixture
def admin(page: Page, demo, login) -> Page:  # type: ignore[no-untyped-def]
    login(page, "admin", DEMO_PASSWORDS["ANNOTATOR_ADMIN_PASSWORD"])
    return page


@pytest.mark.parametrize("slug", [spec["slug"] for spec in demo_projects()])
def test_saving_each_settings_form_unchanged_changes_nothing(admin: Page, slug: str) -> None:
    before = project_rows(slug)
    assert before["project"]["guidelines"], "a demo project with guidelines to keep"
    for path, section, button, said in FORMS:
        admin.goto(f"/admin/projects/{slug}{path}", timeout=PAGE_LOAD_MS)
        with admin.expect_navigation(timeout=PAGE_LOAD_MS):
            admin.locator(section).get_by_role("button", name=button, exact=True).click()
        expect(admin.locator(".flash.error[role=status]")).to_have_count(0)
        expect(admin.get_by_text(said)).to_be_visible()
        after = project_rows(slug)
        assert after == before, f"saving {section} of {slug} changed " + ", ".join(
            f"{key}: {before['project'][key]!r} -> {after['project'][key]!r}"
            for key in before["project"] if before["project"][key] != after["project"].get(key))


def test_after_a_save_the_cloze_guidelines_show_their_numbered_steps_on_lines_of_their_own(
        admin: Page, new_page, make_user, login) -> None:  # type: ignore[no-untyped-def]
    admin.goto("/admin/projects/cloze-demo")
    with admin.expect_navigation():
        admin.locator("#settings").get_by_role("button", name="Save settings").click()
    expect(admin.get_by_text("Settings saved.")).to_be_visible()
    make_user("reader")
    annotator = new_page()
    login(annotator, "reader")
    start_hit(annotator, "cloze-demo")
    guidelines = annotator.locator(".guidelines")
    if guidelines.get_attribute("open") is None:
        guidelines.locator("summary").click()
    # the demo's ReCAM project is a declared project, whose guidelines are Markdown: the steps an ordered list
    expect(guidelines.locator("p")).to_have_count(2)
    steps = guidelines.locator("ol > li")
    expect(steps).to_have_count(3)
    assert [step.split()[0] for step in steps.all_inner_texts()] == ["Choose", "Mark", "Say"]
