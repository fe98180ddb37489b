package gotrace

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// recorder is a sink that writes down every call, in order: as text, or
// into a hash for a large trace.
type recorder struct{ io.Writer }

func (r recorder) DefineType(t trace.Type)           { fmt.Fprintf(r, "type %+v\n", t) }
func (r recorder) DefineValue(v trace.Value)         { fmt.Fprintf(r, "value %+v\n", v) }
func (r recorder) CreateContainer(c trace.Container) { fmt.Fprintf(r, "container %+v\n", c) }
func (r recorder) DestroyContainer(id int32, at trace.Time) {
	fmt.Fprintf(r, "destroy %d %d\n", id, at)
}
func (r recorder) State(s trace.State)       { fmt.Fprintf(r, "state %+v\n", s) }
func (r recorder) Variable(v trace.Variable) { fmt.Fprintf(r, "variable %+v\n", v) }
func (r recorder) Link(l trace.Link)         { fmt.Fprintf(r, "link %+v\n", l) }
func (r recorder) Event(e trace.Event)       { fmt.Fprintf(r, "event %+v\n", e) }
func (r recorder) Finish(start, end trace.Time) {
	fmt.Fprintf(r, "finish %d %d\n", start, end)
}

// readWith reads path with the parser or the package's own decoder and
// returns every call to the sink, the notes and the error, as text.
func readWith(t *testing.T, path string, own bool) string {
	t.Helper()
	var text strings.Builder
	rec := recorder{&text}
	readInto(t, path, own, rec)
	return text.String()
}

// readInto reads path with the parser or the package's own decoder into
// rec, then writes the notes and the error.
func readInto(t *testing.T, path string, own bool, rec recorder) {
	t.Helper()
	var notes trace.Notes
	defer func(was bool) { ownDecoder = was }(ownDecoder)
	ownDecoder = own
	err := read(path, rec, trace.ReadOptions{Notes: &notes})
	fmt.Fprintf(rec, "error %v\nnotes %q\n", err, notes.Messages())
}

// TestOwnDecoderSameModel reads every binary trace of the generational
// format with the parser and with the package's own decoder and merge,
// and compares every call to the sink, in order, the notes and the
// error: they must be identical.
func TestOwnDecoderSameModel(t *testing.T) {
	if big := os.Getenv("GOTRACE_BENCH"); big != "" {
		t.Run(filepath.Base(big), func(t *testing.T) {
			sum := func(own bool) string {
				h := sha256.New()
				w := bufio.NewWriterSize(h, 1<<20)
				readInto(t, big, own, recorder{w})
				w.Flush()
				return hex.EncodeToString(h.Sum(nil))
			}
			if got, want := sum(true), sum(false); got != want {
				t.Fatalf("the own decoder's calls to the sink hash to %s, the parser path's to %s", got, want)
			}
		})
	}
	for _, path := range wireFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want, got := readWith(t, path, false), readWith(t, path, true)
			if got != want {
				t.Fatalf("the own decoder's model differs from the parser's: %s", firstDiff(got, want))
			}
			t.Logf("%d calls to the sink identical", strings.Count(got, "\n"))
		})
	}
}

// firstDiff describes the first line where got and want differ.
func firstDiff(got, want string) string {
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(gl), len(wl)) {
		if gl[i] != wl[i] {
			return fmt.Sprintf("line %d:\n got  %s\n want %s", i+1, gl[i], wl[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(gl), len(wl))
}

// TestOwnDecoderCut reads cuts of two traces (Go 1.26, three
// generations; Go 1.23, one) with both paths: the calls to the sink must
// be identical, and both must fail, or both succeed with the trace marked
// incomplete. The errors and notes are worded as the parser's, except
// where the parser prints its internal state (a dump of its maps, in map
// order): such cuts are counted.
func TestOwnDecoderCut(t *testing.T) {
	for _, src := range []string{threegen, filepath.Join("testdata", "versions", "go1.23.trace")} {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		same, worded := 0, 0
		for cut := headerLen; cut < len(data); cut += 97 {
			path := filepath.Join(dir, "cut.trace")
			if err := os.WriteFile(path, data[:cut], 0o644); err != nil {
				t.Fatal(err)
			}
			want, got := readWith(t, path, false), readWith(t, path, true)
			if got == want {
				same++
				continue
			}
			w, g := strings.Split(want, "\nerror "), strings.Split(got, "\nerror ")
			if w[0] != g[0] {
				t.Fatalf("%s cut at %d: the models differ: %s", src, cut, firstDiff(got, want))
			}
			failed := func(s string) bool { return !strings.HasPrefix(s, "<nil>") }
			if failed(w[1]) != failed(g[1]) {
				t.Fatalf("%s cut at %d: parser: error %s; own decoder: error %s", src, cut, w[1], g[1])
			}
			if worded == 0 {
				t.Logf("%s cut at %d: parser: error %s\nown decoder: error %s", filepath.Base(src), cut, w[1], g[1])
			}
			worded++
		}
		t.Logf("%s: %d cuts identical, %d with the same model and outcome but other wording", filepath.Base(src), same, worded)
	}
}

// TestOwnDecoderMoreTraces compares the two paths on the traces of the
// directory named by GOTRACE_MORE (generated traces too large to keep in
// the repository) and on testdata/gotests (the Go project's test traces,
// some broken on purpose): the calls to the sink must be identical, and
// both paths must fail or both succeed with the same notes. Where a
// broken trace fails, our message may be worded otherwise (it names the
// batch's byte): such traces are counted.
func TestOwnDecoderMoreTraces(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "gotests", "*.trace"))
	if dir := os.Getenv("GOTRACE_MORE"); dir != "" {
		more, _ := filepath.Glob(filepath.Join(dir, "*.trace"))
		files = append(files, more...)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want, got := readWith(t, path, false), readWith(t, path, true)
			if got == want {
				t.Logf("%d calls to the sink identical", strings.Count(got, "\n"))
				return
			}
			sameOutcome(t, path, got, want)
		})
	}
}

// sameOutcome fails t unless the two paths' texts (got: own decoder,
// want: parser) have the same calls to the sink and the same outcome,
// and logs the two errors.
func sameOutcome(t *testing.T, path, got, want string) {
	t.Helper()
	w, g := strings.Split(want, "\nerror "), strings.Split(got, "\nerror ")
	if w[0] != g[0] {
		t.Fatalf("%s: the models differ: %s", path, firstDiff(got, want))
	}
	failed := func(s string) bool { return !strings.HasPrefix(s, "<nil>") }
	if failed(w[1]) != failed(g[1]) {
		t.Fatalf("%s: parser: error %s; own decoder: error %s", path, w[1], g[1])
	}
	t.Logf("same model and outcome, other wording: parser: error %s\nown decoder: error %s", w[1], g[1])
}
