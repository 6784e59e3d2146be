"""Control items in bulk: a CSV of item ids (with known answers, or the imported ones) marks or unmarks them,
all or nothing, on the project's admin page and with `flask controls`; set-based for 30,000 items."""
from __future__ import annotations

import json

import pytest
from sqlalchemy import event, insert, select

from annotator.core.extensions import db
from annotator.core.models import Item, Project
from annotator.quality.bulk_controls import draw_controls, mark_controls, read_control_file, unmark_controls
from annotator.quality.controls import ControlRefused
from tests.web.conftest import csrf_token


def controls_of(slug: str) -> dict[str, object]:
    """{external id: reference} of the project's control items, read in a fresh session."""
    db.session.remove()
    project = db.session.scalar(select(Project).where(Project.slug == slug))
    return dict(db.session.execute(select(Item.external_id, Item.reference)
                                   .where(Item.project_id == project.id, Item.is_control.is_(True))).all())


def reference_of(slug: str, external_id: str) -> object:
    db.session.remove()
    return db.session.scalar(select(Item.reference).join(Project).where(Project.slug == slug,
                                                                          Item.external_id == external_id))


def mark(project: Project, text: str, filename: str = "controls.csv") -> int:
    count = mark_controls(project, read_control_file(text, filename), filename)
    db.session.commit()
    return count


def test_ids_without_answers_become_controls_with_their_imported_reference(kpa_project):
    project = kpa_project(k=1)
    known = reference_of("kpa", "arg_1_0")
    assert mark(project, "item\narg_1_0\narg_1_1\n") == 2
    controls = controls_of("kpa")
    assert set(controls) == {"arg_1_0", "arg_1_1"} and controls["arg_1_0"] == known


def test_an_answer_in_the_file_becomes_the_known_answer(kpa_project):
    project = kpa_project(k=1)
    answer = {"kp_1_0": 1}
    mark(project, 'item,answer\narg_1_0,"' + json.dumps(answer).replace('"', '""') + '"\narg_1_1,\n')
    controls = controls_of("kpa")
    assert controls["arg_1_0"] == answer and controls["arg_1_1"] is not None


def test_an_unknown_id_refuses_the_file_with_its_line_and_changes_nothing(kpa_project):
    project = kpa_project(k=1)
    with pytest.raises(ControlRefused, match=r"controls.csv line 3, field item: project kpa has no item nope"):
        mark_controls(project, read_control_file("item\narg_1_0\nnope\n", "controls.csv"), "controls.csv")
    db.session.commit()
    assert controls_of("kpa") == {}


def test_an_id_given_twice_is_refused_with_both_lines(kpa_project):
    kpa_project(k=1)
    with pytest.raises(ControlRefused, match=r"line 4, field item: arg_1_0 is already on line 2"):
        read_control_file("item\narg_1_0\narg_1_1\narg_1_0\n", "controls.csv")


def test_an_answer_that_is_not_json_is_refused_with_its_line_and_field(kpa_project):
    with pytest.raises(ControlRefused, match=r"controls.csv line 2, field answer: not JSON"):
        read_control_file("item,answer\narg_1_0,{kp_1_0: 1}\n", "controls.csv")


def test_a_file_without_an_item_column_is_refused():
    with pytest.raises(ControlRefused, match=r"line 1: the header has no 'item' column \(it names id, answer\)"):
        read_control_file("id,answer\narg_1_0,\n", "controls.csv")


def test_an_item_without_reference_needs_an_answer_in_the_file(app):
    from tests.conftest import DATA, load_project
    project = load_project("emphasis2020", DATA / "emphasis2020" / "dev_excerpt.txt", "emph")
    first = db.session.scalar(select(Item.external_id).where(Item.project_id == project.id).order_by(Item.position))
    with pytest.raises(ControlRefused, match=rf"line 2, field answer: empty, and item {first} has no imported"):
        mark_controls(project, read_control_file(f"item\n{first}\n", "c.csv"), "c.csv")


def test_the_listed_controls_are_made_ordinary_and_keep_their_reference(kpa_project):
    project = kpa_project(k=1)
    mark(project, "item\narg_1_0\narg_1_1\narg_1_2\n")
    unmark_controls(project, read_control_file("item\narg_1_0\narg_1_2\n", "off.csv", answers=False), "off.csv")
    db.session.commit()
    assert set(controls_of("kpa")) == {"arg_1_1"} and reference_of("kpa", "arg_1_0") is not None


def test_all_controls_are_made_ordinary_at_once(kpa_project):
    project = kpa_project(k=1)
    mark(project, "item\narg_1_0\narg_1_1\n")
    assert unmark_controls(project, None) == 2
    db.session.commit()
    assert controls_of("kpa") == {}


# ---------------------------------------------------------------- drawing n random items


def test_the_same_seed_draws_the_same_items(kpa_project):
    project = kpa_project(k=1)
    first = draw_controls(project, 5, seed=7)
    db.session.commit()
    assert set(controls_of("kpa")) == set(first)
    project = db.session.scalar(select(Project).where(Project.slug == "kpa"))
    unmark_controls(project, None)
    assert draw_controls(project, 5, seed=7) == first


def test_another_seed_draws_other_items(kpa_project):
    project = kpa_project(k=1)
    assert draw_controls(project, 5, seed=1) != draw_controls(project, 5, seed=2)


def test_items_already_controls_are_not_drawn_again(kpa_project):
    project = kpa_project(k=1)
    mark(project, "item\narg_1_0\n")
    project = db.session.scalar(select(Project).where(Project.slug == "kpa"))
    assert "arg_1_0" not in draw_controls(project, 24, seed=3)


def emphasis_with_votes():  # type: ignore[no-untyped-def]
    """The emphasis excerpt with its votes: no imported references, gold decided on the complete items."""
    from annotator.figures.kept_gold import gold_frame
    from tests.conftest import DATA, load_project
    project = load_project("emphasis2020", DATA / "emphasis2020" / "dev_excerpt.txt", "emph", with_votes=True)
    return project, set(gold_frame(project)["item"])


def test_without_references_only_items_with_decided_gold_are_drawn_with_it_as_the_answer(app):
    project, decided = emphasis_with_votes()
    drawn = draw_controls(project, len(decided), seed=0)
    db.session.commit()
    controls = controls_of("emph")
    assert set(drawn) == decided == set(controls) and all(controls.values())


def test_asking_more_items_than_have_a_known_answer_is_refused_and_changes_nothing(app):
    project, decided = emphasis_with_votes()
    with pytest.raises(ControlRefused, match=rf"field n: only {len(decided)} ordinary items of project emph have"):
        draw_controls(project, len(decided) + 1, seed=0)
    db.session.commit()
    assert controls_of("emph") == {}


# ---------------------------------------------------------------- the admin page


def admin_page(login, make_user):  # type: ignore[no-untyped-def]
    make_user("boss", role="admin")
    client = login("boss")
    return client, csrf_token(client.get("/admin/projects/kpa").get_data(as_text=True))


def post(client, data: dict) -> str:  # type: ignore[no-untyped-def, type-arg]
    """POST to the controls form; the page it redirects to (the test client cannot follow in its contexts)."""
    response = client.post("/admin/projects/kpa/controls", data=data, content_type="multipart/form-data")
    assert response.status_code == 302
    return client.get(response.headers["Location"]).get_data(as_text=True)


def upload(client, token: str, text: str, action: str = "add", name: str = "controls.csv") -> str:  # type: ignore[no-untyped-def]
    import io
    return post(client, {"csrf_token": token, "action": action, "file": (io.BytesIO(text.encode()), name)})


def test_the_admin_marks_the_items_of_an_uploaded_file(login, make_user, kpa_project):
    kpa_project(k=1)
    client, token = admin_page(login, make_user)
    page = upload(client, token, "item\narg_1_0\narg_1_1\n")
    assert "2 items of controls.csv are control items now." in page and "2 control items" in page
    assert set(controls_of("kpa")) == {"arg_1_0", "arg_1_1"}


def test_the_page_names_the_bad_line_of_an_upload_and_changes_nothing(login, make_user, kpa_project):
    kpa_project(k=1)
    client, token = admin_page(login, make_user)
    page = upload(client, token, "item\narg_1_0\nnope\n")
    assert "Control items not changed: controls.csv line 3, field item: project kpa has no item nope." in page
    assert controls_of("kpa") == {}


def test_the_admin_unmarks_the_items_of_a_file_and_then_all(login, make_user, kpa_project):
    kpa_project(k=1)
    client, token = admin_page(login, make_user)
    upload(client, token, "item\narg_1_0\narg_1_1\narg_1_2\n")
    upload(client, token, "item\narg_1_1\n", action="remove")
    assert set(controls_of("kpa")) == {"arg_1_0", "arg_1_2"}
    page = post(client, {"csrf_token": token, "action": "remove-all"})
    assert "2 control items are ordinary items again." in page and controls_of("kpa") == {}


def test_an_upload_without_a_file_says_to_choose_one(login, make_user, kpa_project):
    kpa_project(k=1)
    client, token = admin_page(login, make_user)
    page = post(client, {"csrf_token": token, "action": "add"})
    assert "Control items not changed: Choose a CSV file of item ids" in page and controls_of("kpa") == {}


def test_a_post_with_a_forged_csrf_token_is_refused_and_changes_nothing(login, make_user, kpa_project):
    import io
    kpa_project(k=1)
    client, _ = admin_page(login, make_user)
    response = client.post("/admin/projects/kpa/controls", content_type="multipart/form-data",
                           data={"csrf_token": "forged", "action": "add",
                                 "file": (io.BytesIO(b"item\narg_1_0\n"), "controls.csv")})
    assert response.status_code == 400 and controls_of("kpa") == {}


def test_the_downloaded_controls_file_marks_the_same_controls_again(login, make_user, kpa_project):
    kpa_project(k=1)
    client, token = admin_page(login, make_user)
    upload(client, token, 'item,answer\narg_1_0,"{""kp_1_0"": 1}"\narg_1_1,\n')
    before = controls_of("kpa")
    download = client.get("/admin/projects/kpa/controls.csv").get_data(as_text=True)
    post(client, {"csrf_token": token, "action": "remove-all"})
    upload(client, token, download)
    assert controls_of("kpa") == before


def test_the_admin_draws_controls_and_a_bad_number_is_refused_in_words(login, make_user, kpa_project):
    kpa_project(k=1)
    client, token = admin_page(login, make_user)
    page = post(client, {"csrf_token": token, "action": "draw", "n": "many", "seed": "1"})
    assert "Control items not changed: field n: &#39;many&#39; is not a whole number." in page
    page = post(client, {"csrf_token": token, "action": "draw", "n": "3", "seed": "1"})
    assert "3 items drawn with seed 1 are control items now." in page and len(controls_of("kpa")) == 3


# ---------------------------------------------------------------- flask controls


def test_the_commands_add_list_and_remove_controls(app, kpa_project, tmp_path):
    kpa_project(k=1)
    path = tmp_path / "controls.csv"
    path.write_text("item\narg_1_0\narg_1_1\n")
    run = app.test_cli_runner().invoke
    added = run(args=["controls", "add", str(path), "--project", "kpa"])
    assert added.exit_code == 0 and "2 items of controls.csv are control items now." in added.output
    listed = run(args=["controls", "list", "--project", "kpa"]).output.splitlines()
    assert listed[0] == "item,answer" and [line.split(",")[0] for line in listed[1:]] == ["arg_1_0", "arg_1_1"]
    removed = run(args=["controls", "remove", "--all", "--project", "kpa"])
    assert removed.exit_code == 0 and controls_of("kpa") == {}


def test_the_draw_command_draws_seeded(app, kpa_project):
    kpa_project(k=1)
    result = app.test_cli_runner().invoke(args=["controls", "draw", "4", "--seed", "9", "--project", "kpa"])
    assert result.exit_code == 0 and "4 items drawn with seed 9 are control items now." in result.output
    assert len(controls_of("kpa")) == 4


def test_the_add_command_refuses_an_unknown_id_with_its_line(app, kpa_project, tmp_path):
    kpa_project(k=1)
    path = tmp_path / "controls.csv"
    path.write_text("item\narg_1_0\nnope\n")
    result = app.test_cli_runner().invoke(args=["controls", "add", str(path), "--project", "kpa"])
    assert result.exit_code == 1
    assert "nothing changed: controls.csv line 3, field item: project kpa has no item nope" in result.output
    assert controls_of("kpa") == {}


# ---------------------------------------------------------------- 30,000 items


def synthetic_project(kpa_project, items: int) -> Project:  # type: ignore[no-untyped-def]
    """The KPA project with `items` more items (copies of one, each with a reference), in one INSERT.

    A Core executemany of the items table, not the ORM's bulk insert of `Item` (which processed each row's
    attributes, a third of these tests' time): what is tested is the marking, not how the items were made.
    """
    project = kpa_project(k=1)
    model = db.session.scalar(select(Item).where(Item.project_id == project.id, Item.external_id == "arg_1_0"))
    db.session.execute(insert(Item.__table__), [{"project_id": project.id, "external_id": f"s{n}",
                                                 "position": 1000 + n, "payload": model.payload,
                                                 "reference": model.reference}
                                                for n in range(items)])
    db.session.commit()
    return project


def statements_of(action) -> int:  # type: ignore[no-untyped-def]
    count = 0

    def note(*_):  # type: ignore[no-untyped-def]
        nonlocal count
        count += 1
    event.listen(db.engine, "before_cursor_execute", note)
    try:
        action()
    finally:
        event.remove(db.engine, "before_cursor_execute", note)
    return count


def test_30000_items_are_marked_and_unmarked_in_a_few_statements(kpa_project):
    project = synthetic_project(kpa_project, 30_000)
    answer = json.dumps(json.dumps({"kp_1_0": 1}))[1:-1].replace('\\"', '""')
    text = "item,answer\n" + "".join(f's{n},"{answer}"\n' if n % 2 else f"s{n},\n" for n in range(30_000))
    # ids, one executemany, 2 UPDATE ... IN, the kept figures dropped (UPDATE, DELETE), commit
    assert statements_of(lambda: mark(project, text)) <= 8
    controls = controls_of("kpa")
    assert len(controls) == 30_000 and controls["s1"] == {"kp_1_0": 1}
    project = db.session.scalar(select(Project).where(Project.slug == "kpa"))
    lines = read_control_file(text, "off.csv", answers=False)
    assert statements_of(lambda: (unmark_controls(project, lines, "off.csv"), db.session.commit())) <= 8
    assert controls_of("kpa") == {}


def test_30000_items_are_drawn_in_a_few_statements(kpa_project):
    project = synthetic_project(kpa_project, 30_000)
    statements = statements_of(lambda: (draw_controls(project, 25_000, seed=0), db.session.commit()))
    # ids, labels, the known answers (a declared campaign's gold reads them), the items, the UPDATEs in batches, the
    # project, the kept figures dropped (UPDATE, DELETE): a fixed number, whatever the count of items
    assert statements <= 11 and len(controls_of("kpa")) == 25_000
