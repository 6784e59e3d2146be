"""Every form of the app refuses text holding NUL at the field, with nothing changed (annotator/core/forms.py).

PostgreSQL refuses NUL in a text column: before the shared base, a project's guidelines holding one answered 500 on
PostgreSQL (found by tests/properties/test_upload_properties.py); SQLite kept it.
"""
from __future__ import annotations

import importlib
import io
import pkgutil

from flask_wtf import FlaskForm
from markupsafe import escape
from sqlalchemy import func, select

import annotator
from annotator.core.extensions import db
from annotator.core.forms import NUL_MESSAGE, Form
from annotator.core.models import Project
from tests.conftest import DATA, load_project, stored
from tests.web.conftest import csrf_token

KPA = DATA / "kpa2021"
KPA_FILES = ("arguments_test.csv", "key_points_test.csv", "labels_test.csv")


def _subclasses(cls: type) -> set[type]:
    found = set(cls.__subclasses__())
    return found.union(*(_subclasses(sub) for sub in found)) if found else found


def test_every_form_of_the_app_is_made_on_the_base_that_refuses_nul():
    for module in pkgutil.walk_packages(annotator.__path__, "annotator."):
        importlib.import_module(module.name)
    ours = {cls for cls in _subclasses(FlaskForm) if cls.__module__.startswith("annotator.")}
    assert len(ours) > 20   # the walk found the forms: the admin pages', the HIT forms', a shared task's page's
    assert {f"{cls.__module__}.{cls.__qualname__}" for cls in ours if not issubclass(cls, Form)} == set()


def _admin(login, make_user):  # type: ignore[no-untyped-def]
    make_user("boss", role="admin")
    return login("boss")


def test_guidelines_holding_nul_are_refused_at_the_field_and_no_project_is_made(login, make_user):
    client = _admin(login, make_user)
    url = "/admin/projects/new/kpa2021"
    response = client.post(url, content_type="multipart/form-data", data={
        "csrf_token": csrf_token(client.get(url).get_data(as_text=True)), "name": "Mine", "slug": "mine", "k": "3",
        "lease_minutes": "20", "guidelines": "Read\x00 carefully.", "split": "test", "declared": "y",
        "files": [(io.BytesIO((KPA / name).read_bytes()), name) for name in KPA_FILES]})
    assert response.status_code == 400
    assert str(escape(NUL_MESSAGE)) in response.get_data(as_text=True)
    db.session.remove()
    assert db.session.scalar(select(func.count()).select_from(Project)) == 0


def test_a_project_name_holding_nul_is_refused_and_the_settings_stay_as_they_were(login, make_user):
    load_project("kpa2021", KPA, "kpa", split="test", k=3)
    client = _admin(login, make_user)
    page = client.get("/admin/projects/kpa").get_data(as_text=True)
    response = client.post("/admin/projects/kpa", data={
        "csrf_token": csrf_token(page), "name": "K\x00PA", "k": "5", "lease_minutes": "15", "guidelines": "New.",
        "positive_threshold": "0.6", "negative_threshold": "0.15"})
    assert str(escape(NUL_MESSAGE)) in response.get_data(as_text=True)
    project = stored(Project, slug="kpa")
    assert (project.name, project.k, project.lease_minutes, project.guidelines) == (
        "Argument / key-point match (KPA-2021)", 3, 30, "")


def test_the_same_form_without_nul_is_taken(login, make_user):
    load_project("kpa2021", KPA, "kpa", split="test", k=3)
    client = _admin(login, make_user)
    page = client.get("/admin/projects/kpa").get_data(as_text=True)
    client.post("/admin/projects/kpa", data={
        "csrf_token": csrf_token(page), "name": "KPA", "k": "5", "lease_minutes": "15", "guidelines": "New.",
        "positive_threshold": "0.6", "negative_threshold": "0.15"})
    project = stored(Project, slug="kpa")
    assert (project.name, project.k, project.lease_minutes, project.guidelines) == ("KPA", 5, 15, "New.")


def test_a_filter_in_the_address_holding_nul_is_a_400_that_names_it(login, make_user):
    client = _admin(login, make_user)
    for url, name in (("/admin/audit?project=%00", "project"), ("/admin/audit?action=a%00b", "action"),
                      ("/admin/audit?p%00=x", "p\\u0000")):
        response = client.get(url)
        assert response.status_code == 400, url
        assert f"The address&#39;s parameter &#39;{name}&#39; holds a NUL character" in response.get_data(as_text=True)


def test_the_api_says_the_same_in_json(api_client):
    response = api_client("ann").get("/api/projects?x=%00")
    assert response.status_code == 400
    assert response.get_json()["error"].startswith("The address's parameter 'x' holds a NUL character")
