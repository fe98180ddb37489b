"""One figure type: every plot() returns a Figure that Jupyter shows as an
image, that saves by extension and turns into bytes of any format."""

import pytest

import macroscope as ms
from conftest import REPO


@pytest.fixture(scope="module")
def figures(jacobi):
    model = jacobi.micro(slices=20)
    agg = model.aggregate(0.5)
    spatial = model.aggregate(0.3, kind="spatial")
    return {
        "overview": agg.plot(width=400, height=300),
        "quality": model.plot_quality(width=400, height=300),
        "treemap": spatial.plot_treemap(width=400, height=300),
        "treemap of a Treemap": spatial.treemap().plot(width=400, height=300),
        "moments": jacobi.moments().plot(width=400),
        "kaleidoscope": jacobi.call_tree().layout(width=300).plot(view="time"),
        "topology": ms.read(REPO / "testdata" / "jacobi32-platform.trace").topology().plot(width=400, height=300),
    }


def test_every_plot_returns_a_figure(figures):
    for name, fig in figures.items():
        assert type(fig) is ms.Figure, name
        bundle = fig._repr_mimebundle_()
        assert list(bundle) == ["image/png"] and bundle["image/png"][:8] == b"\x89PNG\r\n\x1a\n", name
        # Jupyter prints the repr only when no image is given: it names the figure.
        assert repr(fig).startswith("<macroscope.Figure") and "px>" in repr(fig), name
        assert fig.to_bytes("svg").lstrip().startswith(b"<?xml"), name
        assert fig.to_bytes("pdf").startswith(b"%PDF-"), name
        assert bytes(fig) == fig.to_bytes("png") == fig._repr_png_()


def test_sizes_in_pixels(figures):
    assert figures["overview"].size == (400, 300)
    assert figures["quality"].size == (400, 300)


@pytest.mark.parametrize("ext,magic", [("png", b"\x89PNG"), ("svg", b"<?xml"), ("pdf", b"%PDF-"), ("PDF", b"%PDF-")])
def test_save_by_extension(figures, tmp_path, ext, magic):
    path = tmp_path / f"figure.{ext}"
    assert figures["overview"].save(path) is figures["overview"]
    assert path.read_bytes().lstrip().startswith(magic)


def test_unknown_extension_is_an_error(figures, tmp_path):
    with pytest.raises(ms.InvalidArgumentError, match="image format"):
        figures["overview"].save(tmp_path / "figure.jpeg")
    assert not (tmp_path / "figure.jpeg").exists()
    with pytest.raises(ms.InvalidArgumentError):
        figures["overview"].to_bytes("gif")


def test_plot_with_a_path_saves_and_returns_the_figure(jacobi, tmp_path):
    agg = jacobi.micro(slices=10).aggregate(0.5)
    fig = agg.plot(tmp_path / "o.pdf", width=300, height=200)
    assert isinstance(fig, ms.Figure) and (tmp_path / "o.pdf").read_bytes().startswith(b"%PDF-")
    with pytest.raises(ms.InvalidArgumentError):
        agg.plot(tmp_path / "o.bmp")
