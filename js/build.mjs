// Bundles every widget of src/ (the files not starting with "_") into one
// self-contained ES module each under pybind/macroscope/widgets/static/:
// anywidget loads a widget's module from a string, so a bundle cannot
// import sibling chunks. The bundles are committed; SOURCES.sha256 records
// the hash of the sources they were built from, which the Python tests
// check without needing node.
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";

const here = new URL(".", import.meta.url).pathname;
const out = process.argv[2] || join(here, "..", "pybind", "macroscope", "widgets", "static");
mkdirSync(out, { recursive: true });

const src = join(here, "src");
const widgets = readdirSync(src).filter((f) => f.endsWith(".js") && !f.startsWith("_")).sort();

await build({
  entryPoints: widgets.map((f) => join(src, f)),
  outdir: out,
  bundle: true,
  format: "esm",
  minify: true,
  target: "es2020",
  legalComments: "none",
  logLevel: "warning",
});

// The hash covers what decides the bundles' bytes: the sources, the
// locked dependency versions and this script.
export function sourcesHash() {
  const h = createHash("sha256");
  const files = ["build.mjs", "package-lock.json", ...readdirSync(src).sort().map((f) => join("src", f))];
  for (const f of files) {
    h.update(f + "\0");
    h.update(readFileSync(join(here, f)));
    h.update("\0");
  }
  return h.digest("hex");
}
writeFileSync(join(out, "SOURCES.sha256"), sourcesHash() + "\n");
console.log(`built ${widgets.join(", ")} into ${out}`);
