"""`flask refresh-figures` computes a big project's kept figures in a process of its own, whose allocation it sets
first (cli/kept.py `thrifty_allocation`): Arrow's arrays from the C library's malloc, whose thresholds stay at
128 KiB, so that each step's freed arrays go back to the system (bench/results/2026-11-29-kept-figures-memory.md).
Run in a fresh interpreter: the setting is the whole process's."""
from __future__ import annotations

import subprocess
import sys

CHECK = """
import pyarrow
from annotator.cli.kept import thrifty_allocation
before = pyarrow.default_memory_pool().backend_name
thrifty_allocation()
import pandas as pd
column = pd.Series(["relevant", "irrelevant"] * 100_000, dtype="str")
print(before, pyarrow.default_memory_pool().backend_name, pyarrow.total_allocated_bytes() > 0,
      pyarrow.system_memory_pool().bytes_allocated() > 0, column.value_counts().to_dict())
"""


def test_the_command_s_process_allocates_arrow_arrays_from_malloc() -> None:
    done = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, check=True, timeout=120)
    before, after, allocated, from_malloc, counts = done.stdout.split(" ", 4)
    assert before != "system" and after == "system"
    assert allocated == from_malloc == "True"   # the column's text is in the system pool
    assert counts.strip() == "{'relevant': 100000, 'irrelevant': 100000}"
