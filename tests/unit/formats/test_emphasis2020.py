"""SemEval-2020 Task 10 (emphasis selection) files: reading, writing byte for byte, and every refusal."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from statsmodels.stats.inter_rater import fleiss_kappa

from annotator.core.errors import FormatError
from annotator.shared_tasks.emphasis2020.files import (
    Sentence,
    Token,
    frequencies,
    kappa_table,
    parse,
    probability,
    read_file,
    write_annotated,
    write_submission,
    write_words_only,
)
from tests.conftest import SHARED_DATA

EXCERPTS = Path(__file__).resolve().parents[2] / "data" / "emphasis2020"
SHARED = SHARED_DATA / "emphasis2020"
needs_shared = pytest.mark.shared_data  # skipped without ../shared/data, a failure under CI


def token_line(word_id: str, word: str, tags: str, pos: str = "NN", freq: str | None = None,
               prob: str | None = None) -> str:
    """One well-formed 7-field line unless `freq` or `prob` override the derived values."""
    t = tags.split("|")
    freq = freq if freq is not None else "|".join(map(str, frequencies(t)))
    prob = prob if prob is not None else repr(probability(t))
    return "\t".join([word_id, word, tags, freq, prob, pos]) + "\t "


def write_lines(tmp_path: Path, lines: list[str], name: str = "bad.txt") -> Path:
    path = tmp_path / name
    path.write_bytes(("\n".join(lines) + "\n").encode("utf-8"))
    return path


def assert_refused(path: Path, line: int | None, column: str | None, *fragments: str) -> FormatError:
    with pytest.raises(FormatError) as info:
        read_file(path)
    err = info.value
    assert (err.file, err.line, err.column) == (path.name, line, column)
    for fragment in fragments:
        assert fragment in err.message
    return err


def writer_for(sentences: list[Sentence]):
    return write_annotated if sentences[0].tokens[0].tags is not None else write_words_only


# ------------------------------------------------------------------------------- excerpts

@pytest.mark.parametrize("name", ["train_excerpt.txt", "dev_excerpt.txt", "test_excerpt.txt"])
def test_excerpt_round_trips_byte_identical(tmp_path: Path, name: str) -> None:
    sentences = read_file(EXCERPTS / name)
    writer_for(sentences)(tmp_path / name, sentences)
    assert (tmp_path / name).read_bytes() == (EXCERPTS / name).read_bytes()


def test_excerpts_carry_a_source_note() -> None:
    note = (EXCERPTS / "SOURCE.md").read_text(encoding="utf-8")
    for needed in ("RiTUAL-UH/SemEval2020_Task10_Emphasis_Selection", "83afe55",
                   "no licence statement: excerpt for testing only", "train_dev_data/train.txt",
                   "train_dev_data/dev.txt", "test_data/test_data.txt"):
        assert needed.lower() in note.lower()


def test_annotated_layout_gives_tags_pos_ids_and_first_lines() -> None:
    s0, q1 = read_file(EXCERPTS / "train_excerpt.txt")[:2]
    assert (s0.sentence_id, s0.first_line, q1.sentence_id, q1.first_line) == ("S_0", 2, "Q_1", 6)
    assert s0.tokens[0] == Token("S_0_0", "Save", "VB", ("O", "B", "B", "B", "B", "B", "B", "B", "B"))
    assert s0.line(2) == 4


def test_words_only_layout_has_no_tags_or_pos() -> None:
    first = read_file(EXCERPTS / "test_excerpt.txt")[0]
    assert first.tokens[1] == Token("S_0_1", "'ll", None, None)


def test_non_ascii_words_are_read_as_utf8() -> None:
    words = {t.word for s in read_file(EXCERPTS / "dev_excerpt.txt") for t in s.tokens}
    assert "•" in words


def test_frequencies_are_b_i_o_counts_and_probability_is_their_emphasised_share() -> None:
    tags = "I|B|B|O|B|B|B|I|B".split("|")  # dev S_1_2 "magic"
    assert frequencies(tags) == (6, 2, 1)
    assert repr(probability(tags)) == "0.8888888888888888"


def test_blank_lines_are_tolerated_around_and_between_sentences(tmp_path: Path) -> None:
    path = write_lines(tmp_path, [token_line("S_0_0", "Hi", "B|O"), "", "", " ", token_line("S_1_0", "Yo", "O|O")])
    assert [s.sentence_id for s in read_file(path)] == ["S_0", "S_1"]


def test_parse_reads_uploaded_bytes_with_a_given_name() -> None:
    with pytest.raises(FormatError, match=r"^upload\.txt: the file is empty$"):
        parse(b"", file="upload.txt")


# ------------------------------------------------------------------------------- writers

def test_with_tags_then_write_annotated_derives_frequencies_and_probability(tmp_path: Path) -> None:
    words = read_file(EXCERPTS / "test_excerpt.txt")[2]  # S_341, 3 tokens
    annotated = Sentence(words.sentence_id, tuple(Token(t.word_id, t.word, "NN") for t in words.tokens))
    annotated = annotated.with_tags([("B", "O"), ("I", "O"), ("O", "B")])
    write_annotated(tmp_path / "out.txt", [annotated])
    lines = (tmp_path / "out.txt").read_text(encoding="utf-8").split("\n")
    assert lines[0] == "" and lines[2] == "S_341_1\t·\tI|O\t0|1|1\t0.5\tNN\t " and lines[-2:] == ["", ""]


def test_write_annotated_refuses_votes_that_read_file_would_refuse(tmp_path: Path) -> None:
    s = Sentence("S_0", (Token("S_0_0", "a", "DT", ("O",)), Token("S_0_1", "b", "NN", ("I",))))
    with pytest.raises(FormatError) as info:
        write_annotated(tmp_path / "out.txt", [s])
    assert (info.value.file, info.value.line, info.value.column) == ("out.txt", 3, "BIO_annotations")
    assert not (tmp_path / "out.txt").exists()


def test_writer_refuses_a_tab_inside_a_word(tmp_path: Path) -> None:
    s = Sentence("S_0", (Token("S_0_0", "a\tb"),))
    with pytest.raises(FormatError) as info:
        write_words_only(tmp_path / "out.txt", [s])
    assert (info.value.line, info.value.column) == (2, "word")


def test_write_submission_uses_the_scorer_layout(tmp_path: Path) -> None:
    s = read_file(EXCERPTS / "train_excerpt.txt")[0]  # S_0: Save the Date
    scores = {"S_0_0": 0.25, "S_0_1": np.float64(0.5), "S_0_2": "0.750"}
    write_submission(tmp_path / "submission.txt", [s], scores)
    assert (tmp_path / "submission.txt").read_bytes() == (
        b"\nS_0_0\tSave\t0.25\t\nS_0_1\tthe\t0.5\t\nS_0_2\tDate\t0.750\t\n\n")


def test_write_submission_refuses_a_missing_score(tmp_path: Path) -> None:
    s = read_file(EXCERPTS / "train_excerpt.txt")[0]
    with pytest.raises(FormatError) as info:
        write_submission(tmp_path / "submission.txt", [s], {"S_0_0": 0.1, "S_0_1": 0.2})
    assert (info.value.line, info.value.column) == (4, "score") and "S_0_2" in info.value.message


def test_write_submission_refuses_scores_for_unknown_word_ids(tmp_path: Path) -> None:
    s = read_file(EXCERPTS / "train_excerpt.txt")[0]
    with pytest.raises(FormatError, match="S_9_0"):
        write_submission(tmp_path / "submission.txt", [s], {"S_0_0": 0, "S_0_1": 0, "S_0_2": 0, "S_9_0": 1})


# ------------------------------------------------------------------------------- agreement input

def test_kappa_table_counts_emphasised_and_not_per_word() -> None:
    s0 = read_file(EXCERPTS / "train_excerpt.txt")[0]  # 8|0|1, 0|4|5, 3|4|2
    assert kappa_table([s0]).tolist() == [[8, 1], [4, 5], [7, 2]]
    assert kappa_table([s0], ("B", "I", "O")).tolist() == [[8, 0, 1], [0, 4, 5], [3, 4, 2]]


def test_kappa_table_refuses_words_only_sentences() -> None:
    with pytest.raises(FormatError, match="no annotations"):
        kappa_table(read_file(EXCERPTS / "test_excerpt.txt"))


def test_kappa_table_refuses_different_annotator_counts_across_sentences(tmp_path: Path) -> None:
    path = write_lines(tmp_path, ["", token_line("S_0_0", "a", "B|O"), "", token_line("S_1_0", "b", "B|O|O"), ""])
    with pytest.raises(FormatError) as info:
        kappa_table(read_file(path))
    assert info.value.line == 4 and "same number" in info.value.message


def test_kappa_table_refuses_categories_that_do_not_split_b_i_o() -> None:
    with pytest.raises(ValueError):
        kappa_table(read_file(EXCERPTS / "train_excerpt.txt"), ("B", "O"))


# ------------------------------------------------------------------------------- full shared data

FULL = [("train_dev_data/train.txt", 2742, 32400), ("train_dev_data/dev.txt", 392, 4385),
        ("trial_data/trial_data.txt", 51, 586), ("test_data/test_data.txt", 743, 8192)]


@needs_shared
@pytest.mark.parametrize("rel", [rel for rel, _, _ in FULL])
def test_shared_file_round_trips_byte_identical(tmp_path: Path, rel: str) -> None:
    sentences = read_file(SHARED / rel)
    writer_for(sentences)(tmp_path / "out.txt", sentences)
    assert (tmp_path / "out.txt").read_bytes() == (SHARED / rel).read_bytes()


@needs_shared
@pytest.mark.parametrize("rel, n_sentences, n_tokens", FULL)
def test_shared_file_has_the_published_counts(rel: str, n_sentences: int, n_tokens: int) -> None:
    sentences = read_file(SHARED / rel)
    assert (len(sentences), sum(len(s.tokens) for s in sentences)) == (n_sentences, n_tokens)


@needs_shared
@pytest.mark.parametrize("rel, binary, three", [("train_dev_data/train.txt", 0.245991, 0.231743),
                                                ("train_dev_data/dev.txt", 0.242606, 0.227109)])
def test_fleiss_kappa_matches_the_reference_figures(rel: str, binary: float, three: float) -> None:
    sentences = read_file(SHARED / rel)
    assert round(fleiss_kappa(kappa_table(sentences, ("BI", "O"))), 6) == binary
    assert round(fleiss_kappa(kappa_table(sentences, ("B", "I", "O"))), 6) == three


# ------------------------------------------------------------------------------- refusals

def test_refuses_an_empty_file(tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_bytes(b"")
    assert_refused(tmp_path / "empty.txt", None, None, "empty")


def test_refuses_a_file_of_blank_lines_only(tmp_path: Path) -> None:
    assert_refused(write_lines(tmp_path, ["", ""]), None, None, "no token lines")


def test_refuses_non_utf8_bytes_naming_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "latin1.txt"
    path.write_bytes(b"\nS_0_0\tna\xefve\t \n\n")
    assert_refused(path, 2, "word", "0xef", "not UTF-8")


def test_refuses_a_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "bom.txt"
    path.write_bytes(b"\xef\xbb\xbf\nS_0_0\ta\t \n\n")
    assert_refused(path, 1, None, "byte-order mark")


def test_refuses_crlf_line_ends(tmp_path: Path) -> None:
    path = tmp_path / "crlf.txt"
    path.write_bytes(b"\r\nS_0_0\ta\t \r\n\r\n")
    assert_refused(path, 1, None, "CRLF")


def test_refuses_a_wrong_field_count(tmp_path: Path) -> None:
    path = write_lines(tmp_path, ["", "S_0_0\tSave\tO|B\t1|0|1\t0.5\t "])
    assert_refused(path, 2, None, "expected 3 fields", "or 7", "found 6")


def test_refuses_mixed_layouts_in_one_file(tmp_path: Path) -> None:
    path = write_lines(tmp_path, ["", token_line("S_0_0", "a", "B|O"), "", "S_1_0\tb\t ", ""])
    assert_refused(path, 4, None, "expected 7 fields like line 2", "found 3")


def test_refuses_a_malformed_word_id(tmp_path: Path) -> None:
    assert_refused(write_lines(tmp_path, ["", "S-0-0\ta\t "]), 2, "word_id", "'S-0-0'", "<source>_<sentence>_<token>")


def test_refuses_a_sentence_whose_token_numbers_do_not_start_at_0(tmp_path: Path) -> None:
    assert_refused(write_lines(tmp_path, ["", "S_0_1\ta\t "]), 2, "word_id", "token number 1, expected 0")


def test_refuses_token_numbers_that_skip(tmp_path: Path) -> None:
    path = write_lines(tmp_path, ["", "S_0_0\ta\t ", "S_0_2\tb\t "])
    assert_refused(path, 3, "word_id", "token number 2, expected 1", "line 2")


def test_refuses_a_sentence_part_that_changes_inside_a_block(tmp_path: Path) -> None:
    path = write_lines(tmp_path, ["", "S_0_0\ta\t ", "S_1_1\tb\t "])
    assert_refused(path, 3, "word_id", "from S_0 (line 2) to S_1")


def test_refuses_a_sentence_id_used_twice(tmp_path: Path) -> None:
    path = write_lines(tmp_path, ["", "S_0_0\ta\t ", "", "S_0_0\tb\t "])
    assert_refused(path, 4, "word_id", "S_0 already appeared on line 2")


def test_refuses_an_empty_word(tmp_path: Path) -> None:
    assert_refused(write_lines(tmp_path, ["", "S_0_0\t\t "]), 2, "word", "empty")


def test_refuses_a_tag_other_than_b_i_o(tmp_path: Path) -> None:
    path = write_lines(tmp_path, ["", token_line("S_0_0", "a", "B|O", freq="1|0|1", prob="0.5").replace("B|O", "B|X")])
    assert_refused(path, 2, "BIO_annotations", "annotator 2", "'X'")


def test_refuses_different_annotator_counts_within_a_sentence(tmp_path: Path) -> None:
    path = write_lines(tmp_path, ["", token_line("S_0_0", "a", "B|O|O"), token_line("S_0_1", "b", "I|O")])
    assert_refused(path, 3, "BIO_annotations", "2 annotators, but 3 on line 2")


def test_refuses_an_i_after_an_o_naming_annotator_and_previous_line(tmp_path: Path) -> None:
    path = write_lines(tmp_path, ["", token_line("S_0_0", "a", "B|O|B"), token_line("S_0_1", "b", "I|O|I"),
                                  token_line("S_0_2", "c", "O|I|O")])
    assert_refused(path, 4, "BIO_annotations", "annotator 2: I after O on line 3")


def test_refuses_an_i_at_the_start_of_a_sentence(tmp_path: Path) -> None:
    path = write_lines(tmp_path, ["", token_line("S_0_0", "a", "B|O"), "", token_line("S_1_0", "b", "O|I")])
    assert_refused(path, 4, "BIO_annotations", "annotator 2: I at the start of the sentence")


def test_refuses_frequencies_that_do_not_match_the_tags(tmp_path: Path) -> None:
    path = write_lines(tmp_path, ["", token_line("S_0_0", "a", "B|O|O", freq="1|1|1")])
    assert_refused(path, 2, "BIO_frequencies", "'1|1|1'", "counted #B|#I|#O = 1|0|2")


def test_refuses_a_probability_not_written_as_repr_of_the_share(tmp_path: Path) -> None:
    path = write_lines(tmp_path, ["", token_line("S_0_0", "a", "B|O|O", prob="0.33")])
    assert_refused(path, 2, "emphasis_probability", "'0.33'", "expected 0.3333333333333333")


def test_refuses_an_empty_pos_tag(tmp_path: Path) -> None:
    assert_refused(write_lines(tmp_path, ["", token_line("S_0_0", "a", "B|O", pos="")]), 2, "pos_tag", "empty")


def test_refuses_text_in_the_last_field(tmp_path: Path) -> None:
    assert_refused(write_lines(tmp_path, ["", "S_0_0\ta\tB"]), 2, "end", "single space", "'B'")


def test_errors_print_as_file_line_column_message(tmp_path: Path) -> None:
    err = assert_refused(write_lines(tmp_path, ["", "S_0_1\ta\t "]), 2, "word_id")
    assert str(err).startswith("bad.txt, line 2, column word_id: token number 1")


def test_refuses_a_missing_file_without_a_traceback(tmp_path: Path) -> None:
    assert_refused(tmp_path / "missing.txt", None, None, "cannot read")
