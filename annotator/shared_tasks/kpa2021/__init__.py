"""KPA-2021 (Key Point Analysis shared task, ArgMining 2021): argument / key-point match (Track 1), the
generation track's match check and key-point set comparison (Track 2), and the Track-1 scorer."""
from annotator.plugins.shared_task import SharedTask

SHARED_TASK = SharedTask(
    name="kpa2021", title="KPA-2021: key point analysis",
    formats=("exchange:FORMAT", "check_exchange:FORMAT", "compare_exchange:FORMAT"),
    scorer="scorer:SCORER", dataset_stats=("stats:STATS",),
    definitions=("match.yaml", "match_check.yaml", "set_compare.yaml"),
    bridges=("bridge:MATCH", "bridge:MATCH_CHECK", "bridge:SET_COMPARE"),
)
