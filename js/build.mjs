// Bundles the widgets' browser code, src/index.js and all it imports, into
// one self-contained ES module, widgets.js in the directory given as the
// argument (the Makefile's widgets-js target names the Python package's):
// anywidget loads a widget's module from a string, so a bundle cannot
// import sibling chunks, and one bundle carries apache-arrow once for all
// the views. The bundle is committed; SOURCES.sha256 records the hash of
// the sources it was built from, which the Python tests check without
// needing node.
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";

const here = new URL(".", import.meta.url).pathname;
const out = process.argv[2];
if (!out) {
  console.error("usage: node build.mjs OUTPUT_DIRECTORY");
  process.exit(2);
}
mkdirSync(out, { recursive: true });
// The bundle is the only module there: none of an older layout is left
// behind to be installed.
for (const f of readdirSync(out)) if (f.endsWith(".js")) rmSync(join(out, f));

const src = join(here, "src");

await build({
  entryPoints: [join(src, "index.js")],
  outfile: join(out, "widgets.js"),
  bundle: true,
  format: "esm",
  minify: true,
  target: "es2020",
  legalComments: "none",
  logLevel: "warning",
});

// The hash covers what decides the bundle's bytes: the sources, the
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
console.log(`built src/index.js into ${join(out, "widgets.js")}`);
