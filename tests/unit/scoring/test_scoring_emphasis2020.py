"""SemEval-2020 Task 10: the quirks of the official evaluate.py (formats-and-scorers.md §2.3) on hand-built files."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from annotator.core.errors import FormatError, SubmissionError
from annotator.shared_tasks.emphasis2020 import scorer as emphasis2020
from annotator.shared_tasks.emphasis2020.scorer import gold_top, system_top
from tests.support.emphasis_submissions import from_gold

LONG = ["0.0", "0.8888888888888888", "0.1111111111111111", "0.2222222222222222", "0.3333333333333333"]


def write_gold(path: Path, sentences: list[list[str]]) -> Path:
    """The gold layout: a blank line first, 7 fields per token ending in TAB SPACE, a blank line per sentence."""
    with path.open("w", encoding="utf-8", newline="") as f:
        f.write("\n")
        for k, probabilities in enumerate(sentences):
            for i, p in enumerate(probabilities):
                f.write(f"S_{k}_{i}\tw{i}\tO|O|O|O|O|O|O|O|O\t0|0|9\t{p}\tNN\t \n")
            f.write("\n")
    return path


def write_submission(path: Path, sentences: list[list[str]], newline: str = "\n", ids: str = "S") -> Path:
    """The example writer's layout: ``word_id TAB word TAB score TAB``."""
    with path.open("w", encoding="utf-8", newline="") as f:
        f.write(newline)
        for k, values in enumerate(sentences):
            for i, v in enumerate(values):
                f.write(f"{ids}_{k}_{i}\tw{i}\t{v}\t{newline}")
            f.write(newline)
    return path


def score(tmp_path: Path, gold: list[list[str]], submission: list[list[str]], **options) -> emphasis2020.ScoreReport:
    return emphasis2020.score_files(write_gold(tmp_path / "gold.txt", gold),
                                    write_submission(tmp_path / "submission.txt", submission), **options)


# --- string comparison ---------------------------------------------------------------------------------------

def test_scores_are_compared_as_strings_so_1e_05_ranks_above_0_9(tmp_path: Path) -> None:
    submission = [["1e-05", "0.9", "0.1", "0.2", "0.3"]]
    as_text = score(tmp_path, [LONG], submission)
    as_numbers = score(tmp_path, [LONG], submission, numeric=True)
    assert (as_text.metrics["match_1"], as_numbers.metrics["match_1"]) == (0.0, 1.0)
    assert as_numbers.metrics["score"] == 1.0


def test_a_submission_whose_string_order_differs_is_warned_about_with_both_scores(tmp_path: Path) -> None:
    report = score(tmp_path, [LONG], [["1e-05", "0.9", "0.1", "0.2", "0.3"]])
    assert report.detail["sentences_string_order_not_numeric"] == {"submission": 1, "gold": 0}
    assert report.detail["other_comparison"]["score"] == 1.0
    assert any("'1e-05' ranks above" in w and "numeric 1.0" in w for w in report.warnings)


def test_negative_numbers_rank_by_their_text() -> None:
    assert system_top(["-0.1", "-0.5", "-0.3"], 1, numeric=False) == {1}
    assert system_top(["-0.1", "-0.5", "-0.3"], 1, numeric=True) == {0}


def test_a_rescaled_gold_that_orders_the_same_as_text_scores_one_without_warning(tmp_path: Path) -> None:
    report = score(tmp_path, [LONG], [["0.00", "0.89", "0.11", "0.22", "0.33"]])
    assert report.metrics["score"] == 1.0 and report.warnings == []


# --- gold and system sets -----------------------------------------------------------------------------------

def test_the_gold_set_takes_in_every_position_tied_with_the_mth_largest() -> None:
    assert gold_top(["0.5", "0.5", "0.1", "0.0", "0.5"], 1, numeric=False) == {0, 1, 4}
    assert gold_top(["0.5", "0.5", "0.1", "0.0", "0.0"], 3, numeric=False) == {0, 1, 2}
    assert gold_top(["0.1", "0.0", "0.0", "0.0", "0.0"], 2, numeric=False) == {0, 1, 2, 3, 4}


def test_any_system_pick_among_tied_gold_maxima_is_a_full_match(tmp_path: Path) -> None:
    gold = [["0.5", "0.5", "0.1", "0.0", "0.0"]]
    first = score(tmp_path, gold, [["0.9", "0.8", "0.1", "0.0", "0.0"]])
    second = score(tmp_path, gold, [["0.8", "0.9", "0.1", "0.0", "0.0"]])
    assert first.metrics["match_1"] == second.metrics["match_1"] == 1.0


def test_sentences_of_m_tokens_or_fewer_do_not_count_for_match_m(tmp_path: Path) -> None:
    gold = [["0.5", "0.1"], LONG]
    report = score(tmp_path, gold, [["0.1", "0.5"], LONG])  # the short sentence is wrong at m=1 only
    assert report.detail["counted_sentences"] == {"match_1": 2, "match_2": 1, "match_3": 1, "match_4": 1}
    assert [report.metrics[f"match_{m}"] for m in (1, 2, 3, 4)] == [0.5, 1.0, 1.0, 1.0]
    assert report.metrics["score"] == 0.875


def test_equal_system_values_in_a_short_sentence_let_the_later_positions_win(tmp_path: Path) -> None:
    assert system_top(["0.5"] * 5, 2, numeric=False) == {3, 4}
    last_is_best = score(tmp_path, [["0.1", "0.0", "0.0", "0.0", "0.9"]], [["0.5"] * 5])
    first_is_best = score(tmp_path, [["0.9", "0.0", "0.0", "0.0", "0.1"]], [["0.5"] * 5])
    assert (last_is_best.metrics["match_1"], first_is_best.metrics["match_1"]) == (1.0, 0.0)
    assert any("later positions win up to 16 tokens" in w for w in first_is_best.warnings)


@pytest.mark.parametrize("tokens, top4", [(17, {2, 1, 7, 16}), (20, {2, 1, 18, 19}), (31, {2, 1, 14, 30})])
def test_equal_system_values_beyond_16_tokens_follow_numpys_introsort(tokens: int, top4: set[int]) -> None:
    """§2.3: numpy 1.24 and 2.4 give these (there is no SIMD kernel for strings)."""
    assert system_top(["0.5"] * tokens, 4, numeric=False) == top4


def test_numeric_comparison_breaks_ties_stably_so_later_positions_win_at_any_length() -> None:
    assert system_top(["0.5"] * 17, 4, numeric=True) == {13, 14, 15, 16}
    assert system_top(["0.5", "0.50", "0.1"], 1, numeric=True) == {1}


# --- the official program's failures -------------------------------------------------------------------------

def test_no_sentence_longer_than_m_is_a_clear_error_instead_of_a_division_by_zero(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="no gold sentence has more than 4 tokens, so Match_4 is undefined"):
        score(tmp_path, [["0.5", "0.1", "0.0", "0.2"]], [["0.5", "0.1", "0.0", "0.2"]])


def test_a_different_number_of_sentences_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SubmissionError, match="the submission has 1 sentences, the gold has 2"):
        score(tmp_path, [LONG, LONG], [LONG])


def test_a_sentence_with_the_wrong_number_of_tokens_is_named_with_its_line(tmp_path: Path) -> None:
    with pytest.raises(SubmissionError) as caught:
        score(tmp_path, [LONG, LONG], [LONG, LONG[:4]])
    assert "sentence 2 (gold S_1_0, gold line 8) has 4 token(s) in the submission, 5 in the gold" in str(caught.value)
    assert (caught.value.file, caught.value.line) == ("submission.txt", 8)


def test_a_non_numeric_score_is_refused_with_its_line(tmp_path: Path) -> None:
    with pytest.raises(SubmissionError) as caught:
        score(tmp_path, [LONG], [["0.1", "0.2", "high", "0.3", "0.4"]])
    assert (caught.value.file, caught.value.line, caught.value.column) == ("submission.txt", 4, "score")
    assert "'high' is not a finite number" in str(caught.value)


def test_a_line_without_a_score_field_is_refused_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "submission.txt"
    path.write_text("\nS_0_0\tw0\t0.5\t\nS_0_1\tw1\t\n")
    with pytest.raises(SubmissionError) as caught:
        emphasis2020.score_files(write_gold(tmp_path / "gold.txt", [LONG]), path)
    assert caught.value.line == 3 and "word_id<TAB>word<TAB>score" in str(caught.value)


# --- layout tolerance ------------------------------------------------------------------------------------------

def test_crlf_line_ends_and_extra_blank_lines_change_nothing(tmp_path: Path) -> None:
    gold = write_gold(tmp_path / "gold.txt", [LONG, LONG[::-1]])
    lf = write_submission(tmp_path / "lf.txt", [LONG, LONG])
    crlf = write_submission(tmp_path / "crlf.txt", [LONG, LONG], newline="\r\n")
    with crlf.open("a", newline="") as f:
        f.write("\r\n\r\n")
    assert emphasis2020.score_files(gold, lf).metrics == emphasis2020.score_files(gold, crlf).metrics


def test_word_ids_that_differ_from_the_gold_are_scored_by_position_with_a_warning(tmp_path: Path) -> None:
    gold = write_gold(tmp_path / "gold.txt", [LONG])
    report = emphasis2020.score_files(gold, write_submission(tmp_path / "s.txt", [LONG], ids="Q"))
    assert report.metrics["score"] == 1.0
    assert any("5 submission token(s) have a word_id different from the gold's" in w for w in report.warnings)


def test_the_dev_excerpt_copied_as_submission_scores_one(excerpts: Path, tmp_path: Path) -> None:
    gold = excerpts / "emphasis2020" / "dev_excerpt.txt"
    sentences = emphasis2020.read_sentences(gold, gold=True)
    copy = tmp_path / "copy.txt"
    with copy.open("w", encoding="utf-8") as f:  # the recipe of §2.4: field 5 of the gold as the score
        f.write("\n")
        for s in sentences:
            f.writelines(f"{i}\tw\t{v}\t\n" for i, v in zip(s.ids, s.values))
            f.write("\n")
    report = emphasis2020.score_files(gold, copy)
    assert report.metrics["score"] == 1.0
    assert report.detail["counted_sentences"] == {"match_1": 5, "match_2": 4, "match_3": 3, "match_4": 2}


# --- the task's rule: scores are numbers >= 0 ---------------------------------------------------------------

def _from_gold(excerpts: Path, path: Path, value: Callable[[str], str]) -> Path:
    """A submission whose score is ``value(gold probability text)``, written to ``path``."""
    path.write_text(from_gold(excerpts / "emphasis2020" / "dev_excerpt.txt", value), encoding="utf-8")
    return path


def test_negated_dev_probabilities_are_refused_with_the_line_of_the_first_negative_score(
        excerpts: Path, tmp_path: Path) -> None:
    """Task paper, section 5 (Evaluation): each token gets "a real value (greater and equal to zero)".
    Negated probabilities are the worst possible ranking; Q_6_0 (0.2222...) is on line 2."""
    negated = _from_gold(excerpts, tmp_path / "negated.txt", lambda v: repr(-float(v)))
    with pytest.raises(SubmissionError) as caught:
        emphasis2020.score_files(excerpts / "emphasis2020" / "dev_excerpt.txt", negated)
    assert (caught.value.file, caught.value.line, caught.value.column) == ("negated.txt", 2, "score")
    assert "'-0.2222222222222222' is negative; the task's scores are greater than or equal to zero" in \
        str(caught.value)


def test_negated_probabilities_would_score_one_by_the_official_text_comparison(excerpts: Path) -> None:
    """Why the rule is enforced: as text '-0.7' sorts above '-0.2', the reverse of their numeric order."""
    gold = emphasis2020.read_sentences(excerpts / "emphasis2020" / "dev_excerpt.txt", gold=True)
    negated = [emphasis2020.Sentence(s.line, s.ids, [repr(-float(v)) for v in s.values]) for s in gold]
    assert emphasis2020.score(gold, negated).metrics["score"] == 1.0
    assert emphasis2020.score(gold, negated, numeric=True).metrics["score"] < 0.5


def test_one_negative_score_among_valid_ones_is_refused_with_its_own_line(tmp_path: Path) -> None:
    with pytest.raises(SubmissionError) as caught:
        score(tmp_path, [LONG, LONG], [LONG, ["0.1", "0.2", "-1e-09", "0.3", "0.4"]])
    assert (caught.value.line, caught.value.column) == (10, "score") and "'-1e-09' is negative" in str(caught.value)


def test_negative_zero_is_zero_and_accepted(tmp_path: Path) -> None:
    assert score(tmp_path, [LONG], [["-0.0", "0.9", "0.1", "0.2", "0.3"]]).metrics["score"] == 1.0


def test_ten_times_the_probabilities_scores_below_one_as_text_with_the_numeric_figures_beside(
        excerpts: Path, tmp_path: Path) -> None:
    """'10.0' (S_39_2 Mom, S_80_0 SUMMER: probability 1.0) sorts below '7.778' as text."""
    tenfold = _from_gold(excerpts, tmp_path / "tenfold.txt", lambda v: str(round(10 * float(v), 3)))
    report = emphasis2020.score_files(excerpts / "emphasis2020" / "dev_excerpt.txt", tenfold)
    assert report.metrics["match_1"] == 0.6  # 3 of the 5 sentences: S_39 and S_80 lose their top word
    assert report.beside == {"numeric comparison": {k: 1.0 for k in report.metrics}}
    assert "  score    0.86875  (numeric comparison: 1.0)\n" in report.to_text()


def test_with_numeric_on_the_official_string_figures_come_beside(excerpts: Path, tmp_path: Path) -> None:
    tenfold = _from_gold(excerpts, tmp_path / "tenfold.txt", lambda v: str(round(10 * float(v), 3)))
    report = emphasis2020.score_files(excerpts / "emphasis2020" / "dev_excerpt.txt", tenfold, numeric=True)
    assert report.metrics["score"] == 1.0
    assert report.beside["string comparison (official)"]["match_1"] == 0.6


def test_nothing_comes_beside_when_both_comparisons_agree(excerpts: Path, tmp_path: Path) -> None:
    copy = _from_gold(excerpts, tmp_path / "copy.txt", lambda v: v)
    report = emphasis2020.score_files(excerpts / "emphasis2020" / "dev_excerpt.txt", copy)
    assert report.beside == {} and "(numeric comparison" not in report.to_text()
