"""SemEval-2020 Task 10, emphasis selection: the token files, the project exchange and the Match_m scorer."""
from annotator.plugins.shared_task import SharedTask

SHARED_TASK = SharedTask(
    name="emphasis2020", title="SemEval-2020 Task 10: emphasis selection",
    formats=("exchange:FORMAT",), scorer="scorer:SCORER", dataset_stats=("stats:STATS",),
    definitions=("selection.yaml",), bridges=("bridge:EMPHASIS",),
)
