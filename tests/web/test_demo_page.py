"""The admin's demo page: one line per demo campaign on what it is for, with its HIT, dashboard and export."""
from __future__ import annotations

import html
import re

from annotator.campaigns.demo_projects import demo_projects
from tests.conftest import DEMO_PASSWORDS
from tests.web.conftest import open_hit_page


def _demo_admin(login):  # type: ignore[no-untyped-def]
    return login("admin", DEMO_PASSWORDS["ANNOTATOR_ADMIN_PASSWORD"])


def test_the_demo_page_says_what_each_campaign_is_for(demo, login):
    page = html.unescape(_demo_admin(login).get("/admin/demo").get_data(as_text=True))
    for spec in demo_projects():
        row = page.split(f'id="demo-{spec["slug"]}"')[1].split("</tr>")[0]
        assert spec["purpose"] in row and spec["name"] in row


def test_every_link_of_the_demo_page_opens(demo, login):
    client = _demo_admin(login)
    page = client.get("/admin/demo").get_data(as_text=True)
    for spec in demo_projects():
        row = page.split(f'id="demo-{spec["slug"]}"')[1].split("</tr>")[0]
        links = dict(re.findall(r'class="(hit|dashboard|export)-link" href="([^"]+)"', row))
        assert set(links) == {"hit", "dashboard", "export"}, spec["slug"]
        for kind, url in links.items():
            response = client.get(html.unescape(url))
            assert response.status_code == 200, (spec["slug"], kind, url)
        assert client.get(links["export"]).mimetype == "application/zip"


def test_the_projects_page_links_to_the_demo_page_once_the_demo_is_loaded(app, login, make_user):
    make_user("boss", role="admin")
    client = login("boss")
    assert "/admin/demo" not in client.get("/admin/").get_data(as_text=True)
    assert app.test_cli_runner().invoke(args=["demo"]).exit_code == 0
    assert 'href="/admin/demo"' in client.get("/admin/").get_data(as_text=True)


def test_the_first_demo_annotator_gets_a_hit_of_every_demo_project(demo, login):
    client = login("annotator1", DEMO_PASSWORDS["ANNOTATOR_DEMO_PASSWORD"])
    for spec in demo_projects():
        page = open_hit_page(client, spec["slug"])
        assert page.status_code == 200 and "/a/" in page.get_data(as_text=True), spec["slug"]
