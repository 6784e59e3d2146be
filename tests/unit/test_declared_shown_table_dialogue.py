"""The `table` and `dialogue` display kinds of a declared HIT (annotator/declared/shown.py): their keys in the
definition (refused with the key path and line), the item check the import runs (refused with the file, line and
field, nothing kept), and the view model the page draws. One rule per test; the examples
(examples/table_claim_check.yaml, examples/dialogue_quality.yaml) are read whole."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from annotator.core.errors import FormatError
from annotator.declared import shown
from annotator.declared.definition import Definition, DefinitionError
from annotator.declared.definition_reader import definition_from_data, definition_from_file, definition_from_text
from annotator.declared.items import read_items

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
QUESTION = {"id": "q", "kind": "scale"}
CITIES = [{"city": "Riga", "country": "Latvia", "population": 610},
          {"city": "Gdańsk", "country": "Poland", "population": 470, "port": True}]


def definition(*show: dict | str) -> Definition:
    return definition_from_data({"name": "n", "show": list(show), "questions": [QUESTION]})


def refused_yaml(text: str) -> DefinitionError:
    with pytest.raises(DefinitionError) as caught:
        definition_from_text(textwrap.dedent(text).lstrip("\n"))
    return caught.value


def refused_items(tmp_path: Path, d: Definition, text: str, name: str = "items.jsonl") -> FormatError:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(FormatError) as caught:
        read_items(path, d)
    return caught.value


def jsonl(*rows: dict) -> str:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def table_view(value: object, **keys: object) -> shown.TableView:
    d = definition({"field": "table", "as": "table", **keys})
    drawn = shown.view(d.show[0], {"table": value})
    assert isinstance(drawn, shown.TableView)
    return drawn


def dialogue_view(value: object, **keys: object) -> shown.DialogueView:
    d = definition({"field": "dialogue", "as": "dialogue", **keys})
    drawn = shown.view(d.show[0], {"dialogue": value})
    assert isinstance(drawn, shown.DialogueView)
    return drawn


# --- table: the definition's keys -----------------------------------------------------------------------------

def test_a_table_has_every_key_as_a_column_and_no_row_header_by_default():
    [field] = definition({"field": "table", "as": "table"}).show
    assert field.spec == shown.TableSpec(None, None, False, "No rows.")


def test_a_tables_columns_headers_and_row_header_are_read():
    [field] = definition({"field": "table", "as": "table", "columns": ["city", "population"],
                          "headers": ["City", "People"], "row_header": True, "empty": "No cities."}).show
    assert field.spec == shown.TableSpec(("city", "population"), ("City", "People"), True, "No cities.")


def test_headers_of_another_number_than_the_columns_are_refused_at_their_line():
    error = refused_yaml("""
        name: n
        show:
          - field: table
            as: table
            columns: [city, country]
            headers: [City]
        questions: [{id: q, kind: scale}]
        """)
    assert (error.path, error.line) == ("show[0].headers", 6)
    assert "names 1 columns; `columns` names 2" in error.message


def test_a_column_listed_twice_is_refused_naming_it():
    error = refused_yaml("""
        name: n
        show:
          - {field: table, as: table, columns: [city, city]}
        questions: [{id: q, kind: scale}]
        """)
    assert error.path == "show[0].columns[1]"
    assert "'city' is listed twice" in error.message


def test_an_empty_list_of_columns_is_refused():
    with pytest.raises(DefinitionError) as caught:
        definition({"field": "table", "as": "table", "columns": []})
    assert caught.value.path == "show[0].columns"
    assert "1 to 50 columns" in caught.value.message


def test_a_dialogue_key_on_a_table_is_refused_naming_the_kind_it_belongs_to():
    error = refused_yaml("""
        name: n
        show:
          - field: table
            as: table
            speaker: who
        questions: [{id: q, kind: scale}]
        """)
    assert (error.path, error.line) == ("show[0].speaker", 5)
    assert error.message == "is a key of `as: dialogue`, not of `as: table`"


# --- table: the items file ------------------------------------------------------------------------------------

def test_a_table_of_objects_keeps_the_rows_as_given(tmp_path: Path):
    d = definition({"field": "table", "as": "table"})
    path = tmp_path / "items.jsonl"
    path.write_text(jsonl({"id": "a", "table": CITIES}), encoding="utf-8")
    [item] = read_items(path, d)
    assert item.payload["table"] == CITIES


def test_a_table_in_a_csv_cell_is_json(tmp_path: Path):
    d = definition({"field": "table", "as": "table"})
    path = tmp_path / "items.csv"
    cell = json.dumps([["city", "population"], ["Riga", 610]]).replace('"', '""')
    path.write_text(f'id,table\na,"{cell}"\n', encoding="utf-8")
    [item] = read_items(path, d)
    assert item.payload["table"] == [["city", "population"], ["Riga", 610]]


def test_a_row_of_other_length_than_the_header_is_refused_with_line_and_field(tmp_path: Path):
    d = definition({"field": "table", "as": "table"})
    error = refused_items(tmp_path, d, jsonl({"id": "a", "table": [["city", "population"], ["Riga", 610]]},
                                             {"id": "b", "table": [["city", "population"], ["Riga"]]}))
    assert str(error) == ('items.jsonl, line 2, column "table": row 2 has 1 cells; the header has 2')


def test_a_cell_that_is_an_object_is_refused_naming_its_row_and_column(tmp_path: Path):
    d = definition({"field": "table", "as": "table"})
    error = refused_items(tmp_path, d, jsonl({"id": "a", "table": [{"city": "Riga", "population": {"n": 610}}]}))
    assert "line 1" in str(error) and '"table"' in str(error)
    assert "row 1, column 'population': a cell is text, a number, true, false or null, not an object" in str(error)


def test_rows_that_mix_objects_and_lists_are_refused(tmp_path: Path):
    d = definition({"field": "table", "as": "table"})
    error = refused_items(tmp_path, d, jsonl({"id": "a", "table": [{"city": "Riga"}, ["Gdańsk"]]}))
    assert 'column "table": mixes rows of a list and an object; a list of rows, each an object' in str(error)


def test_a_table_that_is_not_a_list_is_refused_saying_what_a_table_is(tmp_path: Path):
    d = definition({"field": "table", "as": "table"})
    error = refused_items(tmp_path, d, jsonl({"id": "a", "table": "Riga, 610"}))
    assert "must be a list of rows, each an object" in str(error)


def test_more_rows_than_a_table_holds_are_refused(tmp_path: Path):
    d = definition({"field": "table", "as": "table", "headers": ["n"]})
    error = refused_items(tmp_path, d, jsonl({"id": "a", "table": [[n] for n in range(shown.MAX_ROWS + 1)]}))
    assert f"has {shown.MAX_ROWS + 1} rows; at most {shown.MAX_ROWS}" in str(error)


def test_a_cell_longer_than_a_cell_holds_is_refused(tmp_path: Path):
    d = definition({"field": "table", "as": "table"})
    error = refused_items(tmp_path, d, jsonl({"id": "a", "table": [{"note": "x" * (shown.CELL_LENGTH + 1)}]}))
    assert f"row 1, column 'note': the cell is {shown.CELL_LENGTH + 1} characters long" in str(error)


# --- table: the view ------------------------------------------------------------------------------------------

def test_object_rows_give_every_key_in_the_order_first_seen_and_an_empty_cell_where_a_row_lacks_one():
    drawn = table_view(CITIES)
    assert drawn.headers == ("city", "country", "population", "port")
    assert drawn.rows == (("Riga", "Latvia", "610", ""), ("Gdańsk", "Poland", "470", "true"))


def test_named_columns_are_the_ones_drawn_in_their_order_under_their_headers():
    drawn = table_view(CITIES, columns=["population", "city"], headers=["People", "City"])
    assert drawn.headers == ("People", "City")
    assert drawn.rows == (("610", "Riga"), ("470", "Gdańsk"))


def test_a_table_of_lists_takes_its_first_row_as_the_header():
    drawn = table_view([["city", "population"], ["Riga", 610], ["Gdańsk", 470.5]])
    assert drawn.headers == ("city", "population")
    assert drawn.rows == (("Riga", "610"), ("Gdańsk", "470.5"))


def test_a_table_of_lists_with_headers_named_draws_every_row_as_data():
    drawn = table_view([["Riga", 610], ["Gdańsk", None]], headers=["City", "People"])
    assert drawn.headers == ("City", "People")
    assert drawn.rows == (("Riga", "610"), ("Gdańsk", ""))


def test_true_and_false_are_drawn_as_json_writes_them():
    assert table_view([{"a": True, "b": False}]).rows == (("true", "false"),)


def test_a_table_the_import_would_refuse_is_drawn_as_text():
    d = definition({"field": "table", "as": "table"})
    assert shown.view(d.show[0], {"table": [["a", "b"], ["only one"]]}) is None


def test_an_empty_table_has_no_rows_and_its_words_for_none():
    drawn = table_view([], empty="No cities.")
    assert (drawn.rows, drawn.empty) == ((), "No cities.")


# --- dialogue: the definition's keys --------------------------------------------------------------------------

def test_a_dialogue_reads_text_and_speaker_by_default():
    [field] = definition({"field": "dialogue", "as": "dialogue"}).show
    assert field.spec == shown.DialogueSpec("text", "speaker", "No turns.")


def test_a_speaker_key_equal_to_the_text_key_is_refused():
    with pytest.raises(DefinitionError) as caught:
        definition({"field": "dialogue", "as": "dialogue", "text": "says", "speaker": "says"})
    assert caught.value.path == "show[0].speaker"
    assert "another key than text ('says')" in caught.value.message


def test_a_table_key_on_a_dialogue_is_refused_naming_its_kind():
    with pytest.raises(DefinitionError) as caught:
        definition({"field": "dialogue", "as": "dialogue", "columns": ["a"]})
    assert (caught.value.path, caught.value.message) == ("show[0].columns",
                                                         "is a key of `as: table`, not of `as: dialogue`")


# --- dialogue: the items file ---------------------------------------------------------------------------------

def test_a_turn_without_its_text_is_refused_with_line_field_and_turn(tmp_path: Path):
    d = definition({"field": "dialogue", "as": "dialogue"})
    error = refused_items(tmp_path, d, jsonl({"id": "a", "dialogue": [{"speaker": "User", "text": "Hi"}]},
                                             {"id": "b", "dialogue": [{"speaker": "User", "says": "Hi"}]}))
    assert str(error).startswith('items.jsonl, line 2, column "dialogue": turn 1 has no \'text\' key (its text)')


def test_a_speaker_that_is_not_text_is_refused(tmp_path: Path):
    d = definition({"field": "dialogue", "as": "dialogue"})
    error = refused_items(tmp_path, d, jsonl({"id": "a", "dialogue": [{"speaker": 7, "text": "Hi"}]}))
    assert "turn 1's 'speaker' must be non-blank text of at most 100 characters (or left out)" in str(error)


def test_more_turns_than_a_dialogue_holds_are_refused(tmp_path: Path):
    d = definition({"field": "dialogue", "as": "dialogue"})
    error = refused_items(tmp_path, d, jsonl({"id": "a", "dialogue": ["hi"] * (shown.MAX_TURNS + 1)}))
    assert f"lists {shown.MAX_TURNS + 1} turns; at most {shown.MAX_TURNS}" in str(error)


# --- dialogue: the view ---------------------------------------------------------------------------------------

def test_the_turns_are_drawn_in_order_each_speaker_on_the_side_of_its_first_turn():
    drawn = dialogue_view([{"speaker": "User", "text": "Hi"}, {"speaker": "Bot", "text": "Hello"},
                           {"speaker": "User", "text": "Bye"}, {"speaker": "Agent", "text": "Wait"}])
    assert [(t.speaker, t.text, t.side) for t in drawn.turns] == [
        ("User", "Hi", 0), ("Bot", "Hello", 1), ("User", "Bye", 0), ("Agent", "Wait", 0)]


def test_bare_text_turns_have_no_speaker():
    drawn = dialogue_view(["Hi", "Hello"])
    assert [(t.speaker, t.text) for t in drawn.turns] == [(None, "Hi"), (None, "Hello")]


def test_other_keys_name_the_text_and_the_speaker():
    drawn = dialogue_view([{"role": "user", "content": "Hi", "id": "t1"}], text="content", speaker="role")
    assert [(t.speaker, t.text) for t in drawn.turns] == [("user", "Hi")]


# --- the examples ---------------------------------------------------------------------------------------------

def test_the_table_example_reads_whole_and_draws_its_named_columns():
    d = definition_from_file(EXAMPLES / "table_claim_check.yaml")
    items = read_items(EXAMPLES / "table_claim_check_items.jsonl", d)
    table = next(s for s in d.show if s.field == "table")
    drawn = shown.view(table, items[0].payload)
    assert isinstance(drawn, shown.TableView)
    assert drawn.headers == ("City", "Country", "Population (thousands)", "Capital")
    assert drawn.rows[0] == ("Saint Petersburg", "Russia", "5600", "false")
    assert [item.external_id for item in items] == ["t1", "t2", "t3"]


def test_the_dialogue_example_reads_whole_with_a_speaker_on_every_turn():
    d = definition_from_file(EXAMPLES / "dialogue_quality.yaml")
    items = read_items(EXAMPLES / "dialogue_quality_items.jsonl", d)
    views = [shown.view(d.show[0], item.payload) for item in items]
    assert all(isinstance(v, shown.DialogueView) and all(t.speaker for t in v.turns) for v in views)
    assert len(items) == 3
