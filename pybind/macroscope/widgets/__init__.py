"""Interactive views in notebooks, built on anywidget (JupyterLab,
Notebook 7, VS Code, Colab): the data travel as Arrow tables and the
browser draws them on a canvas. See README.md here for how a widget is
made, docs/widgets.md for using them."""

from ._base import ArrowWidget, arrow_trait, bundle, ipc, state_colors
from ._moments import MomentsExplorer
from ._overview import ModelExplorer

__all__ = ["ArrowWidget", "ModelExplorer", "MomentsExplorer", "arrow_trait", "bundle", "ipc", "state_colors"]
