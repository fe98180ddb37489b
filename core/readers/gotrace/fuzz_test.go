package gotrace

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// maxFuzzInput bounds the inputs FuzzDecode reads: the fuzzer minimizes
// every new input at one execution per byte removed, so long inputs
// would stall it.
const maxFuzzInput = 16 << 10

// FuzzDecode feeds mutations of a small trace to the reader, the
// parser's panics left unrecovered: whatever the input, a read ends with
// nil or a FormatError naming the input, and the calls to the sink keep
// its contract.
func FuzzDecode(f *testing.F) {
	readertest.BoundMinimization(f)
	data, err := os.ReadFile(small)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Add([]byte("go 1.26 trace\x00\x00\x00"))
	f.Add([]byte("go 1.21 trace\x00\x00\x00"))
	recoverPanics = false
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput {
			return
		}
		sink := readertest.NewContract(nil)
		err := decode(bytes.NewReader(b), "mem", int64(len(b)), sink, trace.ReadOptions{})
		readertest.CheckRead(t, "mem", err, sink)
	})
}

// FuzzDecodeWire feeds mutations of small traces of the generational
// format to the wire decoder: whatever the input, it ends with nil or an
// error, never a panic or a hang, on one worker or several.
func FuzzDecodeWire(f *testing.F) {
	readertest.BoundMinimization(f)
	for _, name := range []string{small, filepath.Join("testdata", "versions", "go1.22.trace")} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:len(data)/2])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput || len(b) < headerLen {
			return
		}
		ver, err := version(b, "mem")
		if err != nil || wireTypes(ver) == 0 {
			return
		}
		for _, workers := range []int{1, 2} {
			n := 0
			decodeWire(bufio.NewReader(bytes.NewReader(b[headerLen:])), ver, workers, func(g *wireGeneration) error {
				for _, b := range g.batches {
					if b.kind == batchEvents {
						events, _ := b.decodeAll(g)
						n += len(events)
					}
				}
				return nil
			})
		}
	})
}

// addGenerationalSeeds adds small traces of the generational format
// (Go 1.22+), cut to maxFuzzInput, and their first halves when halves.
func addGenerationalSeeds(f *testing.F, halves bool) {
	for _, name := range []string{small, threegen, filepath.Join("testdata", "versions", "go1.23.trace")} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) > maxFuzzInput {
			data = data[:maxFuzzInput]
		}
		f.Add(data)
		if halves {
			f.Add(data[:len(data)/2])
		}
	}
}

// FuzzOwnDecoder feeds mutations of small traces of the generational
// format to the read path on the package's own decoder and merge: it ends
// with nil or a FormatError naming the input, never a panic, and its
// calls to the sink keep the sink's contract.
func FuzzOwnDecoder(f *testing.F) {
	readertest.BoundMinimization(f)
	addGenerationalSeeds(f, true)
	defer func(own, recover bool) { ownDecoder, recoverPanics = own, recover }(ownDecoder, recoverPanics)
	ownDecoder, recoverPanics = true, false
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput {
			return
		}
		sink := readertest.NewContract(nil)
		err := decode(bytes.NewReader(b), "mem", int64(len(b)), sink, trace.ReadOptions{})
		readertest.CheckRead(t, "mem", err, sink)
	})
}

// FuzzOwnVsParser feeds mutations of small traces of the generational
// format to both read paths: the calls to the sink must be identical, and
// both must fail or both succeed, with the same notes.
func FuzzOwnVsParser(f *testing.F) {
	readertest.BoundMinimization(f)
	addGenerationalSeeds(f, false)
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput || len(b) < headerLen {
			return
		}
		if ver, err := version(b, "mem"); err != nil || wireTypes(ver) == 0 {
			return
		}
		run := func(own bool) (string, error) {
			var text strings.Builder
			var notes trace.Notes
			defer func(was bool) { ownDecoder = was }(ownDecoder)
			ownDecoder = own
			err := decode(bytes.NewReader(b), "mem", int64(len(b)), recorder{&text}, trace.ReadOptions{Notes: &notes})
			fmt.Fprintf(&text, "notes %d\n", len(notes.Messages()))
			return text.String(), err
		}
		want, werr := run(false)
		got, gerr := run(true)
		if got != want {
			t.Fatalf("the models differ: %s\nparser error: %v\nown error: %v", firstDiff(got, want), werr, gerr)
		}
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("parser error: %v\nown error: %v", werr, gerr)
		}
	})
}
