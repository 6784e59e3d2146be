"""The replay of stopping rules (annotator/analysis/replay.py) on hand-made votes, with the answers worked out by
hand in the comments; and the property that a decided stop never changes gold."""
from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annotator.analysis.replay import Stopping, StoppingError, Vote, parse_stopping, replay
from annotator.core.stopping import coin_posterior, group_key, shrunk_prior
from annotator.declared import rules
from annotator.declared.definition import UNDECIDED
from annotator.estimation.one_coin import OneCoinResult, unit_posterior

YES_NO = ("yes", "no")


def majority(unit: Hashable, counts: Mapping[str, int], n: int) -> Any:
    return rules.majority(counts, n, UNDECIDED)[0]


def votes(by_item: dict[str, str], coders: str = "abcdefg") -> list[Vote]:
    """Each item's votes in the order given, item after item: "yyn" is yes, yes, no by coders a, b, c."""
    words = {"y": "yes", "n": "no"}
    return [Vote(item, coders[n], {"q": words[v]}) for item, given in by_item.items() for n, v in enumerate(given)]


def test_decided_stops_an_item_once_the_votes_to_come_cannot_change_its_majority() -> None:
    # k = 3. a: yes yes | no  -> after two yes, one more vote gives 3-0 or 2-1: yes either way; stop, 1 saved.
    #        b: yes no yes    -> 1-0 (a no next would tie), 1-1 (undecided now): never settled before the end.
    #        c: no no | no    -> as a: 1 saved.
    result = replay(votes({"a": "yyn", "b": "yny", "c": "nnn"}), majority, 3, Stopping("decided"), lambda u: YES_NO)
    assert (result.votes_full, result.votes_used) == (9, 7)
    assert result.saved_share == pytest.approx(2 / 9)
    assert (result.gold_changed, result.gold_changed_share) == (0, 0.0)


def test_alpha_before_and_after_are_krippendorffs_on_the_full_and_the_used_votes() -> None:
    # Full: a (y y n), b (y n y), c (n n n). Coincidences: yy 2, yn 2, ny 2, nn 3; n_yes 4, n_no 5, n 9.
    #   D_o = 4, D_e = 4 * 5 * 2 / 8 = 5, alpha = 1 - 4/5 = 0.2.
    # Used: a (y y), b (y n y), c (n n): yy 3, yn 1, ny 1, nn 2; n_yes 4, n_no 3, n 7.
    #   D_o = 2, D_e = 4 * 3 * 2 / 6 = 4, alpha = 1 - 2/4 = 0.5.
    result = replay(votes({"a": "yyn", "b": "yny", "c": "nnn"}), majority, 3, Stopping("decided"), lambda u: YES_NO)
    assert (result.alpha_full, result.alpha_used) == (pytest.approx(0.2), pytest.approx(0.5))


def test_decided_waits_when_a_tie_is_still_possible_at_an_even_k() -> None:
    # k = 4: yes yes -> two no to come would tie (undecided): not settled. yes yes yes -> one vote to come: 4-0 or
    # 3-1, settled. So 3 of 4 votes are used.
    result = replay(votes({"a": "yyyn"}), majority, 4, Stopping("decided"), lambda u: YES_NO)
    assert (result.votes_used, result.votes_full) == (3, 4)


def test_an_item_that_ended_before_k_is_replayed_as_far_as_it_goes() -> None:
    # k = 3 and the rule "agree, 2 of n". a: yes yes | no -> yes whatever a third says: 1 saved.
    # b ended after one yes (gold "undecided": one vote does not reach 2); a second yes could make it yes, so it is
    # not settled, and its one vote is used: the same gold.
    def agree(unit: Hashable, counts: Mapping[str, int], n: int) -> Any:
        return rules.agree(counts, n, 2, "yes", UNDECIDED)[0]

    result = replay(votes({"a": "yyn", "b": "y"}), agree, 3, Stopping("decided"), lambda u: YES_NO)
    assert (result.votes_used, result.votes_full, result.gold_changed) == (3, 4, 0)


def test_votes_beyond_k_are_left_out_of_both_golds_and_counted_apart() -> None:
    # k = 2, four votes on a: the last two (no, no) are not replayed; a is yes yes: full gold yes.
    result = replay(votes({"a": "yynn"}), majority, 2, Stopping("decided"), lambda u: YES_NO)
    assert (result.votes_full, result.votes_used, result.votes_beyond_k, result.gold_changed) == (2, 2, 2, 0)


def model(accuracy: float) -> OneCoinResult:
    """Annotators a..g all right with the given probability, the two classes equally likely."""
    coders = list("abcdefg")
    return OneCoinResult(["no", "yes"], [], coders, np.zeros((0, 2)), np.full(len(coders), accuracy),
                         np.ones(len(coders), dtype=int), np.array([0.5, 0.5]), 1, True)


def test_the_one_coin_posterior_of_agreeing_votes() -> None:
    # accuracy 0.8: two yes -> 0.64 / (0.64 + 0.04) = 0.941176; three yes -> 0.512 / 0.520 = 0.984615;
    # yes yes no -> 0.128 / (0.128 + 0.032) = 0.8
    fitted = model(0.8)
    assert unit_posterior(fitted, [("a", "yes"), ("b", "yes")])["yes"] == pytest.approx(0.64 / 0.68)
    assert unit_posterior(fitted, [("a", "yes"), ("b", "yes"), ("c", "yes")])["yes"] == pytest.approx(0.512 / 0.52)
    assert unit_posterior(fitted, [("a", "yes"), ("b", "yes"), ("c", "no")])["yes"] == pytest.approx(0.8)


def test_confidence_stops_at_the_posterior_and_may_change_gold() -> None:
    # k = 7, accuracy 0.8, confidence:0.95:1. a: no no no (0.985: stop) | yes yes yes yes -> gold "no", but the
    # full majority is yes 4-3: changed. b: yes no yes yes yes no no: 1-0 0.8, 1-1 0.5, 2-1 0.8, 3-1 0.941,
    # 4-1 0.985: stop after 5 -> gold yes; the full 4-3 is yes too.
    fitted = model(0.8)
    result = replay(votes({"a": "nnnyyyy", "b": "ynyyynn"}), majority, 7, parse_stopping("confidence:0.95:1"),
                    lambda u: YES_NO, posterior=lambda unit, given: unit_posterior(fitted, given))
    assert (result.votes_full, result.votes_used) == (14, 8)
    assert (result.gold_changed, result.changed) == (1, [("a", "q")])


def test_confidence_waits_for_the_least_number_of_votes() -> None:
    # the same a under confidence:0.95:4: 0.985 after three, but four are needed; the fourth (yes) leaves 3-1 no,
    # 0.941: go on; 3-2 no: 0.8; 3-3: 0.5; 3-4: 0.8: never stops, all 7 used, no change.
    fitted = model(0.8)
    result = replay(votes({"a": "nnnyyyy"}), majority, 7, parse_stopping("confidence:0.95:4"), lambda u: YES_NO,
                    posterior=lambda unit, given: unit_posterior(fitted, given))
    assert (result.votes_used, result.gold_changed) == (7, 0)


def test_accuracy_against_known_truth_on_full_and_used_votes() -> None:
    fitted = model(0.8)
    result = replay(votes({"a": "nnnyyyy", "b": "ynyyynn"}), majority, 7, parse_stopping("confidence:0.95:1"),
                    lambda u: YES_NO, posterior=lambda unit, given: unit_posterior(fitted, given),
                    truth={("a", "q"): "yes", ("b", "q"): "yes"})
    # full golds: a yes, b yes -> 2 of 2; used golds: a no, b yes -> 1 of 2
    assert (result.accuracy(used=False), result.accuracy(used=True)) == (1.0, 0.5)


@pytest.mark.parametrize("text, expected", [
    ("decided", Stopping("decided")), ("confidence:0.95:3", Stopping("confidence", 0.95, 3)),
    ("confidence:0.985:2:word", Stopping("confidence", 0.985, 2, "word", 5.0)),
    ("confidence:0.985:2:word:12", Stopping("confidence", 0.985, 2, "word", 12.0))])
def test_stopping_rules_are_read(text: str, expected: Stopping) -> None:
    assert parse_stopping(text) == expected


@pytest.mark.parametrize("text, words", [
    ("sure", "is not a stopping rule"), ("confidence:0.95", "confidence:0.95:3"),
    ("confidence:high:3", "needs a number P"), ("confidence:1.5:3", "P must be above 0 and below 1"),
    ("confidence:0.9:0", "M at least 1"), ("confidence:0.9:2::5", "names the item field of the prior"),
    ("confidence:0.9:2:word:heavy", "weight must be a number"), ("confidence:0.9:2:word:0", "must be above 0"),
    ("confidence:0.9:2:word:5:1", "optionally an item field and a weight")])
def test_a_wrong_stopping_rule_is_refused_in_words(text: str, words: str) -> None:
    with pytest.raises(StoppingError, match=words):
        parse_stopping(text)


# --------------------------------------------------------------------------- decided never changes gold

RULES = {
    "majority": lambda counts, n: rules.majority(counts, n, UNDECIDED)[0],
    "majority_ties_no": lambda counts, n: rules.majority(counts, n, "no")[0],
    "share": lambda counts, n: rules.share(counts.get("yes", 0), n, 0.6, 0.15, ("yes", "no", UNDECIDED))[0],
    "agree_2": lambda counts, n: rules.agree(counts, n, 2, None, UNDECIDED)[0],
    "median": lambda counts, n: rules.median(sorted(float(v) for v, c in counts.items() for _ in range(c)))[0],
}
DOMAINS = {"majority": ("yes", "no", "maybe"), "majority_ties_no": ("yes", "no"), "share": ("yes", "no"),
           "agree_2": ("yes", "no", "maybe"), "median": ("1", "2", "3")}


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(sorted(RULES)), st.integers(1, 6), st.data())
def test_a_decided_stop_never_changes_gold(rule: str, k: int, data: st.DataObject) -> None:
    values = DOMAINS[rule]
    stream = data.draw(st.lists(st.tuples(st.sampled_from("abcd"), st.sampled_from(values)), max_size=40))
    result = replay([Vote(item, n, {"q": value}) for n, (item, value) in enumerate(stream)],
                    lambda unit, counts, n: RULES[rule](counts, n), k, Stopping("decided"), lambda unit: values)
    assert result.gold_changed == 0
    assert result.votes_used <= result.votes_full


def test_routing_takes_each_annotators_next_vote_on_the_least_certain_item_open_to_them() -> None:
    # k = 3, decided. Stored: A by a yes, b yes, c no; then B by c yes, a no, b no. As they came: A stops at yes yes
    # (one vote to come cannot turn 2-0), B takes all three: 5 of 6 votes.
    # Routed, the requests come as the votes did (a, b, c, c, a, b), each served the least certain item holding
    # that annotator's vote, an unvoted one first, ties to the item that came first:
    #   a: A and B unvoted -> A (yes, 1-0: a vote against ties it, certainty 0); b: B is unvoted -> B (no, 0);
    #   c: A and B both 0 -> A (no: 1-1); c: B (yes: 1-1); a: B (no: 1-2, its last vote); b: A (yes: 2-1).
    # So A's votes come as yes, no, yes and it never settles before its last: all 6 votes, the same golds.
    stored = [Vote("A", "a", {"q": "yes"}), Vote("A", "b", {"q": "yes"}), Vote("A", "c", {"q": "no"}),
              Vote("B", "c", {"q": "yes"}), Vote("B", "a", {"q": "no"}), Vote("B", "b", {"q": "no"})]
    as_came = replay(stored, majority, 3, Stopping("decided"), lambda u: YES_NO)
    routed = replay(stored, majority, 3, Stopping("decided"), lambda u: YES_NO, routing=True)
    assert (as_came.votes_used, as_came.routing) == (5, False)
    assert (routed.votes_used, routed.votes_full, routed.gold_changed, routed.routing) == (6, 6, 0, True)
    assert routed.alpha_used == pytest.approx(routed.alpha_full)   # every vote used: the same votes


def test_a_routed_request_with_nothing_open_for_the_annotator_is_lost() -> None:
    # k = 3, decided. A: a yes, b yes, c yes; B: a no. Routed: a -> A (unvoted, first) yes; b -> A yes (2-0:
    # settled, stops); c -> nothing open holds c's vote (A stopped): lost; a -> B no. 3 of 4 votes used.
    stored = [Vote("A", "a", {"q": "yes"}), Vote("A", "b", {"q": "yes"}), Vote("A", "c", {"q": "yes"}),
              Vote("B", "a", {"q": "no"})]
    routed = replay(stored, majority, 3, Stopping("decided"), lambda u: YES_NO, routing=True)
    assert (routed.votes_used, routed.votes_full) == (3, 4)


# --------------------------------------------------------------------------- a prior per group (prior_by)

def at_seven_tenths(unit: Hashable, given: Any, prior: Mapping[str, float]) -> dict[str, float]:
    """The live engine's model without control items: every annotator right with 0.7 (two values: wrong 0.3)."""
    return coin_posterior(list(prior), list(prior.values()), {}, 0.7, given)


def test_a_groups_prior_is_its_other_items_shares_shrunk_towards_the_projects() -> None:
    # The group "the" holds 3 "no" votes, one of them the item's own; the project the same 3. Without the item's
    # own vote: project shares add-one (0 + 1) / (2 + 2) = 1/4 yes, 3/4 no; the group's 2 "no" with 5 votes of
    # those: yes (0 + 5/4) / (2 + 5) = 1.25 / 7, no (2 + 15/4) / 7 = 5.75 / 7.
    prior = shrunk_prior(YES_NO, {"no": 3}, {"no": 3}, {"no": 1}, 5.0)
    assert prior == pytest.approx({"yes": 1.25 / 7, "no": 5.75 / 7})


def test_an_item_without_a_group_gets_the_projects_shares() -> None:
    # 3 yes and 1 no elsewhere: add-one (3 + 1) / (4 + 2) = 2/3 yes
    assert shrunk_prior(YES_NO, {}, {"yes": 3, "no": 1}, {}, 5.0) == pytest.approx({"yes": 2 / 3, "no": 1 / 3})


def test_the_replay_stops_an_item_on_the_prior_its_groups_earlier_votes_give() -> None:
    # w1 "The": no, no. Its own prior has no other vote to learn from: 1/2, and two "no" at 0.7 give
    # 0.49 / (0.49 + 0.09) = 0.845 < 0.85, so it takes all its votes. w2 "the" (the same group, case folded): its first
    # "no" meets the prior 5.75 / 7 no (above), 0.8214 * 0.7 / (0.8214 * 0.7 + 0.1786 * 0.3) = 0.915 >= 0.85: stops.
    rule = parse_stopping("confidence:0.85:1:word")
    groups = {"w1": group_key("The"), "w2": group_key("the")}
    result = replay(votes({"w1": "nn", "w2": "nnn"}), majority, 5, rule, lambda unit: YES_NO,
                    priored=at_seven_tenths, groups=groups)
    assert (result.votes_used, result.votes_full, result.stopped_items) == (3, 5, ["w2"])


def test_without_its_group_the_same_item_waits_a_vote_longer() -> None:
    # w2 in a group of its own ("cat"): no other vote of its group, so its prior is the project's shares over w1's
    # two "no", add-one: 3/4 no; one "no" gives 0.75 * 0.7 / (0.525 + 0.25 * 0.3) = 0.875 < 0.9: it waits. In w1's
    # group its prior is 5.75 / 7 no (above) and the same vote gives 0.915 >= 0.9: it stops. Apart, its second "no"
    # gives 0.75 * 0.49 / (0.3675 + 0.25 * 0.09) = 0.942: it stops there, a vote later.
    rule = parse_stopping("confidence:0.9:1:word")
    apart = replay(votes({"w1": "nn", "w2": "nnn"}), majority, 5, rule, lambda unit: YES_NO,
                   priored=at_seven_tenths, groups={"w1": "the", "w2": "cat"})
    together = replay(votes({"w1": "nn", "w2": "nnn"}), majority, 5, rule, lambda unit: YES_NO,
                      priored=at_seven_tenths, groups={"w1": "the", "w2": "the"})
    assert (apart.votes_used, together.votes_used) == (2 + 2, 2 + 1)
