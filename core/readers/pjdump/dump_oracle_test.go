package pjdump

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/readers/paje"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// run is one pj_dump invocation: its options, mapped onto ours.
type run struct {
	strict, noImbrication bool
	entityHierarchy       bool
	typeHierarchy         bool
}

func (r run) readOptions() paje.Options {
	o := paje.PajeNG()
	o.Strict = r.strict // StrictPajeNG stays, as in pj_dump -n
	o.NoImbrication = r.noImbrication
	return o
}

// dump reads path and writes what pj_dump would print on standard output,
// or the error text; ok is false for an error pj_dump would word otherwise.
func dump(t *testing.T, path string, r run, style dumpStyle) (out string, failed bool) {
	t.Helper()
	tr := trace.New(path)
	err := decodePaje(path, tr, r.readOptions())
	if err != nil {
		var fe *errs.FormatError
		if !errors.As(err, &fe) {
			t.Fatalf("%s: error %v is not a *errs.FormatError", path, err)
		}
		var pe *paje.Error
		if !errors.As(err, &pe) {
			return "our error: " + err.Error(), true
		}
		stdout, stderr, ok := pe.PajeNGStreams()
		if !ok {
			return "our error: " + err.Error(), true
		}
		return stdout + stderr, true
	}
	var b bytes.Buffer
	opt := writeOptions{Style: style}
	switch {
	case r.entityHierarchy:
		err = writeEntityHierarchy(&b, tr, opt)
	case r.typeHierarchy:
		err = writeTypeHierarchy(&b, tr, opt)
	default:
		err = writeDump(&b, tr, opt)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.String(), false
}

// TestOracles compares our output with the expected outputs of PajeNG's
// own test suite (its development version, which keeps quotes).
func TestOracles(t *testing.T) {
	dir := filepath.Join(corpus, "pajeng/oracles")
	f, err := os.Open(filepath.Join(dir, "INDEX.tsv"))
	if err != nil {
		t.Skip("PajeNG oracles absent: ", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	compared := 0
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		file, command, rc := cols[0], cols[2], cols[3]
		args := strings.Fields(strings.Split(command, ";")[0])
		if args[0] != "./pj_dump" {
			continue // pj_dump_csv and pj_equals are other tools
		}
		var r run
		r.strict = true
		var path string
		skip := false
		for i := 1; i < len(args); i++ {
			switch a := args[i]; a {
			case "-n":
				r.strict = false
			case "--no-imbrication":
				r.noImbrication = true
			case "-q":
			case "--entity-hierarchy":
				r.entityHierarchy = true
				i++
			case "--type-hierarchy":
				r.typeHierarchy = true
				i++
			case "--dot", "-f":
				skip = true
			default:
				path = filepath.Join(corpus, "pajeng", strings.TrimPrefix(a, "../"))
			}
		}
		if skip {
			continue
		}
		want, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		got, failed := dump(t, path, r, upstream)
		if failed != (rc != "0") {
			t.Errorf("%s: failed=%v, pj_dump exit status %s\n%s", file, failed, rc, got)
			continue
		}
		if got != string(want) {
			t.Errorf("%s (%s): output differs from the oracle:\n%s", file, command, readertest.FirstDiff(got, string(want)))
		}
		compared++
	}
	if compared < 20 {
		t.Fatalf("compared only %d oracles", compared)
	}
}

// TestLivePjDump compares our output with the pj_dump installed here on
// every Pajé trace of the corpus, including the error text of those it
// refuses.
func TestLivePjDump(t *testing.T) {
	bin, err := exec.LookPath("pj_dump")
	if err != nil {
		t.Skip("pj_dump (Debian package pajeng) is not installed")
	}
	variants := []struct {
		name string
		args []string
		r    run
	}{
		{"default", nil, run{strict: true}},
		{"no-strict", []string{"-n"}, run{}},
		{"no-imbrication", []string{"-i"}, run{strict: true, noImbrication: true}},
		{"entity-hierarchy", []string{"-q", "--entity-hierarchy"}, run{strict: true, entityHierarchy: true}},
		{"type-hierarchy", []string{"-q", "--type-hierarchy"}, run{strict: true, typeHierarchy: true}},
	}
	for _, path := range readertest.PajeCorpus(t, corpus) {
		for _, v := range variants {
			t.Run(filepath.Base(path)+"/"+v.name, func(t *testing.T) {
				want, wantErr := livePjDump(t, bin, v.args, path)
				got, failed := dump(t, path, v.r, pajeNG136)
				if wantErr != "" {
					if !failed {
						t.Fatalf("pj_dump fails (%q) but we read the trace", wantErr)
					}
				} else if failed {
					t.Fatalf("pj_dump reads the trace but we fail: %s", got)
				}
				if got != want {
					t.Errorf("output differs from pj_dump %v:\n%s", v.args, readertest.FirstDiff(got, want))
				}
			})
		}
	}
}

// livePjDump runs pj_dump; hierarchy outputs go to a file that it returns.
func livePjDump(t *testing.T, bin string, args []string, path string) (stdout, stderr string) {
	t.Helper()
	var file string
	if len(args) > 1 && strings.HasSuffix(args[1], "hierarchy") {
		file = filepath.Join(t.TempDir(), "out.csv")
		args = append(append([]string(nil), args...), file)
	}
	cmd := exec.Command(bin, append(args, path)...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if err == nil && file != "" {
		b, rerr := os.ReadFile(file)
		if rerr != nil {
			t.Fatal(rerr)
		}
		return string(b), ""
	}
	if err != nil {
		// Our dump returns both streams of pj_dump, as tesh records them.
		return o.String() + e.String(), err.Error()
	}
	return o.String(), ""
}

func itoa(i int) string { return strconv.Itoa(i) }
