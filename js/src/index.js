// The one module of all of macroscope's widgets. anywidget imports a
// widget's module from the text Python sends (through a blob: URL, in
// JupyterLab, Notebook 7, VS Code and Colab alike), so the module cannot
// import files beside it: one bundle holds every view and the code they
// share, apache-arrow once, and each widget's Python class names the view
// that draws it in the "_renderer" trait.
import compare from "./compare.js";
import kaleidoscope from "./kaleidoscope.js";
import moments from "./moments.js";
import overview from "./overview.js";
import topology from "./topology.js";
import treemap from "./treemap.js";

const VIEWS = { compare, kaleidoscope, moments, overview, topology, treemap };

function render(context) {
  const name = context.model.get("_renderer");
  const view = VIEWS[name];
  if (!view) throw new Error(`macroscope widgets: no view ${JSON.stringify(name)} (the bundle has ${Object.keys(VIEWS).join(", ")})`);
  return view.render(context);
}

export default { render };
