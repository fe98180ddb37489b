"""The base of every widget: Arrow tables to the browser, the state
colours, and the frame report the tests and the benchmark read."""

from __future__ import annotations

import pathlib
import time

import pyarrow as pa

try:
    import anywidget
    import traitlets
except ImportError as exc:  # an optional dependency: say the command that installs it
    raise ImportError(
        f"the explorers (explore()) need anywidget, which is not installed ({exc}): "
        'pip install "anywidget>=0.9.18" "traitlets>=5.9" (this does not rebuild macroscope)',
        name=exc.name) from exc

from .. import _bridge
from .._clock import seconds_ns
from .._figure import color_options
from .._native import pybind as native

# The browser side of every widget: one ES module built from js/src
# (js/build.mjs), holding every view (see js/src/index.js).
BUNDLE = pathlib.Path(__file__).parent / "static" / "widgets.js"


def ipc(table: pa.Table | pa.RecordBatch | None) -> bytes:
    """The Arrow IPC stream of ``table`` (one record batch), the form in
    which tables travel to the browser in a binary trait: the browser
    decodes it in place with apache-arrow, no JSON or PNG in between."""
    if table is None:
        return b""
    if isinstance(table, pa.RecordBatch):
        table = pa.Table.from_batches([table])
    table = table.combine_chunks()
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)
    return sink.getvalue().to_pybytes()


def arrow_trait():
    """A trait holding an Arrow table as IPC bytes, synced to the browser
    as a binary buffer (decode it with ``table(model, name)`` of
    js/src/_shared.js)."""
    return traitlets.Bytes(b"").tag(sync=True)


def state_colors(n: int) -> list[str]:
    """The colours ("#rrggbb") the static figures give the first ``n``
    states, so that a widget and the figure it exports agree."""
    return _bridge.call_json(native.CategoryColors, int(n))


def model_colours(model, colors: dict | None = None) -> list[str]:
    """The colours ("#rrggbb", parallel to ``model.states``) the model's
    figures (overview, treemap) paint its states, ``colors`` overriding
    them by name as in their ``plot(colors=)``: the trace's own colours,
    the palette's, the grey of "other" for the states drawn together."""
    return model_drawing(model, colors)["colors"]


def model_drawing(model, colors: dict | None = None) -> dict:
    """How the model's figures draw its states: ``colors`` (see
    :func:`model_colours`), ``grouped`` (whether each is drawn as
    "other", when the model has more states than a figure colours apart)
    and ``other`` (its colour)."""
    return _bridge.call_json(model._h.StateColors, _bridge.options(colors=color_options(colors)))


def moments_colours(moments, colors: dict | None = None) -> dict:
    """The colours ("#rrggbb") the moment display paints each state of
    ``moments``, by name, ``colors`` overriding them as in its
    ``plot(colors=)``."""
    return _bridge.call_json(moments._h.StateColors, _bridge.options(colors=color_options(colors)))


class ArrowWidget(anywidget.AnyWidget):
    """Base class of macroscope's widgets.

    Every widget loads the same module, :data:`BUNDLE`; subclasses name
    the view of it that draws them (``_renderer``, a view of
    js/src/index.js), declare their tables with :func:`arrow_trait` and
    send them with :meth:`send_tables`, which stamps the time so that the
    browser reports how long the redraw took (its element's
    ``data-latency``, see ``frameDrawn`` in _shared.js).
    """

    # The module's text, a trait of the class: anywidget would wrap a path
    # in a FileContents shared by the class whose change signal holds every
    # widget made, so that no explorer, closed and dropped, were ever freed
    # (nor its models and tables, nor a sweep's stop on collection).
    _esm = traitlets.Unicode(BUNDLE.read_text(encoding="utf-8")).tag(sync=True)
    # The view that draws the widget: its name in js/src/index.js.
    _renderer = traitlets.Unicode("").tag(sync=True)

    # Where the trace starts on its clock ("" for the clock's zero): every
    # time a widget shows counts from there (one clock), said once.
    clock = traitlets.Unicode("").tag(sync=True)
    # The names and colours of the states (categories), index-aligned.
    states = traitlets.List(traitlets.Unicode()).tag(sync=True)
    palette = traitlets.List(traitlets.Unicode()).tag(sync=True)
    # Unix time (ms) at which Python last sent data: the start of the
    # redraw the browser reports.
    _sent_at = traitlets.Float(0).tag(sync=True)

    def set_clock(self, info: dict) -> None:
        """Say where the trace starts on its clock, from a result's info
        (``origin_ns``)."""
        origin = int(info.get("origin_ns", 0) or 0)
        self.clock = seconds_ns(origin) if origin else ""

    def set_states(self, states: list[str], colours: list[str] | None = None) -> None:
        """Name the states and give them the static figures' colours:
        ``colours`` ("#rrggbb", parallel to ``states``) as the Go core
        computed them for the figure of the same result (one set of
        colours), else the palette's in order."""
        self.states = list(states)
        self.palette = list(colours) if colours is not None else state_colors(len(states))

    def send_tables(self, **values) -> None:
        """Set several traits at once, Arrow tables (pyarrow Table or
        RecordBatch) encoded as IPC, in one message to the browser."""
        with self.hold_sync():
            for name, v in values.items():
                if isinstance(v, (pa.Table, pa.RecordBatch)):
                    v = ipc(v)
                setattr(self, name, v)
            self._sent_at = time.time() * 1000
