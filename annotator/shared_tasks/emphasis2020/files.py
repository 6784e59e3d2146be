"""SemEval-2020 Task 10 (emphasis selection): reader and writers for the task's token files.

The official files are one token per line, a blank line after each sentence and a blank line first.
Two layouts exist: the annotated one (train, dev, trial) with 7 tab-separated fields, and the test one
with 3 (words only). Both end every token line with a field that is a single space ("\\t \\n").
See shared/formats-and-scorers.md §2.

Reading is strict about content but not about blank lines: whatever is derived from the tags
(frequencies, probability) must agree with them exactly, because the official scorer compares the
probability *as a string*; a file that disagrees would score differently from what the tags say.
Writing reproduces the official files byte for byte, so exports can be fed to the official scorer.
Everything here is pure (no DB, no Flask) so importers, exporters and tests share one definition.
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from annotator.core.errors import FormatError, refuse_nul

if TYPE_CHECKING:
    import numpy as np

TAGS = ("B", "I", "O")
#: Field names of the two layouts, used as the `column` of every FormatError.
ANNOTATED_FIELDS = ("word_id", "word", "BIO_annotations", "BIO_frequencies",
                    "emphasis_probability", "pos_tag", "end")
WORDS_ONLY_FIELDS = ("word_id", "word", "end")
# <source>_<sentence>_<token>; no leading zeros, so that one sentence has one spelling of its id.
_WORD_ID = re.compile(r"([A-Za-z]+)_(0|[1-9][0-9]*)_(0|[1-9][0-9]*)")


@dataclass(frozen=True)
class Token:
    """One word. `tags` are the annotators' B/I/O in column order; None (with `pos`) in the test layout."""

    word_id: str
    word: str
    pos: str | None = None
    tags: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Sentence:
    """One block of token lines. `first_line` is the physical line of its first token (None if not read)."""

    sentence_id: str
    tokens: tuple[Token, ...]
    first_line: int | None = None

    def line(self, index: int) -> int | None:
        """Physical line of token `index`: blocks have no gaps, so messages can point at any token."""
        return None if self.first_line is None else self.first_line + index

    def with_tags(self, tags_per_token: Sequence[Sequence[str]]) -> Sentence:
        """The same sentence with new annotations (e.g. votes from the DB), ready for write_annotated."""
        if len(tags_per_token) != len(self.tokens):
            raise ValueError(f"{self.sentence_id}: {len(tags_per_token)} tag lists for {len(self.tokens)} tokens")
        tokens = tuple(replace(t, tags=tuple(tags)) for t, tags in zip(self.tokens, tags_per_token))
        return replace(self, tokens=tokens)


def frequencies(tags: Sequence[str]) -> tuple[int, int, int]:
    """(#B, #I, #O): the order of the BIO_frequencies field."""
    unknown = set(tags) - set(TAGS)
    if unknown:
        raise ValueError(f"tags must be B, I or O, got {sorted(unknown)}")
    return tags.count("B"), tags.count("I"), tags.count("O")


def probability(tags: Sequence[str]) -> float:
    """(#B + #I) / n: the share of annotators who emphasised the word, the task's gold value."""
    if not tags:
        raise ValueError("no tags")
    b, i, _ = frequencies(tags)
    return (b + i) / len(tags)


# ----------------------------------------------------------------------------------------- reading

def read_file(path: Path | str) -> list[Sentence]:
    """Read either layout (detected from the first token line); FormatError on anything malformed."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise FormatError(f"cannot read the file: {e.strerror}", file=path.name) from None
    return parse(data, file=path.name)


def parse(data: bytes, file: str = "<input>") -> list[Sentence]:
    """Read file contents (e.g. an upload); `file` names the input in error messages."""
    if not data:
        raise FormatError("the file is empty", file=file)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        start = data.rfind(b"\n", 0, e.start) + 1
        end = data.find(b"\n", e.start)
        tabs = data.count(b"\t", start, e.start)
        names = WORDS_ONLY_FIELDS if data.count(b"\t", start, None if end < 0 else end) == 2 else ANNOTATED_FIELDS
        raise FormatError(f"byte 0x{data[e.start]:02x} at position {e.start - start + 1} of the line is not UTF-8",
                          file=file, line=data.count(b"\n", 0, e.start) + 1,
                          column=names[tabs] if tabs < len(names) else None) from None
    refuse_nul(text, file)
    return _parse_text(text, file)


def _parse_text(text: str, file: str) -> list[Sentence]:
    if text.startswith("\ufeff"):
        raise FormatError("the file starts with a byte-order mark; save it as UTF-8 without BOM", file=file, line=1)
    if "\r" in text:
        raise FormatError("carriage return (CRLF line ends?); the format uses LF only",
                          file=file, line=text.count("\n", 0, text.index("\r")) + 1)
    sentences: list[Sentence] = []
    seen: dict[str, int] = {}  # sentence_id -> first line, to refuse a sentence id used twice
    block: list[tuple[int, Token]] = []
    layout: tuple[int, int] | None = None  # (field count, line it was taken from)

    def close() -> None:
        lineno, first = block[0]
        sid = _sentence_id(first.word_id)
        if sid in seen:
            raise FormatError(f"sentence {sid} already appeared on line {seen[sid]}",
                              file=file, line=lineno, column="word_id")
        seen[sid] = lineno
        sentences.append(Sentence(sid, tuple(t for _, t in block), lineno))
        block.clear()

    for lineno, line in enumerate(text.split("\n"), 1):
        if not line.strip():  # blank lines end sentences; extra ones are tolerated
            if block:
                close()
            continue
        fields = line.split("\t")
        if layout is None:
            if len(fields) not in (3, 7):
                raise FormatError(f"expected 3 fields (words only) or 7 (annotated) separated by tabs, "
                                  f"found {len(fields)}", file=file, line=lineno)
            layout = (len(fields), lineno)
        elif len(fields) != layout[0]:
            raise FormatError(f"expected {layout[0]} fields like line {layout[1]} (one layout per file), "
                              f"found {len(fields)}", file=file, line=lineno)
        block.append((lineno, _token(fields, block, lineno, file)))
    if block:
        close()
    if not sentences:
        raise FormatError("the file has no token lines", file=file)
    return sentences


def _sentence_id(word_id: str) -> str:
    return word_id.rsplit("_", 1)[0]


def _token(fields: list[str], block: list[tuple[int, Token]], lineno: int, file: str) -> Token:
    """Check one line, in field order, against itself and the previous lines of its sentence."""
    def fail(message: str, column: str) -> NoReturn:
        raise FormatError(message, file=file, line=lineno, column=column)

    word_id, word = fields[0], fields[1]
    m = _WORD_ID.fullmatch(word_id)
    if not m:
        fail(f"{word_id!r} is not <source>_<sentence>_<token> (e.g. S_0_3)", "word_id")
    prev_line, prev = block[-1] if block else (None, None)
    if prev is not None and _sentence_id(prev.word_id) != f"{m[1]}_{m[2]}":
        fail(f"sentence part changes from {_sentence_id(prev.word_id)} (line {prev_line}) to {m[1]}_{m[2]} "
             f"inside a block; a blank line must end each sentence", "word_id")
    if int(m[3]) != len(block):
        fail(f"token number {m[3]}, expected {len(block)} " + (
            "(token numbers restart at 0 in each sentence)" if prev is None
            else f"(numbers are contiguous; line {prev_line} is {prev.word_id})"), "word_id")
    if not word.strip():
        fail("the word is empty", "word")
    if len(fields) == 3:
        _check_end(fields[2], fail)
        return Token(word_id, word)

    annotations, freq, prob, pos = fields[2:6]
    tags = tuple(annotations.split("|"))
    for j, tag in enumerate(tags, 1):
        if tag not in TAGS:
            fail(f"annotator {j}: tag {tag!r} is not B, I or O (tags are joined by '|')", "BIO_annotations")
    prev_tags = None
    if prev is not None:
        assert prev.tags is not None  # one layout per file (_parse_text): the line before an annotated one is too
        prev_tags = prev.tags
    if prev_tags is not None and len(tags) != len(prev_tags):
        fail(f"{len(tags)} annotators, but {len(prev_tags)} on line {prev_line} of the same sentence",
             "BIO_annotations")
    for j, tag in enumerate(tags, 1):
        if tag == "I":
            if prev_tags is None:
                fail(f"annotator {j}: I at the start of the sentence (an I must follow B or I)", "BIO_annotations")
            if prev_tags[j - 1] == "O":
                fail(f"annotator {j}: I after O on line {prev_line} (an I must follow B or I)", "BIO_annotations")
    bs, is_, os_ = frequencies(tags)  # counted once for both fields: probability() is (#B + #I) / n
    expected = f"{bs}|{is_}|{os_}"
    if freq != expected:
        fail(f"frequencies {freq!r} do not match the tags {annotations}: counted #B|#I|#O = {expected}",
             "BIO_frequencies")
    expected = repr((bs + is_) / len(tags))
    if prob != expected:
        fail(f"probability {prob!r} is not repr((#B+#I)/{len(tags)}): expected {expected}", "emphasis_probability")
    if not pos or any(c.isspace() for c in pos):
        fail(f"POS tag {pos!r} is empty or contains white space", "pos_tag")
    _check_end(fields[6], fail)
    return Token(word_id, word, pos, tags)


def _check_end(value: str, fail: Callable[[str, str], NoReturn]) -> None:
    # The last field is the single space of "\t \n"; anything else is most likely a shifted column.
    if value not in (" ", ""):
        fail(f"the last field must be a single space, found {value!r}", "end")


# ----------------------------------------------------------------------------------------- writing

def annotated_text(sentences: Iterable[Sentence], file: str = "<output>") -> str:
    """The 7-field layout exactly as the official files; every token needs `tags` and `pos`."""
    def fields(s: Sentence, i: int, t: Token, lineno: int) -> list[str]:
        if not t.tags or not set(t.tags) <= set(TAGS):
            raise FormatError(f"{t.word_id}: tags {t.tags!r} are not a non-empty list of B, I, O",
                              file=file, line=lineno, column="BIO_annotations")
        if t.pos is None:
            raise FormatError(f"{t.word_id} has no POS tag", file=file, line=lineno, column="pos_tag")
        bs, is_, os_ = frequencies(t.tags)  # counted once for both fields: probability() is (#B + #I) / n
        return [t.word_id, t.word, "|".join(t.tags), f"{bs}|{is_}|{os_}", repr((bs + is_) / len(t.tags)), t.pos]
    text = _layout(sentences, fields, ANNOTATED_FIELDS, file)
    _parse_text(text, file)  # never write what read_file would refuse (e.g. I after O in the votes)
    return text


def words_only_text(sentences: Iterable[Sentence], file: str = "<output>") -> str:
    """The 3-field test layout ("word_id\\tword\\t \\n"); tags and POS tags are left out."""
    text = _layout(sentences, lambda s, i, t, n: [t.word_id, t.word], WORDS_ONLY_FIELDS, file)
    _parse_text(text, file)
    return text


def submission_text(sentences: Iterable[Sentence], scores: Mapping[str, float | str],
                    file: str = "<output>") -> str:
    """The layout the official scorer reads: "\\n", then "word_id\\tword\\tscore\\t\\n" per token, "\\n" per sentence.

    `scores` maps word_id to a float (written as repr) or to a string written as given. The scorer
    orders scores *as strings*: repr writes values below 1e-4 as "1e-05", which it sorts above "0.9".
    """
    sentences = list(sentences)
    wanted = {t.word_id for s in sentences for t in s.tokens}
    extra = sorted(set(scores) - wanted)
    if extra:
        raise FormatError(f"scores for word ids that are not in the sentences, e.g. {extra[0]}", file=file)

    def fields(s: Sentence, i: int, t: Token, lineno: int) -> list[str]:
        if t.word_id not in scores:
            raise FormatError(f"no score for {t.word_id}", file=file, line=lineno, column="score")
        value = scores[t.word_id]
        if isinstance(value, str) and not value.strip():
            raise FormatError(f"score of {t.word_id} is empty", file=file, line=lineno, column="score")
        if not isinstance(value, str):
            if not math.isfinite(value := float(value)):  # float(): numpy 2 reprs np.float64 as "np.float64(..)"
                raise FormatError(f"score of {t.word_id} is {value}", file=file, line=lineno, column="score")
            value = repr(value)
        return [t.word_id, t.word, value, ""]
    return _layout(sentences, fields, ("word_id", "word", "score"), file, end="\n")


def write_annotated(path: Path | str, sentences: Iterable[Sentence]) -> None:
    """Write the 7-field layout; reading train/dev/trial and writing them back gives identical bytes."""
    _write(path, annotated_text(sentences, Path(path).name))


def write_words_only(path: Path | str, sentences: Iterable[Sentence]) -> None:
    """Write the 3-field test layout; test_data.txt round trips byte for byte."""
    _write(path, words_only_text(sentences, Path(path).name))


def write_submission(path: Path | str, sentences: Iterable[Sentence], scores: Mapping[str, float | str]) -> None:
    """Write a submission for the official scorer (see submission_text)."""
    _write(path, submission_text(sentences, scores, Path(path).name))


def _write(path: Path | str, text: str) -> None:
    Path(path).write_bytes(text.encode("utf-8"))  # bytes: no newline translation on any platform


def _layout(sentences: Iterable[Sentence], fields: Callable[[Sentence, int, Token, int], list[str]],
            names: Sequence[str], file: str, end: str = "\t \n") -> str:
    """Lay out "\\n", then one line per token and a blank line after each sentence, as the task's files do."""
    out = ["\n"]
    lineno = 1
    for s in sentences:
        for i, t in enumerate(s.tokens):
            lineno += 1
            values = fields(s, i, t, lineno)
            line = "\t".join(values)
            # One look at the whole line (its own tabs counted) rather than a character at a time in each value;
            # only a line with a stray tab or line break is looked at value by value, to name the field.
            if line.count("\t") != len(values) - 1 or "\n" in line or "\r" in line:
                for name, value in zip(names, values):
                    if any(c in value for c in "\t\n\r"):
                        raise FormatError(f"{t.word_id}: {name} {value!r} contains a tab or line break",
                                          file=file, line=lineno, column=name)
            out.append(line + end)
        out.append("\n")
        lineno += 1
    return "".join(out)


# --------------------------------------------------------------------------------------- agreement

def kappa_table(sentences: Iterable[Sentence], categories: Sequence[str] = ("BI", "O")) -> np.ndarray:
    """Items (words) x categories counts, the input of statsmodels' fleiss_kappa.

    `categories` groups the tags: ("BI", "O") is emphasised vs not (the paper's 24.60 on train),
    ("B", "I", "O") keeps the three tags. Fleiss' kappa needs the same number of ratings per item,
    so sentences with a different number of annotators are refused rather than silently mixed.
    """
    import numpy as np
    if sorted("".join(categories)) != sorted(TAGS):
        raise ValueError(f"categories must put each of B, I, O in exactly one group, got {tuple(categories)}")
    column = {tag: k for k, group in enumerate(categories) for tag in group}
    rows: list[list[int]] = []
    first: tuple[int, Sentence] | None = None
    for s in sentences:
        for i, t in enumerate(s.tokens):
            if t.tags is None:
                raise FormatError(f"{t.word_id} has no annotations (words-only layout)",
                                  line=s.line(i), column="BIO_annotations")
            if first is None:
                first = (len(t.tags), s)
            elif len(t.tags) != first[0]:
                raise FormatError(f"{s.sentence_id} has {len(t.tags)} annotators but {first[1].sentence_id} has "
                                  f"{first[0]}; Fleiss' kappa needs the same number per word",
                                  line=s.line(i), column="BIO_annotations")
            row = [0] * len(categories)
            for tag in t.tags:
                row[column[tag]] += 1
            rows.append(row)
    return np.array(rows, dtype=np.int64).reshape(len(rows), len(categories))
