import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "traces"


@pytest.fixture(scope="session")
def bundled_trace():
    return REPO / "testdata" / "jacobi32.trace"


def shared(*parts):
    """Path of a file of the shared trace corpus, or skip the test."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is not available")
    return path


@pytest.fixture(scope="session")
def mardi_path():
    return shared("pajeng", "traces", "simu-mardi.trace")


@pytest.fixture(scope="session")
def mardi(mardi_path):
    import macroscope as ms

    return ms.read_paje(mardi_path)


@pytest.fixture(scope="session")
def jacobi(bundled_trace):
    import macroscope as ms

    return ms.read_paje(bundled_trace)
