"""Property: every upload (a leaderboard's team submission and gold set, a new project's files) is accepted
and kept exactly as sent, or refused with a message in words (never a server path) and no row added
anywhere; never a 500 (both engines).

Uploads start from real files (tests/data/scoring for the scorers, tests/support/type_data.py for the
formats) and Hypothesis changes them: a zip of them with one member added, renamed, repeated or dropped
(names like `..`, absolute, 300 bytes long, in folders, archivers' junk, what another scorer reads), the
files nested a folder deeper, a plain file of any bytes, or an empty one.
"""
from __future__ import annotations

import html
import io
import re
import tempfile
import warnings
import zipfile
from pathlib import Path
from typing import Any

import pytest
from flask import url_for
from hypothesis import event, given
from hypothesis import strategies as st
from sqlalchemy import func, select

from annotator.campaigns import leaderboard
from annotator.core.extensions import db
from annotator.core.models import GoldSet, Item, Project, Submission
from annotator.core.options import Option
from annotator.lookups.formats import FORMATS, file_format
from annotator.lookups.scorers import SCORERS
from annotator.tasks import settings_with_defaults, task_type
from annotator.web.forms import option_defaults
from tests.conftest import DATA
from tests.support.property_checks import SETTINGS, TEXT, forget_project, row_counts
from tests.support.type_data import EVERY_FORMAT
from tests.web.conftest import csrf_token

SCORING = DATA / "scoring"
# Per scorer: its gold (a file, or the folder zipped) and a submission it scores, from tests/data/scoring.
SCORER_DATA: dict[str, tuple[Path, bytes]] = {
    "kpa2021": (SCORING / "kpa2021", b'{"arg_4_0": {"kp_4_1": 0.9}, "arg_4_121": {"kp_4_0": 0.8}}'),
    "emphasis2020": (SCORING / "emphasis2020" / "dev_excerpt.txt",
                     ("\n" + "\n\n".join("\n".join("x\tw\t0.5\t" for _ in range(n)) for n in (9, 9, 4, 3, 2))
                      + "\n").encode()),
    "ruarg2022": (SCORING / "ruarg2022" / "train_excerpt.tsv",
                  (SCORING / "ruarg2022" / "train_excerpt.tsv").read_bytes()),
    "recam2021": (SCORING / "recam2021" / "Task_1_dev_excerpt.jsonl",
                  (SCORING / "recam2021" / "subtask1_excerpt.csv").read_bytes()),
}
NAMES = st.sampled_from(["..", ".", "../x.csv", "/etc/passwd", "a/../../b", "x" * 300, "é" * 200 + ".csv", "dir/",
                         "dir/deeper/x", "__MACOSX/._x", ".DS_Store", "C:\\evil.csv", "a\\..\\..\\b",
                         "predictions.p", "predictions.json", "subtask1.csv", "subtask2.csv", "answer.tsv",
                         "arguments_dev.csv", "nested.zip", "readme.txt"]) | st.text(min_size=1, max_size=20).filter(
    lambda n: n.split("\x00")[0] != "")  # zipfile cuts a name at NUL and cannot write an empty one
CONTENT = st.binary(max_size=200) | st.sampled_from([b"", b"\x00" * 10, b"PK\x05\x06" + bytes(18)])


def _zip(members: list[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a duplicate name is one of the cases
        for name, content in members:
            archive.writestr(name, content)
    return buffer.getvalue()


def _files_of(path: Path) -> list[tuple[str, bytes]]:
    if path.is_file():
        return [(path.name, path.read_bytes())]
    return [(p.relative_to(path).as_posix(), p.read_bytes()) for p in sorted(path.rglob("*"))
            if p.is_file() and p.suffix not in (".py", ".md")]


def _changed_members(data: st.DataObject, members: list[tuple[str, bytes]]) -> list[tuple[str, bytes]]:
    """The members with one change, or as they are."""
    change = data.draw(st.sampled_from(["none", "add", "rename", "repeat", "drop", "nest", "empty zip"]),
                       label="zip change")
    index = data.draw(st.integers(0, len(members) - 1), label="member")
    if change == "add":
        return [*members, (data.draw(NAMES, label="added"), data.draw(CONTENT, label="its bytes"))]
    if change == "rename":
        return [*members[:index], (data.draw(NAMES, label="new name"), members[index][1]), *members[index + 1:]]
    if change == "repeat":
        return [*members, members[index]]
    if change == "drop":
        return members[:index] + members[index + 1:]
    if change == "nest":
        return [(f"{data.draw(st.sampled_from(['data', 'a/b']), label='folder')}/{n}", c) for n, c in members]
    return [] if change == "empty zip" else members


def _upload(data: st.DataObject, files: list[tuple[str, bytes]]) -> list[tuple[str, bytes]]:
    """(file name, bytes) of each uploaded file: the files zipped with one change, the files as they are,
    or one plain file of any bytes under any name."""
    kind = data.draw(st.sampled_from(["zip", "zip", "plain", "any file"]), label="upload")
    if kind == "zip":
        return [(data.draw(st.sampled_from(["upload.zip", "x.zip", "..", "a" * 300 + ".zip"]), label="zip name"),
                 _zip(_changed_members(data, files)))]
    if kind == "plain":
        return [(Path(name).name, content) for name, content in files]
    return [(data.draw(NAMES, label="file name"), data.draw(CONTENT, label="file bytes"))]


def _form_fields(options: tuple[Option, ...], values: dict) -> dict[str, str]:  # type: ignore[type-arg]
    """Form data as the page fills it in: text of each option's value, booleans left out when false."""
    fields = option_defaults(options, values)
    return {k: ("y" if v is True else v) for k, v in fields.items() if v is not False}


def _refusal(response, marker: str) -> str:  # type: ignore[no-untyped-def]
    """The refusal's words on the page (after `marker`, or a form field's error), after checking they are there
    and show no server path."""
    page = html.unescape(response.get_data(as_text=True))
    assert tempfile.gettempdir() not in page and "Traceback" not in page
    found = re.search(marker + r"\s*(?:</[^>]+>\s*)*(.+)", page) or re.search(r'class="error">([^<]+)', page)
    assert found and found.group(1).strip(), page[:2000]
    return found.group(1)


@pytest.fixture
def admin(login, make_user):  # type: ignore[no-untyped-def]
    make_user("boss", role="admin")
    return login("boss")


def form_token(admin, url: str) -> str:  # type: ignore[no-untyped-def]
    """The CSRF token of the form at `url`, from the page as the admin gets it: at the test's first example, and
    kept for its later ones (one token holds for the whole login session, as in a browser; fetching the page again
    for each example was a fifth of the examples' requests' time and is not what the properties are about)."""
    tokens = admin.__dict__.setdefault("form_tokens", {})
    if url not in tokens:
        tokens[url] = csrf_token(admin.get(url).get_data(as_text=True))
    return tokens[url]


def _gold_upload(task: str) -> tuple[str, bytes]:
    gold, _ = SCORER_DATA[task]
    if gold.is_dir():
        return "gold.zip", _zip(_files_of(gold))
    return gold.name, gold.read_bytes()


def test_every_scorer_has_upload_data() -> None:
    assert set(SCORER_DATA) == set(SCORERS), "add the scorer's gold and a submission to SCORER_DATA"


@pytest.mark.parametrize("task", sorted(SCORERS))
@given(data=st.data())
@SETTINGS
def test_a_team_submission_is_scored_and_kept_or_refused_in_words(app, admin, task, data):  # type: ignore[no-untyped-def]
    board = db.session.scalar(select(GoldSet.id))
    if board is None:  # once per test, not per example
        board = leaderboard.create_gold_set("gold", task, *_gold_upload(task), {}).id
    _, predictions = SCORER_DATA[task]
    name, content = _upload(data, [(data.draw(st.sampled_from([*SCORERS[task].zip_members, "predictions"]),
                                              label="name").replace("*", "answer"), predictions)])[0]
    url = f"/admin/leaderboards/{board}"
    before = row_counts()
    response = admin.post(url, content_type="multipart/form-data", data={
        "csrf_token": form_token(admin, url), "team": "Team", "system": "one", "file": (io.BytesIO(content), name)})
    assert response.status_code in (302, 400), response.get_data(as_text=True)[:500]
    if response.status_code == 400:
        event("refused")
        _refusal(response, "The submission was not scored:")
        assert row_counts() == before
        return
    event("scored")
    kept = db.session.scalars(select(Submission)).all()
    assert len(kept) == 1 and kept[0].content == content
    db.session.delete(kept[0])
    db.session.commit()


@pytest.mark.parametrize("task", sorted(SCORERS))
@given(data=st.data())
@SETTINGS
def test_a_gold_set_is_kept_as_sent_or_refused_in_words(app, admin, task, data):  # type: ignore[no-untyped-def]
    gold, _ = SCORER_DATA[task]
    name, content = _upload(data, _files_of(gold))[0]
    if SCORERS[task].gold_kind == "file" and name.endswith(".zip"):
        event("a zip where a file is expected")
    url = f"/admin/leaderboards/new/{task}"
    options = _form_fields(SCORERS[task].options, {o.name: o.default for o in SCORERS[task].options})
    before = row_counts()
    response = admin.post(url, content_type="multipart/form-data", data={
        "csrf_token": form_token(admin, url), "name": "gold", **options, "file": (io.BytesIO(content), name)})
    assert response.status_code in (302, 400), response.get_data(as_text=True)[:500]
    if response.status_code == 400:
        event("refused")
        _refusal(response, "This gold set cannot be used:")
        assert row_counts() == before
        return
    event("kept")
    kept = db.session.scalars(select(GoldSet)).all()
    assert len(kept) == 1 and kept[0].content == content
    db.session.delete(kept[0])
    db.session.commit()


FORMAT_DATA = EVERY_FORMAT


def test_every_format_has_upload_data() -> None:
    assert set(FORMAT_DATA) == set(FORMATS), \
        "add the format's test data to TEST_DATA or MORE_FORMATS in tests/support/type_data.py"


@pytest.mark.parametrize("name", sorted(FORMATS))
@given(data=st.data())
@SETTINGS
def test_a_new_project_upload_is_imported_whole_or_refused_in_words(app, admin, name, data):  # type: ignore[no-untyped-def]
    source, fmt = FORMAT_DATA[name], file_format(name)
    task = task_type(fmt.task)
    files = _upload(data, _files_of(source.path))
    if fmt.new_project is not None:
        action = data.draw(st.sampled_from(["preview", "create"]), label="button")
        return _own_page_upload(admin, fmt.new_project, source, name, files, action)
    options = fmt.import_options + task.settings
    fields = _form_fields(options, {**{o.name: o.default for o in fmt.import_options},
                                    **settings_with_defaults(task, {}), **source.options})
    url = f"/admin/projects/new/{name}"
    before = row_counts()
    response = admin.post(url, content_type="multipart/form-data", data={
        "csrf_token": form_token(admin, url), "name": "Fuzz", "slug": "fuzz", "k": "3", "lease_minutes": "20",
        "guidelines": "", **fields, "files": [(io.BytesIO(content), file) for file, content in files]})
    assert response.status_code in (302, 400), response.get_data(as_text=True)[:500]
    if response.status_code == 400:
        event("refused")
        _refusal(response, "Nothing was imported")
        assert row_counts() == before
        return
    event("imported")
    _imported_whole(files, source, name)
    assert row_counts() == before


# Items in each format's test data (tests/support/type_data.py), counted in the files themselves: an upload of those
# files as they are must import every one of them, not merely some.
ITEMS_IN_TEST_DATA = {"kpa2021": 26, "emphasis2020": 3, "ruarg2022": 11, "kpa2021-check": 39, "kpa2021-compare": 6,
                      "recam2021": 4, "custom": 3}


def _as_uploaded(files: list[tuple[str, bytes]]) -> set[tuple[str, bytes]]:
    """(base name, bytes) of the files uploaded, a zip's members read out."""
    found = set()
    for name, content in files:
        if name.endswith(".zip") and zipfile.is_zipfile(io.BytesIO(content)):
            with zipfile.ZipFile(io.BytesIO(content)) as archive:
                found |= {(Path(m).name, archive.read(m)) for m in archive.namelist() if not m.endswith("/")}
        else:
            found.add((Path(name).name, content))
    return found


def _imported_whole(files: list[tuple[str, bytes]], source: Any, format_name: str) -> None:
    """The project "fuzz" has items, and all of the test data's when its files were uploaded unchanged; then it
    is removed."""
    db.session.remove()
    project = db.session.scalar(select(Project).where(Project.slug == "fuzz"))
    items = db.session.scalar(select(func.count()).select_from(Item).where(Item.project_id == project.id))
    assert items > 0
    if _as_uploaded(files) == {(Path(n).name, c) for n, c in _files_of(source.path)}:
        event("imported unchanged")
        assert items == ITEMS_IN_TEST_DATA[format_name], (items, format_name)
    forget_project(project)


def _own_page_upload(admin, endpoint: str, source: Any, format_name: str,  # type: ignore[no-untyped-def]
                     files: list[tuple[str, bytes]], action: str) -> None:
    """A format whose projects are made on a page of its own (a declared campaign: its definition, the files
    the definition names, and the items): the items are the changed upload, the definition as it is; the page
    previews (nothing stored) or creates."""
    with admin.application.test_request_context():
        url = url_for(endpoint)
    definition = Path(source.options["definition"])
    beside = [p for p in definition.parent.glob("*.md") if p.name != "SOURCE.md"]  # its guidelines
    before = row_counts()
    name, content = files[0]
    response = admin.post(url, content_type="multipart/form-data", data={
        "csrf_token": form_token(admin, url), "slug": "fuzz", "name": "", "k": "3", "lease_minutes": "20",
        "action": action, "definition": (io.BytesIO(definition.read_bytes()), definition.name),
        "beside": [(io.BytesIO(p.read_bytes()), p.name) for p in beside],
        "items": (io.BytesIO(content), name)})
    assert response.status_code in ((200, 400) if action == "preview" else (302, 400)), \
        response.get_data(as_text=True)[:500]
    if response.status_code == 200:
        event("previewed")
        assert 'id="create-form"' in response.get_data(as_text=True)
        assert row_counts() == before
        return
    if response.status_code == 400:
        event("refused")
        _refusal(response, "Nothing was imported")
        assert row_counts() == before
        return
    event("imported")
    _imported_whole(files[:1], source, format_name)
    assert row_counts() == before


# --- the upload forms of issue 42: a definition, more items, the project-setup fields ---------------------------
# What used to answer 500: a definition too large to parse in a worker's life, JSON nested 5,000 deep, numbers of
# 5,000 digits, escaped lone surrogates. Each property draws them among ordinary mistakes; every answer must be a
# page (the preview, or the project made) or a 400 that says what is wrong, and a refusal changes no row.

DEFINITION_LIMIT = 8 * 1024   # the examples' DEFINITION_MAX_BYTES, so that "too large" costs no time
DECLARED_DATA = DATA / "declared"
EVERY_KIND_DEFINITION = DECLARED_DATA / "every_kind.yaml"
GOOD_ITEM = {"text": "Life is defined more by its risks .", "other": "Back to Life", "text_id": "Q_0",
             "other_id": "S_78"}
# JSON text no database keeps, or no parser survives: each replaces one value of a line or a definition.
POISON = st.sampled_from(["[" * 5000 + "]" * 5000, "{\"a\": " * 3000 + "1" + "}" * 3000, "7" * 5000, "-" + "9" * 4301,
                          "1e999", "NaN", "-Infinity", '"\\ud800"', '"x\\udfffy"', '"\\u0000"', '["a", "\\ud83d"]',
                          "[1, 2", '"unterminated', "{}", "[]", "null", "true", '"' + "x" * 200_000 + '"'])


def _definition_bytes(data: st.DataObject) -> tuple[str, bytes]:
    """The real definition, as YAML or as JSON, with one change: a value poisoned, cut short, made too large,
    nested too deep, or any bytes."""
    import json as json_module

    import yaml
    source = EVERY_KIND_DEFINITION.read_text(encoding="utf-8")
    change = data.draw(st.sampled_from(["as is", "json", "poison a value", "cut", "too large", "deep yaml",
                                        "any bytes", "not utf-8"]), label="definition change")
    if change == "json":
        return "task.json", json_module.dumps(yaml.safe_load(source)).encode()
    if change == "poison a value":
        parsed = json_module.dumps(yaml.safe_load(source))
        values = [m.start() for m in re.finditer(r'": ', parsed)]
        at = values[data.draw(st.integers(0, len(values) - 1), label="value")] + 3
        end = re.search(r"[,}\]]", parsed[at:])
        poison = data.draw(POISON, label="poison")
        return "task.json", (parsed[:at] + poison + parsed[at + (end.start() if end else 0):]).encode()
    if change == "cut":
        return "task.yaml", source.encode()[:data.draw(st.integers(0, len(source.encode())), label="cut at")]
    if change == "too large":
        return "task.yaml", source.encode() + b"\n# " + b"x" * DEFINITION_LIMIT + b"\n"
    if change == "deep yaml":
        return "task.yaml", source.encode() + b"extra: " + b"[" * 3000 + b"]" * 3000 + b"\n"
    if change == "any bytes":
        return data.draw(st.sampled_from(["task.yaml", "task.json", "task.zip", "task"]), label="name"), \
            data.draw(CONTENT, label="bytes")
    if change == "not utf-8":
        return "task.yaml", source.encode("utf-16")
    return "task.yaml", source.encode()


@given(data=st.data())
@SETTINGS
def test_a_definition_upload_is_previewed_made_or_refused_in_words(app, admin, data, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setitem(app.config, "DEFINITION_MAX_BYTES", DEFINITION_LIMIT)
    name, content = _definition_bytes(data)
    action = data.draw(st.sampled_from(["preview", "create"]), label="button")
    url = "/admin/projects/declared/new"
    before = row_counts()
    response = admin.post(url, content_type="multipart/form-data", data={
        "csrf_token": form_token(admin, url), "slug": "fuzz", "name": "", "k": "", "lease_minutes": "20",
        "action": action,
        "definition": (io.BytesIO(content), name),
        "beside": [(io.BytesIO((DECLARED_DATA / "guidelines.md").read_bytes()), "guidelines.md")],
        "items": (io.BytesIO((DECLARED_DATA / "items.jsonl").read_bytes()), "items.jsonl")})
    assert response.status_code in ((200, 400) if action == "preview" else (302, 400)), \
        response.get_data(as_text=True)[:500]
    if response.status_code == 302:
        event("made")
        db.session.remove()
        forget_project(db.session.scalar(select(Project).where(Project.slug == "fuzz")))
        assert row_counts() == before
        return
    if response.status_code == 400:
        event("refused")
        _refusal(response, "Nothing was imported")
    else:
        event("previewed")
    assert row_counts() == before


def _items_line(data: st.DataObject, n: int, tag: str) -> str:
    """One line of a JSON Lines items file: a good item (its id new), or one with a value poisoned or a key
    unknown, or not JSON at all."""
    import json as json_module
    kind = data.draw(st.sampled_from(["good", "good", "good", "poison", "unknown key", "text", "blank"]),
                     label=f"line {n}")
    item = {"id": f"{tag}-{n}", **GOOD_ITEM}
    if kind == "poison":
        key = data.draw(st.sampled_from(sorted(item)), label="poisoned key")
        marker = "\x01POISON\x01"
        return json_module.dumps({**item, key: marker}).replace(json_module.dumps(marker),
                                                                data.draw(POISON, label="poison"))
    if kind == "unknown key":
        return json_module.dumps({**item, data.draw(TEXT, label="key"): "x"})
    if kind == "text":
        return data.draw(TEXT, label="text").replace("\n", " ").replace("\r", " ")
    return "" if kind == "blank" else json_module.dumps(item)


@given(data=st.data())
@SETTINGS
def test_more_items_for_a_declared_project_are_added_whole_or_refused_in_words(app, admin, data):  # type: ignore[no-untyped-def]
    from tests.support.declared_projects import make_declared_project
    if db.session.scalar(select(Project.id).where(Project.slug == "quotes")) is None:  # once per test
        make_declared_project("quotes")
    tag = data.draw(st.uuids(), label="ids").hex[:8]
    lines = [_items_line(data, n, tag) for n in range(data.draw(st.integers(1, 6), label="lines"))]
    url = "/admin/projects/declared/quotes/more"
    before = row_counts()
    tagged = select(Item.external_id).where(Item.external_id.startswith(f"{tag}-"))
    earlier = set(db.session.scalars(tagged))   # an example replayed while shrinking draws the same tag again
    response = admin.post(url, content_type="multipart/form-data", data={
        "csrf_token": form_token(admin, url), "items": (io.BytesIO("\n".join(lines).encode()), "more.jsonl")})
    assert response.status_code in (302, 400), response.get_data(as_text=True)[:500]
    if response.status_code == 400:
        event("refused")
        _refusal(response, "Nothing was imported")
        assert row_counts() == before
        return
    event("added")
    db.session.remove()
    added = set(db.session.scalars(tagged)) - earlier
    # a line of white space is skipped, and so is a first line holding only a byte order mark
    kept = [line.removeprefix("\ufeff") if n == 0 else line for n, line in enumerate(lines)]
    assert len(added) == sum(1 for line in kept if line.strip())
    assert row_counts()["items"] == before["items"] + len(added)


SETUP_FORMAT = "ruarg2022"   # one file, a few items, import options and HIT settings of every kind


@given(data=st.data())
@SETTINGS
def test_the_new_project_forms_fields_are_taken_or_refused_in_words(app, admin, data):  # type: ignore[no-untyped-def]
    """Every field of the project-setup form (slug, name, k, lease, guidelines, the format's options and the HIT
    type's settings) filled with any text, the files as they are."""
    source, fmt = FORMAT_DATA[SETUP_FORMAT], file_format(SETUP_FORMAT)
    task = task_type(fmt.task)
    options = fmt.import_options + task.settings
    fields = _form_fields(options, {**{o.name: o.default for o in fmt.import_options},
                                    **settings_with_defaults(task, {}), **source.options})
    fields.update(slug="fuzz", name="Fuzz", k="3", lease_minutes="20", guidelines="")
    for name in data.draw(st.lists(st.sampled_from(sorted(fields)), max_size=3, unique=True), label="changed"):
        fields[name] = data.draw(TEXT | st.sampled_from(["0", "-1", "99999999999999999999", "1e999", "NaN",
                                                         "7" * 5000, "[" * 5000]), label=name)
    url = f"/admin/projects/new/{SETUP_FORMAT}"
    before = row_counts()
    response = admin.post(url, content_type="multipart/form-data", data={
        "csrf_token": form_token(admin, url), **fields,
        "files": [(io.BytesIO(content), file) for file, content in _files_of(source.path)]})
    assert response.status_code in (302, 400), response.get_data(as_text=True)[:500]
    if response.status_code == 400:
        event("refused")
        page_text = html.unescape(response.get_data(as_text=True))
        assert "Traceback" not in page_text and ('class="error"' in page_text or "Nothing was imported" in page_text)
        assert row_counts() == before
        return
    event("made")
    db.session.remove()
    forget_project(db.session.scalar(select(Project).where(Project.slug == fields["slug"])))
    assert row_counts() == before
