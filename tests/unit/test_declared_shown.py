"""The display kinds of a declared HIT (annotator/declared/shown.py): their keys in the definition (refused with the
key path and line), the item check the import runs (refused with the file, line and field), and the view model the
page draws. One rule per test."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from annotator.core.errors import FormatError
from annotator.declared import shown
from annotator.declared.answers import check_answer, item_options
from annotator.declared.definition import Definition, DefinitionError
from annotator.declared.definition_reader import definition_from_data, definition_from_text
from annotator.declared.items import read_items
from tests.support.declared_projects import DECLARED, read_jsonl

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SHOWN_KINDS = DECLARED / "shown_kinds.yaml"
QUESTION = {"id": "q", "kind": "scale"}


def definition(*show: dict | str) -> Definition:
    return definition_from_data({"name": "n", "show": list(show), "questions": [QUESTION]})


def refused_yaml(text: str) -> DefinitionError:
    with pytest.raises(DefinitionError) as caught:
        definition_from_text(textwrap.dedent(text).lstrip("\n"))
    return caught.value


def items_file(tmp_path: Path, rows: list[dict] | str, name: str = "items.jsonl") -> Path:
    path = tmp_path / name
    text = rows if isinstance(rows, str) else "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    path.write_text(text, encoding="utf-8")
    return path


def refused_items(tmp_path: Path, d: Definition, rows: list[dict] | str, name: str = "items.jsonl") -> FormatError:
    with pytest.raises(FormatError) as caught:
        read_items(items_file(tmp_path, rows, name), d)
    return caught.value


# --- the definition's keys ----------------------------------------------------------------------------------

def test_a_cloze_field_has_recams_placeholder_and_the_word_blank_by_default():
    [field] = definition({"field": "question", "as": "blanks"}).show
    assert field.spec == shown.ClozeSpec("@placeholder", "blank")


def test_a_cloze_fields_placeholder_and_blank_word_can_be_changed():
    [field] = definition({"field": "question", "as": "blanks", "placeholder": "[MASK]", "blank": "missing word"}).show
    assert field.spec == shown.ClozeSpec("[MASK]", "missing word")


def test_a_placeholder_with_spaces_around_it_is_refused_at_its_line():
    error = refused_yaml("""
        name: n
        show:
          - field: question
            as: blanks
            placeholder: " @placeholder"
        questions: [{id: q, kind: scale}]
        """)
    assert (error.path, error.line) == ("show[0].placeholder", 5)
    assert "without spaces" in error.message


def test_a_key_of_another_display_kind_is_refused_naming_its_kind_and_line():
    error = refused_yaml("""
        name: n
        show:
          - {field: text, label: Text}
          - field: summary
            as: list
            placeholder: "@placeholder"
        questions: [{id: q, kind: scale}]
        """)
    assert (error.path, error.line) == ("show[1].placeholder", 6)
    assert error.message == "is a key of `as: blanks`, not of `as: list`"


def test_a_display_kinds_key_on_plain_text_is_refused():
    with pytest.raises(DefinitionError) as caught:
        definition({"field": "text", "highlights": "marks"})
    assert caught.value.path == "show[0].highlights" and "`as: highlighted`, not of `as: text`" in caught.value.message


def test_a_list_reads_text_elements_or_objects_text_key_and_an_optional_figure():
    [plain, figured] = definition({"field": "points", "as": "list"},
                                  {"field": "summary", "as": "list", "text": "key_point", "figure": "prevalence",
                                   "figure_as": "count", "numbered": False}).show
    assert plain.spec == shown.ListSpec()
    assert figured.spec == shown.ListSpec("key_point", "prevalence", "count", "count", False, "None.")


def test_a_figure_shown_otherwise_than_share_count_or_number_is_refused():
    with pytest.raises(DefinitionError) as caught:
        definition({"field": "summary", "as": "list", "figure": "prevalence", "figure_as": "percent"})
    assert caught.value.path == "show[0].figure_as" and "share, count, number" in caught.value.message


def test_how_a_figure_is_shown_needs_the_figure_key():
    with pytest.raises(DefinitionError) as caught:
        definition({"field": "summary", "as": "list", "figure_as": "count"})
    assert caught.value.path == "show[0].figure_as" and "figure: prevalence" in caught.value.message


def test_the_figure_key_must_differ_from_the_text_key():
    with pytest.raises(DefinitionError) as caught:
        definition({"field": "summary", "as": "list", "text": "kp", "figure": "kp"})
    assert caught.value.path == "show[0].figure"


def test_a_highlighted_text_reads_its_highlights_from_a_field_of_its_own_that_the_item_gives():
    d = definition({"field": "argument", "as": "highlighted", "highlights": "matched"}, "topic")
    assert d.show[0].spec == shown.HighlightSpec("matched", "highlighted")
    assert d.item_fields() == ["argument", "matched", "topic"]


def test_the_highlights_field_is_named_after_the_text_unless_given():
    d = definition({"field": "argument", "as": "highlighted"})
    assert d.item_fields() == ["argument", "argument_highlights"]


def test_the_highlights_cannot_be_the_texts_own_field_or_another_shown_one():
    with pytest.raises(DefinitionError) as own:
        definition({"field": "argument", "as": "highlighted", "highlights": "argument"})
    assert own.value.path == "show[0].highlights" and "another item field" in own.value.message
    with pytest.raises(DefinitionError) as other:
        definition({"field": "argument", "as": "highlighted", "highlights": "topic"}, "topic")
    assert other.value.path == "show[0].highlights" and "'topic' is a shown field" in other.value.message


def test_two_texts_cannot_share_one_highlights_field():
    with pytest.raises(DefinitionError) as caught:
        definition({"field": "a", "as": "highlighted", "highlights": "marks"},
                   {"field": "b", "as": "highlighted", "highlights": "marks"})
    assert caught.value.path == "show[1].highlights" and "show[0]" in caught.value.message


def test_a_blank_screen_reader_word_is_refused():
    with pytest.raises(DefinitionError) as caught:
        definition({"field": "argument", "as": "highlighted", "highlight_label": "  "})
    assert caught.value.path == "show[0].highlight_label" and "screen reader" in caught.value.message


def test_the_stored_definition_reads_back_with_the_same_display_settings():
    d = definition_from_text(SHOWN_KINDS.read_text(encoding="utf-8"))
    assert definition_from_data(d.to_data()).show == d.show


# --- the items file -------------------------------------------------------------------------------------------

def test_the_examples_items_are_read_with_their_lists_and_highlights():
    d = definition_from_text(SHOWN_KINDS.read_text(encoding="utf-8"))
    items = read_items(DECLARED / "shown_kinds.jsonl", d)
    assert [i.payload["argument_highlights"] for i in items] == [
        [{"start": 106, "end": 134, "label": "Regulation would not work"}], [[0, 17]]]
    assert items[1].payload["key_points"] == ["Freedom matters", "It is a private matter"]


def test_a_cloze_text_without_its_placeholder_is_refused_with_its_line_and_field(tmp_path):
    d = definition({"field": "question", "as": "blanks"})
    error = refused_items(tmp_path, d, [{"question": "a @placeholder here"}, {"question": "no blank here"}])
    assert (error.line, error.column) == (2, '"question"')
    assert "holds no '@placeholder'" in str(error)


def test_a_list_field_that_is_not_a_list_is_refused(tmp_path):
    d = definition({"field": "summary", "as": "list"})
    error = refused_items(tmp_path, d, [{"summary": "Freedom matters"}])
    assert (error.line, error.column) == (1, '"summary"') and "a list of text or of objects" in str(error)


def test_a_list_element_without_its_text_key_is_refused(tmp_path):
    d = definition({"field": "summary", "as": "list", "text": "key_point"})
    error = refused_items(tmp_path, d, [{"summary": [{"key_point": "Freedom matters"}, {"text": "oops"}]}])
    assert "element 2 has no 'key_point' key" in str(error)


def test_a_share_outside_0_to_1_is_refused(tmp_path):
    d = definition({"field": "summary", "as": "list", "figure": "prevalence"})
    error = refused_items(tmp_path, d, [{"summary": [{"text": "Freedom matters", "prevalence": 28.6}]}])
    assert "element 1's 'prevalence' is 28.6; a share is between 0 and 1" in str(error)


def test_a_count_that_is_not_whole_is_refused(tmp_path):
    d = definition({"field": "summary", "as": "list", "figure": "n", "figure_as": "count"})
    error = refused_items(tmp_path, d, [{"summary": [{"text": "Freedom matters", "n": 2.5}]}])
    assert "a count is a whole number" in str(error)


def test_an_element_without_a_figure_is_kept(tmp_path):
    d = definition({"field": "summary", "as": "list", "figure": "prevalence"})
    [item] = read_items(items_file(tmp_path, [{"summary": [{"text": "Freedom matters", "prevalence": None},
                                                           {"text": "Users can decide"}]}]), d)
    assert len(item.payload["summary"]) == 2


def test_a_list_and_highlights_are_json_in_a_csv_cell(tmp_path):
    d = definition({"field": "summary", "as": "list"}, {"field": "argument", "as": "highlighted"})
    path = items_file(tmp_path, 'summary,argument,argument_highlights\n"[""Freedom matters""]",Freedom first,'
                                '"[[0, 7]]"\n', "items.csv")
    [item] = read_items(path, d)
    assert item.payload == {"summary": ["Freedom matters"], "argument": "Freedom first",
                            "argument_highlights": [[0, 7]]}


def test_a_csv_cell_that_is_not_json_is_refused_with_the_shape_expected(tmp_path):
    d = definition({"field": "summary", "as": "list"})
    error = refused_items(tmp_path, d, "summary\nFreedom matters\n", "items.csv")
    assert (error.line, error.column) == (2, '"summary"') and "must be JSON" in str(error)


def test_a_highlight_beyond_the_text_is_refused_naming_the_highlights_field(tmp_path):
    d = definition({"field": "argument", "as": "highlighted", "highlights": "marks"})
    error = refused_items(tmp_path, d, [{"argument": "Freedom of speech", "marks": [[0, 7]]},
                                        {"argument": "Freedom of speech", "marks": [[8, 18]]}])
    assert (error.line, error.column) == (2, '"marks"')
    assert "highlight 1 [8, 18] is not a stretch of 'argument': it needs 0 <= start < end <= 17" in str(error)


def test_overlapping_highlights_are_refused(tmp_path):
    d = definition({"field": "argument", "as": "highlighted"})
    error = refused_items(tmp_path, d, [{"argument": "Freedom of speech", "argument_highlights": [[8, 17], [0, 10]]}])
    assert "highlight 1 [8, 17] overlaps highlight 2 [0, 10]" in str(error)


def test_an_empty_highlight_and_one_of_the_wrong_shape_are_refused(tmp_path):
    d = definition({"field": "argument", "as": "highlighted"})
    empty = refused_items(tmp_path, d, [{"argument": "Freedom", "argument_highlights": [[3, 3]]}])
    assert "highlight 1 [3, 3] is not a stretch" in str(empty)
    shape = refused_items(tmp_path, d, [{"argument": "Freedom", "argument_highlights": [{"from": 0, "to": 3}]}])
    assert 'highlight 1 must be [start, end] or {"start", "end", "label"}' in str(shape)
    floats = refused_items(tmp_path, d, [{"argument": "Freedom", "argument_highlights": [[0.0, 3]]}])
    assert "whole numbers" in str(floats)


def test_offsets_count_code_points_so_an_emoji_is_one_character(tmp_path):
    d = definition({"field": "argument", "as": "highlighted"})
    [item] = read_items(items_file(tmp_path, [{"argument": "😀 free speech", "argument_highlights": [[2, 13]]}]), d)
    view = shown.view(d.show[0], item.payload)
    assert view is not None and [p.text for p in view.pieces if p.marked] == ["free speech"]


def test_options_from_a_plain_list_of_strings_gives_each_word_as_its_value():
    d = definition_from_text((EXAMPLES / "recam2021_cloze.yaml").read_text(encoding="utf-8"))
    item = read_items(EXAMPLES / "recam2021_cloze_items.jsonl", d)[0]
    assert [(o.value, o.label) for o in item_options(d.question("answer"), item.payload)] == \
        [("end", "end"), ("free", "free"), ("secret", "secret"), ("normal", "normal"),
         ("concentration", "concentration")]
    stored, labels = check_answer(d, item.payload, {"answer": "secret", "difficulty": "easy"})
    assert stored == {"answer": "secret", "difficulty": "easy"}
    assert [(row.unit, row.field, row.value) for row in labels] == [("answer", "answer", "secret"),
                                                                    ("difficulty", "difficulty", "easy")]


def test_every_example_reads_its_items_file():
    for name in ("recam2021_cloze", "kpa2021_track2_compare"):
        d = definition_from_text((EXAMPLES / f"{name}.yaml").read_text(encoding="utf-8"))
        assert len(read_items(EXAMPLES / f"{name}_items.jsonl", d)) == len(read_jsonl(EXAMPLES / f"{name}_items.jsonl"))


# --- the view models ------------------------------------------------------------------------------------------

def test_each_placeholder_of_a_cloze_text_is_a_blank():
    [field] = definition({"field": "q", "as": "blanks", "placeholder": "[MASK]", "blank": "gap"}).show
    view = shown.view(field, {"q": "[MASK] leads to [MASK]."})
    assert view == shown.TextView("blanks", (shown.Piece("[MASK]", blank=True), shown.Piece(" leads to "),
                                            shown.Piece("[MASK]", blank=True), shown.Piece(".")), "gap")


def test_highlights_are_drawn_in_text_order_with_their_own_label_or_the_default():
    [field] = definition({"field": "a", "as": "highlighted", "highlight_label": "emphasised"}).show
    view = shown.view(field, {"a": "Freedom of speech matters", "a_highlights": [
        {"start": 18, "end": 25, "label": "key point 2"}, [0, 7]]})
    assert view is not None and view.pieces == (
        shown.Piece("Freedom", marked=True, label="emphasised"), shown.Piece(" of speech "),
        shown.Piece("matters", marked=True, label="key point 2", own_label=True))


def test_highlights_the_import_would_refuse_are_not_drawn_and_the_text_is_shown_plain():
    [field] = definition({"field": "a", "as": "highlighted"}).show
    assert shown.view(field, {"a": "Freedom", "a_highlights": [[0, 99]]}) is None
    assert shown.view(field, {"a": "Freedom", "a_highlights": "not a list"}) is None


def test_a_lists_elements_keep_the_items_order_with_their_figures_drawn():
    [field] = definition({"field": "s", "as": "list", "figure": "p", "figure_label": "share of the arguments"}).show
    view = shown.view(field, {"s": [{"text": "Laws already exist", "p": 0.004}, "Freedom matters",
                                    {"text": "Users can decide", "p": 0.286}, {"text": "None match", "p": 0}]})
    assert view == shown.ListView((shown.Element("Laws already exist", "<1%"), shown.Element("Freedom matters", None),
                                   shown.Element("Users can decide", "29%"), shown.Element("None match", "0%")),
                                  True, "share of the arguments", "None.")


@pytest.mark.parametrize(("figure_as", "figure", "text"), [("share", 1, "100%"), ("share", 0.125, "12%"),
                                                          ("count", 12, "12"), ("count", 3.0, "3"),
                                                          ("number", 2.5, "2.5"), ("number", -4.0, "-4")])
def test_a_figure_is_drawn_as_its_kind_says(figure_as, figure, text):
    assert shown.figure_text(figure_as, figure) == text


def test_a_list_the_import_would_refuse_is_shown_as_text():
    [field] = definition({"field": "s", "as": "list"}).show
    assert shown.view(field, {"s": [{"no_text": 1}]}) is None
    assert shown.view(field, {"s": "plain text"}) is None


def test_a_highlights_field_cannot_give_a_questions_options_or_players():
    show = [{"field": "argument", "as": "highlighted", "highlights": "marks"}, "a", "b"]
    with pytest.raises(DefinitionError) as options:
        definition_from_data({"name": "n", "show": show,
                              "questions": [{"id": "q", "kind": "choice", "options_from": "marks"}]})
    assert options.value.path == "questions[0].options_from" and "highlights of show[0]" in options.value.message
    with pytest.raises(DefinitionError) as players:
        definition_from_data({"name": "n", "show": show, "questions": [
            {"id": "q", "kind": "pairwise", "a": "a", "b": "b", "players": ["marks", "b_id"]}]})
    assert players.value.path == "questions[0].players"
