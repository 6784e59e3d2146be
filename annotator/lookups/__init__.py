"""What a shared task's plug-in implements, and the lookups that find it: a file format (`format_base.py`:
`FileFormat`, read through `formats.py`) and an official scorer (`scorer_base.py`, `score_report.py`, read
through `scorers.py`).

Why a package of its own, below figures and campaigns and above tasks: imports, exports, leaderboards and the kept
ranking figure look formats and scorers up, while the shared tasks' folders (a layer above them all) implement them.
With the lookups inside shared_tasks/ each of those reads went a layer up (five imports the layer contract had to
let through). The lookups find the plug-ins through the registry (plugins/registry.py), which loads a shared task's
modules by name when first asked, so nothing here imports a shared task's code.
"""
