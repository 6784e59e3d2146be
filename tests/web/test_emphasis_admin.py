"""Admin pages of an emphasis project (a declared project of selection.yaml): sentences by agreement with heat bars
(templates/admin/items/custom.html draws any span question with boundaries so), the project's figures, the export."""
from __future__ import annotations

import io
import re
import zipfile

import pytest

from annotator.core.extensions import db
from annotator.core.models import Project
from annotator.shared_tasks.emphasis2020.files import read_file
from tests.conftest import DATA, load_project

DEV = DATA / "emphasis2020" / "dev_excerpt.txt"  # Q_0, S_1, S_78 with nine annotators each


@pytest.fixture
def admin(login, make_user):  # type: ignore[no-untyped-def]
    make_user("boss", role="admin")
    return login("boss")


def _load(with_votes: bool = True, path=DEV, slug: str = "emph") -> Project:  # type: ignore[no-untyped-def]
    project = load_project("emphasis2020", path, slug, with_votes=with_votes, declared=True)
    db.session.commit()
    return project


def _order(html: str) -> list[str]:
    return re.findall(r'<li class="card item" id="item-([^"]+)">', html)


def _mean_pair_agreement(sentence) -> float:  # type: ignore[no-untyped-def]
    """Independently of agreement.py: per word the share of annotator pairs agreeing on emphasised-or-not."""
    shares = []
    for token in sentence.tokens:
        yes = sum(tag != "O" for tag in token.tags)
        n = len(token.tags)
        shares.append((yes * (yes - 1) + (n - yes) * (n - yes - 1)) / (n * (n - 1)))
    return sum(shares) / len(shares)


def test_sentences_come_lowest_agreement_first(admin):
    _load()
    expected = [s.sentence_id for s in sorted(read_file(DEV), key=_mean_pair_agreement)]
    html = admin.get("/admin/projects/emph/items/").get_data(as_text=True)
    assert _order(html) == expected


def test_highest_first_and_file_order_are_offered_too(admin):
    _load()
    lowest = _order(admin.get("/admin/projects/emph/items/").get_data(as_text=True))
    assert _order(admin.get("/admin/projects/emph/items/?order=highest").get_data(as_text=True)) == lowest[::-1]
    assert _order(admin.get("/admin/projects/emph/items/?order=position").get_data(as_text=True)) == \
        ["Q_0", "S_1", "S_78"]


def test_each_word_has_its_probability_as_a_heat_bar_and_its_counts(admin):
    _load()
    html = admin.get("/admin/projects/emph/items/").get_data(as_text=True)
    # Q_0_0 Life O|B|O|O|O|O|B|B|B 4|0|5; S_78_0 Back: 0.8888888888888888
    assert re.search(r'class="heat-word heat-4"\s+title="Q_0_0: B 4 · I 0 · O 5 of 9">\s*<span class="w">Life</span>'
                     r'\s*<meter min="0" max="1" value="0.4444444444444444">', html)
    assert html.count("<meter ") == sum(len(s.tokens) for s in read_file(DEV))


def test_the_votes_behind_a_sentence_are_listed_per_imported_annotator(admin):
    _load()
    html = admin.get("/admin/projects/emph/items/").get_data(as_text=True)
    assert html.count("<td>emph-annotator-1</td>") == 3 and html.count("<td>emph-annotator-9</td>") == 3
    assert "The 9 votes" in html


def test_the_page_shows_the_projects_fleiss_kappa_and_alpha_for_both_fields(admin):
    _load()
    html = admin.get("/admin/projects/emph/items/").get_data(as_text=True)
    # the definition's fields: selected or not (the paper's figure) and the three tags
    assert "<h3>emphasis</h3>" in html and "<h3>emphasis.bio</h3>" in html
    assert html.count("Krippendorff's alpha (nominal)") == 2 and "undefined" not in html


def test_sentences_without_votes_come_last_without_a_figure(admin):
    _load(with_votes=False)
    html = admin.get("/admin/projects/emph/items/").get_data(as_text=True)
    assert _order(html) == ["Q_0", "S_1", "S_78"] and html.count("no agreement yet") == 3
    assert 'title="Q_0_0: no votes"' in html


def test_pages_hold_a_fixed_number_of_sentences(admin, monkeypatch):
    from annotator.web import items
    monkeypatch.setattr(items, "PER_PAGE", 2)
    _load()
    first = admin.get("/admin/projects/emph/items/").get_data(as_text=True)
    second = admin.get("/admin/projects/emph/items/?page=2").get_data(as_text=True)
    assert len(_order(first)) == 2 and len(_order(second)) == 1
    assert "Page 2 of 2 (3 items)" in second and 'rel="next"' in first


@pytest.mark.parametrize("query", ["order=random", "page=0", "page=2"])
def test_an_unknown_order_or_a_page_out_of_range_is_a_404(admin, query):
    _load()
    assert admin.get(f"/admin/projects/emph/items/?{query}").status_code == 404


def test_annotators_may_not_see_the_items_page(login, make_user):
    _load()
    make_user("ann")
    assert login("ann").get("/admin/projects/emph/items/").status_code == 403


def test_the_project_page_links_to_the_items_page_and_names_the_gold_classes(admin):
    _load()
    html = admin.get("/admin/projects/emph").get_data(as_text=True)
    assert 'href="/admin/projects/emph/items/"' in html
    shares = [sum(tag != "O" for tag in t.tags) / len(t.tags) for s in read_file(DEV) for t in s.tokens]
    bands = [sum(p > 0.5 for p in shares), sum(0 < p <= 0.5 for p in shares), sum(p == 0 for p in shares)]
    assert sum(bands) == 33   # the three classes hold every word of the excerpt
    assert ("<dt>emphasis: p &gt; 0.5</dt><dd>{}</dd><dt>emphasis: 0 &lt; p ≤ 0.5</dt><dd>{}</dd>"
            "<dt>emphasis: p = 0</dt><dd>{}</dd>").format(*bands) in html


def test_a_key_point_project_gets_the_generic_item_view(admin, kpa_project):
    kpa_project()
    html = admin.get("/admin/projects/kpa/items/").get_data(as_text=True)
    assert len(_order(html)) == 25 and "Page 1 of 2 (26 items)" in html
    assert "Social media platforms should be regulated by the government" in html


def test_the_admin_export_zip_holds_the_three_files(admin):
    _load()
    response = admin.get("/admin/projects/emph/export.zip")
    names = zipfile.ZipFile(io.BytesIO(response.data)).namelist()
    assert sorted(names) == ["dev_excerpt.txt", "dev_excerpt_submission.txt", "dev_excerpt_words_only.txt"]
    assert zipfile.ZipFile(io.BytesIO(response.data)).read("dev_excerpt.txt") == DEV.read_bytes()
