"""MkDocs hooks (mkdocs.yml, `hooks:`): the manual's links to the rest of the repository, and the links of the
repository's own Markdown files, checked like the manual's.

MkDocs builds docs/ and checks links between its pages (strict mode turns a missing page or anchor into a
failure). The manual also links to files beside docs/: the dated benchmark readings in bench/results/, the
test suite's tests/README.md. MkDocs cannot resolve those (they are outside its folder), so this hook does:
a link that leaves docs/ must name a file of the repository (else a warning, which fails a strict build), and
the file is copied into the built site under `_repo/` with the link pointing at the copy. After the build,
the Markdown files outside docs/ that readers open first (README.md, tests/README.md, bench/README.md,
bench/results/*.md) have their relative links checked the same way: the file must exist, and an anchor into a
page of the manual must be one of that page's headings.

The pages are written as GitHub shows Markdown, where a list nests two spaces in; Python-Markdown, which MkDocs
uses, nests four. The build doubles the indentation inside lists (the files stay as they are)."""
from __future__ import annotations

import logging
import posixpath
import re
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

log = logging.getLogger("mkdocs.hooks.repo_files")  # below "mkdocs": a warning counts in strict mode
LINK = re.compile(r"(\]\()([^)\s]+)(\))")  # an inline Markdown link or image: [text](target)
FENCE = re.compile(r"^(```|~~~)")
PLACEHOLDER = "repo-file:"  # a scheme, which MkDocs leaves alone; replaced in the page's HTML
SITE_FOLDER = "_repo"
CHECKED_OUTSIDE = ("README.md", "tests/README.md", "bench/README.md", "bench/results/*.md")

_state: dict[str, Any] = {}


def on_config(config: Any) -> Any:
    _state.update(root=Path(config.config_file_path).resolve().parent, docs=Path(config.docs_dir).resolve(),
                  copied=set(), anchors={})
    return config


def _links(markdown: str):
    """(line number, match) of each inline link outside fenced code."""
    fenced = False
    for number, line in enumerate(markdown.splitlines(), 1):
        if FENCE.match(line.lstrip()):
            fenced = not fenced
            continue
        if not fenced:
            for match in LINK.finditer(line):
                yield number, match


def _relative_target(url: str) -> tuple[str, str] | None:
    """The path and anchor of a relative link; None for a link with a scheme, an absolute or an anchor-only one."""
    parts = urlsplit(url)
    if parts.scheme or parts.netloc or url.startswith("/") or not parts.path:
        return None
    return unquote(parts.path), parts.fragment


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _nested_lists(markdown: str) -> str:
    """Each indented line inside a list, outside fenced code, with its indentation doubled; a fenced block
    inside a list item becomes an indented one, the only kind Python-Markdown reads there."""
    lines: list[str] = []
    in_list, loose, fence_indent = False, False, None  # fence_indent: the indentation of an open fence, else None
    for line in markdown.split("\n"):
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if FENCE.match(stripped):
            if fence_indent is None:
                fence_indent = indent
            else:
                fence_indent = None
            if in_list and indent:
                line = ""
        elif fence_indent is not None:
            if in_list and fence_indent:
                line = " " * 8 + line[fence_indent:]
        elif re.match(r"([-*+]|\d+\.) ", line):
            if lines and lines[-1] and (loose or not in_list):
                lines.append("")  # a list after a paragraph, or an item after one of several paragraphs
            in_list, loose = True, False
        elif line and not line[0].isspace():
            in_list = False
        elif in_list and stripped:
            line = " " * (2 * indent) + stripped
        elif in_list:
            loose = True
        lines.append(line)
    return "\n".join(lines)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Links that leave docs/: checked against the repository and pointed at the copy the build makes; lists
    nested as Python-Markdown reads them."""
    root, docs = _state["root"], _state["docs"]
    here = Path(page.file.abs_src_path).parent
    replaced: dict[str, str] = {}
    for number, match in _links(markdown):
        url = match.group(2)
        target = _relative_target(url)
        if target is None:
            continue
        path = (here / target[0]).resolve()
        if _inside(path, docs):
            continue  # MkDocs checks these itself
        where = f"Doc file '{page.file.src_uri}', line {number}, links to '{url}'"
        if not _inside(path, root):
            log.warning(f"{where}, which is outside the repository")
        elif not path.is_file():
            log.warning(f"{where}, but the repository has no file {path.relative_to(root).as_posix()}")
        else:
            relative = path.relative_to(root).as_posix()
            _state["copied"].add(relative)
            replaced[match.group(0)] = f"]({PLACEHOLDER}{relative}{'#' + target[1] if target[1] else ''})"
    for old, new in replaced.items():
        markdown = markdown.replace(old, new)
    return _nested_lists(markdown)


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    _state["anchors"][page.file.src_uri] = set(page.present_anchor_ids or ())
    base = posixpath.dirname(page.file.dest_uri) or "."

    def to_copy(match: re.Match[str]) -> str:
        return 'href="' + posixpath.relpath(f"{SITE_FOLDER}/{match.group(1)}", base)

    return re.sub(r'href="' + re.escape(PLACEHOLDER) + r"([^\"#]*)", to_copy, html)


def on_post_build(config: Any) -> None:
    root, docs = _state["root"], _state["docs"]
    site = Path(config.site_dir)
    for relative in sorted(_state["copied"]):
        (site / SITE_FOLDER / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / relative, site / SITE_FOLDER / relative)
    outside = sorted({path for pattern in CHECKED_OUTSIDE for path in root.glob(pattern)})
    for source in outside:
        for number, match in _links(source.read_text(encoding="utf-8")):
            target = _relative_target(match.group(2))
            if target is None:
                continue
            path = (source.parent / target[0]).resolve()
            where = f"{source.relative_to(root).as_posix()}, line {number}, links to '{match.group(2)}'"
            if not _inside(path, root) or not path.exists():
                log.warning(f"{where}, but the repository has no such file or folder")
            elif target[1] and _inside(path, docs) and path.suffix == ".md":
                page = path.relative_to(docs).as_posix()
                if target[1] not in _state["anchors"].get(page, set()):
                    log.warning(f"{where}, but the page {page} has no anchor '#{target[1]}'")
