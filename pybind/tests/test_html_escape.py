"""What a notebook shows of a trace, a model and an aggregation quotes the
file's names (states, the trace's name) escaped: a state named
``<img src=x onerror=...>`` stays text, never markup that runs."""

import pandas as pd

import macroscope as ms

HOSTILE = "<img src=x onerror=alert(1)>"
SCRIPT = "<script>alert(2)</script>"


def test_reprs_escape_names():
    df = pd.DataFrame({"resource": ["r0", "r1", "r0"], "start": [0.0, 0.0, 1.0], "end": [1.0, 2.0, 2.0],
                       "state": [HOSTILE, SCRIPT, "plain & simple"]})
    t = ms.from_pandas(df, end="end", name=f"{HOSTILE}.csv")
    m = t.micro(slices=2)
    agg = m.aggregate(0.5)
    for h in (t._repr_html_(), m._repr_html_(), agg._repr_html_()):
        assert "<img" not in h.replace("<img alt='overview' style='max-width:100%' src='data:image/png;base64,", "") and "<script" not in h, h
    h = m._repr_html_()
    assert "&lt;img src=x onerror=alert(1)&gt;" in h and "&lt;script&gt;alert(2)&lt;/script&gt;" in h
    assert "plain &amp; simple" in h
    assert "&lt;img src=x onerror=alert(1)&gt;.csv" in t._repr_html_()
