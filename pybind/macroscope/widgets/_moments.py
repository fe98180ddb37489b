"""``moments.explore()``: the moment display, with the numbers of the row
under the pointer."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import traitlets

from .._clock import relative
from ._base import ArrowWidget, arrow_trait, moments_colours


class MomentsExplorer(ArrowWidget):
    """The interactive moment display of a :class:`macroscope.Moments`
    (made by :meth:`macroscope.Moments.explore`): per row a grey bar of
    length m0 (per resource, for a node or an aggregate) centred at m1,
    black bars out to m1 ± m2, a tick at m1 and a line from m1 to m1 + m3,
    on the time axis of the analysed window. Hovering a row shows its
    resource and m0..m3; :meth:`view_table` is the table drawn."""

    _renderer = traitlets.Unicode("moments").tag(sync=True)

    rows = arrow_trait()  # label, state code, m0..m3, norm (the bar's length)
    window = traitlets.List(traitlets.Float()).tag(sync=True)  # start, end (s)
    by = traitlets.Unicode("resource").tag(sync=True)
    width = traitlets.Int(900).tag(sync=True)
    height = traitlets.Int(0).tag(sync=True)  # 0: from the number of rows

    def __init__(self, moments, *, width: int = 900, height: int | None = None, colors: dict | None = None,
                 **kwargs):
        super().__init__(width=int(width), height=int(height or 0), by=moments.by, **kwargs)
        self._moments = moments
        df = moments.to_pandas()
        self._df = df
        label = df["resource"] if "resource" in df else df["node"]
        label = label.astype(str).to_numpy(dtype=object)
        # Times from the trace's start (one clock); the table keeps the
        # trace's clock.
        origin = moments.origin
        if "start" in df and "end" in df and moments.by == "aggregate":
            label = np.array([f"{n} [{s - origin:g}, {e - origin:g}]" for n, s, e in zip(label, df["start"], df["end"])],
                             dtype=object)
        state = np.full(len(df), -1, dtype=np.int32)
        if "state" in df:
            names = [str(s) for s in dict.fromkeys(df["state"].astype(str))]
            index = {s: i for i, s in enumerate(names)}
            state = np.array([index[str(s)] for s in df["state"]], dtype=np.int32)
            # The moment display's colours (one set of colours).
            by_name = moments_colours(moments, colors)
            self.set_states(names, [by_name.get(n, "#969696") for n in names])
        m0 = df["m0"].to_numpy(dtype=np.float64)
        norm = m0 / df["resources"].to_numpy(dtype=np.float64) if "resources" in df else m0
        self.send_tables(
            rows=pa.table({
                "label": pa.array(label, pa.string()), "state": state, "m0": m0,
                "m1": df["m1"].to_numpy(dtype=np.float64) - origin, "m2": df["m2"].to_numpy(dtype=np.float64),
                "m3": df["m3"].to_numpy(dtype=np.float64), "norm": norm,
                "resources": (df["resources"].to_numpy(dtype=np.int32) if "resources" in df
                              else np.ones(len(df), dtype=np.int32)),
            }),
            window=list(relative(moments._info)))
        self.set_clock(moments._info)

    def view_table(self):
        """The moments drawn, one row per line of the display (the table
        of the :class:`macroscope.Moments`)."""
        return self._df.copy()
