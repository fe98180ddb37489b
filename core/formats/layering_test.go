package formats_test

import (
	"go/build"
	"io/fs"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"
)

const module = "github.com/macroscope-hpc/macroscope/"

// readerPackages derives the readers' packages from the registry: the
// package of each format's Open function.
func readerPackages(t *testing.T) map[string]bool {
	out := map[string]bool{}
	for _, f := range formats.All {
		name := runtime.FuncForPC(reflect.ValueOf(f.Open).Pointer()).Name()
		// "github.com/.../core/readers/paje.open" or ".../rocprof.init.func1"
		slash := strings.LastIndex(name, "/")
		pkg := name[:slash+1] + strings.SplitN(name[slash+1:], ".", 2)[0]
		if !strings.HasPrefix(pkg, module+"core/readers/") {
			t.Errorf("format %s is read by %s, outside core/readers", f.Name, pkg)
		}
		out[pkg] = true
	}
	return out
}

// packages lists the module's Go packages (tests excluded) under root with
// their imports of the module and of the libraries the rules name.
func packages(t *testing.T, root string) map[string][]string {
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if base := d.Name(); base == "testdata" || base == "node_modules" || strings.HasPrefix(base, ".") && p != root {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(p, 0)
		if err != nil {
			return nil // no Go files here
		}
		rel, _ := filepath.Rel(root, p)
		out[module+filepath.ToSlash(rel)] = pkg.Imports
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestLayering checks that the imports follow the data's one way, file ->
// reader -> sink -> model -> view -> arrowio/plots -> facade, as
// docs/architecture.md draws it:
//
//   - the core knows no Arrow, no drawing, no Python and no command line;
//   - a reader imports the ground and the readers' kit, never another
//     reader, a view, the registry or the model;
//   - format knowledge stays in the readers and the registry: no other
//     package (the ground, the views, the generators, arrowio, plots, the
//     facade, the command line) imports a reader; the registry is imported
//     only by the doors that open files by name (partition, the facade, the
//     command line, the benchmarks);
//   - a view imports the ground and other views, never a reader;
//   - the ground imports no view and no generator.
func TestLayering(t *testing.T) {
	readers := readerPackages(t)
	pkgs := packages(t, filepath.Join("..", ".."))
	if len(pkgs) < 30 || len(readers) < 10 {
		t.Fatalf("found %d packages and %d readers: is the test run from core/formats?", len(pkgs), len(readers))
	}
	in := func(pkg, dir string) bool { return strings.HasPrefix(pkg, module+dir+"/") || pkg == module+dir }
	kit := func(pkg string) bool {
		return in(pkg, "core/readers") && !readers[pkg]
	}
	ground := func(pkg string) bool {
		return in(pkg, "core") && !in(pkg, "core/readers") && !in(pkg, "core/views") && !in(pkg, "core/gen")
	}
	mayOpenByName := func(pkg string) bool {
		return pkg == module+"core/partition" || in(pkg, "pybind") || in(pkg, "cmd") || in(pkg, "bench")
	}
	names := make([]string, 0, len(pkgs))
	for p := range pkgs {
		names = append(names, p)
	}
	slices.Sort(names)
	for _, pkg := range names {
		for _, imp := range pkgs[pkg] {
			bad := ""
			switch {
			case in(pkg, "core") && (strings.HasPrefix(imp, "github.com/apache/arrow-go") || strings.HasPrefix(imp, "gonum.org/v1/plot") ||
				in(imp, "arrowio") || in(imp, "plots") || in(imp, "pybind") || in(imp, "cmd")):
				bad = "the core knows no Arrow, drawing, Python or command line"
			case readers[pkg] && (readers[imp] || in(imp, "core/views") || in(imp, "core/gen") ||
				imp == module+"core/formats" || imp == module+"core/micro" || imp == module+"core/partition"):
				bad = "a reader imports the ground and the readers' kit only"
			case kit(pkg) && (readers[imp] || in(imp, "core/views") || in(imp, "core/gen") || imp == module+"core/formats"):
				bad = "the readers' kit serves the readers; it imports the ground only"
			case !readers[pkg] && readers[imp] && pkg != module+"core/formats":
				bad = "format knowledge stays in the readers and the registry"
			case imp == module+"core/formats" && !mayOpenByName(pkg):
				bad = "only the doors that open a file by name import the registry"
			case in(pkg, "core/views") && (in(imp, "core/readers") || in(imp, "core/gen")):
				bad = "a view works on models and traces, not on files"
			case ground(pkg) && pkg != module+"core/formats" && (in(imp, "core/views") || in(imp, "core/gen")):
				bad = "the ground imports no view and no generator"
			case in(imp, "core/readers/readertest"):
				bad = "the readers' contract kit is for tests"
			}
			if bad != "" {
				t.Errorf("%s imports %s: %s", strings.TrimPrefix(pkg, module), strings.TrimPrefix(imp, module), bad)
			}
		}
	}
}
