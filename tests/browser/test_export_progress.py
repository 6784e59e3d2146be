"""The project page's export button: it says the export is being prepared while the zip is built (seconds on a
big project, with no sign from the browser of its own), then that it has been downloaded."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.conftest import load_project
from tests.support.formula_data import hostile_kpa_folder

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


def test_after_the_download_the_page_names_the_formula_cells_of_the_tasks_files(app, make_user, page, login,
                                                                              tmp_path):
    make_user("boss", role="admin")
    load_project("kpa2021", hostile_kpa_folder(tmp_path), "kpa", split="test", k=2)
    login(page, "boss")
    page.goto("/admin/projects/kpa")
    page.wait_for_load_state("load")
    warning = page.locator("#export-formula-cells")
    expect(warning).to_be_hidden()
    with page.expect_download():
        page.get_by_role("button", name="Download the export (zip)").click()
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("1 cell of the shared task's own files starts with a character a spreadsheet "
                                    "runs as a formula")
    expect(warning.get_by_role("listitem")).to_have_text(["arguments_test.csv, line 3, column argument"])


def test_an_export_without_formula_cells_shows_no_warning(app, kpa_project, make_user, page, login):
    make_user("boss", role="admin")
    kpa_project(k=2)
    login(page, "boss")
    page.goto("/admin/projects/kpa")
    page.wait_for_load_state("load")
    with page.expect_download():
        page.get_by_role("button", name="Download the export (zip)").click()
    expect(page.locator("#export-progress")).to_contain_text("The export is downloaded")
    expect(page.locator("#export-formula-cells")).to_be_hidden()
