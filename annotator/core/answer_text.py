"""Two answers of extractive question answering compared as SQuAD compares them: exact match and token F1.

In core/ because two layers need the same figures: the agreement between annotators (analysis/answer_match.py)
and the score of a control item's answer (declared/controls.py), and declared/ lies below analysis/.

The normalisation is that of SQuAD's official evaluation script (v1.1 and v2.0 alike): lower-case, punctuation
(Python's `string.punctuation`, ASCII only) removed, the English articles "a", "an" and "the" removed as whole
words, white space collapsed. Exact match is 1 when the two normalised texts are equal. Token F1 splits the
normalised texts on white space and compares them as bags (a word said twice counts twice): precision = shared /
tokens of one, recall = shared / tokens of the other, F1 their harmonic mean. As in SQuAD 2.0, an answer whose
normalised text has no token matches only another such answer (F1 1 for both empty, else 0); an unanswerable
answer (given here as None) is SQuAD 2.0's empty answer "", so it also matches an answer that normalises to nothing
(a span of "The" alone), as the official script would score it.

The articles are English: on text in another language the figures are those of the same rule (a word "a" is
dropped wherever it comes from), which is what the SQuAD script would report too.
"""
from __future__ import annotations

import re
import string
from collections import Counter

_PUNCTUATION = frozenset(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)


def normalise(text: str) -> str:
    """SQuAD's normalize_answer: lower case, no punctuation, no articles, single spaces."""
    lowered = text.lower()
    unpunctuated = "".join(ch for ch in lowered if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", unpunctuated).split())


def tokens(text: str | None) -> list[str]:
    """The normalised tokens of an answer; [] for an unanswerable one (None)."""
    return normalise(text).split() if text is not None else []


def exact_match(one: str | None, other: str | None) -> float:
    """1.0 when both normalise to the same text (both unanswerable included), else 0.0."""
    return float(normalise(one or "") == normalise(other or ""))


def token_f1(one: str | None, other: str | None) -> float:
    """SQuAD 2.0's compute_f1 (symmetric in its two answers)."""
    mine, theirs = tokens(one), tokens(other)
    if not mine or not theirs:
        return float(mine == theirs)
    shared = sum((Counter(mine) & Counter(theirs)).values())
    if shared == 0:
        return 0.0
    precision = shared / len(mine)
    recall = shared / len(theirs)
    return 2 * precision * recall / (precision + recall)
