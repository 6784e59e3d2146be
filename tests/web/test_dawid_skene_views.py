"""Dawid-Skene beside the task's rule: the admin page and `flask aggregate`, on the KPA excerpt.

Annotator `a` matches each argument with its first two key points, `b` and `c` with the first only. With a
match threshold of 0.3, the rule makes the second key point a match (1 vote of 3), Dawid-Skene does not.
"""
from __future__ import annotations

import json
import re

from tests.cli.test_kpa2021_declared_settings import _judge_comparisons
from tests.conftest import DATA, load_project
from tests.support.voting import vote_everywhere
from tests.web.test_admin import _comparison


def _project(make_user):  # type: ignore[no-untyped-def]
    project = load_project("kpa2021", DATA / "kpa2021", "kpa", split="test", k=3,
                           positive_threshold=0.3, negative_threshold=0.1)   # the share rule's, in its definition
    users = [make_user(name) for name in ("a", "b", "c")]
    vote_everywhere(project, users, lambda item, user: {
        "matches": [kp["id"] for kp in item.payload["key_points"][:2 if user.username == "a" else 1]]})
    return project


def test_aggregate_json_gives_posteriors_confusion_and_the_differences_with_gold(app, make_user):
    _project(make_user)
    result = app.test_cli_runner().invoke(args=["aggregate", "--project", "kpa", "--method", "dawid-skene",
                                                "--json"])
    assert result.exit_code == 0, result.output
    [match] = json.loads(result.output)["fields"]
    assert match["field"] == "matches" and match["classes"] == ["0", "1"] and match["converged"]
    assert len(match["units"]) == 26 * 5
    assert match["differing_from_gold"] == 26
    differing = [u for u in match["units"] if u["differs"]]
    assert {(u["gold"], u["label"]) for u in differing} == {("1", "0")}
    assert all(abs(sum(u["posterior"].values()) - 1) < 1e-5 for u in match["units"])
    assert set(match["confusion"]["by_annotator"]) == {"a", "b", "c"}
    assert match["confusion"]["by_annotator"]["b"][1][1] > 0.99  # b gives 1 whenever the truth is 1


def test_aggregate_text_names_the_method_and_the_differences(app, make_user):
    _project(make_user)
    output = app.test_cli_runner().invoke(args=["aggregate", "--project", "kpa"]).output
    assert "[matches] 130 units, classes 0, 1; converged" in output
    assert "differs from the task's gold on 26 of 130 units" in output


def test_aggregate_refuses_an_unknown_project(app):
    result = app.test_cli_runner().invoke(args=["aggregate", "--project", "nope"])
    assert result.exit_code != 0 and "there is no project 'nope'" in result.output


def test_admin_page_lists_units_with_label_posterior_and_difference(app, login, make_user):
    _project(make_user)
    make_user("boss", role="admin")
    client = login("boss")
    assert "/admin/projects/kpa/dawid-skene" in client.get("/admin/projects/kpa").get_data(as_text=True)
    html = client.get("/admin/projects/kpa/dawid-skene").get_data(as_text=True)
    assert "differs on 26 of 130 units" in html
    assert html.count('<tr class="flagged">') == 26
    assert "Confusion matrices" in html and "<caption>a</caption>" in html


def test_admin_page_is_for_admins_only(app, login, make_user):
    _project(make_user)
    assert login("a").get("/admin/projects/kpa/dawid-skene").status_code == 403


def test_admin_page_without_votes_says_so(app, login, make_user, kpa_project):
    kpa_project()
    make_user("boss", role="admin")
    html = login("boss").get("/admin/projects/kpa/dawid-skene").get_data(as_text=True)
    assert "No votes yet." in html


def test_a_comparisons_units_are_said_as_its_two_systems_not_as_their_stored_pair(app, login, make_user):
    """A set comparison's unit is stored as the JSON pair of its systems ('["alpha", "beta"]', declared/asked.py);
    the page says "alpha vs beta" after the item, and `flask aggregate --json` keeps the stored unit."""
    _comparison()
    _judge_comparisons(("kpa",), [make_user(f"judge{j}") for j in range(3)])
    make_user("boss", role="admin")
    html = login("boss").get("/admin/projects/kpa/dawid-skene").get_data(as_text=True)
    cells = re.findall(r"<tr(?: class=\"flagged\")?><td>([^<]*)</td>", html)
    pairs = [cell for cell in cells if " vs " in cell]
    assert pairs and all(re.fullmatch(r"t1(pro|con):\w+:\w+ / (alpha|beta|gamma) vs (alpha|beta|gamma)", c)
                         for c in pairs), pairs
    assert "[&#34;" not in html and '["' not in html
    fields = json.loads(app.test_cli_runner().invoke(args=["aggregate", "--project", "kpa", "--json"]).output)
    compared = next(f for f in fields["fields"] if f["field"] == "less_redundant")
    assert all(u["unit"].endswith('"]') for u in compared["units"])
