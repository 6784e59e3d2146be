"""The `custom` format: a declared campaign's items in, its votes, gold and a publishable dataset out.

It lives here, where the formats registry finds every format (and the one-place-per-type check expects it);
the items reader and the rest of declared campaigns are in annotator/declared/.

Import (`flask import custom ITEMS --definition TASK.yaml --project SLUG [--k N]`): the definition is
checked (key path and line of a problem), then the items file against it (annotator/declared/items.py:
CSV, TSV or JSON Lines; `known.<question>` columns make control items, `reference.<question>` columns give
ordinary items a reference answer: docs/declared-references.md). A new project takes the
definition, and from it its name, guidelines and k (--k wins; else 3); more items may be imported into a
declared project with the same definition, never with another (its HIT and votes were made for it).

Export (`flask export custom --project SLUG --out DIR`), every file written even when nothing counts yet:
  votes.jsonl, votes.csv   every counted vote: item, annotator (username), submitted_at, the answer (CSV: one
                           column per question, lists as JSON). Pairwise answers are in the item's terms ("A"
                           is field `a`), whichever side the annotator saw it on.
  gold.jsonl, gold.csv     gold per item and question (unit), by the definition's rules (analysis.results).
  dataset/                 ready to publish: items.parquet, votes.parquet (annotators as annotator_1, 2...,
                           numbered by account, never their names), gold.parquet, each column typed
                           (custom/dataset.py), and README.md, a data card with Hugging Face front matter
                           (custom/data_card.py: every column's type and meaning, the definition, k, counts,
                           agreement, how gold was derived, strengths, licence).
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flask import url_for
from sqlalchemy import select

from annotator.analysis.aggregation import project_model
from annotator.analysis.results import counted_votes, labels_frame
from annotator.core.csv_cells import write_csv
from annotator.core.errors import FormatError
from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, Item, Project, User
from annotator.core.options import Option
from annotator.declared import answers, best_worst, graded, sides
from annotator.declared.definition import Definition, number_text
from annotator.declared.items import iter_items, load_definition
from annotator.declared.relations import ANSWER_KEYS as RELATION_KEYS
from annotator.declared.repeat import answer_keys, in_canonical_order
from annotator.declared.spans import ANSWER_KEYS
from annotator.figures.kept_gold import gold_frame
from annotator.lookups.format_base import Exported, FileFormat, Loaded
from annotator.shared_tasks.custom.model_columns import LABEL, MEANINGS, MODELS, POSTERIOR, with_model
from annotator.shared_tasks.custom.ranking import best_worst_scores, project_definition, rank, ranks

if TYPE_CHECKING:
    import pandas as pd

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

def vote_rows(project: Project, include_incomplete: bool = False) -> list[dict[str, Any]]:
    """The counted votes in item then vote order: item, user_id, username, submitted_at, answer (item terms)."""
    definition = project_definition(project)
    rows = db.session.execute(
        select(Item.external_id, Assignment.user_id, User.username, Assignment.submitted_at, Assignment.answer,
               Assignment.presentation)
        .join(Item, Item.id == Assignment.item_id).join(User, User.id == Assignment.user_id)
        .where(counted_votes(project, include_incomplete))
        .order_by(Item.position, Assignment.submitted_at, Assignment.id)).all()
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
    out = in_canonical_order(definition, out)   # a `repeat` group's elements and questions too
    for question in definition.questions:   # a spans question's marks: start, end, label, as the answer gives them
        if question.kind == "spans" and isinstance(out.get(question.id), list):
            out[question.id] = [_mark_in_order(mark) for mark in out[question.id]]
        if question.kind == "extractive" and isinstance(out.get(question.id), Mapping):   # start, end, text
            out[question.id] = _mark_in_order(out[question.id])
        if question.kind == "relations" and isinstance(out.get(question.id), list):   # from, to, label
            out[question.id] = [{key: r[key] for key in RELATION_KEYS if key in r} if isinstance(r, Mapping) else r
                                for r in out[question.id]]
    for question in definition.questions:
        if question.kind == "pairwise" and answers.swapped(question, presentation) and out.get(question.id):
            out[question.id] = graded.flipped(out[question.id])   # "A", or a grade "A2" (declared/graded.py)
    return sides.answers_in_item_terms(definition, out, presentation)   # a sides group's A and B (sides.py)


def _mark_in_order(mark: Any) -> Any:
    """One mark with its keys in the answer's order (spans.ANSWER_KEYS, then any other sorted), whatever order the
    engine stored them in."""
    if not isinstance(mark, Mapping):
        return mark
    return {**{key: mark[key] for key in ANSWER_KEYS if key in mark},
            **{key: mark[key] for key in sorted(mark) if key not in ANSWER_KEYS}}


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


def gold_rows(gold: pd.DataFrame) -> list[dict[str, Any]]:
    return [{column: _plain(value) for column, value in row.items()} for row in gold.to_dict(orient="records")]


def export(project: Project, out_dir: Path, *, include_incomplete: bool = False, model: str = MODELS[0]) -> Exported:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    definition = project_definition(project)
    votes = vote_rows(project, include_incomplete)
    qids = answer_keys(definition)   # a `repeat` group's column holds its answers per element as JSON
    paths = [write_jsonl(out_dir / "votes.jsonl",
                         [{"item": v["item"], "annotator": v["username"], "submitted_at": v["submitted_at"],
                           "answer": v["answer"]} for v in votes]),
             write_csv(out_dir / "votes.csv", VOTE_COLUMNS + qids,
                       [[v["item"], v["username"], v["submitted_at"] or "", *(cell(v["answer"].get(q)) for q in qids)]
                        for v in votes])]
    labels = labels_frame(project, include_incomplete)
    gold = gold_frame(project, labels)
    rows = gold_rows(gold)
    columns = list(gold.columns)
    if model != MODELS[0]:   # the annotator model's label and posterior per unit (custom/model_columns.py)
        rows = with_model(definition, rows, project_model(project, labels, seed_controls=True))
        columns += [LABEL, POSTERIOR]
    paths += [write_jsonl(out_dir / "gold.jsonl", rows),
              write_csv(out_dir / "gold.csv", columns, [[cell(row.get(c)) for c in columns] for row in rows])]
    scores = best_worst_scores(project, definition, labels)
    if scores is not None:   # a best-worst question: every item's score (declared/best_worst.py)
        paths += [write_jsonl(out_dir / "scores.jsonl", scores),
                  write_csv(out_dir / "scores.csv", best_worst.SCORE_COLUMNS,
                            [[cell(row[c]) for c in best_worst.SCORE_COLUMNS] for row in scores])]
    paths += write_dataset(project, definition, out_dir / DATASET, votes, labels, gold, include_incomplete,
                           rows if model != MODELS[0] else None, scores)
    notes = []
    if not votes:
        notes.append("No vote counts yet: votes.jsonl is empty and votes.csv holds the header only.")
    return Exported(paths, notes)


def write_dataset(project: Project, definition: Definition, folder: Path, votes: list[dict[str, Any]],
                  labels: pd.DataFrame, gold: pd.DataFrame, include_incomplete: bool = False,
                  modelled: list[dict[str, Any]] | None = None,
                  scores: list[dict[str, Any]] | None = None) -> list[Path]:
    """items.parquet, votes.parquet, gold.parquet (typed: custom/dataset.py) and README.md, the data card, in
    `folder`; `modelled`: the gold rows with the annotator model's columns, when the export asks for them;
    `scores`: a best-worst question's scores per item (scores.parquet).
    Imported here, not at the top: pyarrow is loaded when a dataset is written, not when the app starts."""
    from annotator.shared_tasks.custom.data_card import data_card
    from annotator.shared_tasks.custom.dataset import gold_table, items_table, scores_table, votes_table
    folder.mkdir(parents=True, exist_ok=True)
    items = db.session.execute(select(Item.external_id, Item.payload, Item.is_control)
                               .where(Item.project_id == project.id).order_by(Item.position)).all()
    tables = [items_table(definition, [(external_id, payload or {}, bool(control))
                                       for external_id, payload, control in items]),
              votes_table(definition, votes, pseudonyms(project)),
              gold_table(definition, gold_rows(gold)) if modelled is None else
              gold_table(definition, modelled, MEANINGS)]
    if scores is not None:
        tables.append(scores_table(definition, scores))
    paths = [table.write(folder) for table in tables]
    readme = folder / "README.md"
    readme.write_text(data_card(project, definition, tables, votes, labels, gold, include_incomplete), encoding="utf-8")
    return [*paths, readme]


def _more_items_link(project: Project) -> list[tuple[str, str]]:
    """The project page's link to the declared project's "more items" page (web/declared_projects.py)."""
    return [("Load more items (against the project's definition)", url_for("declared.more", slug=project.slug))]


FORMAT = FileFormat(
    name=NAME, title="Declared campaign (your own YAML definition)", task="custom", reads="file",
    kinds=("CSV", "TSV", "JSON Lines"),
    expects="a CSV, TSV or JSON Lines file of items, one column (key) per field the definition reads, an optional "
            "id column and known.<question> columns for control items; with the definition file",
    items="items", load=load, export=export,
    writes="votes.jsonl and votes.csv (every counted vote), gold.jsonl and gold.csv (gold per item, question and "
           "unit), and the folder dataset/, ready to publish: items.parquet, votes.parquet and gold.parquet (typed "
           "columns) with README.md, its data card",
    import_options=(Option("definition", Path, None, label="Definition (YAML)", cli_only=True,
                           help="the campaign's definition file (YAML or JSON): what the HIT shows and asks, "
                                "gold rules, agreement"),),
    new_project="declared.new", project_links=_more_items_link, rank=rank, ranks_project=ranks,
    export_options=(Option("model", str, MODELS[0], label="Annotator model columns", choices=MODELS,
                           help="dawid-skene: gold.csv, gold.jsonl and gold.parquet gain model_label and "
                                "model_posterior on the rows of categorical questions (Dawid-Skene seeded with the "
                                "control items' known answers, as flask aggregate --seed-controls gives them)"),),
)
