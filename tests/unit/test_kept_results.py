"""Kept results (annotator/figures/kept.py): a big project's page figures stored with the stamp of the votes
they were computed from, served while it holds, shown with their age within the bound, dropped on a change
that no count shows. On both engines, on the KPA excerpt (tests/data/kpa2021), `KEPT_RESULTS_FROM_VOTES`
lowered so that a few votes make a big project."""
from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from sqlalchemy import func, select, update

from annotator.actions.settings import change_project_settings
from annotator.campaigns.settings import ProjectFields
from annotator.core.extensions import db
from annotator.core.large_values import scalar_bytes
from annotator.core.models import Adjudication, Item, KeptResult, KeptState, Project, User, utcnow
from annotator.engine import assignment as engine
from annotator.figures import kept as kept_module
from annotator.figures.kept import Group, StillComputing, kept, refresh, results_changed, stamp
from annotator.figures.kept_figures import VOTES, kept_differences, kept_figure
from annotator.figures.kept_memory import ReadFigures
from annotator.quality.blocking import exclude_votes
from annotator.tasks.custom import DeclaredTask
from tests.conftest import all_rows, put_back


@pytest.fixture
def project(app, kpa_project, make_user, run_shared):  # type: ignore[no-untyped-def]
    """The KPA excerpt with k=1 and three votes (each completes its item), kept from one vote on.

    Made once per engine in the run (`run_shared`, as `demo` is): a later test gets the rows put back as they were,
    ids included, which is what loading and voting again would store."""
    app.config.update(KEPT_RESULTS_FROM_VOTES=1, KEPT_RESULTS_REFRESH="request", KEPT_RESULTS_MAX_AGE=120)

    def load_and_vote() -> tuple[int, dict[str, list[dict]]]:
        project = kpa_project(k=1)
        for name in ("a", "b", "c"):
            vote(project, make_user(name))
        return project.id, all_rows()

    (project_id, rows), made_now = run_shared.get_or_make(f"kept-results-{db.engine.dialect.name}", load_and_vote)
    if not made_now:
        put_back(rows)
    project = db.session.get(Project, project_id)
    db.session.commit()  # no transaction left open, as after the last vote: a test's first read sees what is stored
    return project


def vote(project: Project, user) -> None:  # type: ignore[no-untyped-def]
    lease = engine.next_for(user, project)
    assert lease is not None
    engine.submit(lease.id, user, {"matches": [lease.item.payload["key_points"][0]["id"]]})


def counting_group() -> tuple[Group, list[int]]:
    """A group whose one figure is the number of labels, and the list of its computations."""
    calls: list[int] = []

    def compute(project: Project, names) -> dict[str, int]:  # type: ignore[no-untyped-def]
        from annotator.analysis.results import labels_frame
        calls.append(1)
        return {"labels": len(labels_frame(project))}
    return Group("labels", ("labels",), compute), calls


def computations_done() -> None:
    """Wait for the background computations this process started (their threads are named after them)."""
    for thread in [t for t in threading.enumerate() if t.name.startswith("kept-results-")]:
        thread.join(timeout=120)


def label_count(project: Project) -> int:
    from annotator.analysis.results import labels_frame
    return len(labels_frame(project))


def kept_rows() -> int:
    db.session.remove()
    return db.session.scalar(select(func.count()).select_from(KeptResult)) or 0


def test_a_small_project_is_computed_on_every_page_and_nothing_is_kept(app, project):
    app.config["KEPT_RESULTS_FROM_VOTES"] = 4
    group, calls = counting_group()
    labels = 3 * 5   # three votes on arguments of topic 1, stance -1, which has 5 key points (one label each)
    assert kept(project, "labels", group).value == kept(project, "labels", group).value == labels
    assert len(calls) == 2 and kept_rows() == 0


def test_a_big_projects_figures_are_stored_with_the_stamp_and_served_while_it_holds(project):
    group, calls = counting_group()
    first = kept(project, "labels", group)
    again = kept(db.session.get(Project, project.id), "labels", group)
    assert first.value == again.value and first.freshness is None and again.freshness is None
    assert len(calls) == 1
    db.session.remove()
    row = db.session.scalars(select(KeptResult)).one()
    assert row.stamp == stamp(db.session.get(Project, project.id)).text and row.votes == 3


def test_a_vote_since_makes_them_shown_with_their_age_while_newer_ones_are_computed(app, project, make_user,
                                                                                     monkeypatch):
    group, _ = counting_group()
    kept(project, "labels", group)
    app.config["KEPT_RESULTS_REFRESH"] = "thread"
    started: list[int] = []
    monkeypatch.setattr(kept_module, "start_refresh", lambda project_id, group: started.append(project_id))
    before = label_count(project)
    vote(project, make_user("d"))
    shown = kept(db.session.get(Project, project.id), "labels", group)
    assert shown.freshness is not None and shown.freshness.votes_since == 1 and shown.freshness.refreshing
    assert shown.value == before and started == [project.id]  # the labels as of before the vote


def test_young_figures_are_shown_with_their_age_without_starting_another_computation(app, project, make_user,
                                                                                     monkeypatch):
    group, _ = counting_group()
    kept(project, "labels", group)
    app.config.update(KEPT_RESULTS_REFRESH="thread", KEPT_RESULTS_INTERVAL=30)
    started: list[int] = []
    monkeypatch.setattr(kept_module, "start_refresh", lambda project_id, group: started.append(project_id))
    vote(project, make_user("d"))
    shown = kept(db.session.get(Project, project.id), "labels", group)
    assert shown.freshness is not None and shown.freshness.votes_since == 1 and not shown.freshness.refreshing
    assert started == []


def test_the_next_computation_starts_the_interval_after_the_last_one_ended(app, project, make_user, monkeypatch):
    group, _ = counting_group()
    kept(project, "labels", group)
    row = db.session.scalars(select(KeptResult)).one()
    row.computed_at, row.seconds = row.computed_at - timedelta(seconds=45), 10.0  # ended 35 s ago
    db.session.commit()
    app.config.update(KEPT_RESULTS_REFRESH="thread", KEPT_RESULTS_INTERVAL=30)
    started: list[int] = []
    monkeypatch.setattr(kept_module, "start_refresh", lambda project_id, group: started.append(project_id))
    vote(project, make_user("d"))
    assert kept(db.session.get(Project, project.id), "labels", group).freshness.refreshing
    assert started == [project.id]


def test_a_slow_computation_starts_early_enough_to_end_before_the_bound(app, project, make_user, monkeypatch):
    group, _ = counting_group()
    kept(project, "labels", group)
    row = db.session.scalars(select(KeptResult)).one()
    row.computed_at, row.seconds = row.computed_at - timedelta(seconds=60), 40.0  # ended 20 s ago, took 40
    db.session.commit()
    app.config.update(KEPT_RESULTS_REFRESH="thread", KEPT_RESULTS_INTERVAL=30, KEPT_RESULTS_MAX_AGE=120)
    started: list[int] = []
    monkeypatch.setattr(kept_module, "start_refresh", lambda project_id, group: started.append(project_id))
    vote(project, make_user("d"))
    kept(db.session.get(Project, project.id), "labels", group)
    assert started == [project.id]  # 60 s old + 1.5 x 40 s reaches the 120 s bound


def test_figures_older_than_the_bound_are_never_shown(app, project, make_user, monkeypatch):
    group, _ = counting_group()
    kept(project, "labels", group)
    row = db.session.scalars(select(KeptResult)).one()
    row.computed_at -= timedelta(seconds=121)
    db.session.commit()
    app.config["KEPT_RESULTS_REFRESH"] = "thread"
    monkeypatch.setattr(kept_module, "start_refresh", lambda project_id, group: None)
    vote(project, make_user("d"))
    with pytest.raises(StillComputing) as waiting:
        kept(db.session.get(Project, project.id), "labels", group)
    assert waiting.value.votes == 4 and waiting.value.estimate is not None


def test_the_background_computation_stores_figures_that_the_next_page_serves(app, project, make_user):
    app.config["KEPT_RESULTS_REFRESH"] = "thread"
    group, calls = counting_group()
    with pytest.raises(StillComputing):
        kept(project, "labels", group)
    computations_done()
    db.session.remove()  # a new request's session
    served = kept(db.session.get(Project, project.id), "labels", group)
    assert served.value == label_count(project) and served.freshness is None and len(calls) == 1


def test_one_process_claims_a_computation_and_a_lapsed_claim_is_taken_again(app, project):
    assert kept_module._claim(project.id) is not None
    assert kept_module._claim(project.id) is None
    state = db.session.get(KeptState, project.id, populate_existing=True)
    state.claimed_until -= timedelta(hours=1)
    db.session.commit()
    assert kept_module._claim(project.id) is not None


def test_a_change_without_a_vote_drops_the_kept_figures(project):
    group, _ = counting_group()
    kept(project, "labels", group)
    results_changed(project.id)
    db.session.commit()
    assert kept_rows() == 0


def test_figures_computed_while_results_changed_are_not_kept(app, project):
    def compute(project: Project, names) -> dict[str, int]:  # type: ignore[no-untyped-def]
        with app.app_context():  # an admin's change committed meanwhile, by another session
            results_changed(project.id)
            db.session.commit()
        return {"labels": 0}
    kept_module._claim(project.id)
    assert refresh(project.id, Group("labels", ("labels",), compute)) == {"labels": 0}
    assert kept_rows() == 0


def test_a_change_of_a_gold_rules_threshold_leaves_no_kept_figure_standing(project, make_user):
    """The thresholds are the definition's (declared/rule_settings.py), which the stamp digests: the kept gold of
    the old thresholds is never served as the new ones' (nor folded forward)."""
    project_id = project.id
    kept(project, "summary", VOTES)
    assert [holds for _, _, holds in kept_module.kept_rows(db.session.get(Project, project_id))] == [True] * 5
    change_project_settings(db.session.get(Project, project_id), ProjectFields("kpa", 1, 30, ""),
                            {"gold_matches_positive": "0.5"}, None, (make_user("boss", role="admin").id, "boss"))
    db.session.remove()
    assert not any(holds for _, _, holds in kept_module.kept_rows(db.session.get(Project, project_id)))


def test_an_exclusion_of_votes_drops_the_kept_figures(project):
    project_id = project.id
    kept(project, "summary", VOTES)
    assert kept_rows() == 5
    user = db.session.scalars(select(User).where(User.username == "a")).one()
    assert exclude_votes(user.id, db.session.get(Project, project_id)) == 1
    assert kept_rows() == 0


def test_making_an_item_a_control_or_an_ordinary_item_again_drops_the_kept_figures(project):
    """The stamp counts the control items, not which they are: one made a control and another made ordinary
    again would leave it as it was."""
    from annotator.quality.bulk_controls import unmark_controls
    from annotator.quality.controls import make_control
    project_id = project.id
    kept(project, "summary", VOTES)
    item = db.session.scalars(select(Item).where(Item.project_id == project_id, Item.done_count > 0)).first()
    make_control(item, db.session.get(Project, project_id))
    db.session.commit()
    assert kept_rows() == 0
    kept(db.session.get(Project, project_id), "summary", VOTES)
    assert kept_rows() == 5
    assert unmark_controls(db.session.get(Project, project_id), None) == 1
    db.session.commit()
    assert kept_rows() == 0


def test_an_adjudication_makes_the_stamp_change(project, make_user):
    before = stamp(project).text
    item = db.session.scalars(select(Item).where(Item.project_id == project.id)).first()
    db.session.add(Adjudication(project_id=project.id, item_id=item.id, answer={"matches": []}))
    db.session.commit()
    assert stamp(db.session.get(Project, project.id)).text != before


def test_a_change_of_settings_makes_the_stamp_change_and_old_figures_unfit_to_show(project):
    before = stamp(project)
    project.settings = {**project.settings, "positive_threshold": 0.7}
    db.session.commit()
    after = stamp(db.session.get(Project, project.id))
    assert after.text != before.text and not after.same_basis(before.text)


def test_a_payload_not_signed_by_this_app_is_recomputed_never_unpickled(project):
    group, calls = counting_group()
    kept(project, "labels", group)
    db.session.execute(update(KeptResult).values(payload=b"\0" * 32 + b"cos\nsystem\n(S'true'\ntR."))
    db.session.commit()
    assert kept(db.session.get(Project, project.id), "labels", group).value == label_count(project)
    assert len(calls) == 2


def test_a_payload_of_megabytes_reads_back_byte_for_byte(project):
    """Every byte value, 5 MB of them, as a big project's figures are: on PostgreSQL the payload is read in the
    binary format, not as hex text (core/large_values.py)."""
    payload = bytes(range(256)) * 20_000 + b"\0"
    db.session.add(KeptResult(project_id=project.id, name="bytes", stamp="", votes=0, computed_at=utcnow(),
                              seconds=0.0, payload=payload))
    db.session.commit()
    db.session.remove()
    read = scalar_bytes(select(KeptResult.payload).where(KeptResult.name == "bytes"))
    assert type(read) is bytes and read == payload
    assert scalar_bytes(select(KeptResult.payload).where(KeptResult.name == "none")) is None


def test_the_items_figure_of_a_project_whose_gold_is_per_item_keeps_no_gold(project):
    """Each item's gold is its own votes' (KPA's rule): the items page computes its 25 items' gold from the labels it
    reads of them, and the kept figure holds every item's agreement only (not a read of all the gold per page)."""
    figures = kept_figure(project, "items").value
    assert figures.gold is None
    assert len(figures.ranking) == db.session.scalar(select(func.count()).select_from(Item)
                                                     .where(Item.project_id == project.id))


def test_the_items_figure_keeps_every_items_gold_where_annotators_are_left_out_by_kappa(project):
    """With `gold_min_kappa` an item's gold depends on everyone's votes (who is left out): kept whole, as computed."""
    from annotator.analysis.annotator_kappas import low_kappa_annotators
    from annotator.analysis.results import labels_frame
    from annotator.figures.kept_gold import gold_frame
    project.quality = {**(project.quality or {}), "gold_min_kappa": 0.1}
    db.session.commit()
    figures = kept_figure(db.session.get(Project, project.id), "items").value
    project = db.session.get(Project, project.id)
    everyone = labels_frame(project, include_incomplete=True, by_kappa=False)
    labels = everyone[~everyone["user_id"].isin(low_kappa_annotators(project, everyone))]
    assert figures.gold is not None and not figures.gold.empty
    assert figures.gold.equals(gold_frame(project, labels.reset_index(drop=True)))


def test_a_page_reads_the_payload_once_per_computation_and_again_after_a_new_one(app, project, make_user,
                                                                               monkeypatch):
    """The process remembers the figures it read by their row's identity (figures/kept_memory.py): the next page
    reads no payload; figures computed anew (another row) are read anew, and shown."""
    reads: list[int] = []
    real = kept_module.scalar_bytes
    monkeypatch.setattr(kept_module, "scalar_bytes", lambda statement: reads.append(1) or real(statement))
    group, calls = counting_group()
    before = label_count(project)
    kept(project, "labels", group)                      # computed and stored (not read)
    for _ in range(3):
        assert kept(db.session.get(Project, project.id), "labels", group).value == before
    assert (len(calls), len(reads)) == (1, 1)
    vote(db.session.get(Project, project.id), make_user("d"))
    after = label_count(db.session.get(Project, project.id))
    assert after > before
    assert kept(db.session.get(Project, project.id), "labels", group).value == after   # computed anew, stored
    assert kept(db.session.get(Project, project.id), "labels", group).value == after
    assert (len(calls), len(reads)) == (2, 2)


def test_the_memory_of_read_figures_keeps_to_its_bound_least_recently_used_first() -> None:
    memory = ReadFigures(limit=100)
    memory.put("a", ("A",), 40)
    memory.put("b", ("B",), 40)
    assert memory.get("a") == ("A",)                    # now b is the least recently used
    memory.put("c", ("C",), 40)
    assert (memory.get("a"), memory.get("b"), memory.get("c"), memory.size) == (("A",), None, ("C",), 80)
    memory.put("d", ("D",), 101)                        # larger than the bound: not kept, nothing dropped
    assert (memory.get("d"), len(memory), memory.size) == (None, 2, 80)
    assert ReadFigures(limit=0).get("a") is None


def test_with_no_memory_every_page_reads_the_payload(app, project, monkeypatch):
    app.config["KEPT_RESULTS_MEMORY"] = 0
    reads: list[int] = []
    real = kept_module.scalar_bytes
    monkeypatch.setattr(kept_module, "scalar_bytes", lambda statement: reads.append(1) or real(statement))
    group, _ = counting_group()
    kept(project, "labels", group)
    for _ in range(3):
        kept(db.session.get(Project, project.id), "labels", group)
    assert len(reads) == 3


def marked_gold(project: Project):  # type: ignore[no-untyped-def]
    """Keep, as the project's gold, a frame no computation gives (so that reading it shows where gold came from);
    what the test reads next comes from a fresh session, as a next request's would."""
    import pandas as pd

    from annotator.figures.kept_gold import KeptGold
    marked = pd.DataFrame({"item": ["kept"], "unit": ["kept"], "label": [1]})
    kept_module._claim(project.id)
    refresh(project.id, Group("votes", ("gold",), lambda project, names: {"gold": KeptGold(marked, {"kept": 1})}))
    db.session.remove()
    return marked


def test_gold_is_read_from_the_kept_figures_while_they_are_exactly_current(project):
    from annotator.figures.kept_gold import gold_frame
    project_id = project.id
    marked = marked_gold(project)
    assert gold_frame(db.session.get(Project, project_id)).equals(marked)


def test_gold_is_computed_from_the_labels_once_a_vote_came_since(project, make_user):
    from annotator.analysis.results import labels_frame
    from annotator.figures.kept_gold import gold_frame
    project_id = project.id
    marked_gold(project)
    vote(db.session.get(Project, project_id), make_user("d"))
    db.session.remove()
    project = db.session.get(Project, project_id)
    gold = gold_frame(project)
    assert "kept" not in set(gold["item"]) and gold.equals(gold_frame(project, labels_frame(project)))


def test_kept_gold_is_never_used_for_an_export_of_pending_items_too(project):
    from annotator.figures.kept_gold import gold_frame
    project_id = project.id
    marked_gold(project)
    assert "kept" not in set(gold_frame(db.session.get(Project, project_id), include_incomplete=True)["item"])


def test_flask_check_finds_the_kept_figures_equal_to_a_recomputation(app, project):
    kept(project, "summary", VOTES)
    current, differing = kept_differences(db.session.get(Project, project.id))
    assert current == ["annotators", "dashboard", "gold", "summary", "undecided"] and differing == []
    result = app.test_cli_runner().invoke(args=["check", "--project", "kpa"])
    assert "[PASS] kept figures: 5 current, each equal to a recomputation" in result.output


def test_flask_check_fails_on_a_kept_figure_that_a_recomputation_does_not_give(app, project):
    kept(project, "summary", VOTES)
    row = db.session.scalars(select(KeptResult).where(KeptResult.name == "undecided")).one()
    row.payload = kept_module._dump(["arg_nope"])
    db.session.commit()
    result = app.test_cli_runner().invoke(args=["check", "--project", "kpa"])
    assert result.exit_code == 1
    assert "[FAIL] kept figures: 1 of 5 differ from a recomputation: undecided" in result.output


def test_the_default_computes_in_a_process_of_its_own_which_stores_the_figures(app, project):
    """`flask refresh-figures`, started by the page with this app's database and key, then the claim released."""
    app.config["KEPT_RESULTS_REFRESH"] = "process"
    project_id = project.id
    with pytest.raises(StillComputing):
        kept(project, "summary", VOTES)
    computations_done()
    db.session.remove()
    served = kept(db.session.get(Project, project_id), "summary", VOTES)
    assert served.freshness is None and served.value.labels == label_count(db.session.get(Project, project_id))
    assert db.session.get(KeptState, project_id).claimed_until is None


def test_flask_refresh_figures_keeps_every_figure_of_the_projects_pages(app, project):
    result = app.test_cli_runner().invoke(args=["refresh-figures", "--project", "kpa"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == ["votes: summary, undecided, dashboard, annotators, gold kept",
                                          "items: items kept", "model: model, model_page kept"]
    current, differing = kept_differences(db.session.get(Project, project.id))
    assert current == ["annotators", "dashboard", "gold", "items", "model", "model_page", "summary", "undecided"]
    assert differing == []


def test_flask_refresh_figures_of_an_unknown_project(app):
    result = app.test_cli_runner().invoke(args=["refresh-figures", "--project", "nope"])
    assert result.exit_code == 1 and "there is no project 'nope'" in result.output


def test_when_no_process_can_be_started_the_figures_are_computed_in_a_thread(app, project, monkeypatch):
    def refuse(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise OSError("no more processes")
    app.config["KEPT_RESULTS_REFRESH"] = "process"
    monkeypatch.setattr(kept_module.subprocess, "Popen", refuse)
    project_id = project.id
    with pytest.raises(StillComputing):
        kept(project, "summary", VOTES)
    computations_done()
    db.session.remove()
    assert kept(db.session.get(Project, project_id), "summary", VOTES).freshness is None


def test_an_export_from_kept_gold_is_byte_for_byte_the_export_computed_from_the_labels(app, project, tmp_path,
                                                                                       monkeypatch):
    runner = app.test_cli_runner()
    assert runner.invoke(args=["refresh-figures", "--project", "kpa"]).exit_code == 0
    kept_out, computed_out = tmp_path / "kept", tmp_path / "computed"

    def not_computed(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("the export computed gold although a current one is kept")
    monkeypatch.setattr(DeclaredTask, "gold", not_computed)   # the kept gold is what this export reads
    done = runner.invoke(args=["export", "kpa2021", "--project", "kpa", "--out", str(kept_out)])
    assert done.exit_code == 0, done.output
    monkeypatch.undo()
    app.config["KEPT_RESULTS_FROM_VOTES"] = 10 ** 9  # a small project: computed
    assert runner.invoke(args=["export", "kpa2021", "--project", "kpa", "--out", str(computed_out)]).exit_code == 0
    files = sorted(p.name for p in kept_out.iterdir())
    assert files == sorted(p.name for p in computed_out.iterdir()) and "votes.csv" in files
    assert all((kept_out / name).read_bytes() == (computed_out / name).read_bytes() for name in files)
