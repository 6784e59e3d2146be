"""The project page's export button: it says the export is being prepared while the zip is built (seconds on a
big project, with no sign from the browser of its own), then that it has been downloaded."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_the_export_says_it_is_prepared_then_downloaded(app, kpa_project, make_user, page, login):
    make_user("boss", role="admin")
    kpa_project(k=2)
    login(page, "boss")
    page.goto("/admin/projects/kpa")
    page.wait_for_load_state("load")
    button = page.get_by_role("button", name="Download the export (zip)")
    with page.expect_download() as download:
        button.click()
    assert download.value.suggested_filename == "kpa-kpa2021.zip"
    expect(page.locator("#export-progress")).to_contain_text("The export is downloaded")
    expect(button).to_be_enabled()
