"""Interactive views in notebooks, built on anywidget (JupyterLab,
Notebook 7, VS Code, Colab): the data travel as Arrow tables and the
browser draws them on a canvas. See README.md here for how a widget is
made, docs/widgets.md for using them."""

from ._base import BUNDLE, ArrowWidget, arrow_trait, ipc, state_colors
from ._compare import CompareExplorer
from ._kaleido import KaleidoscopeExplorer
from ._moments import MomentsExplorer
from ._overview import ModelExplorer
from ._topology import TopologyExplorer
from ._treemap import TreemapExplorer

__all__ = ["BUNDLE", "ArrowWidget", "CompareExplorer", "KaleidoscopeExplorer", "ModelExplorer", "MomentsExplorer", "TopologyExplorer",
           "TreemapExplorer", "arrow_trait", "ipc", "state_colors"]
