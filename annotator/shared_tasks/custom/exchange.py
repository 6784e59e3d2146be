"""The `custom` format: a declared campaign's items in, its votes, gold and a publishable dataset out.

It lives here, where the formats registry finds every format (and the one-place-per-type check expects it);
the items reader and the rest of declared campaigns are in annotator/declared/.

Import (`flask import custom ITEMS --definition TASK.yaml --project SLUG [--k N]`): the definition is
checked (key path and line of a problem), then the items file against it (annotator/declared/items.py:
CSV, TSV or JSON Lines; `known.<question>` columns make control items). A new project takes the
definition, and from it its name, guidelines and k (--k wins; else 3); more items may be imported into a
declared project with the same definition, never with another (its HIT and votes were made for it).

Export (`flask export custom --project SLUG --out DIR`), every file written even when nothing counts yet:
  votes.jsonl, votes.csv   every counted vote: item, annotator (username), submitted_at, the answer (CSV: one
                           column per question, lists as JSON). Pairwise answers are in the item's terms ("A"
                           is field `a`), whichever side the annotator saw it on.
  gold.jsonl, gold.csv     gold per item and question (unit), by the definition's rules (analysis.results).
  dataset/                 ready to publish: items.parquet, votes.parquet (annotators as annotator_1, 2...,
                           numbered by account, never their names), gold.parquet and README.md, a data card
                           (the definition, k, counts, agreement, how gold was derived, strengths, licence).
"""
from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from annotator.core.errors import FormatError
from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, Item, Project, User
from annotator.core.options import Option
from annotator.declared import answers
from annotator.declared.definition import (
    NOT_ASKED,
    UNDECIDED,
    Definition,
    Question,
    definition_from_data,
    number_text,
    share_words,
)
from annotator.declared.items import iter_items, load_definition
from annotator.shared_tasks.format_base import Exported, FileFormat, Loaded

if TYPE_CHECKING:
    import pandas as pd
    from flask import Blueprint

NAME = "custom"
DATASET = "dataset"
VOTE_COLUMNS = ["item", "annotator", "submitted_at"]


# --- import -------------------------------------------------------------------------------------------------

def load(path: Path, *, definition: Path | None = None) -> Loaded:
    """Read the definition, then the items file against it; nothing is stored."""
    if definition is None:
        raise FormatError("a declared campaign's items are read against its definition: give --definition TASK.yaml "
                          "(flask import custom ITEMS --definition TASK.yaml --project SLUG; in the browser, new "
                          "projects only: New project, Declared campaign)")
    checked = load_definition(definition)
    return loaded(checked, iter_items(Path(path), checked))


def loaded(definition: Definition, items: Iterable[Any]) -> Loaded:
    return Loaded(items, {"format": NAME}, definition=definition.to_data())


# --- export -------------------------------------------------------------------------------------------------

def project_definition(project: Project) -> Definition:
    return definition_from_data(project.definition)


def vote_rows(project: Project) -> list[dict[str, Any]]:
    """The counted votes in item then vote order: item, user_id, username, submitted_at, answer (item terms)."""
    from annotator.analysis.results import counted_votes
    definition = project_definition(project)
    rows = db.session.execute(
        select(Item.external_id, Assignment.user_id, User.username, Assignment.submitted_at, Assignment.answer,
               Assignment.presentation)
        .join(Item, Item.id == Assignment.item_id).join(User, User.id == Assignment.user_id)
        .where(counted_votes(project)).order_by(Item.position, Assignment.submitted_at, Assignment.id)).all()
    return [{"item": item, "user_id": user_id, "username": username,
             "submitted_at": submitted.isoformat(timespec="seconds") if submitted else None,
             "answer": in_item_terms(definition, answer or {}, presentation)}
            for item, user_id, username, submitted, answer, presentation in rows]


def in_item_terms(definition: Definition, answer: Mapping[str, Any], presentation: Any) -> dict[str, Any]:
    """The stored answer with pairwise choices turned into the item's terms ("A" is field `a`), its questions
    in the definition's order: PostgreSQL's JSONB keeps an object's keys in an order of its own, so the
    stored order would make the same votes export differently on the two engines (and after a restore)."""
    order = [q.id for q in definition.questions]
    out = {key: answer[key] for key in order if key in answer}
    out.update((key, answer[key]) for key in sorted(answer) if key not in out)
    for question in definition.questions:
        if question.kind == "pairwise" and answers.swapped(question, presentation) and out.get(question.id):
            out[question.id] = {"A": "B", "B": "A"}.get(out[question.id], out[question.id])
    return out


def pseudonyms(project: Project) -> dict[int, str]:
    """annotator_1, annotator_2... for everyone who voted in the project, numbered by account (stable)."""
    ids = db.session.scalars(select(Assignment.user_id).where(Assignment.project_id == project.id,
                                                              Assignment.status == SUBMITTED)
                             .distinct().order_by(Assignment.user_id)).all()
    return {user_id: f"annotator_{n}" for n, user_id in enumerate(ids, 1)}


def cell(value: Any) -> str:
    """An answer or field value in a CSV cell: text as is, numbers as the labels write them, lists as JSON."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return number_text(value)
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _json_default(value: Any) -> Any:
    if hasattr(value, "item"):       # numpy scalars
        return value.item()
    if hasattr(value, "tolist"):
        return value.tolist()
    return str(value)


def _plain(value: Any) -> Any:
    """A frame's cell as plain JSON-able Python (numpy scalars and NaN made plain)."""
    if value is None:
        return None
    if hasattr(value, "item") and not isinstance(value, (list, dict, str)):
        value = value.item()
    if isinstance(value, float) and value != value:
        return None
    return value


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row, ensure_ascii=False, default=_json_default) + "\n" for row in rows),
                    encoding="utf-8")
    return path


def write_csv(path: Path, columns: list[str], rows: list[list[str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(rows)
    return path


def gold_rows(gold: pd.DataFrame) -> list[dict[str, Any]]:
    return [{column: _plain(value) for column, value in row.items()} for row in gold.to_dict(orient="records")]


def export(project: Project, out_dir: Path) -> Exported:
    from annotator.analysis.results import gold_frame, labels_frame
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    definition = project_definition(project)
    votes = vote_rows(project)
    qids = [q.id for q in definition.questions]
    paths = [write_jsonl(out_dir / "votes.jsonl",
                         [{"item": v["item"], "annotator": v["username"], "submitted_at": v["submitted_at"],
                           "answer": v["answer"]} for v in votes]),
             write_csv(out_dir / "votes.csv", VOTE_COLUMNS + qids,
                       [[v["item"], v["username"], v["submitted_at"] or "", *(cell(v["answer"].get(q)) for q in qids)]
                        for v in votes])]
    labels = labels_frame(project)
    gold = gold_frame(project, labels)
    rows = gold_rows(gold)
    columns = list(gold.columns)
    paths += [write_jsonl(out_dir / "gold.jsonl", rows),
              write_csv(out_dir / "gold.csv", columns, [[cell(row.get(c)) for c in columns] for row in rows])]
    paths += write_dataset(project, definition, out_dir / DATASET, votes, labels, gold)
    notes = []
    if not votes:
        notes.append("No vote counts yet: votes.jsonl is empty and votes.csv holds the header only.")
    return Exported(paths, notes)


def write_dataset(project: Project, definition: Definition, folder: Path, votes: list[dict[str, Any]],
                  labels: pd.DataFrame, gold: pd.DataFrame) -> list[Path]:
    """items.parquet, votes.parquet, gold.parquet and README.md (the data card) in `folder`."""
    import pandas as pd
    folder.mkdir(parents=True, exist_ok=True)
    fields = definition.item_fields()
    items = db.session.execute(select(Item.external_id, Item.payload, Item.is_control)
                               .where(Item.project_id == project.id).order_by(Item.position)).all()
    item_frame = pd.DataFrame([{"id": external_id, **{f: _parquet_value(payload.get(f)) for f in fields},
                                "control": bool(control)} for external_id, payload, control in items],
                              columns=["id", *fields, "control"])
    names = pseudonyms(project)
    qids = [q.id for q in definition.questions]
    vote_frame = pd.DataFrame([{"item": v["item"], "annotator": names.get(v["user_id"], "annotator"),
                                "submitted_at": v["submitted_at"],
                                **{q: _parquet_value(v["answer"].get(q)) for q in qids},
                                "answer": json.dumps(v["answer"], ensure_ascii=False)} for v in votes],
                              columns=[*VOTE_COLUMNS, *qids, "answer"], dtype=object)
    gold_frame = gold.copy()
    for column in gold_frame.columns:
        if gold_frame[column].dtype == object:
            gold_frame[column] = [_parquet_value(_plain(v)) for v in gold_frame[column]]
    paths = []
    for name, frame in (("items", item_frame), ("votes", vote_frame), ("gold", gold_frame)):
        path = folder / f"{name}.parquet"
        frame.astype({c: "string" for c in frame.columns if frame[c].dtype == object}).to_parquet(path, index=False)
        paths.append(path)
    readme = folder / "README.md"
    readme.write_text(data_card(project, definition, len(items), votes, labels, gold), encoding="utf-8")
    return [*paths, readme]


def _parquet_value(value: Any) -> str | None:
    """One text column per field or question: text as is, anything else as JSON (lists, numbers)."""
    if value is None:
        return None
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=_json_default)


# --- the data card --------------------------------------------------------------------------------------------

def rule_in_words(question: Question) -> str:
    """How the question's gold is derived, in words."""
    rule = question.gold
    if rule is None:
        return "no gold (free text is not aggregated)"
    if rule.rule == "majority":
        ties = "undecided" if rule.ties == UNDECIDED else f"{rule.ties!r}"
        per = " for each option (chosen or not)" if question.kind == "multi" else ""
        return f"majority: the answer most annotators gave{per}; a tie gives {ties}"
    if rule.rule == "share":
        what = f"the share of annotators answering {rule.value!r}" if question.kind == "choice" else \
            "for each option, the share of annotators who chose it" if question.kind == "multi" else \
            "for each word, the share of annotators who selected it"
        yes, no = share_words(question) if question.kind == "choice" else ("1", "0")
        return (f"share: {what}; at or above {rule.positive:g} gives {yes!r}, at or below {rule.negative:g} gives "
                f"{no!r}, in between undecided")
    if rule.rule == "agree":
        value = f"{rule.value!r}" if rule.value else "an answer"
        otherwise = "undecided" if rule.otherwise == UNDECIDED else f"{rule.otherwise!r}"
        return f"agree: {value} given by at least {rule.m} annotators; otherwise {otherwise}"
    return {
        "dawid_skene": "Dawid-Skene: the most likely answer given each annotator's estimated confusion matrix",
        "median": "median of the annotators' values (on the scale)",
        "mean": "mean of the annotators' values",
        "probability": "for each word, the share of annotators who selected it (a probability, as in SemEval-2020 "
                       "Task 10)",
        "bradley_terry": "Bradley-Terry: each pair's majority choice, and strengths of what is compared fitted from "
                         "all comparisons" if question.players else
                         "Bradley-Terry: the majority choice of each pair",
    }.get(rule.rule, rule.rule)


def _question_line(question: Question) -> str:
    parts = [f"- **{question.id}** ({question.kind}): {question.prompt}"]
    if question.options:
        parts.append("  options: " + ", ".join(o.value if o.label == o.value else f"{o.value} ({o.label})"
                                              for o in question.options))
    elif question.options_from:
        parts.append(f"  options: each item's own, from its field `{question.options_from}`")
    if question.kind == "scale":
        parts.append(f"  scale: {number_text(question.minimum)} to {number_text(question.maximum)} in steps of "
                     f"{number_text(question.step)}")
    if question.kind == "span":
        parts.append(f"  words of `{question.of}`")
    if question.kind == "pairwise":
        parts.append(f"  A is `{question.a}`, B is `{question.b}`" +
                     (", or equal" if question.allow_equal else ""))
    if question.when:
        parts.append("  asked only when " + " and ".join(f"{p} is {' or '.join(v)}" for p, v in question.when))
    if not question.required:
        parts.append("  optional")
    parts.append(f"  gold: {rule_in_words(question)}")
    return "\n".join(parts)


def _table(columns: list[str], rows: list[list[Any]]) -> list[str]:
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    return lines + ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in rows]


def data_card(project: Project, definition: Definition, item_count: int, votes: list[dict[str, Any]],
              labels: pd.DataFrame, gold: pd.DataFrame) -> str:
    from annotator.analysis.results import including_incomplete, project_agreement
    annotators = len({v["user_id"] for v in votes})
    lines = [f"# {definition.name}", ""]
    if definition.description:
        lines += [definition.description, ""]
    lines += ["## Summary", "",
              f"- Items: {item_count}",
              f"- Votes: {len(votes)}",
              f"- Annotators: {annotators}",
              f"- k (annotators per item): {project.k}",
              f"- Licence: {definition.licence or 'no licence declared'}",
              f"- Counted: {'every item, pending ones included' if including_incomplete() else 'complete items only'}"
              ", control items left out", ""]
    lines += ["## Files", "",
              "- `items.parquet`: id, the item's fields (lists as JSON text), and whether it is a control item.",
              "- `votes.parquet`: item, annotator (annotator_1, annotator_2, ...: numbered by account, no names), "
              "submitted_at (UTC), one column per question (lists and numbers as JSON text) and the whole answer "
              "as JSON. Pairwise answers are in the item's terms: A is the field named A below.",
              "- `gold.parquet`: item, question, unit, gold, n (votes), score and votes, per the rules below.", ""]
    lines += ["## Questions and how gold was derived", ""]
    lines += [_question_line(q) for q in definition.questions]
    lines += ["", "## Agreement", ""]
    fields = project_agreement(project, labels) if not labels.empty else []
    if fields:
        lines += _table(["question", "units", "annotators", "ratings", "Fleiss' kappa", "Krippendorff's alpha",
                         "alpha level"],
                        [[f.field, f.units, f.coders, f.ratings, f.fleiss_kappa.text(), f.krippendorff_alpha.text(),
                          f.level] for f in fields])
    else:
        lines.append("No counted vote yet, so no agreement.")
    lines += ["", "## Undecided gold", ""]
    if gold.empty:
        lines.append("No gold yet: gold comes from counted votes, and there are none.")
    else:
        rows = []
        for question in definition.questions:
            if question.gold is None:
                continue
            mine = gold[gold["question"] == question.id]
            undecided = mine[mine["gold"].astype(str) == UNDECIDED]
            not_asked = mine[mine["gold"].astype(str) == NOT_ASKED]
            rows.append([question.id, mine["item"].nunique(), undecided["item"].nunique(), len(undecided),
                         not_asked["item"].nunique()])
        lines += _table(["question", "items with gold", "items with an undecided unit", "undecided units",
                         "items where it was not asked (n/a)"], rows)
    lines += _strengths(definition, labels)
    return "\n".join(lines) + "\n"


def _strengths(definition: Definition, labels: pd.DataFrame) -> list[str]:
    if not any(q.kind == "pairwise" and q.players for q in definition.questions) or labels.empty:
        return []
    from annotator.declared.gold import strengths
    lines: list[str] = []
    for qid, table in strengths(definition, labels).items():
        if table is None or table.empty:
            continue
        lines += ["", f"## Bradley-Terry strengths: {qid}", ""]
        lines += _table(["rank", "player", "strength", "wins", "losses", "ties"],
                        [[_plain(r["rank"]), r["player"], f"{float(r['strength']):.3f}", _plain(r["wins"]),
                          _plain(r["losses"]), _plain(r["ties"])] for r in table.to_dict(orient="records")])
    return lines


def _more_items_link(project: Project) -> list[tuple[str, str]]:
    from annotator.declared.pages import more_items_link
    return more_items_link(project)


def _pages() -> Blueprint:
    """The admin page that makes a declared project from a definition and an items file (with a preview)."""
    from annotator.declared.pages import bp
    return bp


FORMAT = FileFormat(
    name=NAME, title="Declared campaign (your own YAML definition)", task="custom", reads="file",
    kinds=("CSV", "TSV", "JSON Lines"),
    expects="a CSV, TSV or JSON Lines file of items, one column (key) per field the definition reads, an optional "
            "id column and known.<question> columns for control items; with the definition file",
    items="items", load=load, export=export,
    import_options=(Option("definition", Path, None, label="Definition (YAML)", cli_only=True,
                           help="the campaign's definition file (YAML or JSON): what the HIT shows and asks, "
                                "gold rules, agreement"),),
    pages=_pages, new_project="declared.new", project_links=_more_items_link,
)
