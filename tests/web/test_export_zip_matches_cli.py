"""The admin page's export zip holds exactly what `flask export FORMAT --project SLUG` writes: the same files at
the same paths (the custom format's dataset/ folder included) with the same bytes, in every registered format,
with and without the pending items (campaigns/exports.build_export writes the file set for both)."""
from __future__ import annotations

import html
import io
import re
import zipfile
from pathlib import Path

import pytest

from tests.cli.test_export_declared import voted  # noqa: F401  (a fixture)
from tests.cli.test_export_nothing_complete import half_voted  # noqa: F401  (a fixture)


def _cli_files(app, fmt: str, slug: str, out: Path, include: bool) -> dict[str, bytes]:  # type: ignore[no-untyped-def]
    args = ["export", fmt, "--project", slug, "--out", str(out)] + (["--include-incomplete"] if include else [])
    result = app.test_cli_runner().invoke(args=args)
    assert result.exit_code == 0, result.output
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def _zip_files(client, slug: str, include: bool) -> dict[str, bytes]:  # type: ignore[no-untyped-def]
    response = client.get(f"/admin/projects/{slug}/export.zip" + ("?include_incomplete=1" if include else ""))
    assert response.status_code == 200 and response.mimetype == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(response.data))
    return {name: archive.read(name) for name in archive.namelist()}


@pytest.mark.parametrize("include", [False, True], ids=["complete-only", "pending-included"])
def test_the_zip_holds_the_files_the_command_writes_in_every_format(app, login, make_user, half_voted, tmp_path,  # noqa: F811
                                                                    include):
    make_user("boss", role="admin")
    written = _cli_files(app, half_voted.name, "p", tmp_path / "out", include)
    zipped = _zip_files(login("boss"), "p", include)
    assert sorted(zipped) == sorted(written)
    assert zipped == written
    assert ("README.txt" in zipped) is include


def test_the_zip_of_a_declared_campaign_keeps_the_dataset_folder(app, login, make_user, voted, tmp_path):  # noqa: F811
    make_user("boss", role="admin")
    written = _cli_files(app, "custom", "quotes", tmp_path / "out", include=False)
    zipped = _zip_files(login("boss"), "quotes", include=False)
    assert sorted(zipped) == ["dataset/README.md", "dataset/gold.parquet", "dataset/items.parquet",
                              "dataset/votes.parquet", "gold.csv", "gold.jsonl", "votes.csv", "votes.jsonl"]
    assert zipped == written


def _export_form_text(client, slug: str) -> str:  # type: ignore[no-untyped-def]
    page = client.get(f"/admin/projects/{slug}").get_data(as_text=True)
    form = re.search(r'<form method="get" action="/admin/projects/[^"]+/export.zip" id="export">(.*?)</form>', page,
                     re.DOTALL)
    assert form is not None
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", form.group(1))).split())


def test_the_export_form_names_every_file_the_zip_holds_in_every_format(app, login, make_user, half_voted):  # noqa: F811
    make_user("boss", role="admin")
    client = login("boss")
    text = _export_form_text(client, "p")
    assert f"The zip holds what flask export {half_voted.name} --project p writes, in the same folders: " in text
    for name in _zip_files(client, "p", include=True):
        assert name.rsplit("/", 1)[-1] in text, name


def test_the_export_form_promises_readme_txt_only_with_the_pending_items(login, make_user, voted):  # noqa: F811
    make_user("boss", role="admin")
    text = _export_form_text(login("boss"), "quotes")
    assert ("the folder dataset/, ready to publish: items.parquet, votes.parquet and gold.parquet (typed columns) "
            "with README.md, its data card.") in text
    assert "Include the 0 pending items (the zip then also holds README.txt, which says how many were pending)" in text
    assert text.count("README.txt") == 1
