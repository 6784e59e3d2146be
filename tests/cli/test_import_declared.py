"""`flask import custom ITEMS --definition TASK.yaml --project SLUG`: a declared campaign's items in, from CSV,
TSV or JSON Lines; a problem in either file is named by file, line and column (or key), and nothing is kept."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from sqlalchemy import func, select

from annotator.core.extensions import db
from annotator.core.models import Item, Project
from annotator.declared.definition_reader import definition_from_file
from tests.conftest import stored
from tests.support.declared_projects import DECLARED, EVERY_KIND, EVERY_KIND_ITEMS, read_jsonl

CSV, TSV, CONTROLS = DECLARED / "items.csv", DECLARED / "items.tsv", DECLARED / "controls.csv"
HEADER = "id,text,other,text_id,other_id"


def _import(app, path: Path, *args: str, definition: Path = EVERY_KIND, slug: str = "quotes"):  # type: ignore[no-untyped-def]
    return app.test_cli_runner().invoke(args=["import", "custom", str(path), "--definition", str(definition),
                                              "--project", slug, *args])


def _nothing_stored() -> bool:
    db.session.remove()
    return not db.session.scalar(select(func.count()).select_from(Project)) and \
        not db.session.scalar(select(func.count()).select_from(Item))


def _items() -> list[Item]:
    db.session.remove()
    return list(db.session.scalars(select(Item).order_by(Item.position)))


def _refused(app, tmp_path: Path, name: str, text: str, *args: str):  # type: ignore[no-untyped-def]
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    result = _import(app, path, *args)
    assert result.exit_code != 0
    assert _nothing_stored()
    return result.output


# --- the happy path ------------------------------------------------------------------------------------

def test_jsonl_items_make_a_declared_project_with_the_definition_name_guidelines_and_k(app):
    result = _import(app, EVERY_KIND_ITEMS)
    assert result.exit_code == 0, result.output
    assert "Imported 3 items into project 'quotes' (k=3)" in result.output
    project = stored(Project, slug="quotes")
    definition = definition_from_file(EVERY_KIND)
    assert (project.task_type, project.name, project.k) == ("custom", "Quotes - tone, cues and pairs", 3)
    assert project.definition == definition.to_data()
    assert project.guidelines == (DECLARED / "guidelines.md").read_text(encoding="utf-8")
    assert project.source == {"format": "custom"}


def test_jsonl_items_keep_their_ids_and_the_fields_the_definition_reads(app):
    assert _import(app, EVERY_KIND_ITEMS).exit_code == 0
    expected = read_jsonl(EVERY_KIND_ITEMS)
    assert [(i.external_id, i.payload, i.is_control, i.reference) for i in _items()] == \
        [(row["id"], {k: v for k, v in row.items() if k != "id"}, False, None) for row in expected]


def test_csv_and_tsv_items_give_the_same_items_as_jsonl(app):
    assert _import(app, EVERY_KIND_ITEMS, slug="from-jsonl").exit_code == 0
    assert _import(app, CSV, slug="from-csv").exit_code == 0
    assert _import(app, TSV, slug="from-tsv").exit_code == 0
    by_project: dict[int, list[tuple[str, dict]]] = {}
    for item in _items():
        by_project.setdefault(item.project_id, []).append((item.external_id, item.payload))
    assert len(by_project) == 3 and len({json.dumps(v, sort_keys=True) for v in by_project.values()}) == 1


def test_k_from_the_command_line_wins_over_the_definition(app):
    assert _import(app, CSV, "--k", "5").exit_code == 0
    assert stored(Project, slug="quotes").k == 5


def test_without_an_id_column_items_are_numbered_from_1(app, tmp_path):
    path = tmp_path / "noid.csv"
    path.write_text("text,other,text_id,other_id\nOne quote,Another,a,b\nTwo quote,Third,b,c\n", encoding="utf-8")
    assert _import(app, path).exit_code == 0
    assert [i.external_id for i in _items()] == ["1", "2"]


def _rewritten(path: Path, target: Path, delimiter: str) -> Path:
    """The CSV file `path` written again with another delimiter, as a spreadsheet would save it."""
    with path.open(encoding="utf-8", newline="") as source:
        rows = list(csv.reader(source))
    with target.open("w", encoding="utf-8", newline="") as out:
        csv.writer(out, delimiter=delimiter, lineterminator="\r\n").writerows(rows)
    return target


@pytest.mark.parametrize("delimiter", [";", "\t"], ids=["semicolons", "tabs"])
def test_a_csv_file_separated_by_semicolons_or_tabs_is_read_like_a_comma_separated_one(app, tmp_path, delimiter):
    assert _import(app, CSV, slug="commas").exit_code == 0
    by_commas = [(i.external_id, i.payload) for i in _items()]
    result = _import(app, _rewritten(CONTROLS, tmp_path / "items.csv", delimiter))
    assert result.exit_code == 0, result.output
    items = {i.external_id: i for i in _items() if i.project.slug == "quotes"}
    assert [(e, items[e].payload) for e, _ in by_commas] == by_commas
    assert items["S_78"].reference == {"sentiment": "positive", "themes": ["life"], "better": "A"}


def test_semicolons_inside_the_cells_of_a_comma_separated_file_stay_text(app, tmp_path):
    path = tmp_path / "items.csv"
    path.write_text(f"{HEADER}\na,Wait; then go.,Stop; then think.,a,b\nb,Go.,Think.,b,c\n", encoding="utf-8")
    assert _import(app, path).exit_code == 0
    assert _items()[0].payload["text"] == "Wait; then go."


def test_a_header_that_splits_on_commas_and_semicolons_is_refused_saying_so(app, tmp_path):
    output = _refused(app, tmp_path, "items.csv", "id;text,other;text_id;other_id\na;One,Two;a;b\n")
    assert ("items.csv, line 1: cannot tell which character separates the columns: the first line has commas and "
            "semicolons; save the file with one of them between columns") in output


def test_known_columns_make_control_items_with_their_known_answers_as_reference(app):
    assert _import(app, CONTROLS).exit_code == 0
    items = {i.external_id: i for i in _items()}
    assert (items["Q_0"].is_control, items["Q_0"].reference) == \
        (True, {"sentiment": "neutral", "sarcastic": "no", "intensity": 2})
    assert (items["S_78"].is_control, items["S_78"].reference) == \
        (True, {"sentiment": "positive", "themes": ["life"], "better": "A"})
    assert (items["S_1"].is_control, items["S_1"].reference) == (False, None)
    assert all("known.sentiment" not in i.payload for i in items.values())


def test_more_items_with_the_same_definition_are_added(app, tmp_path):
    assert _import(app, CSV).exit_code == 0
    more = tmp_path / "more.jsonl"
    more.write_text(json.dumps({"id": "N_1", "text": "New quote .", "other": "Old quote .", "text_id": "N_1",
                                "other_id": "Q_0"}) + "\n", encoding="utf-8")
    result = _import(app, more)
    assert result.exit_code == 0, result.output
    assert [i.external_id for i in _items()] == ["Q_0", "S_1", "S_78", "N_1"]


def test_more_items_with_another_definition_are_refused(app, tmp_path):
    assert _import(app, CSV).exit_code == 0
    other = tmp_path / "other.yaml"
    other.write_text(EVERY_KIND.read_text(encoding="utf-8").replace("k: 3", "k: 4"), encoding="utf-8")
    (tmp_path / "guidelines.md").write_text("Read it.", encoding="utf-8")
    more = tmp_path / "more.jsonl"
    more.write_text(json.dumps({"id": "N_1", "text": "New .", "other": "Old .", "text_id": "N_1",
                                "other_id": "Q_0"}) + "\n", encoding="utf-8")
    result = _import(app, more, definition=other)
    assert result.exit_code != 0
    assert "was created with another definition" in result.output and "Nothing was imported" in result.output
    assert len(_items()) == 3


# --- located errors, nothing stored ----------------------------------------------------------------------

def test_an_empty_field_is_named_by_file_line_and_column(app, tmp_path):
    output = _refused(app, tmp_path, "items.csv", f"{HEADER}\na,One,Two,a,b\nb,Three,Four,b,c\nc,,Six,c,d\n")
    assert 'items.csv, line 4, column "text": empty' in output


def test_a_missing_column_is_named_with_the_fields_the_definition_reads(app, tmp_path):
    output = _refused(app, tmp_path, "items.csv", "id,text,text_id,other_id\na,One,a,b\n")
    assert "items.csv, line 1: no column 'other': the definition reads the fields text, other, text_id, " \
           "other_id" in output


def test_an_unknown_column_is_refused_and_the_known_ones_listed(app, tmp_path):
    output = _refused(app, tmp_path, "items.tsv", "id\ttext\tother\ttext_id\tother_id\tscore\na\tOne\tTwo\ta\tb\t3\n")
    assert 'items.tsv, line 1, column "score": unknown column; known columns: id, text, other, text_id, ' \
           "other_id, known.sentiment, known.sarcastic, known.cues, known.themes, known.intensity, " \
           "known.better" in output


def test_a_duplicate_id_names_both_lines(app, tmp_path):
    output = _refused(app, tmp_path, "items.csv", f"{HEADER}\na,One,Two,a,b\nb,Three,Four,b,c\na,Five,Six,c,d\n")
    assert "items.csv, line 4, column \"id\": the id 'a' is also the id of line 2" in output


def test_an_over_long_pairwise_player_is_refused(app, tmp_path):
    long = "x" * 91
    output = _refused(app, tmp_path, "items.jsonl", json.dumps(
        {"id": "a", "text": "One", "other": "Two", "text_id": long, "other_id": "b"}) + "\n")
    assert 'items.jsonl, line 1, column "text_id": 91 characters long; at most 90' in output


def test_a_missing_key_in_jsonl_is_named_by_line(app, tmp_path):
    lines = [{"id": "a", "text": "One", "other": "Two", "text_id": "a", "other_id": "b"},
             {"id": "b", "text": "Three", "text_id": "b", "other_id": "c"}]
    output = _refused(app, tmp_path, "items.jsonl", "".join(json.dumps(line) + "\n" for line in lines))
    assert "items.jsonl, line 2: no key 'other'" in output


def test_a_known_answer_that_is_not_an_answer_is_named_by_line_and_column(app, tmp_path):
    output = _refused(app, tmp_path, "items.csv", f"{HEADER},known.sentiment\na,One,Two,a,b,\nb,Three,Four,b,c,happy\n")
    assert "items.csv, line 3, column \"known.sentiment\": not a valid answer: sentiment: 'happy' is not one of " \
           "'negative', 'neutral', 'positive'" in output


def test_a_known_answer_off_the_scale_is_refused(app, tmp_path):
    output = _refused(app, tmp_path, "items.csv", f"{HEADER},known.intensity\na,One,Two,a,b,7\n")
    assert "items.csv, line 2, column \"known.intensity\": not a valid answer: intensity: must be a number " \
           "from 1 to 5" in output


def test_a_known_answer_to_a_text_question_is_refused(app, tmp_path):
    output = _refused(app, tmp_path, "items.csv", f"{HEADER},known.comment\na,One,Two,a,b,fine\n")
    assert "column \"known.comment\": unknown column (comment is a text question: it has no known answer)" in output


def test_invalid_json_in_a_jsonl_line_is_named_by_line(app, tmp_path):
    good = json.dumps({"id": "a", "text": "One", "other": "Two", "text_id": "a", "other_id": "b"})
    output = _refused(app, tmp_path, "items.jsonl", good + "\n{\"id\": \"b\", \n")
    assert "items.jsonl, line 2: not valid JSON" in output


def test_a_file_that_is_not_utf8_is_refused_with_its_line(app, tmp_path):
    path = tmp_path / "items.csv"
    path.write_bytes(f"{HEADER}\na,One,Two,a,b\nb,Caf\xe9,Four,b,c\n".encode("latin-1"))
    result = _import(app, path)
    assert result.exit_code != 0 and "items.csv, line 3: is not UTF-8 text" in result.output
    assert _nothing_stored()


def test_another_extension_is_refused(app, tmp_path):
    output = _refused(app, tmp_path, "items.xlsx", "whatever")
    assert "items.xlsx: the items file must be .csv, .tsv or .jsonl" in output


def test_a_definition_error_is_named_by_file_line_and_key_path(app, tmp_path):
    definition = tmp_path / "task.yaml"
    definition.write_text("name: Bad\nshow: [text]\nquestions:\n  - {id: tone, kind: choice, options: [a]}\n",
                          encoding="utf-8")
    result = _import(app, CSV, definition=definition)
    assert result.exit_code != 0
    assert "task.yaml, line 4: questions[0].options: must list at least two options" in result.output
    assert _nothing_stored()


def test_a_yaml_indentation_error_is_named_by_file_line_and_column_in_words(app, tmp_path):
    definition = tmp_path / "task.yaml"
    definition.write_text("name: Tone\nshow: [text]\nquestions:\n  - id: tone\n    kind: choice\n"
                          "     options: [negative, positive]\n", encoding="utf-8")
    result = _import(app, CSV, definition=definition)
    assert result.exit_code != 0
    assert ("task.yaml, line 6, column 6: the definition: not valid YAML: this line (column 6) is indented more "
            "than line 5 above it (its key: column 5)") in result.output
    assert "<block" not in result.output and "mapping values are not allowed" not in result.output
    assert _nothing_stored()


def test_without_a_definition_nothing_is_imported(app):
    result = app.test_cli_runner().invoke(args=["import", "custom", str(CSV), "--project", "quotes"])
    assert result.exit_code != 0 and "give --definition TASK.yaml" in result.output
    assert _nothing_stored()


# --- options from the item ----------------------------------------------------------------------------

KEY_POINTS = """name: Key points
show: [argument]
questions:
  - {id: matches, kind: multi, prompt: "Which key points does the argument make?", options_from: key_points,
     none: "None of them"}
"""
ARGUMENTS = ('id,argument,key_points,known.matches\n'
             'arg_1,"School uniforms cut costs for parents .","[{""id"": ""kp_1"", ""text"": ""Uniforms save money""}, '
             '{""id"": ""kp_2"", ""text"": ""Uniforms stop bullying""}]","[""kp_1""]"\n'
             'arg_2,"They take away self expression .","[""Uniforms limit expression"", ""Uniforms are costly""]",\n')


def _key_points(tmp_path: Path, items: str) -> tuple[Path, Path]:
    definition, path = tmp_path / "key_points.yaml", tmp_path / "arguments.csv"
    definition.write_text(KEY_POINTS, encoding="utf-8")
    path.write_text(items, encoding="utf-8")
    return definition, path


def test_an_options_column_holds_a_json_list_of_text_or_id_and_text(app, tmp_path):
    definition, path = _key_points(tmp_path, ARGUMENTS)
    result = _import(app, path, definition=definition)
    assert result.exit_code == 0, result.output
    first, second = _items()
    assert first.payload["key_points"] == [{"id": "kp_1", "text": "Uniforms save money"},
                                           {"id": "kp_2", "text": "Uniforms stop bullying"}]
    assert (first.is_control, first.reference) == (True, {"matches": ["kp_1"]})
    assert second.payload["key_points"] == ["Uniforms limit expression", "Uniforms are costly"]


def test_an_options_cell_that_is_not_a_json_list_is_named(app, tmp_path):
    definition, path = _key_points(tmp_path, "id,argument,key_points\narg_1,Uniforms cut costs .,kp_1; kp_2\n")
    result = _import(app, path, definition=definition)
    assert result.exit_code != 0
    assert 'arguments.csv, line 2, column "key_points": the item\'s options must be a JSON list' in result.output
    assert _nothing_stored()


def test_a_known_answer_naming_an_option_the_item_lacks_is_refused(app, tmp_path):
    definition, path = _key_points(tmp_path, ARGUMENTS.replace('"[""kp_1""]"', '"[""kp_9""]"'))
    result = _import(app, path, definition=definition)
    assert result.exit_code != 0
    assert "arguments.csv, line 2, column \"known.matches\": not a valid answer: matches: 'kp_9' is not one of " \
           "'kp_1', 'kp_2'" in result.output
    assert _nothing_stored()


def test_an_image_field_must_be_a_web_address(app, tmp_path):
    definition = tmp_path / "photos.yaml"
    definition.write_text("name: Photos\nshow: [{field: photo, as: image_url}]\nquestions:\n"
                          "  - {id: sharp, kind: choice, options: [sharp, blurred]}\n", encoding="utf-8")
    items = tmp_path / "photos.csv"
    items.write_text("id,photo\np1,https://example.org/p1.jpg\np2,javascript:alert(1)\n", encoding="utf-8")
    result = _import(app, items, definition=definition)
    assert result.exit_code != 0
    assert 'photos.csv, line 3, column "photo": an image\'s address must start with https:// or http://' \
        in result.output
    assert _nothing_stored()


# --- JSON bounded as the API's: what used to end in a traceback (a 500 on the page) -----------------------------

GOOD = {"id": "a", "text": "One", "other": "Two", "text_id": "a", "other_id": "b"}


def _jsonl_refused(app, tmp_path: Path, second_line: str) -> str:  # type: ignore[no-untyped-def]
    return _refused(app, tmp_path, "items.jsonl", json.dumps(GOOD) + "\n" + second_line + "\n")


def test_a_jsonl_line_nested_too_deep_is_named_by_line(app, tmp_path):
    output = _jsonl_refused(app, tmp_path, '{"id": "b", "text": ' + "[" * 5000 + "]" * 5000 + "}")
    assert "items.jsonl, line 2: lists and objects nest more than 32 levels deep" in output


def test_a_number_of_five_thousand_digits_is_named_by_line(app, tmp_path):
    output = _jsonl_refused(app, tmp_path, '{"id": "b", "text": ' + "7" * 5000 + "}")
    assert "items.jsonl, line 2: a number has more digits than the 4300 a number here may have" in output


def test_a_number_too_large_to_store_is_named_by_line(app, tmp_path):
    output = _jsonl_refused(app, tmp_path, json.dumps({**GOOD, "id": "b"}).replace('"One"', "1e999"))
    assert "items.jsonl, line 2: 1e999 is too large a number to store" in output


def test_a_lone_surrogate_in_a_field_is_named_by_line_and_key(app, tmp_path):
    output = _jsonl_refused(app, tmp_path, json.dumps({**GOOD, "id": "b", "text": "caf\ud800"}))
    assert 'items.jsonl, line 2, column "text": the value contains a lone surrogate' in output


def test_a_lone_surrogate_in_a_known_answer_cell_is_named_by_line_and_column(app, tmp_path):
    output = _refused(app, tmp_path, "items.csv", f"{HEADER},known.sentiment\na,One,Two,a,b,\"\"\"\\udc00\"\"\"\n")
    assert 'items.csv, line 2, column "known.sentiment": the known answer contains a lone surrogate' in output


def test_options_nested_too_deep_in_a_cell_are_named_by_line_and_column(app, tmp_path):
    definition = tmp_path / "task.yaml"
    definition.write_text("name: Pick\nshow: [text]\nquestions:\n  - {id: best, kind: choice, options_from: "
                          "choices}\n", encoding="utf-8")
    path = tmp_path / "items.csv"
    path.write_text('id,text,choices\na,One,"' + "[" * 3000 + "]" * 3000 + '"\n', encoding="utf-8")
    result = _import(app, path, definition=definition)
    assert result.exit_code != 0 and _nothing_stored()
    assert 'items.csv, line 2, column "choices": the item\'s options must be a JSON list' in result.output
    assert "nest more than 32 levels deep" in result.output


def test_a_definition_larger_than_the_limit_is_refused_unread(app, tmp_path, monkeypatch):
    monkeypatch.setitem(app.config, "DEFINITION_MAX_BYTES", 2000)
    definition = tmp_path / "task.yaml"
    definition.write_text(EVERY_KIND.read_text(encoding="utf-8") + "\n# " + "x" * 3000 + "\n", encoding="utf-8")
    result = _import(app, EVERY_KIND_ITEMS, definition=definition)
    assert result.exit_code != 0 and _nothing_stored()
    size = definition.stat().st_size
    assert f"task.yaml: the definition: the file 'task.yaml' has {size:,} bytes; at most 2,000 are read" \
        in result.output
    assert "DEFINITION_MAX_BYTES" in result.output


def test_a_definition_within_the_limit_is_read(app, monkeypatch):
    monkeypatch.setitem(app.config, "DEFINITION_MAX_BYTES", EVERY_KIND.stat().st_size)
    assert _import(app, EVERY_KIND_ITEMS).exit_code == 0


def test_a_guidelines_file_larger_than_the_limit_is_refused(app, tmp_path, monkeypatch):
    monkeypatch.setitem(app.config, "DEFINITION_MAX_BYTES", EVERY_KIND.stat().st_size)
    definition = tmp_path / EVERY_KIND.name
    definition.write_bytes(EVERY_KIND.read_bytes())
    (tmp_path / "guidelines.md").write_text("Read twice.\n" * 1000, encoding="utf-8")
    result = _import(app, EVERY_KIND_ITEMS, definition=definition)
    assert result.exit_code != 0 and _nothing_stored()
    assert "guidelines: the file 'guidelines.md' has 12,000 bytes" in result.output
