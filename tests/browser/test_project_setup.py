"""A campaign from the browser alone: an admin creates a project from uploaded files and an annotator
account, the annotator labels every HIT, and the admin downloads the export.

Nothing is set up through the database except the admin account the test starts from.
"""
from __future__ import annotations

import csv
import io
import re
import zipfile

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import func, select

from annotator.core.extensions import db
from annotator.core.models import Item, Project
from tests.conftest import DATA, PASSWORD

pytestmark = pytest.mark.browser
KPA_FILES = [DATA / "kpa2021" / name for name in ("arguments_test.csv", "key_points_test.csv")]


def create_project(page: Page) -> None:
    page.get_by_role("link", name="Admin").click()
    page.get_by_role("link", name="New project").click()
    page.get_by_role("link", name="Use kpa2021", exact=True).click()
    page.get_by_label("Files (or one zip of them)").set_input_files(KPA_FILES)
    page.get_by_label("Name", exact=True).fill("Uniforms pilot")
    page.get_by_label("Slug (in URLs").fill("pilot")
    page.get_by_label("Annotators per item (k)").fill("1")
    page.get_by_label("Split").fill("test")
    page.get_by_label("Guidelines").fill("Mark every key point the argument expresses.")
    page.get_by_role("button", name="Create the project").click()
    expect(page.get_by_role("heading", name="Uniforms pilot")).to_be_visible()
    expect(page.get_by_text("Project 'Uniforms pilot' created with 26 arguments.")).to_be_visible()


def create_annotator(page: Page) -> str:
    page.get_by_role("link", name="Annotators").click()
    page.get_by_label("User name", exact=True).fill("pilot-1")
    page.get_by_role("button", name="Create", exact=True).click()
    row = page.locator("#passwords tbody tr").filter(has_text="pilot-1")
    return row.locator("code").inner_text()


def annotate_everything(page: Page, one_time: str) -> int:
    page.goto("/login")
    page.get_by_label("User name").fill("pilot-1")
    page.get_by_label("Password").fill(one_time)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Change your password")).to_be_visible()
    page.get_by_label("Current password").fill(one_time)
    page.get_by_label("New password", exact=True).fill("pilot-secret-1")
    page.get_by_label("New password again").fill("pilot-secret-1")
    page.get_by_role("button", name="Change").click()
    page.locator(".card").filter(has_text="Uniforms pilot").get_by_role("button", name="Start").click()
    total = int(page.locator("#progress").get_attribute("max"))
    for done in range(total):
        expect(page.locator("#progress-text")).to_have_text(f"{done} / {total} done")
        page.wait_for_load_state()     # the HIT's scripts, which handle the keys, run at the end of the page
        page.keyboard.press("0")       # "None of these key points"
        page.keyboard.press("Enter")
    expect(page.get_by_text("There is nothing left for you in this project")).to_be_visible()
    return total


def test_a_project_is_created_filled_and_exported_from_the_browser(new_page, make_user, fresh) -> None:  # type: ignore[no-untyped-def]
    make_user("boss", role="admin")
    admin = new_page()
    admin.goto("/login")
    admin.get_by_label("User name").fill("boss")
    admin.get_by_label("Password").fill(PASSWORD)
    admin.get_by_role("button", name="Log in").click()

    create_project(admin)
    one_time = create_annotator(admin)
    assert annotate_everything(new_page(), one_time) == 26

    admin.goto("/admin/projects/pilot")
    # a declared project of match.yaml (the box ticked by default): the gold counted by the question's values
    expect(admin.locator("#gold-counts")).to_contain_text("matches: 0")
    with admin.expect_download() as download:
        admin.get_by_role("button", name="Download the export (zip)").click()
    archive = zipfile.ZipFile(io.BytesIO(download.value.path().read_bytes()))
    assert sorted(archive.namelist()) == ["arguments_test.csv", "key_points_test.csv", "labels_test.csv", "votes.csv"]
    assert archive.read("arguments_test.csv") == KPA_FILES[0].read_bytes()
    labels = list(csv.DictReader(io.StringIO(archive.read("labels_test.csv").decode())))
    votes = list(csv.DictReader(io.StringIO(archive.read("votes.csv").decode())))
    assert len(labels) == len(votes) > 26  # k = 1: every (argument, key point) pair is decided by its vote
    assert {row["label"] for row in labels} == {"0"}

    fresh()
    project = db.session.scalar(select(Project).where(Project.slug == "pilot"))
    assert (project.k, project.guidelines) == (1, "Mark every key point the argument expresses.")
    assert db.session.scalar(select(func.count()).select_from(Item).where(Item.done_count == 1)) == 26


def test_a_refused_upload_shows_where_the_problem_is(page: Page, make_user, login, tmp_path, fresh) -> None:  # type: ignore[no-untyped-def]
    make_user("boss", role="admin")
    login(page, "boss")
    broken = tmp_path / "arguments_test.csv"
    text = KPA_FILES[0].read_text(encoding="utf-8").replace("arg_1_3,", "arg_1_2,", 1)  # a repeated id
    broken.write_text(text, encoding="utf-8")
    page.goto("/admin/projects/new/kpa2021")
    page.get_by_label("Files (or one zip of them)").set_input_files([broken, KPA_FILES[1]])
    page.get_by_label("Name", exact=True).fill("Broken")
    page.get_by_label("Slug (in URLs").fill("broken")
    page.get_by_label("Split").fill("test")
    page.get_by_role("button", name="Create the project").click()
    error = page.locator("#import-error")
    expect(error).to_contain_text("Nothing was imported")
    expect(error).to_contain_text("arguments_test.csv")
    expect(error).to_contain_text(re.compile(r"Line\s*\d+"))
    expect(error).to_contain_text("arg_id")
    fresh()
    assert db.session.scalar(select(func.count()).select_from(Project)) == 0
