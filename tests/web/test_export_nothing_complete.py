"""The project page says, beside the export's download, why the gold file of an export with no complete item holds
no row, in every registered format (the fixture of tests/cli/test_export_nothing_complete.py)."""
from __future__ import annotations

import io
import re
import zipfile

from annotator.engine import assignment as engine
from tests.cli.test_export_nothing_complete import GOLD_FILES, half_voted  # noqa: F401  (a fixture)


def test_the_project_page_says_why_beside_the_download(login, make_user, half_voted):  # noqa: F811
    make_user("boss", role="admin")
    html = login("boss").get("/admin/projects/p").get_data(as_text=True)
    note = re.search(r'<p class="muted" id="no-gold">([^<]*)</p>', html)
    assert note is not None
    assert note.group(1).startswith("No item of project p is complete yet (3 votes; 0 of ")
    assert "The export&#39;s gold file holds no row" in note.group(1)


def test_the_downloaded_zip_holds_the_gold_file(login, make_user, half_voted):  # noqa: F811
    make_user("boss", role="admin")
    response = login("boss").get("/admin/projects/p/export.zip")
    assert GOLD_FILES[half_voted.name] in zipfile.ZipFile(io.BytesIO(response.data)).namelist()


def test_the_page_says_nothing_of_it_once_an_item_is_complete(login, make_user, kpa_project):
    project, ann = kpa_project(k=1), make_user("ann")
    lease = engine.next_for(ann, project)
    engine.submit(lease.id, ann, {"matches": []})
    make_user("boss", role="admin")
    assert 'id="no-gold"' not in login("boss").get("/admin/projects/kpa").get_data(as_text=True)
