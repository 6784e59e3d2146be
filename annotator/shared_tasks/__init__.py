"""One folder per shared task. Each folder's `__init__.py` declares the task with one object,
`SHARED_TASK = SharedTask(...)` (annotator/plugins/shared_task.py): its formats (`exchange.py`: files <-> projects),
its official metric (`scorer.py`), its dataset table (`stats.py`), its named rules, commands, admin pages and
definitions. Beside the folders: the per-kind registries read from the registry that finds those objects
(annotator/plugins/registry.py): `formats.py`, `scorers.py`, `dataset_stats.py`, and the bases they are built on
(`*_base.py`)."""
