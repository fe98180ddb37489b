"""The setting of the examples in the package's docstrings, which
``pytest --doctest-modules --pyargs macroscope`` runs (make py-test).

The examples call the package ``ms``, as its documentation does, and name
files from the repository's root (testdata/jacobi32.trace, the bundled
trace): each runs with ``ms`` imported, in the repository's root.
"""

import pathlib

import pytest

import macroscope

REPO = pathlib.Path(__file__).resolve().parent


@pytest.fixture(autouse=True)
def _docstring_examples(request):
    if type(request.node).__name__ != "DoctestItem":
        return
    request.getfixturevalue("doctest_namespace")["ms"] = macroscope
    request.getfixturevalue("monkeypatch").chdir(REPO)
