package paje

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
)

// The fuzz targets run thousands of inputs a second only on small inputs:
// the fuzzer minimizes every new input it finds before it goes on, with
// up to n²/2 runs for n bytes (it tries removing every range), and
// reports those runs only once done. The seeds are a few hundred bytes,
// and longer inputs are skipped.
const maxFuzzInput = 1536

// fuzzChunk is the chunk size of the pipeline under the fuzzer: small
// inputs span several chunks, so the tokenizers run too, and the chunks
// stay small (the default ones weigh a megabyte with their records).
const fuzzChunk = 1 << 10

// fuzzOptions are the option sets the fuzz targets read with, chosen by
// an input byte.
var fuzzOptions = []Options{{}, PajeNG(), {NoImbrication: true, IgnoreIncompleteLinks: true}}

// stateSeed is a small trace of states pushed, popped and set.
const stateSeed = `%EventDef PajeDefineContainerType 0
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeCreateContainer 1
% Time date
% Alias string
% Type string
% Container string
% Name string
%EndEventDef
%EventDef PajeDefineStateType 2
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajePushState 3
% Time date
% Type string
% Container string
% Value string
%EndEventDef
%EventDef PajePopState 4
% Time date
% Type string
% Container string
%EndEventDef
0 P 0 P
2 S P S
1 0 p P 0 p
3 1 S p a
3 2 S p b
4 3 S p
4 4 S p
`

// linkSeed is a small trace with links, events and a destroyed
// container, its definitions written short (aliases of one letter).
const linkSeed = `%EventDef PajeDefineContainerType 0
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeDefineLinkType 1
% Alias string
% Type string
% StartContainerType string
% EndContainerType string
% Name string
%EndEventDef
%EventDef PajeDefineEventType 2
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeCreateContainer 3
% Time date
% Alias string
% Type string
% Container string
% Name string
%EndEventDef
%EventDef PajeDestroyContainer 4
% Time date
% Type string
% Name string
%EndEventDef
%EventDef PajeStartLink 5
% Time date
% Type string
% Container string
% StartContainer string
% Value string
% Key string
%EndEventDef
%EventDef PajeEndLink 6
% Time date
% Type string
% Container string
% EndContainer string
% Value string
% Key string
%EndEventDef
%EventDef PajeNewEvent 7
% Time date
% Type string
% Container string
% Value string
%EndEventDef
0 P 0 P
1 L 0 P P L
2 E P E
3 0 a P 0 a
3 0 b P 0 b
5 1 L 0 a m k1
7 1.5 E a x
6 2 L 0 b m k1
6 3 L 0 a m k2
5 4 L 0 b m k2
4 5 P a
`

// fuzzSeeds are small traces using every event: states set, pushed and
// popped, variables, links, events, containers created and destroyed.
func fuzzSeeds() [][]byte {
	return [][]byte{
		[]byte(stateSeed),
		[]byte(miniHeader + "3 1 p1 S a\n5 1.5 p1 V 2\n3 2 p1 S \"b c\"\n5 3 p1 V 1e3\n"),
		[]byte(linkSeed),
		[]byte("%EventDef PajeSetState 1\n% Time date\n%EndEventDef\n1 \"x\n"),
	}
}

// FuzzRead feeds the reader arbitrary input, under one of its option
// sets: it must never panic, every error must be an *errs.FormatError
// naming the input, and the calls to the sink must keep its contract.
func FuzzRead(f *testing.F) {
	readertest.BoundMinimization(f)
	for i, seed := range fuzzSeeds() {
		f.Add(seed, uint8(i))
	}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		if len(data) > maxFuzzInput {
			return
		}
		sink := readertest.NewContract(nil)
		d := newDecoder(sink, fuzzOptions[int(which)%len(fuzzOptions)], int64(len(data)))
		d.chunkSize = fuzzChunk
		err := d.decode(bytes.NewReader(data), "fuzz.trace")
		if err == nil {
			err = d.finish()
		}
		readertest.CheckRead(t, "fuzz.trace", err, sink)
	})
}

// FuzzSort feeds the sorted read arbitrary input: it must never panic,
// every error must be an *errs.FormatError naming the file, and the calls
// to the sink keep its contract. One input in four is sorted in runs of
// 512 bytes, merged: one in eight of those (which%32 == 0) through
// temporary files, the others from memory (a file costs a fraction of a
// millisecond, more than the rest of the sort of a small input); the
// other inputs are sorted in one run.
func FuzzSort(f *testing.F) {
	readertest.BoundMinimization(f)
	f.Add([]byte(stateSeed), uint8(0))
	f.Add([]byte(stateSeed), uint8(1))
	f.Add([]byte(miniHeader+"3 2 p1 S a\n3 1 p1 S b\n# c\n\n3 0.5 p1 S a\n"), uint8(0))
	f.Add([]byte("%EventDef PajeSetState 1\n% Time date\n%EndEventDef\n1 \"x\n"), uint8(3))
	dir := readertest.FuzzDir(f)
	path := filepath.Join(dir, "fuzz.trace")
	// The sort's runs go to os.TempDir: there too.
	saved, had := os.LookupEnv("TMPDIR")
	os.Setenv("TMPDIR", dir)
	f.Cleanup(func() {
		if had {
			os.Setenv("TMPDIR", saved)
		} else {
			os.Unsetenv("TMPDIR")
		}
	})
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		if len(data) > maxFuzzInput {
			return
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		opt := Options{Sort: true, SortRun: 1 << 20}
		if which%4 == 0 {
			opt.SortRun = 512
			if which%32 == 0 {
				opt.SortMemory = -1
			}
		}
		sink := readertest.NewContract(nil)
		err := readFiles([]string{path}, sink, opt)
		readertest.CheckRead(t, path, err, sink)
	})
}
