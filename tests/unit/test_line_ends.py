"""Text comes in with CRLF (a browser's textarea, a Windows file) or CR (an old Mac file) and is kept with LF;
plain guidelines split into paragraphs at blank lines, keeping the line breaks inside a paragraph."""
from __future__ import annotations

from annotator.core.line_ends import normalise_line_ends
from annotator.web.plain_text import paragraphs

CLOZE_STEPS = ("Each question is a one-sentence summary.\r\n\r\n1. Choose the word that fits the gap.\r\n"
               "2. Mark the words of the passage that support it.\r\n3. Say how hard it was.\r\n\r\n"
               "If no candidate fits, choose the closest one.")


def test_crlf_becomes_lf():
    assert normalise_line_ends("one\r\ntwo\r\n") == "one\ntwo\n"


def test_a_lone_cr_becomes_lf():
    assert normalise_line_ends("one\rtwo\r\rthree") == "one\ntwo\n\nthree"


def test_text_with_lf_only_is_left_as_it_is():
    text = "one\ntwo\n\n  three\t\n"
    assert normalise_line_ends(text) is text


def test_guidelines_sent_with_crlf_split_into_their_paragraphs_with_the_steps_on_their_own_lines():
    assert paragraphs(CLOZE_STEPS) == [
        "Each question is a one-sentence summary.",
        "1. Choose the word that fits the gap.\n2. Mark the words of the passage that support it.\n"
        "3. Say how hard it was.",
        "If no candidate fits, choose the closest one."]


def test_a_blank_line_holding_spaces_still_separates_paragraphs_and_no_paragraph_is_empty():
    assert paragraphs("First.\n  \nSecond.\n\n\n\nThird.\n") == ["First.", "Second.", "Third."]


def test_no_guidelines_are_no_paragraphs():
    assert paragraphs("") == [] and paragraphs(None) == []
