"""`flask export custom` of a project with ranking questions: the ranking example (examples/ranking_responses.yaml),
imported by `flask import custom` from its items file, k = 2, two annotators whose orders the test knows. The votes
keep each order as the API took it, gold gives each response's place by mean rank (and by Borda count for the
conditional ranking, n/a where it was not asked), and the dataset types the orders as lists of text."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from annotator.engine import assignment as engine
from tests.conftest import load_project

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
A, B, C = "response_a", "response_b", "response_c"
# p1: both put A first; ann B C, bob C B: mean ranks A 1, B 2.5, C 2.5: B and C tie, one second place each, so
# the response listed first (B) is second. p2: both say B A C. On p3 both say one is unsafe and rank the harm.
ANSWERS = {
    "ann": {"p1": {"quality": [A, B, C], "unsafe": "no"}, "p2": {"quality": [B, A, C], "unsafe": "no"},
            "p3": {"quality": [B, C, A], "unsafe": "yes", "which_unsafe": [A, C, B]},
            "p4": {"quality": [C, A, B], "unsafe": "no"}},
    "bob": {"p1": {"quality": [A, C, B], "unsafe": "no"}, "p2": {"quality": [B, A, C], "unsafe": "no"},
            "p3": {"quality": [C, B, A], "unsafe": "yes", "which_unsafe": [A, B, C]},
            "p4": {"quality": [C, A, B], "unsafe": "no"}},
}


@pytest.fixture
def exported(app, make_user, tmp_path):  # type: ignore[no-untyped-def]
    project = load_project("custom", EXAMPLES / "ranking_responses_items.jsonl", "rank",
                           definition=EXAMPLES / "ranking_responses.yaml", k=2)
    for name, answers in ANSWERS.items():
        user = make_user(name)
        while (lease := engine.next_for(user, project)) is not None:
            engine.submit(lease.id, user, answers[lease.item.external_id])
    result = app.test_cli_runner().invoke(args=["export", "custom", "--project", "rank", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    return tmp_path


def _csv(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


def test_votes_keep_the_orders_as_answered(exported):
    rows = _csv(exported / "votes.csv")
    assert [(r["item"], r["annotator"], json.loads(r["quality"])) for r in rows[:2]] == \
        [("p1", "ann", [A, B, C]), ("p1", "bob", [A, C, B])]
    p3 = [r for r in rows if r["item"] == "p3"]
    assert [json.loads(r["which_unsafe"]) for r in p3] == [[A, C, B], [A, B, C]]
    assert [r["which_unsafe"] for r in rows if r["item"] == "p1"] == ["", ""]
    lines = [json.loads(line) for line in (exported / "votes.jsonl").read_text(encoding="utf-8").splitlines()]
    assert lines[5]["answer"] == ANSWERS["bob"]["p3"]


def test_gold_gives_each_response_its_place_with_the_mean_rank_or_the_borda_count(exported):
    rows = _csv(exported / "gold.csv")
    quality = {(r["item"], r["unit"]): (r["gold"], r["score"], r["votes"]) for r in rows if r["question"] == "quality"}
    assert quality["p1", A] == ("1", "1", "1: 2")
    assert quality["p1", B] == ("2", "2.5", "2: 1, 3: 1") and quality["p1", C] == ("3", "2.5", "2: 1, 3: 1")
    assert [quality["p2", x][0] for x in (A, B, C)] == ["2", "1", "3"]
    harm = {(r["item"], r["unit"]): (r["gold"], r["score"]) for r in rows if r["question"] == "which_unsafe"}
    # p3 by Borda (n - rank points): A 2 + 2 = 4, C 1 + 0 = 1, B 0 + 1 = 1; B and C tie on points and on first
    # places (none), B has one second place to C's one: a tie on every place, so B (listed first) is second.
    assert harm["p3", A] == ("1", "4") and harm["p3", B] == ("2", "1") and harm["p3", C] == ("3", "1")
    assert {harm["p1", x][0] for x in (A, B, C)} == {"n/a"}       # nobody said unsafe: not asked


def test_the_dataset_types_orders_as_lists_and_places_as_numbers(exported):
    votes = pq.read_table(exported / "dataset" / "votes.parquet")
    assert votes.schema.field("quality").type == pa.list_(pa.string())
    assert votes.column("quality").to_pylist()[:2] == [[A, B, C], [A, C, B]]
    assert votes.column("which_unsafe").to_pylist()[:2] == [None, None]
    gold = pq.read_table(exported / "dataset" / "gold.parquet").to_pylist()
    assert [(g["unit"], g["gold"], g["gold_number"], g["score"]) for g in gold
            if g["item"] == "p2" and g["question"] == "quality"] == \
        [(A, "2", 2.0, 2.0), (B, "1", 1.0, 1.0), (C, "3", 3.0, 3.0)]


def test_the_data_card_describes_the_rankings_and_their_agreement(exported):
    card = (exported / "dataset" / "README.md").read_text(encoding="utf-8")
    assert "- text-ranking" in card
    assert "answered as a complete order of the options, best first (the options are the item's fields " \
           "response_a, response_b, response_c)" in card
    assert "mean_rank: each option's place in the order of its mean rank (lowest first); ties go to the option " \
           "with more first places" in card
    assert "borda: each option's place in the order of its Borda count" in card
    assert "| `quality` | `list<string>` | the answer to question quality: the values of the options in the order " \
           "given, best first, each once" in card
    assert "for a ranking question the option's place in the consensus order" in card
    assert "- quality: Kendall's W " in card


def test_flask_agreement_reports_kendall_w_of_each_ranking(exported, app):
    """Per item W (m = 2, n = 3, W = 12 S / (4 * 24)): p1 rank sums A 2, B 5, C 5 around 4, S = 6, W = 0.75; p2 and
    p4 the same order twice, W = 1; p3 sums B 3, C 3, A 6, W = 0.75. Mean 0.875; chi^2 = 2 * 2 * 3.5 = 14 on 8 df."""
    result = app.test_cli_runner().invoke(args=["agreement", "--project", "rank", "--json"])
    assert result.exit_code == 0, result.output
    fields = {f["field"]: f for f in json.loads(result.output)["fields"]}
    w = fields["quality"]["kendall_w"]
    assert (w["value"], w["items"], w["chi_square"], w["df"]) == (pytest.approx(0.875), 4, pytest.approx(14), 8)
    assert fields["which_unsafe"]["kendall_w"]["value"] == pytest.approx(0.75)
    assert "kendall_w" not in fields["unsafe"]
    table = app.test_cli_runner().invoke(args=["agreement", "--project", "rank"]).output
    assert "Kendall's W          0.875 (mean over 4 items, chi² 14.00 on 8 df, p 0.0818)" in table
