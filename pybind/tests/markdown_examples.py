"""The Python examples of a Markdown page, statement by statement, for the
tests that run them as a reader pastes them (test_readme.py, the README's;
test_docs_examples.py, the docs' pages): one statement at a time, so that
a failure names the statement and a statement that needs a file the
repository does not hold can be left out alone."""

from __future__ import annotations

import ast
import pathlib
import re


def python_statements(page: pathlib.Path) -> list[str]:
    """The top-level statements of page's ```python blocks, in order."""
    blocks = re.findall(r"^```python\n(.*?)^```", page.read_text(), flags=re.S | re.M)
    out = []
    for block in blocks:
        tree = ast.parse(block)
        out += [ast.get_source_segment(block, node) for node in tree.body]
    return out
