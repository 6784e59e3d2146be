"""SemEval-2021 Task 4 (ReCAM), cloze validation: the JSON Lines files, the project exchange, the accuracy
scorer, and the selection rules as a named rule a declared campaign can use (selection_rule.py)."""
from annotator.plugins.shared_task import SharedTask

SHARED_TASK = SharedTask(
    name="recam2021", title="SemEval-2021 Task 4: ReCAM",
    formats=("exchange:FORMAT",), scorer="scorer:SCORER", dataset_stats=("stats:STATS",),
    rules=("selection_rule:RECAM_SELECTION",),
    definitions=("cloze.yaml", "cloze_selection.yaml"),
    bridges=("bridge:CLOZE",),
)
