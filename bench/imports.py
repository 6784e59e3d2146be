#!/usr/bin/env python3
"""What makes a server worker heavy at start: the packages `create_app()` imports, ranked by memory.

For the app factory as a gunicorn worker runs it, in fresh processes:
  - the worker's RSS after `create_app()` and after the bare interpreter;
  - `python -X importtime` of `create_app()`: each outside module an annotator module imports (first),
    with its cumulative import time;
  - for each of those: the RSS that `import MODULE` adds after all the others ("on top": what making
    it lazy would save), and what it adds to a bare interpreter alone (modules share dependencies:
    numpy is in pandas' figure too, so that column does not add up).

Usage: python bench/imports.py [--root DIR] [--top N] [--json PATH]. --root runs another checkout's
code (e.g. a `git archive` of an older commit) with this venv, to compare before and after.
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RSS = "import re; print(re.search(r'VmRSS:\\s+(\\d+)', open('/proc/self/status').read()).group(1))"
START = "from annotator import create_app; create_app()"


def _python(code: str, root: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *flags, "-c", code], cwd=root, capture_output=True, text=True,
                          check=True, env={"PATH": "/usr/bin:/bin", "SECRET_KEY": "x", "PYTHONDONTWRITEBYTECODE": "1",
                                           "DATABASE_URL": "sqlite:///:memory:", "ANNOTATOR_INSTANCE": "/tmp"})


def rss_mb(code: str, root: Path) -> float:
    """RSS in MB at the end of `code` in a fresh interpreter."""
    return int(_python(f"{code}\n{RSS}", root).stdout.split()[-1]) / 1024


def direct_imports(root: Path) -> dict[str, float]:
    """Module -> cumulative import ms, for every outside module that an `annotator` module imported first.

    `-X importtime` prints a module after the modules it imported, one level deeper; so a line's
    importer is the next line one level up. Only first imports are listed (numpy is under whichever
    module imported it first), so this is what the app's own imports pulled in, not every module named.
    """
    lines = []
    for line in _python(START, root, "-X", "importtime").stderr.splitlines():
        match = re.match(r"import time:\s+\d+ \|\s+(\d+) \| (\s*)(\S+)", line)
        if match:
            lines.append((len(match.group(2)) // 2, match.group(3), int(match.group(1)) / 1000))
    found: dict[str, float] = {}
    for n, (depth, name, ms) in enumerate(lines):
        importer = next((other for d, other, _ in lines[n + 1:] if d == depth - 1), "")
        if importer.split(".")[0] == "annotator" and name.split(".")[0] != "annotator":
            found[name] = max(found.get(name, 0.0), ms)
    return found


def _imports(module: str, root: Path) -> bool:
    try:
        _python(f"import {module}", root)
        return True
    except subprocess.CalledProcessError:
        return False


def measure(root: Path) -> dict[str, Any]:
    bare = rss_mb("pass", root)
    worker = rss_mb(START, root)
    rows = []
    modules = direct_imports(root)
    importable = [m for m in modules if _imports(m, root)]
    for module in importable:
        others = "\n".join(f"import {m}" for m in importable if m != module)
        alone = rss_mb(f"import {module}", root) - bare
        rest = rss_mb(others, root)
        on_top = rss_mb(f"{others}\nimport {module}", root) - rest
        rows.append({"module": module, "mb_alone": round(alone, 1), "mb_on_top": round(on_top, 1),
                     "import_ms": round(modules[module])})
    rows.sort(key=lambda r: (-r["mb_on_top"], -r["mb_alone"]))
    return {"root": str(root), "bare_interpreter_mb": round(bare, 1), "after_create_app_mb": round(worker, 1),
            "modules": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose annotator/ is measured")
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    result = measure(args.root.resolve())
    print(f"{result['root']}: bare interpreter {result['bare_interpreter_mb']:.0f} MB, after create_app() "
          f"{result['after_create_app_mb']:.0f} MB")
    print(f"{'module annotator imports':36s}{'MB on top':>10s}{'MB alone':>10s}{'import ms':>11s}")
    for row in result["modules"][:args.top]:
        print(f"{row['module']:36s}{row['mb_on_top']:10.1f}{row['mb_alone']:10.1f}{row['import_ms']:11d}")
    print("(MB on top = what importing it adds after every other module listed: what making it lazy would save; "
          "MB alone = what it adds to a bare interpreter; import ms = cumulative, first import)")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
