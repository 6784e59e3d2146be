"""Key paths into nested items, kept fields and token objects (docs/declared-item-paths.md): the path syntax, the
definition's checks (key path and line of a bad one), the items file's checks (line and path), and the view the HIT
reads, which holds nothing the definition does not show."""
from __future__ import annotations

import csv
import json
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from annotator.core.errors import FormatError
from annotator.declared import item_view, paths
from annotator.declared.answers import check_answer
from annotator.declared.definition import Definition, DefinitionError
from annotator.declared.definition_reader import definition_from_text
from annotator.declared.items import load_definition, read_items
from annotator.tasks.custom import DeclaredTask
from tests.support.declared_projects import DECLARED, read_jsonl

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "examples" / "kpa2021_track2_check.yaml"
CHECK_ITEMS = ROOT / "examples" / "kpa2021_track2_check_items.jsonl"
COMPARE = ROOT / "annotator" / "shared_tasks" / "kpa2021" / "set_compare.yaml"
EMPHASIS = ROOT / "annotator" / "shared_tasks" / "emphasis2020" / "selection.yaml"
COMPARE_ITEM = read_jsonl(DECLARED / "compare_items.jsonl")[0]
CHECK_ITEM = read_jsonl(CHECK_ITEMS)[0]


def refused(text: str) -> DefinitionError:
    with pytest.raises(DefinitionError) as caught:
        definition_from_text(text)
    return caught.value


def refused_items(tmp_path: Path, definition: Definition, rows: list[dict]) -> FormatError:
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    with pytest.raises(FormatError) as caught:
        read_items(path, definition)
    return caught.value


# --- the syntax ---------------------------------------------------------------------------------------------------

def test_a_dotted_path_reads_a_key_of_an_object():
    assert paths.resolve(CHECK_ITEM, "key_point.text") == "Technology moves too fast"


def test_a_step_of_digits_indexes_a_list_from_zero():
    assert [paths.resolve(COMPARE_ITEM, f"systems.{n}") for n in (0, 1)] == COMPARE_ITEM["systems"]


def test_a_step_in_angle_brackets_is_the_value_of_another_path():
    first = COMPARE_ITEM["systems"][0]
    assert paths.resolve(COMPARE_ITEM, "summaries.<systems.0>") == COMPARE_ITEM["summaries"][first]
    assert paths.resolve(COMPARE_ITEM, "summaries.<systems.0>.0.1") == COMPARE_ITEM["summaries"][first][0][1]


def test_a_backslash_keeps_a_dot_in_a_key():
    item = {"scores": {"top.1": 0.5, "top": {"1": 0.1}}}
    assert paths.parse("scores.top\\.1") == ("scores", "top.1")
    assert paths.resolve(item, "scores.top\\.1") == 0.5 and paths.resolve(item, "scores.top.1") == 0.1


@pytest.mark.parametrize("written, says", [
    ("key_point..text", "empty step at character 11"),
    ("key_point.", "empty step"),
    ("0.text", "must start with an item field's name"),
    ("summaries.<systems.0", "is not closed by '>'"),
    ("systems.0>", "closes no '<'"),
    ("summaries.x<systems.0>", "a reference <...> is a whole step"),
    ("key_point\\", "ends with a backslash"),
])
def test_a_path_written_wrong_is_refused_saying_where(written, says):
    with pytest.raises(paths.PathError) as caught:
        paths.parse(written)
    assert says in str(caught.value)


@pytest.mark.parametrize("path, says", [
    ("key_point.label", "key_point has no key 'label' (it has 'id', 'text')"),
    ("systems.1", "systems has 1 element; index 1 is past its end (0 is the first)"),
    ("systems.first", "systems is a list: a step into it is an index (0, 1, ...), not 'first'"),
    ("key_point.text.0", "key_point.text is text, not an object or a list: '0' cannot be read in it"),
])
def test_a_path_that_leads_nowhere_names_the_step(path, says):
    with pytest.raises(paths.PathError) as caught:
        paths.resolve(CHECK_ITEM, path)
    assert str(caught.value) == says


# --- the definition -----------------------------------------------------------------------------------------------

def test_a_bad_path_in_show_is_refused_at_its_key_path_and_line():
    error = refused("name: n\nshow:\n  - topic\n  - {field: key_point..text}\n"
                    "questions: [{id: q, kind: text}]\n")
    assert (error.path, error.line) == ("show[1].field", 4) and "empty step" in error.message


def test_a_path_from_the_items_id_is_refused():
    error = refused("name: n\nshow: [topic]\nquestions:\n  - {id: q, kind: choice, options_from: id.0}\n")
    assert error.path == "questions[0].options_from" and "'id' is the item's id" in error.message


def test_a_bad_player_path_is_refused_at_its_index():
    error = refused("name: n\nshow: [a, b]\nquestions:\n"
                    "  - {id: q, kind: pairwise, a: a, b: b, players: [systems.0, 'systems.<x']}\n")
    assert error.path == "questions[0].players[1]" and "is not closed" in error.message


def test_a_kept_field_the_definition_reads_is_refused():
    error = refused("name: n\nshow: [key_point.text]\nkeep: [systems, key_point]\n"
                    "questions: [{id: q, kind: text}]\n")
    assert (error.path, error.line) == ("keep[1]", 3) and "a field the definition reads" in error.message


def test_a_kept_field_named_id_is_refused():
    error = refused("name: n\nshow: [topic]\nkeep: [id]\nquestions: [{id: q, kind: text}]\n")
    assert error.path == "keep[0]" and "the item's id" in error.message


def test_token_keys_come_together():
    error = refused("name: n\nshow: [words]\nquestions:\n  - {id: q, kind: span, of: words, token_id: id}\n")
    assert error.path == "questions[0].token_text" and "required with token_id" in error.message


def test_a_lists_text_may_be_an_index_into_each_row():
    compare = load_definition(COMPARE)
    assert compare.show[2].spec.text == "0" and compare.show[2].spec.figure == "1"  # type: ignore[union-attr]


def test_the_definition_reads_the_roots_of_its_paths_and_keeps_its_kept_fields():
    check = load_definition(CHECK)
    assert item_view.stored_fields(check) == ["topic", "stance", "argument", "key_point", "arg_id", "systems"]
    assert item_view.roots(load_definition(COMPARE)) == ["topic", "stance", "summaries", "systems"]


# --- the view -----------------------------------------------------------------------------------------------------

def test_the_view_holds_a_paths_value_and_options_without_their_other_keys():
    match = load_definition(ROOT / "annotator" / "shared_tasks" / "kpa2021" / "match.yaml")
    item = read_jsonl(DECLARED / "kp_match_items.jsonl")[0]
    seen = item_view.view(match, item)
    assert seen["key_points"] == [{"id": kp["id"], "text": kp["text"]} for kp in item["key_points"]]
    assert item["key_points"][0]["position"] == 0    # the item keeps them


def test_a_span_over_token_objects_labels_each_word_by_its_id():
    emphasis = load_definition(EMPHASIS)
    item = read_jsonl(DECLARED / "emphasis_items.jsonl")[0]
    seen = item_view.view(emphasis, item)
    assert seen["words"] == [w["text"] for w in item["words"]]
    stored, rows = check_answer(emphasis, seen, {"emphasis": [0, 2]})
    # the definition keeps span boundaries (docs/declared-span-boundaries.md): the answer is stored as tags
    assert stored == {"emphasis": ["B", "O", "B"] + ["O"] * (len(item["words"]) - 3)}
    assert [(row.unit, row.value) for row in rows[:3]] == [(item["words"][0]["id"], "1"),
                                                          (item["words"][1]["id"], "0"),
                                                          (item["words"][2]["id"], "1")]


def test_a_pairwise_unit_names_the_players_read_by_path():
    compare = load_definition(COMPARE)
    _, rows = check_answer(compare, item_view.view(compare, COMPARE_ITEM),
                           {"each_summary": {"A": {"stance": "all_support"}, "B": {"stance": "all_support"}},
                            "less_redundant": "A", "more_central": "equal"})
    assert {row.unit for row in rows if row.field == "less_redundant"} == {json.dumps(COMPARE_ITEM["systems"])}


# --- the items file -----------------------------------------------------------------------------------------------

def test_a_path_that_leads_nowhere_refuses_the_file_naming_line_and_path(tmp_path):
    rows = read_jsonl(CHECK_ITEMS)
    rows[2]["key_point"] = {"id": rows[2]["key_point"]["id"], "txt": rows[2]["key_point"]["text"]}
    error = refused_items(tmp_path, load_definition(CHECK), rows)
    assert (error.line, error.column) == (3, '"key_point.text"')
    assert "key_point has no key 'text' (it has 'id', 'txt')" in str(error)


def test_a_player_path_past_the_end_of_a_list_refuses_the_file(tmp_path):
    rows = read_jsonl(DECLARED / "compare_items.jsonl")
    rows[1]["systems"] = rows[1]["systems"][:1]
    error = refused_items(tmp_path, load_definition(COMPARE), rows)
    assert error.line == 2 and error.column == '"summaries.<systems.1>"'
    assert "systems has 1 element; index 1 is past its end" in str(error)


def test_a_field_neither_read_nor_kept_is_still_refused(tmp_path):
    rows = read_jsonl(CHECK_ITEMS)
    rows[0]["score"] = 0.8
    error = refused_items(tmp_path, load_definition(CHECK), rows)
    assert error.line == 1 and error.column == '"score"' and "unknown key" in str(error)


def test_a_flat_key_named_like_a_path_is_refused_with_the_field_to_give(tmp_path):
    rows = read_jsonl(CHECK_ITEMS)
    rows[0]["key_point.text"] = rows[0].pop("key_point")["text"]
    error = refused_items(tmp_path, load_definition(CHECK), rows)
    assert error.line == 1 and error.column == '"key_point.text"'
    assert "key_point.text is a key path: give the field 'key_point' as the object or list it reads into" in str(error)


def test_a_kept_field_may_be_missing_from_an_item(tmp_path):
    rows = read_jsonl(CHECK_ITEMS)
    del rows[1]["systems"]
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    items = read_items(path, load_definition(CHECK))
    assert "systems" not in items[1].payload and items[0].payload["systems"] == rows[0]["systems"]


def test_token_objects_with_a_repeated_id_refuse_the_file(tmp_path):
    rows = read_jsonl(DECLARED / "emphasis_items.jsonl")
    rows[1]["words"][2]["id"] = rows[1]["words"][0]["id"]
    error = refused_items(tmp_path, load_definition(EMPHASIS), rows)
    assert error.line == 2 and error.column == '"words"' and "is also the id of token 1" in str(error)


def test_a_csv_cell_holds_the_object_a_path_reads_into(tmp_path):
    row = CHECK_ITEM
    path = tmp_path / "items.csv"
    cells = [row["id"], row["topic"], str(row["stance"]), row["argument"], json.dumps(row["key_point"])]
    with path.open("w", encoding="utf-8", newline="") as stream:
        csv.writer(stream).writerows([["id", "topic", "stance", "argument", "key_point"], cells])
    [item] = read_items(path, load_definition(CHECK))
    assert item.payload["key_point"] == row["key_point"]


def test_a_control_made_from_gold_by_word_id_selects_the_words_at_their_positions():
    emphasis = load_definition(EMPHASIS)
    item = read_jsonl(DECLARED / "emphasis_items.jsonl")[0]
    words = item["words"]
    gold = pd.DataFrame([{"item": item["id"], "question": "emphasis", "unit": word["id"],
                          "gold": 0.8 if n in (0, 2) else 0.2, "score": 0.8 if n in (0, 2) else 0.2}
                         for n, word in enumerate(words)])
    task = DeclaredTask(emphasis)
    hit = SimpleNamespace(external_id=item["id"], payload=item)
    reference = task.control_reference(hit, pd.DataFrame(), gold)
    # known by probability: every word by its id; the words most annotators selected are those at 0 and 2
    assert reference == {"emphasis": {word["id"]: 0.8 if n in (0, 2) else 0.2 for n, word in enumerate(words)}}
    assert task.show_reference(hit, reference).endswith(
        f"{words[0]['text']} {words[2]['text']} (selected by most annotators)")
    tags = ["B", "O", "B"] + ["O"] * (len(words) - 3)
    assert task.control_score(hit, {"emphasis": tags}, reference) == 1.0


def test_a_repeat_group_reads_its_elements_by_key_path(tmp_path):
    dialogue = (ROOT / "examples" / "dialogue_turns.yaml").read_text("utf-8")
    nested = definition_from_text(dialogue.replace("elements_from: turns", "elements_from: dialogue.turns")
                                  .replace("{field: request,", "{field: dialogue.request,"))
    rows = [{"id": row["id"], "dialogue": {"request": row["request"], "turns": row["turns"]}}
            for row in read_jsonl(ROOT / "examples" / "dialogue_turns.jsonl")]
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    items = read_items(path, nested)
    assert [item.payload for item in items] == [{"dialogue": row["dialogue"]} for row in rows]
    question = DeclaredTask(nested).public_questions(items[0])[0]  # type: ignore[index]
    assert [e["id"] for e in question["elements"]] == [t["id"] for t in rows[0]["dialogue"]["turns"]]
