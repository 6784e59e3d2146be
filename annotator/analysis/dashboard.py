"""A project's dashboard: the figures (plain data, also `flask dashboard --json`) and their SVG charts.

Figures: submits over time (cumulative), votes per annotator, accuracy on control items per annotator
(optional: given by quality control when it exists), mean pairwise kappa per annotator on the headline
field, agreement per field, the task's label distributions, and a histogram of the time per HIT.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from markupsafe import Markup
from sqlalchemy import select

from annotator.analysis.annotator_figures import accuracies
from annotator.analysis.annotator_kappas import mean_kappas
from annotator.analysis.charts import bar_chart, column_chart, empty_chart, line_chart
from annotator.analysis.results import computed_gold, labels_frame, project_agreement
from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, Item, Project, User
from annotator.core.quality_settings import quality_settings
from annotator.tasks import TaskType, project_task
from annotator.tasks.base import GOLD_PER_OPTION, VOTES_PER_VALUE

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from annotator.analysis.agreement import FieldAgreement

MAX_BINS = 20
HOURLY_UP_TO_HOURS = 72  # progress per hour over short spans, per day beyond


def dashboard_figures(project: Project, accuracy: Mapping[str, float] | None = None,
                      labels: pd.DataFrame | None = None, gold: pd.DataFrame | None = None,
                      agreement: Sequence[FieldAgreement] | None = None) -> dict[str, Any]:
    """Every figure of the dashboard as JSON-ready data. `accuracy` (annotator -> share right on control
    items) defaults to quality control's, None while nobody has answered a control item; `labels` and `gold`
    to the project's (results.labels_frame, computed_gold), and `agreement` to results.project_agreement of
    `labels`, when the caller has them already (the kept figures compute the project page's agreement from the
    same labels: at a million labels, a second computation cost seconds)."""
    accuracy = _control_accuracy(project) if accuracy is None else accuracy
    submits = _submits(project)
    labels = labels_frame(project) if labels is None else labels
    task = project_task(project)
    gold = computed_gold(project, labels) if gold is None else gold
    first = task.headline_units(labels)   # its name (the units are the kappas'; made apart, not all held here)
    headline = first[0] if first is not None else None
    del first
    return {
        "project": project.slug,
        "progress": _progress(submits["submitted_at"]),
        "votes_per_annotator": [{"annotator": name, "votes": int(n)}
                                for name, n in submits["annotator"].value_counts().sort_index().items()],
        "accuracy_per_annotator": None if accuracy is None else [
            {"annotator": name, "accuracy": float(value)} for name, value in sorted(accuracy.items())],
        "kappa_per_annotator": _kappa(project, headline, labels),
        "agreement": [{"field": f.field, "fleiss_kappa": f.fleiss_kappa.value,
                       "krippendorff_alpha": f.krippendorff_alpha.value}
                      for f in (project_agreement(project, labels) if agreement is None else agreement)],
        "label_distribution": (distribution := task.label_distribution(labels, gold)),
        "time_per_hit": _histogram(submits["seconds_spent"].dropna().to_numpy(dtype=float)),
        # kept with the figures: at a million labels, finding each key point's text reads thousands of items
        "unit_names": unit_names(project, task, {"label_distribution": distribution}),
    }


def _field(field: str | None, task: TaskType | None) -> str:
    return "headline field" if not field else task.field_words(field) if task else field


def _value(field: str, value: str, task: TaskType | None) -> str:
    """A value in the task's words, without the field's name the chart's title already gives ("alpha" for
    "Less redundant: alpha")."""
    if task is None:
        return value
    said = task.label_words(field, value)
    prefix = f"{task.field_words(field)}: "
    return said[len(prefix):] if said.lower().startswith(prefix.lower()) and len(said) > len(prefix) else said


def _submits(project: Project) -> pd.DataFrame:
    import pandas as pd
    rows = db.session.execute(select(User.username, Assignment.submitted_at, Assignment.seconds_spent)
                              .join(User, User.id == Assignment.user_id)
                              .where(Assignment.project_id == project.id, Assignment.status == SUBMITTED)).all()
    return pd.DataFrame([tuple(r) for r in rows], columns=["annotator", "submitted_at", "seconds_spent"])


def _progress(times: pd.Series) -> dict[str, Any]:
    import pandas as pd
    if times.empty:
        return {"unit": "hour", "points": []}
    times = pd.to_datetime(times)
    hourly = (times.max() - times.min()) <= pd.Timedelta(hours=HOURLY_UP_TO_HOURS)
    unit, frequency = ("hour", "h") if hourly else ("day", "D")
    counts = times.dt.floor(frequency).value_counts().sort_index()
    counts = counts.reindex(pd.date_range(counts.index.min(), counts.index.max(), freq=frequency), fill_value=0)
    cumulative = counts.cumsum()
    return {"unit": unit, "points": [{"time": _iso(t), "submits": int(n), "cumulative": int(c)}
                                     for t, n, c in zip(counts.index, counts, cumulative)]}


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M")


def _kappa(project: Project, field: str | None, labels: pd.DataFrame) -> dict[str, Any]:
    """Mean pairwise Cohen's kappa on the headline field, as the annotators page computes it."""
    min_units = quality_settings(project).kappa_min_units
    kappas = mean_kappas(labels, project_task(project), min_units) if field is not None else {}
    names = _usernames(list(kappas))
    return {"field": field, "min_shared_units": min_units, "annotators": [
        {"annotator": names.get(user, str(user)), "kappa": kappa, "pairs": pairs}
        for user, (kappa, pairs) in sorted(kappas.items(), key=lambda kv: names.get(kv[0], str(kv[0])))]}


def _control_accuracy(project: Project) -> dict[str, float] | None:
    scores = accuracies(project.id)
    names = _usernames(list(scores))
    return {names.get(user, str(user)): mean for user, (_, mean) in scores.items()} or None


def _usernames(ids: list[int]) -> dict[int, str]:
    return {i: n for i, n in db.session.execute(select(User.id, User.username).where(User.id.in_(ids)))}


def _histogram(seconds: np.ndarray) -> dict[str, Any]:
    import numpy as np
    if not len(seconds):
        return {"unit": "seconds", "median": None, "bins": []}
    # Sturges' number of bins, at most MAX_BINS: "auto" (Freedman-Diaconis) can ask for millions of bins when
    # most HITs take nearly the same time and one lease ran for half an hour.
    bins = min(MAX_BINS, int(np.ceil(np.log2(len(seconds)))) + 1)
    counts, edges = np.histogram(seconds, bins=bins)
    return {"unit": "seconds", "median": float(np.median(seconds)),
            "bins": [{"from": float(a), "to": float(b), "count": int(n)} for a, b, n in zip(edges, edges[1:], counts)]}


def unit_names(project: Project, task: TaskType, figures: Mapping[str, Any]) -> dict[str, str]:
    """What the units a chart counts (a distribution not per value, e.g. key-point prevalence) are about, in
    words (TaskType.unit_words): the items are read in file order until each unit is found, usually in the
    first few (a key point's text is in every argument of its topic)."""
    # A question's options counted in gold (GOLD_PER_OPTION) name their question, whose words say its units.
    units = {unit: name.removesuffix(GOLD_PER_OPTION) if name.endswith(GOLD_PER_OPTION) else None
             for name, counts in figures["label_distribution"].items() if VOTES_PER_VALUE not in name
             for unit in counts}
    if not units or type(task).unit_words is TaskType.unit_words:
        return {}
    found: dict[str, str] = {}
    payloads = db.session.scalars(select(Item.payload).where(Item.project_id == project.id, Item.is_control.is_(False))
                                  .order_by(Item.position).execution_options(yield_per=500))
    for payload in payloads:
        for unit in [u for u in units if u not in found]:
            said = task.unit_words(payload, {"unit": unit, "question": units[unit]})
            if said:
                found[unit] = said
        if len(found) == len(units):
            break
    payloads.close()
    # In the chart's order, whatever order they were found in: kept figures must equal a recomputation's, key order
    # included (figures/kept_figures.py `same`), and a set's order changes with each process's string hashing.
    return {unit: found[unit] for unit in units if unit in found}


def dashboard_charts(figures: Mapping[str, Any], task: TaskType | None = None,
                     names: Mapping[str, str] | None = None) -> list[tuple[str, Markup]]:
    """The figures drawn: (id, svg) in page order; with the project's task type, its values and fields in its
    words (the figures themselves, also `flask dashboard --json`, keep the stored values). `names`: the counted
    units in words (unit_names): each bar then says them, its code on hover."""
    names = names or {}
    progress = figures["progress"]
    kappa = figures["kappa_per_annotator"]
    charts = [
        ("progress", line_chart("Submits over time (cumulative)",
                                [(p["time"].replace("T", " "), p["cumulative"]) for p in progress["points"]],
                                f"time (per {progress['unit']}, UTC)", "votes", empty="No votes yet.")),
        ("votes", bar_chart("Votes per annotator", [(v["annotator"], v["votes"]) for v in
                                                    figures["votes_per_annotator"]], "votes", empty="No votes yet.")),
        ("accuracy", empty_chart("Accuracy on control items", "No control items yet.")
         if figures["accuracy_per_annotator"] is None else
         bar_chart("Accuracy on control items", [(a["annotator"], a["accuracy"])
                                                 for a in figures["accuracy_per_annotator"]],
                   "share of control answers right", empty="No control answers yet.", domain=(0.0, 1.0))),
        ("kappa", bar_chart(f"Mean pairwise Cohen's kappa per annotator ({_field(kappa.get('field'), task)})",
                            [(a["annotator"], a["kappa"]) for a in kappa["annotators"] if a["kappa"] is not None],
                            "kappa", domain=(-1.0, 1.0),
                            empty=f"No two annotators share {kappa['min_shared_units']} units yet.")),
        ("agreement", bar_chart("Agreement per field (Krippendorff's alpha)",
                                [(task.field_words(a["field"]) if task else a["field"], a["krippendorff_alpha"])
                                 for a in figures["agreement"]
                                 if a["krippendorff_alpha"] is not None], "alpha", domain=(-1.0, 1.0),
                                empty="No field has a defined alpha yet.")),
    ]
    for index, (name, counts) in enumerate(figures["label_distribution"].items()):
        field, per_value, _ = name.rpartition(VOTES_PER_VALUE)  # the default distributions: values of a field
        bars = [(_value(field, value, task) if per_value else names.get(value, value), count)
                for value, count in counts.items()]
        hovers = None if per_value or not names else [f"{names[v]} ({v})" if v in names else v for v in counts]
        title = f"{task.field_words(field)}{per_value}" if task and per_value else \
            f"{task.field_words(name.removesuffix(GOLD_PER_OPTION))}{GOLD_PER_OPTION}" \
            if task and name.endswith(GOLD_PER_OPTION) else name
        charts.append((f"distribution-{index}", bar_chart(title, bars, "count", empty="No votes yet.", hovers=hovers)))
    time = figures["time_per_hit"]
    title = "Time per HIT" + (f" (median {time['median']:.0f} s)" if time["median"] is not None else "")
    charts.append(("time", column_chart(title, [(f"{b['from']:.0f}–{b['to']:.0f}", b["count"]) for b in time["bins"]],
                                        "seconds", "HITs", empty="No votes yet.")))
    return charts
