"""Draw the figures of docs/papers.md that come from the committed,
regenerable SMPI traces (testdata/gen: the same bytes on every run of their
generators), so that the figures show what the text and the notebooks
assert:

    python docs/make_paper_figures.py        # from the repository's root

papers-cg-perturbation.png   NAS CG, 64 ranks, 20 slices, recommended level
papers-dt-whitehole.png      NAS DT White Hole, sequential placement, whole run
papers-dt-whitehole-clusters.png  the same, clusters collapsed
papers-dt-locality.png       the locality placement, whole run
"""

import pathlib

import macroscope as ms

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOCS, DATA = ROOT / "docs", ROOT / "testdata"


def main():
    cg = ms.read(DATA / "cg-perturbed.trace.gz")
    m = cg.micro(slices=20)
    p = m.recommended_p(progress=False)
    m.aggregate(p).plot(title=f"NAS CG class A, 64 ranks, 20 slices, recommended p = {p:.3f}").save(
        DOCS / "papers-cg-perturbation.png")

    seq = ms.read(DATA / "dt-whitehole.trace.gz").topology()
    end = seq.window[1]
    seq.plot(labels=True, title=f"DT WH class A, sequential placement: 0 - {end:.3f} s").save(
        DOCS / "papers-dt-whitehole.png")
    clusters = seq.collapse_depth(1)  # a new Topology: seq stays whole
    clusters.plot(width=640, height=560, title="clusters collapsed, whole run").save(
        DOCS / "papers-dt-whitehole-clusters.png")

    loc = ms.read(DATA / "dt-whitehole-locality.trace.gz").topology()
    loc.plot(title=f"locality placement: 0 - {loc.window[1]:.3f} s").save(DOCS / "papers-dt-locality.png")


if __name__ == "__main__":
    main()
