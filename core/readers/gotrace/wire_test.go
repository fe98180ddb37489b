package gotrace

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// decodeAll decodes the events of an event batch of g, each with its
// time in timestamp units (the batch's time plus the deltas so far), as
// the merge's cursor does one at a time: the events before a fault, and
// the fault.
func (b *wireBatch) decodeAll(g *wireGeneration) ([]wireEvent, error) {
	var evs []wireEvent
	t := b.time
	for pos := 0; pos < len(b.data); {
		var e wireEvent
		var err error
		if pos, err = decodeEvent(b.data, pos, g.ver, wireTypes(g.ver), &e); err != nil {
			return evs, err
		}
		t += e.time
		e.time = t
		evs = append(evs, e)
	}
	return evs, nil
}

// writeWireText prints a decoded generation in the raw text form of the
// Go project's trace tools, one line per wire event, as `go tool trace
// -d=wire` does: the oracle of the decoder.
func writeWireText(w *bufio.Writer, g *wireGeneration, ver int) {
	line := func(typ byte, vals ...uint64) {
		s := &wireSpecs[typ]
		w.WriteString(s.name)
		for i, name := range s.args {
			fmt.Fprintf(w, " %s=%d", name, vals[i])
		}
	}
	for _, b := range g.batches {
		if b.kind == batchExperimental {
			line(evExperimentalBatch, uint64(b.exp), g.gen, b.m, b.time)
			fmt.Fprintf(w, "\n\tdata=%s\n", strconv.Quote(string(b.data)))
			continue
		}
		line(evEventBatch, g.gen, b.m, b.time, uint64(b.size))
		w.WriteByte('\n')
		switch b.kind {
		case batchStrings:
			w.WriteString("Strings\n")
			for _, s := range b.strings {
				fmt.Fprintf(w, "String id=%d\n\tdata=%s\n", s.id, strconv.Quote(s.s))
			}
		case batchStacks:
			w.WriteString("Stacks\n")
			for _, s := range b.stacks {
				fmt.Fprintf(w, "Stack id=%d nframes=%d", s.id, len(s.pcs))
				for _, pc := range s.pcs {
					f := g.pcs[pc]
					fmt.Fprintf(w, "\n\tpc=%d func=%d file=%d line=%d", f.pc, f.fn, f.file, f.line)
				}
				w.WriteByte('\n')
			}
		case batchCPUSamples:
			w.WriteString("CPUSamples\n")
			for _, e := range b.events {
				line(evCPUSample, e.time, e.args[0], e.args[1], e.args[2], e.args[3])
				w.WriteByte('\n')
			}
		case batchSync:
			if ver >= 25 {
				w.WriteString("Sync\n")
			}
			t := b.time
			for _, e := range b.events {
				if e.typ == evFrequency {
					line(evFrequency, e.args[0])
				} else {
					line(e.typ, e.time-t, e.args[0], e.args[1], e.args[2])
					t = e.time
				}
				w.WriteByte('\n')
			}
		case batchEvents:
			events, err := b.decodeAll(g)
			t := b.time
			for _, e := range events {
				line(e.typ, e.time-t, e.args[0], e.args[1], e.args[2], e.args[3])
				t = e.time
				w.WriteByte('\n')
			}
			if err != nil {
				fmt.Fprintf(w, "error: %v\n", err)
			}
		}
	}
	if ver >= 26 {
		w.WriteString("EndOfGeneration\n")
	}
}

// wireText decodes the trace at path with the decoder, on workers
// goroutines, and prints it in the raw text form.
func wireText(t *testing.T, path string, workers int) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	head, _ := br.Peek(headerLen)
	ver, err := version(head, path)
	if err != nil {
		t.Fatal(err)
	}
	br.Discard(headerLen)
	var out strings.Builder
	w := bufio.NewWriter(&out)
	if err := decodeWire(br, ver, workers, func(g *wireGeneration) error {
		writeWireText(w, g, ver)
		return nil
	}); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	w.Flush()
	return out.String()
}

// wireFiles are the binary traces of the generational format that the
// tests have: the reader's own (Go 1.22 to 1.26) and the corpus's.
func wireFiles(t *testing.T) []string {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.trace"))
	for _, v := range []string{"22", "23", "24", "25"} {
		files = append(files, filepath.Join("testdata", "versions", "go1."+v+".trace"))
	}
	if _, err := os.Stat(corpus); err == nil {
		more, _ := filepath.Glob(filepath.Join(corpus, "generated-go1.26", "*.trace"))
		files = append(files, more...)
	}
	return files
}

// TestWireAgainstGoTool decodes every binary trace of the generational
// format and compares the decoded events, tables and batches, printed in
// the raw text form, line for line with `go tool trace -d=wire` (the Go
// toolchain's raw reader).
func TestWireAgainstGoTool(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not installed: no oracle")
	}
	for _, path := range wireFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want, err := exec.Command("go", "tool", "trace", "-d=wire", path).Output()
			if err != nil {
				t.Fatalf("go tool trace -d=wire %s: %v", path, err)
			}
			for _, workers := range []int{1, 3} {
				got := wireText(t, path, workers)
				if got == string(want) {
					continue
				}
				gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
				for i := range min(len(gl), len(wl)) {
					if gl[i] != wl[i] {
						t.Fatalf("%d workers: line %d: got\n%s\nwant\n%s", workers, i+1, gl[i], wl[i])
					}
				}
				t.Fatalf("%d workers: %d lines, want %d", workers, len(gl), len(wl))
			}
		})
	}
}

// TestWireCut checks that the decoder refuses every cut of a trace that
// is not at a generation's end, and decodes the generations before it.
func TestWireCut(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "threegen.trace"))
	if err != nil {
		t.Fatal(err)
	}
	whole := 0
	if err := decodeWire(bufio.NewReader(bytes.NewReader(data[headerLen:])), 26, 2, func(*wireGeneration) error {
		whole++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if whole < 3 {
		t.Fatalf("%d generations, want at least 3", whole)
	}
	for cut := headerLen; cut < len(data); cut += 7 {
		n := 0
		err := decodeWire(bufio.NewReader(bytes.NewReader(data[headerLen:cut])), 26, 2, func(*wireGeneration) error {
			n++
			return nil
		})
		if err == nil && cut > headerLen {
			t.Fatalf("cut at %d: no error (%d generations)", cut, n)
		}
		if n >= whole {
			t.Fatalf("cut at %d: %d generations of %d", cut, n, whole)
		}
	}
}

// TestWireErrors checks the decoder's refusals of malformed generations.
func TestWireErrors(t *testing.T) {
	batch := func(gen, m, ts uint64, data ...byte) []byte {
		b := []byte{evEventBatch}
		for _, v := range []uint64{gen, m, ts, uint64(len(data))} {
			b = append(b, byte(v))
		}
		return append(b, data...)
	}
	sync := batch(1, 0, 1, evSync, evFrequency, 10, evClockSnapshot, 1, 1, 1, 1)
	for _, c := range []struct {
		name string
		in   []byte
		want string
	}{
		{"no frequency", concat(batch(1, 0, 1, evProcStop, 1), []byte{evEndOfGeneration}), "no frequency event found"},
		{"unknown type", concat(sync, batch(1, 0, 1, 99, 1), []byte{evEndOfGeneration}), "event type 99"},
		{"not a batch", []byte{evProcStop}, "expected batch event"},
		{"generation 0", batch(0, 0, 1, evProcStop, 1), "generation number 0"},
		{"interleaved", concat(sync, batch(2, 0, 1, evProcStop, 1)), "interleaved"},
		{"no end", concat(sync, batch(1, 0, 1, evProcStop, 1)), "incomplete generation"},
		{"tables alone, no end, bad", concat(sync, batch(1, 0, 1, evStrings, evString, 1, 9, 'a')), "is cut"},
		{"duplicate string", concat(sync, batch(1, 0, 1, evStrings, evString, 1, 1, 'a', evString, 1, 1, 'b'), []byte{evEndOfGeneration}), "defined twice"},
		{"unknown function", concat(sync, batch(1, 0, 1, evStacks, evStack, 1, 1, 5, 7, 0, 0), []byte{evEndOfGeneration}), "string that does not exist"},
		{"cut varint", concat(sync, batch(1, 0, 1, evProcStop, 0x80), []byte{evEndOfGeneration}), "cut"},
	} {
		t.Run(c.name, func(t *testing.T) {
			// A fault in an event batch is kept with the batch, for the
			// merge to report when it reaches it.
			err := decodeWire(bufio.NewReader(bytes.NewReader(c.in)), 26, 2, func(g *wireGeneration) error {
				for _, b := range g.batches {
					if _, err := b.decodeAll(g); err != nil {
						return err
					}
				}
				return nil
			})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error with %q", err, c.want)
			}
		})
	}
	// The parser ends a trace cleanly, without the generation, where the
	// generation is cut short before any batch of events (its tables
	// alone), and where a table ends where a number should start (it
	// reads io.EOF there): so does the decoder.
	for name, in := range map[string][]byte{
		"tables alone, no end":         sync,
		"clock cut at a number":        concat(batch(1, 0, 1, evSync, evFrequency, 10, evClockSnapshot), batch(1, 0, 1, evProcStop, 1), []byte{evEndOfGeneration}),
		"string table cut at a number": concat(sync, batch(1, 0, 1, evStrings, evString, 1), batch(1, 0, 1, evProcStop, 1), []byte{evEndOfGeneration}),
	} {
		n := 0
		if err := decodeWire(bufio.NewReader(bytes.NewReader(in)), 26, 2, func(*wireGeneration) error {
			n++
			return nil
		}); err != nil || n != 0 {
			t.Fatalf("%s: %d generations, error %v; want none, no error", name, n, err)
		}
	}
	// A callback's error stops the decoding and is returned.
	stop := fmt.Errorf("stop")
	data, _ := os.ReadFile(filepath.Join("testdata", "threegen.trace"))
	if err := decodeWire(bufio.NewReader(bytes.NewReader(data[headerLen:])), 26, 2, func(*wireGeneration) error { return stop }); err != stop {
		t.Fatalf("got %v, want the callback's error", err)
	}
}

func concat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// TestWireLargeAgainstGoTool compares the decoder with `go tool trace
// -d=wire` on the large trace GOTRACE_BENCH names (bench/gotracegen's),
// by the SHA-256 of the two texts, both streamed.
func TestWireLargeAgainstGoTool(t *testing.T) {
	path := os.Getenv("GOTRACE_BENCH")
	if path == "" {
		t.Skip("GOTRACE_BENCH names no large trace")
	}
	cmd := exec.Command("go", "tool", "trace", "-d=wire", path)
	want := sha256.New()
	cmd.Stdout = want
	if err := cmd.Run(); err != nil {
		t.Fatalf("go tool trace -d=wire %s: %v", path, err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	head, _ := br.Peek(headerLen)
	ver, err := version(head, path)
	if err != nil {
		t.Fatal(err)
	}
	br.Discard(headerLen)
	got := sha256.New()
	w := bufio.NewWriterSize(got, 1<<20)
	gens := 0
	if err := decodeWire(br, ver, 0, func(g *wireGeneration) error {
		writeWireText(w, g, ver)
		gens++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	if g, w := hex.EncodeToString(got.Sum(nil)), hex.EncodeToString(want.Sum(nil)); g != w {
		t.Fatalf("decoded text SHA-256 %s, go tool trace's %s", g, w)
	}
	t.Logf("%d generations, identical texts", gens)
}

// TestWirePanics checks that a panic while decoding a generation (on a
// worker, out of the reader's recovery) is an error of the read, and that
// a panic of the caller's function leaves no goroutine behind.
func TestWirePanics(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "threegen.trace"))
	if err != nil {
		t.Fatal(err)
	}
	read := func(each func(*wireGeneration) error) error {
		return decodeWire(bufio.NewReader(bytes.NewReader(data[headerLen:])), 26, 2, each)
	}
	t.Run("decoder", func(t *testing.T) {
		defer func(d func(*rawGeneration, int) (*wireGeneration, error)) { decodeGen = d }(decodeGen)
		decodeGen = func(*rawGeneration, int) (*wireGeneration, error) { panic("index out of range") }
		err := read(func(*wireGeneration) error { return nil })
		if err == nil || !strings.Contains(err.Error(), "malformed generation: index out of range") {
			t.Errorf("error %v", err)
		}
	})
	t.Run("caller", func(t *testing.T) {
		before := runtime.NumGoroutine()
		func() {
			defer func() { recover() }()
			read(func(*wireGeneration) error { panic("the sink failed") })
		}()
		// The goroutines end once let go; give them a moment to.
		for range 500 {
			if runtime.NumGoroutine() <= before {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Errorf("%d goroutines left behind", runtime.NumGoroutine()-before)
	})
}
