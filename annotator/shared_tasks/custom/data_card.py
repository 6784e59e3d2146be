"""The data card of a declared campaign's dataset: the README.md beside its Parquet files.

Why it is built from the tables: the card lists every column of every file with its type and meaning,
read from the tables that are written (dataset.DatasetTable), so a change of a column cannot leave the card
behind. It opens with the YAML front matter of a Hugging Face dataset card (licence, languages, task
categories, size, pretty name, and one config per table with its data file), so that the folder can be
pushed to the Hub as it is and shows up there with its viewer and filters.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import yaml

from annotator.analysis.results import project_agreement
from annotator.core.models import Project
from annotator.declared import boundaries, derived, graded, groups, item_when, option_values, unasked
from annotator.declared.definition import NOT_ASKED, UNDECIDED, Definition, Question, number_text, share_words
from annotator.declared.gold import strengths
from annotator.declared.named_rules import named_rules
from annotator.shared_tasks.custom.dataset import DatasetTable, type_name

if TYPE_CHECKING:
    import pandas as pd

# Licences as the Hub names them (its `license` field), by the names people write; anything else is "other".
HUB_LICENCES = {
    "cc0": "cc0-1.0", "cc0 1.0": "cc0-1.0", "cc by 4.0": "cc-by-4.0", "cc by-sa 4.0": "cc-by-sa-4.0",
    "cc by-nc 4.0": "cc-by-nc-4.0", "cc by-nc-sa 4.0": "cc-by-nc-sa-4.0", "cc by-nd 4.0": "cc-by-nd-4.0",
    "cc by-nc-nd 4.0": "cc-by-nc-nd-4.0", "cc by 3.0": "cc-by-3.0", "cc by-sa 3.0": "cc-by-sa-3.0",
    "cdla sharing 1.0": "cdla-sharing-1.0", "cdla permissive 1.0": "cdla-permissive-1.0",
    "cdla permissive 2.0": "cdla-permissive-2.0", "odc by": "odc-by", "odbl": "odbl", "pddl": "pddl",
    "apache 2.0": "apache-2.0", "mit": "mit", "gpl 3.0": "gpl-3.0", "unlicense": "unlicense",
}
# What the Hub calls the task of each question kind (its `task_categories`); free text is none.
TASK_CATEGORIES = {"choice": "text-classification", "multi": "text-classification", "scale": "text-classification",
                   "span": "token-classification", "pairwise": "text-ranking", "spans": "token-classification",
                   "ranking": "text-ranking", "best_worst": "text-ranking", "extractive": "question-answering",
                   "distribution": "text-classification", "relations": "token-classification"}
SIZES = ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
         (10_000_000, "1M<n<10M"))
DEFAULT_CONFIG = "gold"


def hub_licence(licence: str) -> str:
    """The Hub's name of a licence written in words ("CC BY 4.0 (definition); ..." is cc-by-4.0): the words
    before the first bracket or semicolon, compared without case, hyphens, underscores or "license"."""
    words = re.split(r"[(;,]", licence, maxsplit=1)[0].lower().replace("-", " ").replace("_", " ")
    words = re.sub(r"\b(licen[cs]e|international|version|v)\b", " ", words)
    key = " ".join(words.split()).replace("by sa", "by-sa").replace("by nc sa", "by-nc-sa") \
        .replace("by nc nd", "by-nc-nd").replace("by nc", "by-nc").replace("by nd", "by-nd")
    return HUB_LICENCES.get(key, "other") if licence.strip() else "unknown"


def front_matter(definition: Definition, item_count: int, tables: Sequence[DatasetTable]) -> str:
    """The YAML block of a Hugging Face dataset card, between --- lines."""
    meta: dict[str, Any] = {}
    licence = hub_licence(definition.licence)
    meta["license"] = licence
    if licence == "other":
        meta["license_name"] = re.sub(r"[^a-z0-9]+", "-", definition.licence.lower()).strip("-")[:60] or "other"
    if definition.language:
        meta["language"] = list(definition.language)
    categories = sorted({TASK_CATEGORIES[q.kind] for q in definition.questions if q.kind in TASK_CATEGORIES})
    if categories:
        meta["task_categories"] = categories
    meta["size_categories"] = [next((name for bound, name in SIZES if item_count < bound), "n>10M")]
    meta["pretty_name"] = definition.name
    meta["configs"] = [{"config_name": t.name, "data_files": [{"split": "train", "path": t.file_name}],
                        **({"default": True} if t.name == DEFAULT_CONFIG else {})} for t in tables]
    return "---\n" + str(yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=1000)) + "---\n"


def columns_section(tables: Sequence[DatasetTable]) -> list[str]:
    """Every file's columns: name, type (as Parquet holds it) and meaning."""
    lines = ["## Files and columns", "",
             "Each table is one Parquet file (one config of the card's front matter); every column is typed as "
             "below (Arrow types: string, int64, double, bool, list<...>, timestamp[ms, tz=UTC]).", ""]
    for table in tables:
        lines += [f"### `{table.file_name}` ({table.table.num_rows} rows)", ""]
        lines += _table(["column", "type", "meaning"],
                        [[f"`{c.name}`", f"`{type_name(c.type)}`", c.meaning] for c in table.columns])
        lines.append("")
    return lines


def rule_in_words(question: Question) -> str:
    """How the question's gold is derived, in words."""
    rule = question.gold
    if rule is None:
        return "no gold (free text is not aggregated)"
    if (said := groups.rule_words(question)) is not None:   # groups, strict, an ordinal median (declared/groups.py)
        return said
    if question.kind == "extractive":   # declared/extractive.py
        return ("majority: the answer most annotators gave, compared exactly (the same offsets; unanswerable is one "
                "answer among the stretches); a tie gives undecided")
    if rule.rule == "majority":
        ties = "undecided" if rule.ties == UNDECIDED else f"{rule.ties!r}"
        per = " for each option (chosen or not)" if question.kind == "multi" else ""
        return f"majority: the answer most annotators gave{per}; a tie gives {ties}"
    if question.kind == "spans":
        who = f"at least {rule.m} annotators" if rule.rule == "agree" else \
            f"at least {rule.positive:g} of the annotators"
        return (f"{rule.rule}: a span is gold when {who} marked exactly it (the same offsets and label); of two "
                "overlapping ones the one more annotators marked wins, and a tie leaves both undecided"
                + (" (spans may overlap here, so none is ever in conflict)" if question.spans and
                   question.spans.overlap else "") + "; each word's gold is the label of the gold span covering "
                "it, O when none does")
    if question.kind == "relations":   # declared/relations.py
        who = f"at least {rule.m} annotators" if rule.rule == "agree" else \
            f"at least {rule.positive:g} of the annotators"
        return (f"{rule.rule}: a relation is gold when {who} of the item (those who answered its spans question) gave "
                "exactly it (both ends and the type) and both its ends are gold spans of the spans question; "
                "undecided when an end's gold is undecided")
    if question.kind == "best_worst":   # declared/best_worst.py
        return ("counting: on each tuple, the member chosen best (or worst) by more annotators than any other is its "
                "gold best (worst; a tie is undecided), the others neither; each item's score is (times chosen best "
                "- times chosen worst) / times shown in an answered tuple, from -1 to 1 (the gold's score column)")
    if question.kind == "ranking":   # declared/ranking.py
        score = "its mean rank (lowest first)" if rule.rule == "mean_rank" else \
            "its Borda count (n - rank points from each annotator, highest first)"
        return (f"{rule.rule}: each option's place in the order of {score}; ties go to the option with more first "
                "places, then more second places and so on, then to the option listed first")
    if question.kind == "distribution":   # declared/distribution.py
        return (f"mean: each option's mean share of {question.total} over the annotators (the soft label; score is "
                f"it divided by {question.total}), and on the question's own row the option with the largest mean "
                "share (the hard label), undecided when two share it")
    if rule.rule == "mean_grade":   # declared/graded.py
        return ("mean_grade: each pair's mean signed grade (score; negative when A is preferred), its side as the "
                "gold: A below 0, B above, equal at 0")
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
    if (named := named_rules().get(rule.rule)) is not None:   # a shared task's rule (docs/declared-named-rules.md)
        return f"{named.name}: {named.title} ({named.paper})"
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


def _question_line(question: Question, sides_of: str | None = None) -> str:
    parts = [f"- **{question.id}** ({question.kind}): {question.prompt}"]
    if question.options:
        parts.append("  options: " + ", ".join(o.value if o.label == o.value else f"{o.value} ({o.label})"
                                              for o in question.options))
        parts += [f"  - {o.value}: {o.description}" for o in question.options if o.description]
    elif question.options_from:
        numbered = option_values.describe(question)   # `values: index` (declared/option_values.py)
        parts.append(f"  options: {numbered}" if numbered else
                     f"  options: each item's own, from its field `{question.options_from}`")
    if question.kind == "scale":
        parts.append(f"  scale: {number_text(question.minimum)} to {number_text(question.maximum)} in steps of "
                     f"{number_text(question.step)}")
        if question.point_labels:   # words on every point (declared/option_words.py)
            parts.append("  points: " + ", ".join(f"{number_text(v)} = {w}" for v, w
                                                  in zip(question.scale_values(), question.point_labels)))
    if question.kind == "span":
        parts.append(f"  words of `{question.of}`" + boundaries.card_words(question))
    if question.kind == "spans" and question.spans is not None:
        parts.append(f"  stretches of `{question.of}`, labels: " + ", ".join(
            o.value if o.label == o.value else f"{o.value} ({o.label})" for o in question.spans.labels)
                     + f"; at most {question.spans.most}"
                     + ("; whole words" if question.spans.whole_words else
                        "; any characters, agreement per character" if question.spans.characters else
                        "; any characters")
                     + ("; may overlap" if question.spans.overlap else "; never overlapping"))
        parts += [f"  each mark's {a.id}: " + ", ".join(v.value if v.label == v.value else f"{v.value} ({v.label})"
                                                     for v in a.values) + "; gold per span by majority of those "
                  "who marked exactly it, a tie undecided" for a in question.spans.attributes]
        if question.spans.score is not None:
            parts.append(f"  score ({question.spans.score.rule}): per vote, the sum of its marks' weights of "
                         f"{question.spans.score.attribute} (" + ", ".join(
                             f"{v} {number_text(w)}" for v, w in question.spans.score.weights) + "); per item, the "
                         "mean over its annotators")
    if question.kind == "extractive":
        parts.append(f"  one stretch of `{question.of}`" + (" (whole words)" if question.spans and
                                                           question.spans.whole_words else "")
                     + (f", or unanswerable (“{question.none}”)" if question.none else "; always answerable"))
    if question.kind == "relations" and question.relations is not None:
        rules = question.relations
        parts.append(f"  relations between the marks of `{rules.of}`, each {{from, to, label}} (ends by their "
                     f"start:end:label), at most {rules.most}; types: " + "; ".join(
                         (t.value if t.label == t.value else f"{t.value} ({t.label})")
                         + f" from {'/'.join(t.sources) or 'any label'} to {'/'.join(t.targets) or 'any label'}"
                         for t in rules.types))
    if question.kind == "ranking":
        parts.append("  answered as a complete order of the options, best first" +
                     (f" (the options are the item's fields {', '.join(question.ranked)})" if question.ranked else ""))
    if question.kind == "best_worst" and question.best_worst is not None:
        spec = question.best_worst
        parts.append(f"  answered as {{best, worst}}, two different items of a tuple of {spec.size} (\"{spec.best}\" "
                     f"and \"{spec.worst}\"); every item is in {spec.appearances} tuples, built by a balanced design "
                     f"from seed {spec.seed}; each item is drawn by its field `{spec.text}`")
    if question.kind == "distribution":
        parts.append(f"  answered as a share of {question.total} for every option (whole numbers adding up to "
                     f"{question.total})")
    if question.kind == "pairwise":
        parts.append(f"  A is `{question.a}`, B is `{question.b}`" +
                     (", or equal" if question.allow_equal else ""))
        if question.grades:   # declared/graded.py
            parts.append(f"  graded, {len(question.grades)} grades: " + ", ".join(
                f"{v} = {w}" for v, w in zip(graded.values(question), question.grades))
                + f"; the label rows `{graded.field(question)}` hold the signed grade (A strongest "
                f"-{graded.steps(question)}, B strongest {graded.steps(question)}), agreement on them ordinal")
    if question.derived is not None:   # not asked (declared/derived.py)
        parts.append(derived.words(question))
    if question.group and sides_of:   # a group asking of each side of a pairwise question (declared/sides.py)
        parts.append(f"  asked of each side (A and B as shown) of question {sides_of}, in group {question.group} "
                     "(its gold rows' unit is the side's player, or A / B in the item's terms without players)")
    elif question.group:
        parts.append(f"  asked once per element of group {question.group} (its gold rows' unit is the element's id)")
    if question.when:
        parts.append("  asked only when " + " and ".join(f"{p} is {' or '.join(v)}" for p, v in question.when))
    if (asked := item_when.card_words(question)) is not None:
        parts.append(f"  {asked}")
    if not question.required:
        parts.append("  optional")
    parts.append(f"  gold: {rule_in_words(question)}")
    if (said := unasked.card_words(question)) is not None:   # agreement's not-asked value, figures per element
        parts.append(f"  agreement: {said}")
    return "\n".join(parts)


def _table(columns: list[str], rows: list[list[Any]]) -> list[str]:
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    return lines + ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in rows]


def data_card(project: Project, definition: Definition, tables: Sequence[DatasetTable], votes: list[dict[str, Any]],
              labels: pd.DataFrame, gold: pd.DataFrame, include_incomplete: bool = False) -> str:
    items = next((t.table.num_rows for t in tables if t.name == "items"), 0)
    annotators = len({v["user_id"] for v in votes})
    lines = [front_matter(definition, items, tables), f"# {definition.name}", ""]
    if definition.description:
        lines += [definition.description, ""]
    lines += ["## Summary", "",
              f"- Items: {items}",
              f"- Votes: {len(votes)}",
              f"- Annotators: {annotators}",
              f"- k (annotators per item): {project.k}",
              f"- Licence: {definition.licence or 'no licence declared'}",
              f"- Language: {', '.join(definition.language) or 'not declared (the definition has no language)'}",
              f"- Counted: {'every item, pending ones included' if include_incomplete else 'complete items only'}"
              ", control items left out", ""]
    lines += columns_section(tables)
    lines += ["Pairwise answers are in the item's terms: A is the field named A below, whichever side the annotator "
              "saw it on.", ""]
    lines += ["## Questions and how gold was derived", ""]
    sides_of = {g.id: g.sides for g in definition.repeats}
    lines += [_question_line(q, sides_of.get(q.group or "")) for q in definition.questions]
    lines += ["", "## Agreement", ""]
    fields = project_agreement(project, labels) if not labels.empty else []
    if fields:
        lines += _table(["question", "units", "annotators", "ratings", "Fleiss' kappa", "Krippendorff's alpha",
                         "alpha level"],
                        [[f.field, f.units, f.coders, f.ratings, f.fleiss_kappa.text(), f.krippendorff_alpha.text(),
                          f.level] for f in fields])
        lines += [f"- {f.field}: Kendall's W {f.kendall_w.text()}" for f in fields if f.kendall_w is not None]
        lines += [f"- {f.field}: split-half reliability of the best-worst scores {f.split_half.text()}"
                  for f in fields if f.split_half is not None]
        lines += [f"- {f.field}: SQuAD's {f.answer_match.text()}; the texts normalised as SQuAD's evaluation does "
                  "(lower case, no punctuation, no a / an / the), unanswerable the empty answer"
                  for f in fields if f.answer_match is not None]
        lines += [f"- {f.field}: {f.relation_match.text()}; a relation counts only with both ends (the marks' "
                  "offsets and labels) and its type exactly, pooled over every pair of an item's annotators"
                  for f in fields if f.relation_match is not None]
        lines += [f"- {f.field}: the distributions of two annotators of an item are {f.distribution_match.text()}"
                  for f in fields if f.distribution_match is not None]
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


def _plain(value: Any) -> Any:
    """A frame's number as plain Python (numpy's scalars print as np.int64(3) in some versions)."""
    return value.item() if hasattr(value, "item") else value


def _strengths(definition: Definition, labels: pd.DataFrame) -> list[str]:
    if not any(q.kind == "pairwise" and q.players for q in definition.questions) or labels.empty:
        return []
    lines: list[str] = []
    for qid, table in strengths(definition, labels).items():
        if table is None or table.empty:
            continue
        lines += ["", f"## Bradley-Terry strengths: {qid}", ""]
        graded_fit = "graded_strength" in table.columns   # a graded question's fractional-win fit (graded.py)
        lines += _table(["rank", "player", "strength", *(["graded strength"] if graded_fit else []), "wins",
                         "losses", "ties"],
                        [[_plain(r["rank"]), r["player"], f"{float(r['strength']):.3f}",
                          *([f"{float(r['graded_strength']):.3f}"] if graded_fit else []), _plain(r["wins"]),
                          _plain(r["losses"]), _plain(r["ties"])] for r in table.to_dict(orient="records")])
    return lines
