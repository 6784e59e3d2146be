"""Specification of the KPA-2021 / ArgKP reader and writer (annotator.shared_tasks.kpa2021.files).

Malformed inputs are written inside each test (tmp_path) so that the committed fixtures stay
unchanged copies of the official data (tests/data/kpa2021/SOURCE.md).
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from annotator.core.errors import FormatError
from annotator.shared_tasks.kpa2021.files import Argument, KeyPoint, read_split, shipped_demo_dir, write_split
from tests.conftest import SHARED_DATA

EXCERPT = Path(__file__).resolve().parents[2] / "data" / "kpa2021"
SHARED = SHARED_DATA / "kpa2021"
OFFICIAL = {"train": SHARED / "kpm_data", "dev": SHARED / "kpm_data", "test": SHARED / "test_data"}
needs_shared = pytest.mark.shared_data  # skipped without ../shared/data, a failure under CI

SCHOOL = "We should abandon the use of school uniform"
GUNS = "We should abolish the right to keep and bear arms"
ARGUMENTS = (
    "arg_id,argument,topic,stance\n"
    f"arg_4_0,it is a good way to instill discipline,{SCHOOL},-1\n"
    f'arg_4_1,"it is cheaper for parents, who are struggling",{SCHOOL},-1\n'
    f"arg_4_2,uniforms stifle self expression,{SCHOOL},1\n"
    f"arg_7_0,guns protect families,{GUNS},-1\n"
)
KEY_POINTS = (
    "key_point_id,key_point,topic,stance\n"
    f"kp_4_0,School uniforms encourage discipline,{SCHOOL},-1\n"
    f"kp_4_1,School uniforms saves costs,{SCHOOL},-1\n"
    f"kp_4_2,School uniform is harming self expression,{SCHOOL},1\n"
    f"kp_7_0,Guns are needed for self defense,{GUNS},-1\n"
)
LABELS = (
    "arg_id,key_point_id,label\n"
    "arg_4_0,kp_4_0,1\n"
    "arg_4_0,kp_4_1,0\n"
    "arg_4_1,kp_4_1,1\n"
    "arg_4_2,kp_4_2,1\n"
)


def make_split(tmp_path: Path, arguments: str | bytes = ARGUMENTS, key_points: str | bytes = KEY_POINTS,
               labels: str | bytes | None = LABELS) -> Path:
    """A small dev split in tmp_path; pass one file's text (or bytes) to break it."""
    for name, content in (("arguments", arguments), ("key_points", key_points), ("labels", labels)):
        if content is not None:
            data = content.encode("utf-8") if isinstance(content, str) else content
            (tmp_path / f"{name}_dev.csv").write_bytes(data)
    return tmp_path


def error_of(directory: Path, split: str = "dev", **kwargs) -> FormatError:
    with pytest.raises(FormatError) as caught:
        read_split(directory, split, **kwargs)
    return caught.value


def assert_located(error: FormatError, file: str, line: int | None, column: str | None) -> None:
    assert (error.file, error.line, error.column) == (file, line, column), str(error)


# --- reading and writing valid data ------------------------------------------------------------

def test_excerpt_round_trips_byte_identical(tmp_path: Path) -> None:
    split = read_split(EXCERPT, "test", require_labels=True)
    written = write_split(tmp_path, "test", split.arguments, split.key_points,
                          [(a, k, v) for (a, k), v in split.labels.items()])
    assert [p.name for p in written] == ["arguments_test.csv", "key_points_test.csv", "labels_test.csv"]
    for path in written:
        assert path.read_bytes() == (EXCERPT / path.name).read_bytes()


@needs_shared
@pytest.mark.parametrize("split", ["train", "dev", "test"])
def test_official_split_round_trips_byte_identical(tmp_path: Path, split: str) -> None:
    data = read_split(OFFICIAL[split], split, require_labels=True)
    written = write_split(tmp_path, split, data.arguments, data.key_points,
                          [(a, k, v) for (a, k), v in data.labels.items()])
    for path in written:
        assert path.read_bytes() == (OFFICIAL[split] / path.name).read_bytes(), path.name


@needs_shared
def test_official_dev_split_has_932_arguments_36_key_points_3458_labels() -> None:
    split = read_split(OFFICIAL["dev"], "dev", require_labels=True)
    assert (len(split.arguments), len(split.key_points), len(split.labels)) == (932, 36, 3458)
    assert sum(split.labels.values()) == 738


def test_shipped_demo_is_the_full_dev_split() -> None:
    split = read_split(shipped_demo_dir(), "dev", require_labels=True)
    assert (len(split.arguments), len(split.key_points), len(split.labels)) == (932, 36, 3458)
    for notice in ("LICENCE.md", "readme.txt"):
        assert (shipped_demo_dir() / notice).is_file()


@needs_shared
def test_shipped_demo_files_are_byte_copies_of_the_official_ones() -> None:
    for name in ("arguments_dev.csv", "key_points_dev.csv", "labels_dev.csv", "readme.txt"):
        assert (shipped_demo_dir() / name).read_bytes() == (OFFICIAL["dev"] / name).read_bytes()


def test_reader_keeps_file_order_multiline_text_and_non_ascii() -> None:
    split = read_split(EXCERPT, "test")
    ids = [a.arg_id for a in split.arguments]
    assert ids[:3] == ["arg_1_0", "arg_1_1", "arg_1_2"] and ids[-1] == "arg_1_188"
    by_id = {a.arg_id: a for a in split.arguments}
    assert by_id["arg_1_21"].argument.endswith("authoritarianism\nNo to informational blackout")
    assert "\u200b" in by_id["arg_1_56"].argument and "\u2014" in by_id["arg_1_188"].argument
    assert by_id["arg_1_21"].stance == -1 and by_id["arg_1_188"].stance == 1
    assert split.labels[("arg_1_99", "kp_1_5")] == 0


def test_key_points_for_gives_same_topic_and_stance_in_file_order() -> None:
    split = read_split(EXCERPT, "test")
    topic = split.arguments[0].topic
    assert [k.key_point_id for k in split.key_points_for(topic, -1)] == [f"kp_1_{n}" for n in range(5)]
    assert [k.key_point_id for k in split.key_points_for(topic, 1)] == [f"kp_1_{n}" for n in range(5, 10)]


def test_key_points_for_unknown_topic_is_empty() -> None:
    assert read_split(EXCERPT, "test").key_points_for("no such topic", 1) == []


def test_labels_are_none_when_labels_file_is_absent(tmp_path: Path) -> None:
    split = read_split(make_split(tmp_path, labels=None), "dev")
    assert split.labels is None and len(split.arguments) == 4


def test_write_then_read_gives_the_same_values_with_quotes_commas_and_newlines(tmp_path: Path) -> None:
    arguments = [Argument("a1", 'she said "no", twice\nthen left', "T, with comma", 1),
                 Argument("a2", "caf\u00e9 \u2014 plain", "T, with comma", -1)]
    key_points = [KeyPoint("k1", 'a "quoted" point', "T, with comma", 1)]
    write_split(tmp_path, "x", arguments, key_points, [("a1", "k1", 1)])
    split = read_split(tmp_path, "x", require_labels=True)
    assert (split.arguments, split.key_points, split.labels) == (arguments, key_points, {("a1", "k1"): 1})


def test_write_without_labels_writes_no_labels_file_and_removes_a_stale_one(tmp_path: Path) -> None:
    make_split(tmp_path)
    split = read_split(tmp_path, "dev")
    written = write_split(tmp_path, "dev", split.arguments, split.key_points, [])
    assert [p.name for p in written] == ["arguments_dev.csv", "key_points_dev.csv"]
    assert read_split(tmp_path, "dev").labels is None


def test_columns_in_another_order_are_accepted(tmp_path: Path) -> None:
    reordered = "stance,topic,argument,arg_id\n" + "".join(
        f"{s},{t},{a},{i}\n" for i, a, t, s in (line.split(",") for line in
                                                 [f"arg_4_0,x,{SCHOOL},-1", f"arg_4_2,y,{SCHOOL},1",
                                                  f"arg_4_1,z,{SCHOOL},-1", f"arg_7_0,w,{GUNS},-1"]))
    split = read_split(make_split(tmp_path, arguments=reordered), "dev")
    assert split.arguments[0] == Argument("arg_4_0", "x", SCHOOL, -1)


def test_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    split = read_split(make_split(tmp_path, arguments="\ufeff" + ARGUMENTS), "dev")
    assert split.arguments[0].arg_id == "arg_4_0"


def test_blank_lines_are_skipped_and_later_lines_keep_their_physical_number(tmp_path: Path) -> None:
    text = ARGUMENTS.replace("\narg_4_2,", "\n\narg_4_2,").replace(f"{GUNS},-1", f"{GUNS},0")
    assert_located(error_of(make_split(tmp_path, arguments=text)), "arguments_dev.csv", 6, "stance")


def test_shipped_demo_dir_is_inside_the_package() -> None:
    import annotator
    assert shipped_demo_dir() == Path(annotator.__file__).resolve().parent / "campaigns" / "demo" / "kpa2021"
    assert (shipped_demo_dir() / "arguments_dev.csv").is_file()


# --- files that are missing, empty or not text --------------------------------------------------

def test_missing_arguments_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "key_points_dev.csv").write_text(KEY_POINTS)
    error = error_of(tmp_path)
    assert_located(error, "arguments_dev.csv", None, None)
    assert "not found" in str(error)


def test_missing_key_points_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "arguments_dev.csv").write_text(ARGUMENTS)
    assert_located(error_of(tmp_path), "key_points_dev.csv", None, None)


def test_missing_labels_file_is_an_error_when_labels_are_required(tmp_path: Path) -> None:
    error = error_of(make_split(tmp_path, labels=None), require_labels=True)
    assert_located(error, "labels_dev.csv", None, None)


def test_zero_byte_file_is_reported_empty(tmp_path: Path) -> None:
    error = error_of(make_split(tmp_path, key_points=""))
    assert_located(error, "key_points_dev.csv", None, None)
    assert "empty" in str(error)


def test_header_only_file_has_no_rows(tmp_path: Path) -> None:
    error = error_of(make_split(tmp_path, labels="arg_id,key_point_id,label\n"))
    assert_located(error, "labels_dev.csv", None, None)
    assert "no rows" in str(error)


def test_non_utf8_byte_gives_line_and_byte_offset(tmp_path: Path) -> None:
    data = ARGUMENTS.encode().replace(b"stifle self", b"stifle s\xe9lf")
    error = error_of(make_split(tmp_path, arguments=data))
    assert_located(error, "arguments_dev.csv", 4, None)
    offset = data.index(b"\xe9")
    in_line = offset - data.rindex(b"\n", 0, offset)
    assert f"byte 0xE9 at byte offset {offset} of the file (byte {in_line} of this line)" in str(error)


# --- header ------------------------------------------------------------------------------------

def test_missing_column_is_named_and_found_columns_listed(tmp_path: Path) -> None:
    text = "\n".join(line.rsplit(",", 1)[0] for line in ARGUMENTS.splitlines()) + "\n"
    error = error_of(make_split(tmp_path, arguments=text))
    assert_located(error, "arguments_dev.csv", 1, "stance")
    assert 'the header line is "arg_id,argument,topic"' in str(error)


def test_unknown_extra_column_is_an_error(tmp_path: Path) -> None:
    text = "".join(line + (",notes\n" if i == 0 else ",\n") for i, line in enumerate(LABELS.splitlines()))
    assert_located(error_of(make_split(tmp_path, labels=text)), "labels_dev.csv", 1, "notes")


def test_duplicated_column_is_an_error(tmp_path: Path) -> None:
    text = "".join(line + ",1\n" for line in LABELS.splitlines()).replace("label,1", "label,label", 1)
    assert_located(error_of(make_split(tmp_path, labels=text)), "labels_dev.csv", 1, "label")


# --- malformed CSV -----------------------------------------------------------------------------

def test_row_with_an_extra_value_is_malformed(tmp_path: Path) -> None:
    text = ARGUMENTS.replace("uniforms stifle self expression", "uniforms stifle, self expression")
    error = error_of(make_split(tmp_path, arguments=text))
    assert_located(error, "arguments_dev.csv", 4, None)
    assert "5 values but the header has 4 columns" in str(error)


def test_row_with_a_missing_value_names_the_first_missing_column(tmp_path: Path) -> None:
    text = LABELS.replace("arg_4_1,kp_4_1,1", "arg_4_1,kp_4_1")
    assert_located(error_of(make_split(tmp_path, labels=text)), "labels_dev.csv", 4, "label")


def test_unclosed_quote_is_reported_on_the_line_where_it_opens(tmp_path: Path) -> None:
    text = ARGUMENTS.replace("arg_4_2,uniforms", 'arg_4_2,"uniforms')
    assert_located(error_of(make_split(tmp_path, arguments=text)), "arguments_dev.csv", 4, None)


def test_text_after_a_closing_quote_is_malformed(tmp_path: Path) -> None:
    text = ARGUMENTS.replace('struggling",', 'struggling" really,')
    assert_located(error_of(make_split(tmp_path, arguments=text)), "arguments_dev.csv", 3, None)


def test_pandas_parser_error_becomes_format_error(tmp_path: Path, monkeypatch) -> None:
    def broken(*args, **kwargs):
        raise pd.errors.ParserError("Error tokenizing data. C error: Expected 4 fields in line 3, saw 5")
    monkeypatch.setattr(pd, "read_csv", broken)  # the formats module imports pandas where it reads
    assert_located(error_of(make_split(tmp_path)), "arguments_dev.csv", None, None)


# --- values ------------------------------------------------------------------------------------

def test_empty_required_value_is_named(tmp_path: Path) -> None:
    text = ARGUMENTS.replace("guns protect families", "")
    assert_located(error_of(make_split(tmp_path, arguments=text)), "arguments_dev.csv", 5, "argument")


def test_value_of_only_spaces_counts_as_empty(tmp_path: Path) -> None:
    text = KEY_POINTS.replace("kp_4_1,", "   ,")
    assert_located(error_of(make_split(tmp_path, key_points=text)), "key_points_dev.csv", 3, "key_point_id")


def test_stance_other_than_1_or_minus_1_shows_the_value(tmp_path: Path) -> None:
    text = ARGUMENTS.replace(f"self expression,{SCHOOL},1", f"self expression,{SCHOOL},pro")
    error = error_of(make_split(tmp_path, arguments=text))
    assert_located(error, "arguments_dev.csv", 4, "stance")
    assert "'pro'" in str(error)


def test_line_numbers_count_the_lines_inside_a_multiline_value(tmp_path: Path) -> None:
    shutil.copytree(EXCERPT, tmp_path, dirs_exist_ok=True)
    path = tmp_path / "arguments_test.csv"
    # arg_1_21's argument spans lines 12-13, so arg_1_26 is the 13th row but on line 14.
    data = path.read_bytes()
    path.write_bytes(data.replace(b"the government,-1\narg_1_35,", b"the government,2\narg_1_35,"))
    assert_located(error_of(tmp_path, "test"), "arguments_test.csv", 14, "stance")


def test_duplicate_arg_id_names_the_first_occurrence(tmp_path: Path) -> None:
    text = ARGUMENTS.replace("arg_7_0,", "arg_4_1,")
    error = error_of(make_split(tmp_path, arguments=text))
    assert_located(error, "arguments_dev.csv", 5, "arg_id")
    assert "already on line 3" in str(error)


def test_duplicate_key_point_id_names_the_first_occurrence(tmp_path: Path) -> None:
    text = KEY_POINTS.replace("kp_4_2,", "kp_4_0,")
    error = error_of(make_split(tmp_path, key_points=text))
    assert_located(error, "key_points_dev.csv", 4, "key_point_id")
    assert "already on line 2" in str(error)


def test_key_point_of_a_topic_without_arguments_is_an_error(tmp_path: Path) -> None:
    text = KEY_POINTS + "kp_9_0,Austerity saves money,We should adopt an austerity regime,1\n"
    assert_located(error_of(make_split(tmp_path, key_points=text)), "key_points_dev.csv", 6, "topic")


def test_key_point_of_a_stance_without_arguments_is_an_error(tmp_path: Path) -> None:
    text = KEY_POINTS.replace(f"self defense,{GUNS},-1", f"self defense,{GUNS},1")
    error = error_of(make_split(tmp_path, key_points=text))
    assert_located(error, "key_points_dev.csv", 5, "stance")
    assert "stance 1 (pro)" in str(error)


def test_label_other_than_0_or_1_shows_the_value(tmp_path: Path) -> None:
    error = error_of(make_split(tmp_path, labels=LABELS.replace("arg_4_0,kp_4_1,0", "arg_4_0,kp_4_1,0.5")))
    assert_located(error, "labels_dev.csv", 3, "label")
    assert "'0.5'" in str(error)


def test_label_with_unknown_argument_is_an_error(tmp_path: Path) -> None:
    error = error_of(make_split(tmp_path, labels=LABELS + "arg_4_99,kp_4_0,0\n"))
    assert_located(error, "labels_dev.csv", 6, "arg_id")
    assert "arg_4_99" in str(error)


def test_label_with_unknown_key_point_is_an_error(tmp_path: Path) -> None:
    error = error_of(make_split(tmp_path, labels=LABELS.replace("arg_4_2,kp_4_2", "arg_4_2,kp_4_9")))
    assert_located(error, "labels_dev.csv", 5, "key_point_id")


def test_duplicate_label_pair_names_the_first_occurrence(tmp_path: Path) -> None:
    error = error_of(make_split(tmp_path, labels=LABELS + "arg_4_0,kp_4_1,1\n"))
    assert_located(error, "labels_dev.csv", 6, "key_point_id")
    assert "already on line 3" in str(error)


def test_label_pairing_another_stance_is_an_error(tmp_path: Path) -> None:
    error = error_of(make_split(tmp_path, labels=LABELS.replace("arg_4_2,kp_4_2", "arg_4_2,kp_4_1")))
    assert_located(error, "labels_dev.csv", 5, "key_point_id")


def test_label_pairing_another_topic_is_an_error(tmp_path: Path) -> None:
    error = error_of(make_split(tmp_path, labels=LABELS + "arg_7_0,kp_4_0,0\n"))
    assert_located(error, "labels_dev.csv", 6, "key_point_id")
