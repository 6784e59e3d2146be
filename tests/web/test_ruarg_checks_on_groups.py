"""RuArg-2022's consistency checks (the named check rule `ruarg_consistency`) bound to a repeat group.

The shared task's own definition (annotator/shared_tasks/ruarg2022/stance_premise.yaml) asks relevance, stance and
premise once per claim with a repeat group and binds the rule to it (`group: claims`); the flat example
(examples/ruarg2022_consistency.yaml) writes each claim's questions out and binds them claim by claim. On the same
seeded votes, stored as one bulk import per project (as tests/web/test_shared_task_definitions.py does, through each
project's own answer check), both flag exactly what the checks of RuArg's paper flag on those votes, worked out here
from the seeds (the built-in stance_premise type's checks, before the type went), and the admin's project page shows
them; a project imported from the file, whose items' known answers are the file's labels, adds the comparison of
its gold with them.

Irrelevance for one label only cannot be voted in the relevance form (a claim found irrelevant is not asked its
labels; the built-in HIT refused -1 for one label only too): there all flag none. A campaign that offers
-1 as a code of each label can vote it; a grouped and a flat definition of that form flag the same votes.

Votes are on the RuArg-2022 train excerpt (tests/data/ruarg2022/train_excerpt.tsv, 11 sentences).
"""
from __future__ import annotations

import csv
import io
import random
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from annotator.analysis.results import labels_frame, project_checks, project_task
from annotator.campaigns.votes_import import import_votes
from annotator.core.extensions import db
from annotator.core.hit_values import Check
from annotator.core.models import Item, Project
from annotator.declared.definition import DefinitionError
from annotator.declared.definition_reader import definition_from_text
from annotator.figures.kept_gold import gold_frame
from annotator.shared_tasks.ruarg2022.import_options import DEFAULT_CLAIMS
from tests.cli.test_ruarg2022 import _read
from tests.conftest import DATA, load_project
from tests.support.declared_projects import make_declared_project

ROOT = Path(__file__).resolve().parents[2]
GROUPED = ROOT / "annotator" / "shared_tasks" / "ruarg2022" / "stance_premise.yaml"
FLAT = ROOT / "examples" / "ruarg2022_consistency.yaml"
EXCERPT = DATA / "ruarg2022" / "train_excerpt.tsv"
CLAIMS = [claim["key"] for claim in DEFAULT_CLAIMS]
CODES = (2, 0, 1)        # the data set's: for, against, other / no argument
IRRELEVANT = -1          # the data set's code of an irrelevant claim, both labels
OPPOSITE = ((2, 0), (0, 2))
K = 3
Codes = tuple[int, int] | None        # a claim's (stance, premise), None when the annotator finds it irrelevant
Answer = Callable[[str, int], dict[str, Any]]


# --- seeded votes ---------------------------------------------------------------------------------------------

def _votes(item: str, annotator: int) -> dict[str, Codes]:
    """Annotator n's codes per claim: each (sentence, claim) has a favourite pair, (2, 0) and (0, 2) among them, that
    most annotators give, so opposite polarity is voted and sometimes becomes gold."""
    rng = random.Random(f"{item}/{annotator}")
    found: dict[str, Codes] = {}
    for claim in CLAIMS:
        seed = random.Random(f"{item}/{claim}")
        relevant, favourite = seed.choice((0.2, 0.8, 0.95)), seed.choice(((2, 0), (0, 2), (2, 2), (1, 1)))
        found[claim] = None if rng.random() > relevant else favourite if rng.random() < 0.7 else \
            (rng.choice(CODES), rng.choice(CODES))
    return found


def _grouped_answer(item: str, annotator: int) -> dict[str, Any]:
    claims: dict[str, dict[str, str]] = {}
    for claim, codes in _votes(item, annotator).items():
        claims[claim] = {"relevance": "relevant" if codes else "irrelevant"}
        if codes:
            claims[claim] |= {"stance": str(codes[0]), "premise": str(codes[1])}
    return {"claims": claims}


def _flat_answer(item: str, annotator: int) -> dict[str, Any]:
    return {f"{claim}_{question}": value for claim, asked in _grouped_answer(item, annotator)["claims"].items()
            for question, value in asked.items()}


def _vote(project: Project, answer: Answer) -> int:
    """Every annotator's vote on every item, in one bulk import through the project's own answer check."""
    items = db.session.scalars(select(Item.external_id).where(Item.project_id == project.id).order_by(Item.position))
    votes = import_votes(project, {item: [answer(item, n) for n in range(K)] for item in items}).votes
    db.session.commit()
    return votes


def _sentences(project: Project) -> list[dict[str, Any]]:
    payloads = db.session.scalars(select(Item.payload).where(Item.project_id == project.id).order_by(Item.position))
    return [{"id": p["id"], "text": p["text"]} for p in payloads]


def _fresh(slug: str) -> Project:
    """The project read back in a fresh session."""
    db.session.remove()
    project = db.session.scalar(select(Project).where(Project.slug == slug))
    assert project is not None
    return project


def _items(slug: str) -> list[str]:
    return [item.external_id for item in _fresh(slug).items]


def _checks(slug: str, references: Mapping[str, Any] | None = None) -> list[Check]:
    """The project's checks, read back in a fresh session (the project page's); with `references`, given those known
    answers instead of the items' own."""
    fresh = _fresh(slug)
    labels = labels_frame(fresh)
    gold = gold_frame(fresh, labels)
    if references is None:
        return project_checks(fresh, labels, gold)
    return project_task(fresh).checks(labels, gold, references)


@pytest.fixture
def projects(app) -> tuple[str, str, str]:  # type: ignore[no-untyped-def]
    """The excerpt imported (the shared task's definition, the file's labels its items' known answers), and the
    grouped and the flat declared projects of its sentences, voted alike: their slugs."""
    imported = load_project("ruarg2022", EXCERPT, "ruarg", k=K)
    grouped = make_declared_project("ruarg-grouped", GROUPED, _sentences(imported), k=K)
    flat = make_declared_project("ruarg-flat", FLAT, _sentences(imported), k=K)
    assert _vote(imported, _grouped_answer) == _vote(grouped, _grouped_answer) == _vote(flat, _flat_answer) \
        == K * len(imported.items)
    return imported.slug, grouped.slug, flat.slug


def _opposite(item: str) -> list[str]:
    """The (sentence, claim) votes of opposite polarity, counted from the seeds."""
    return [claim for n in range(K) for claim, codes in _votes(item, n).items() if codes in OPPOSITE]


def _gold(item: str) -> dict[str, tuple[int, int] | None]:
    """Per claim the gold codes the paper's rules give the seeded votes (None where a label is undecided): relevant
    when at least two of the K annotators found it so (section 3.1), each label the one code at least two of
    them gave (section 3.2), both -1 for an irrelevant claim."""
    found: dict[str, tuple[int, int] | None] = {}
    for claim in CLAIMS:
        relevant = [codes for n in range(K) if (codes := _votes(item, n)[claim]) is not None]
        if len(relevant) < 2:
            found[claim] = (IRRELEVANT, IRRELEVANT)
            continue
        winners = [[code for code, n in Counter(c[label] for c in relevant).items() if n >= 2] for label in (0, 1)]
        found[claim] = (winners[0][0], winners[1][0]) if all(len(w) == 1 for w in winners) else None
    return found


def _file_labels() -> dict[str, dict[str, tuple[int, int]]]:
    return {row["text_id"]: {c: (int(row[f"{c}_stance"]), int(row[f"{c}_argument"])) for c in CLAIMS}
            for row in _read(EXCERPT)}


def _expected_checks(items: list[str], with_reference: bool) -> list[tuple[str, int, int]]:
    """(name, flagged, of) of each check on the seeded votes, worked out here: the votes and the decided gold,
    irrelevant for one label only and of opposite polarity; with the file's labels as known answers, the decided
    gold that differs from them."""
    votes = [_votes(item, n)[claim] or (IRRELEVANT, IRRELEVANT) for item in items for n in range(K) for claim in CLAIMS]
    decided = [(item, claim, codes) for item in items for claim, codes in _gold(item).items() if codes is not None]
    expected = []
    for what, codes in (("votes", votes), ("gold", [c for _, _, c in decided])):
        expected += [(f"{what}: irrelevant for one label only",
                      sum((s == IRRELEVANT) != (p == IRRELEVANT) for s, p in codes), len(codes)),
                     (f"{what}: stance and premise of opposite polarity", sum(c in OPPOSITE for c in codes),
                      len(codes))]
    if with_reference:
        labels = _file_labels()
        expected.append(("gold differs from the imported reference labels",
                         sum(codes != labels[item][claim] for item, claim, codes in decided), len(decided)))
    return expected


def _said(checks: list[Check]) -> list[tuple[str, int, int]]:
    return [(c.name, c.flagged, c.of) for c in checks]


# --- the checks flag alike ------------------------------------------------------------------------------------

def test_the_grouped_and_flat_definitions_checks_flag_what_the_paper_s_checks_flag(projects):
    imported, grouped, flat = projects
    items = _items(grouped)
    assert _checks(grouped) == _checks(flat)                      # examples too
    assert _said(_checks(grouped)) == _expected_checks(items, with_reference=False)   # no known answers
    assert _said(_checks(imported)) == _expected_checks(items, with_reference=True)
    for check in _checks(imported):
        for example in check.examples:   # "<sentence> (<claim>)", a flagged one
            item, claim = example[:-1].split(" (")
            assert item in items and claim in CLAIMS


def test_the_checks_flag_opposite_polarity_in_votes_and_gold_and_no_vote_irrelevant_for_one_label(projects):
    _, grouped, _ = projects
    items = _items(grouped)
    found = {c.name: c for c in _checks(grouped)}
    votes = found["votes: stance and premise of opposite polarity"]
    assert votes.flagged == sum(len(_opposite(item)) for item in items) > 0
    assert votes.of == K * len(items) * len(CLAIMS)
    assert found["gold: stance and premise of opposite polarity"].flagged > 0
    assert found["votes: irrelevant for one label only"].flagged == 0
    assert found["gold: irrelevant for one label only"].flagged == 0


def test_the_grouped_definition_compares_gold_with_known_answers_per_claim(projects):
    """Known answers to a group have the answer's shape, {"claims": {claim: {question: answer}}}; given the file's
    labels in that shape, the grouped checks add the comparison of the gold with them."""
    imported, grouped, _ = projects
    known: dict[str, Any] = {}
    for item, claims in _file_labels().items():
        known[item] = {"claims": {claim: {"relevance": "irrelevant"} if stance == IRRELEVANT else
                                  {"relevance": "relevant", "stance": str(stance), "premise": str(premise)}
                                  for claim, (stance, premise) in claims.items()}}
    expected = _expected_checks(_items(grouped), with_reference=True)
    assert _said(_checks(grouped, known)) == expected
    assert _checks(grouped, known) == _checks(imported)
    assert expected[-1][1] > 0


# --- shown: the project page and the export -------------------------------------------------------------------

def test_the_project_page_shows_the_grouped_checks(projects, make_user, login):
    _, grouped, _ = projects
    checks = _checks(grouped)
    make_user("admin", role="admin")
    page = login("admin").get(f"/admin/projects/{grouped}").get_data(as_text=True)
    section = page[page.index('id="checks"'):page.index('id="settings"')]
    for check in checks:
        assert check.name in section
        row = section[section.index(check.name):]
        assert f'">{check.flagged}</td><td class="num">{check.of}</td>' in row.split("</tr>")[0]
        assert ", ".join(check.examples) in row.split("</tr>")[0]


def test_the_export_holds_the_flagged_claims_gold_per_claim(app, projects, tmp_path):
    """The checks change no gold: `flask export custom` writes one gold row per (sentence, question, claim), and
    the claims the gold check flags have a stance and a premise of opposite polarity there."""
    _, grouped, _ = projects
    flagged = {c.name: c for c in _checks(grouped)}["gold: stance and premise of opposite polarity"]
    result = app.test_cli_runner().invoke(args=["export", "custom", "--project", grouped, "--out",
                                                str(tmp_path)])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO((tmp_path / "gold.csv").read_text("utf-8"))))
    gold = {(row["item"], row["unit"], row["question"]): row["gold"] for row in rows}
    assert len(rows) == len(_items(grouped)) * len(CLAIMS) * 3
    for example in flagged.examples:
        item, claim = example[:-1].split(" (")
        assert {gold[(item, claim, "stance")], gold[(item, claim, "premise")]} == {"2", "0"}


# --- irrelevant for one label only, where the campaign lets annotators vote it -------------------------------------

GROUPED_CODES = """\
name: Stance and premise per claim, irrelevance as a code
show: [text]
questions:
  - repeat: claims
    elements:
      - {id: masks, text: Wearing masks is beneficial for society.}
      - {id: quarantine, text: The introduction and observance of quarantine is beneficial for society.}
      - {id: vaccines, text: Vaccination is beneficial for society.}
    questions:
      - {id: stance, kind: choice, options: ["2", "0", "1", "-1"], gold: {rule: agree, m: 2}}
      - {id: premise, kind: choice, options: ["2", "0", "1", "-1"], gold: {rule: agree, m: 2}}
checks:
  - {rule: ruarg_consistency, group: claims, stance: stance, premise: premise}
"""

FLAT_CODES = "name: Stance and premise per claim, irrelevance as a code\nshow: [text]\nquestions:\n" + "".join(
    f'  - {{id: {claim}_{label}, kind: choice, options: ["2", "0", "1", "-1"], gold: {{rule: agree, m: 2}}}}\n'
    for claim in CLAIMS for label in ("stance", "premise")) + \
    "checks:\n  - rule: ruarg_consistency\n    claims:\n" + "".join(
        f"      - {{claim: {claim}, stance: {claim}_stance, premise: {claim}_premise}}\n" for claim in CLAIMS)


def _coded(item: str, annotator: int) -> dict[str, tuple[int, int]]:
    """Codes per claim, -1 among them for either label alone now and then (a vote the relevance form cannot give)."""
    rng = random.Random(f"{item}/{annotator}/coded")
    found = {}
    for claim, codes in _votes(item, annotator).items():
        stance, premise = codes or (IRRELEVANT, IRRELEVANT)
        if rng.random() < 0.15:
            stance, premise = (IRRELEVANT, premise) if premise != IRRELEVANT and rng.random() < 0.5 else \
                (stance if stance != IRRELEVANT else 2, IRRELEVANT)
        found[claim] = (stance, premise)
    return found


def test_grouped_and_flat_definitions_flag_the_same_votes_irrelevant_for_one_label_only(app):
    imported = load_project("ruarg2022", EXCERPT, "ruarg", k=K)
    grouped = make_declared_project("coded-grouped", GROUPED_CODES, _sentences(imported), k=K)
    flat = make_declared_project("coded-flat", FLAT_CODES, _sentences(imported), k=K)
    assert _vote(grouped, lambda item, n: {"claims": {claim: {"stance": str(s), "premise": str(p)}
                                                      for claim, (s, p) in _coded(item, n).items()}}) == \
        _vote(flat, lambda item, n: {f"{claim}_{label}": str(code) for claim, codes in _coded(item, n).items()
                                     for label, code in zip(("stance", "premise"), codes)})
    slugs = grouped.slug, flat.slug
    items = _items("ruarg")
    found = _checks(slugs[0])
    assert found == _checks(slugs[1])
    one_only = sum((s == IRRELEVANT) != (p == IRRELEVANT) for item in items
                   for n in range(K) for s, p in _coded(item, n).values())
    assert [(c.name, c.flagged) for c in found][:2] == [("votes: irrelevant for one label only", one_only),
                                                         ("votes: stance and premise of opposite polarity",
                                                          found[1].flagged)]
    assert one_only > 0 and found[1].flagged > 0


# --- the binding, checked when the definition is read ----------------------------------------------------------

def _refused(text: str) -> DefinitionError:
    with pytest.raises(DefinitionError) as caught:
        definition_from_text(text)
    return caught.value


def _line(text: str, error: DefinitionError) -> str:
    assert error.line is not None
    return text.splitlines()[error.line - 1].strip()


GROUP_LINE = "- {rule: ruarg_consistency, group: claims, stance: stance, premise: premise}"


def test_an_unknown_group_is_refused_with_the_definitions_groups() -> None:
    error = _refused(GROUPED_CODES.replace("group: claims", "group: claim"))
    assert (error.path, error.message) == ("checks[0].group", "'claim' is not a repeat group of the definition "
                                                              "(did you mean 'claims'?); its groups: claims")
    assert _line(GROUPED_CODES, error) == GROUP_LINE


def test_a_group_named_in_a_definition_without_groups_is_refused() -> None:
    error = _refused(FLAT_CODES.replace("  - rule: ruarg_consistency\n    claims:", "  - rule: ruarg_consistency\n"
                                        "    group: claims\n    claims:"))
    assert (error.path, error.message) == ("checks[0].claims", "give the claims one by one (claims: [...]) or the "
                                                               "repeat group asking them (group: <group id>), one "
                                                               "of the two")
    text = FLAT_CODES.replace("    claims:\n" + "".join(f"      - {{claim: {c}, stance: {c}_stance, premise: "
                                                         f"{c}_premise}}\n" for c in CLAIMS),
                              "    group: claims\n    stance: masks_stance\n    premise: masks_premise\n")
    error = _refused(text)
    assert (error.path, error.message) == ("checks[0].group", "'claims' is not a repeat group: the definition has "
                                                              "none; bind the claims one by one (claims: [{claim: "
                                                              "<name>, ...}])")


def test_a_question_outside_the_group_is_refused_with_the_groups_questions() -> None:
    text = GROUPED_CODES.replace("questions:\n  - repeat", "questions:\n  - {id: verdict, kind: choice, "
                                                             "options: ['2', '0', '1']}\n  - repeat")
    error = _refused(text.replace("premise: premise}", "premise: verdict}"))
    assert (error.path, error.message) == ("checks[0].premise", "'verdict' is asked once per item, not per element "
                                                                "of group 'claims'; name the choice question of the "
                                                                "group holding whether the sentence argues for or "
                                                                "against the claim (codes 2, 0, 1) (its questions: "
                                                                "stance, premise)")
    error = _refused(GROUPED_CODES.replace("premise: premise}", "premise: premises}"))
    assert error.path == "checks[0].premise"
    assert error.message.startswith("'premises' is not a question of group 'claims'; ")
    assert _line(GROUPED_CODES, error) == GROUP_LINE


def test_a_group_question_of_a_kind_or_answers_the_rule_cannot_read_is_refused() -> None:
    text = GROUPED_CODES.replace('{id: premise, kind: choice, options: ["2", "0", "1", "-1"],',
                                 "{id: premise, kind: scale, min: 0, max: 2,")
    error = _refused(text.replace("gold: {rule: agree, m: 2}}\ncheck", "gold: median}\ncheck"))
    assert (error.path, error.message) == ("checks[0].premise", "'premise' is a scale question; whether the sentence "
                                                                "argues for or against the claim (codes 2, 0, 1) "
                                                                "must be a choice question")
    error = _refused(GROUPED_CODES.replace('{id: stance, kind: choice, options: ["2", "0", "1", "-1"]',
                                           '{id: stance, kind: choice, options: ["2", "0", "-1"]'))
    assert (error.path, error.message) == ("checks[0].stance", "'stance' must offer the answer 1 (it offers 2, 0, "
                                                               "-1)")


def test_a_group_question_bound_claim_by_claim_is_refused_with_the_binding_that_reads_it() -> None:
    text = GROUPED_CODES.replace(GROUP_LINE, "- rule: ruarg_consistency\n    claims:\n"
                                             "      - {claim: masks, stance: stance, premise: premise}")
    error = _refused(text)
    assert (error.path, error.message) == ("checks[0].claims[0].stance", "'stance' is asked once per element of "
                                                                         "group 'claims'; bind the group instead: "
                                                                         "{rule: ruarg_consistency, group: claims, "
                                                                         "stance: stance, ...}")


def test_an_unknown_key_beside_the_group_is_refused_with_the_keys() -> None:
    error = _refused(GROUPED_CODES.replace("group: claims,", "group: claims, relevanse: stance,"))
    assert (error.path, error.message) == ("checks[0].relevanse", "the ruarg_consistency rule bound to a group has "
                                                                  "no 'relevanse' (did you mean 'relevance'?); its "
                                                                  "keys: rule, group, relevance, stance, premise")


def test_a_group_reading_each_items_own_claims_is_checked_on_those_claims(app):
    """With `elements_from`, the claims are each item's own list (here the claims found relevant in the data set,
    as the premise stage asks them): the checks read every vote's claims from its rows' units."""
    load_project("ruarg2022", EXCERPT, "ruarg", k=K)
    texts = {claim["key"]: claim["en"] + "." for claim in DEFAULT_CLAIMS}
    own: dict[str, list[str]] = {}
    for item, claims in _file_labels().items():
        own[item] = [claim for claim, (stance, _) in claims.items() if stance != IRRELEVANT]
    sentences = [dict(s, claims=[{"id": c, "text": texts[c]} for c in own[s["id"]]])
                 for s in _sentences(_fresh("ruarg")) if own.get(s["id"])]
    definition = GROUPED_CODES.replace("    elements:\n" + "".join(
        f"      - {{id: {c}, text: {texts[c]}}}\n" for c in CLAIMS), "    elements_from: claims\n")
    assert "elements_from" in definition and {len(s["claims"]) for s in sentences} == {1, 2}
    project = make_declared_project("own-claims", definition, sentences, k=K)
    slug = project.slug
    _vote(project, lambda item, n: {"claims": {claim: {"stance": str(s), "premise": str(p)} for claim, (s, p)
                                               in _coded(item, n).items() if claim in own[item]}})
    found = {c.name: c for c in _checks(slug)}
    votes = [codes for s in sentences for n in range(K) for claim, codes in _coded(s["id"], n).items()
             if claim in own[s["id"]]]
    one_only = found["votes: irrelevant for one label only"]
    assert one_only.of == len(votes) == K * sum(len(own[s["id"]]) for s in sentences)
    assert one_only.flagged == sum((s == IRRELEVANT) != (p == IRRELEVANT) for s, p in votes) > 0
    assert found["votes: stance and premise of opposite polarity"].flagged == \
        sum((s, p) in ((2, 0), (0, 2)) for s, p in votes) > 0
