package pjdump

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// readDoor reads path through the door with the options given.
func readDoor(t *testing.T, path string, v ingest.Values) *trace.Trace {
	t.Helper()
	tr, err := readertest.ReadFormat(t, Format, path, v)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// starts lists the states' starts and ends, in the order read.
func starts(tr *trace.Trace) []trace.Time {
	var out []trace.Time
	for _, s := range tr.States.All() {
		out = append(out, s.Start, s.End)
	}
	return out
}

// splitDir writes a StarVZ-like directory whose hierarchy has the
// container types given, and one state from 1.5 to 2.25.
func splitDir(t *testing.T, program, node, worker string) string {
	dir := t.TempDir()
	entities := fmt.Sprintf("Parent, Name, Type, Nature\n0, 0, 0, Container\n0, root, %s, Container\n"+
		"root, MEMNODE0, %s, Container\nMEMNODE0, CPU0, %s, Container\nCPU0, Worker State, Worker State, State\n",
		program, node, worker)
	states := "Nature, ResourceId, Type, Start, End, Duration, Depth, Value\n" +
		"State, CPU0, Worker State, 1.500000, 2.250000, 0.750000, 0.000000, dgemm\n"
	for name, text := range map[string]string{"entities.csv": entities, "paje.worker_state.csv": states} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// StarPU's hierarchy (Program, Memory Node, Worker) reads milliseconds;
// any other, or time_unit given, reads as told.
func TestTimeUnitSplit(t *testing.T) {
	ms, s := []trace.Time{1_500_000, 2_250_000}, []trace.Time{1_500_000_000, 2_250_000_000}
	starpu := splitDir(t, "Program", "Memory Node", "Worker")
	other := splitDir(t, "Program", "Host", "Worker") // two of StarPU's three types only
	for _, c := range []struct {
		dir, unit string
		want      []trace.Time
	}{
		{starpu, "auto", ms}, {starpu, "", ms}, {starpu, "s", s}, {starpu, "ms", ms},
		{starpu, "us", []trace.Time{1_500, 2_250}}, {starpu, "ns", []trace.Time{1, 2}},
		{other, "auto", s}, {other, "ms", ms},
	} {
		v := ingest.Values{}
		if c.unit != "" {
			v["time_unit"] = c.unit
		}
		tr := readDoor(t, c.dir, v)
		if got := starts(tr); !slices.Equal(got, c.want) || tr.Start != c.want[0] || tr.End != c.want[1] {
			t.Errorf("%s, time_unit %q: states %v, trace %d-%d, want %v", filepath.Base(c.dir), c.unit, got, tr.Start, tr.End, c.want)
		}
	}
	if _, err := Format.Check(ingest.Values{"time_unit": "h"}); err == nil {
		t.Error("time_unit h: no error")
	}
}

// starPUDump is a single pj_dump file of a StarPU hierarchy whose Worker
// container comes after many lines: its Memory Node's states.
func starPUDump(t *testing.T, worker string) string {
	var b strings.Builder
	b.WriteString("Container, 0, 0, 0.000000, 10.000000, 10.000000, 0\n")
	b.WriteString("Container, 0, Program, 0.000000, 10.000000, 10.000000, program\n")
	b.WriteString("Container, program, Memory Node, 0.000000, 10.000000, 10.000000, MEMNODE0\n")
	for i := range 200 {
		fmt.Fprintf(&b, "State, MEMNODE0, Memory Node State, %d.000000, %d.500000, 0.500000, 0.000000, Allocating\n", i/25, i/25)
	}
	fmt.Fprintf(&b, "Container, MEMNODE0, %s, 0.000000, 10.000000, 10.000000, CPU0\n", worker)
	for i := range 200 {
		fmt.Fprintf(&b, "State, CPU0, Worker State, %d.250000, %d.750000, 0.500000, 0.000000, dgemm\n", i/25, i/25)
	}
	return write(t, "dump.csv", b.String())
}

// A single file decides from its container lines, wherever they are; each
// byte range of it (a distributed read) decides the same, from the whole
// file's hierarchy, though the range holds no container line.
func TestTimeUnitParts(t *testing.T) {
	for _, c := range []struct {
		worker string
		scale  trace.Time // nanoseconds per unit of the file
	}{{"Worker", 1_000_000}, {"Thread", 1_000_000_000}} {
		path := starPUDump(t, c.worker)
		whole := readDoor(t, path, nil)
		// Compressed, the file is scanned line by line: the same unit.
		data, _ := os.ReadFile(path)
		gz := write(t, "dump.csv.gz", string(readertest.Compress(t, data, "gzip")))
		if got := readDoor(t, gz, nil); !slices.Equal(starts(got), starts(whole)) || got.End != whole.End {
			t.Errorf("%s: gzipped, the states or the extent differ", c.worker)
		}
		if whole.End != 10*c.scale {
			t.Errorf("%s: the trace ends at %d, want 10 units of %d ns", c.worker, whole.End, c.scale)
		}
		ranges, err := ranges(path, 5)
		if err != nil || len(ranges) != 5 {
			t.Fatalf("ranges %v, %v", ranges, err)
		}
		var parts []trace.Time
		for _, r := range ranges {
			tr := readDoor(t, path, ingest.Values{"part_start": int(r[0]), "part_end": int(r[1])})
			parts = append(parts, starts(tr)...)
		}
		if want := starts(whole); !slices.Equal(parts, want) || want[0] != 0 || want[1] != c.scale/2 {
			t.Errorf("%s: the parts' states differ from the whole read's, or the first is not 0-0.5 units of %d ns", c.worker, c.scale)
		}
	}
}

// firstWorkerState returns the start and end of the first row of the
// dump's paje.worker_state.csv.gz, as the file prints them.
func firstWorkerState(t *testing.T, dir string) (start, end string) {
	f, err := os.Open(filepath.Join(dir, "paje.worker_state.csv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(z)
	sc.Scan() // the header
	sc.Scan()
	fields := strings.Split(sc.Text(), ", ")
	return fields[3], fields[4]
}

// ns converts a decimal number of the file, in unit (nanoseconds), to
// nanoseconds (unit divides a second), as an oracle independent of trace.ParseTime.
func ns(t *testing.T, text string, unit int64) trace.Time {
	whole, frac, _ := strings.Cut(text, ".")
	frac = (frac + "000000000")[:9]
	w, err1 := strconv.ParseInt(whole, 10, 64)
	f, err2 := strconv.ParseInt(frac, 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("bad number %q", text)
	}
	return trace.Time((w*1_000_000_000 + f) / (1_000_000_000 / unit))
}

// StarVZ's dumps of StarPU's traces read in milliseconds: the LU run
// lasts 2.36 s (its last worker state starts at 2362.789704 in the
// file), not 2362 s, and the QR run 16.3 s; time_unit s reads the file's numbers as seconds.
func TestTimeUnitStarVZ(t *testing.T) {
	for _, c := range []struct {
		dir     string
		lastEnd string // the last end of a worker state, as the file prints it
	}{
		{luTrace, "2362.789704"},
		{qrTrace, "16346.265129"},
	} {
		needCorpus(t, c.dir)
		if ok, err := starPU(c.dir, readOptions{}); !ok || err != nil {
			t.Fatalf("%s: StarPU %v, %v", c.dir, ok, err)
		}
		first, firstEnd := firstWorkerState(t, c.dir)
		for _, unit := range []struct {
			name string
			ns   int64
		}{{"auto", 1_000_000}, {"ms", 1_000_000}, {"s", 1_000_000_000}} {
			tr := readDoor(t, c.dir, ingest.Values{"skip_inverted": true, "time_unit": unit.name})
			var got trace.State
			for _, s := range tr.States.All() {
				if tr.TypeName(s.Type) == "Worker State" {
					got = s
					break
				}
			}
			if want := ns(t, first, unit.ns); got.Start != want || got.End != ns(t, firstEnd, unit.ns) {
				t.Errorf("%s, %s: first worker state %d-%d, want %s-%s units of %d ns", c.dir, unit.name, got.Start, got.End, first, firstEnd, unit.ns)
			}
			if last := ns(t, c.lastEnd, unit.ns); tr.End < last || tr.End > last*11/10 {
				t.Errorf("%s, %s: the trace ends at %d ns, want about %s units of %d ns", c.dir, unit.name, tr.End, c.lastEnd, unit.ns)
			}
		}
	}
}

// SimGrid's dumps stay in seconds: auto reads pj_dump's output of
// simu-mardi as ReadFile does, and its extent is PajeNG's oracle's, in
// seconds (its root container line: 0 to 1205).
func TestTimeUnitSimGrid(t *testing.T) {
	path := corpus + "/pajeng/oracles/032_pj_dump_simu_mardi_trace.out"
	needCorpus(t, path)
	want, err := readFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := readDoor(t, path, nil)
	if !slices.Equal(starts(got), starts(want)) || got.End != want.End || got.End != 1205*trace.Second || len(starts(got)) != 2*13620 {
		t.Errorf("auto: %d state times, trace end %d; ReadFile: %d, %d", len(starts(got)), got.End, len(starts(want)), want.End)
	}
}

// mentions finds its word wherever it lies, across the boundary of two
// blocks too, and only where it is whole, in a mapped file and in one
// read.
func TestMentions(t *testing.T) {
	const word = starPUTypeNamed
	size := scanBlock + 64
	path := filepath.Join(t.TempDir(), "dump.csv")
	check := func(data []byte, want bool, what string) {
		t.Helper()
		if got := readMentions(bytes.NewReader(data), int64(len(data)), word, starPURareByte); got != want {
			t.Fatalf("read: %v %s", got, what)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if got := mentions(f, int64(len(data)), word, starPURareByte); got != want {
			t.Fatalf("mapped: %v %s", got, what)
		}
	}
	data := bytes.Repeat([]byte("y Memory Nod"), size/12+1)[:size]
	check(data, false, "in a file without it")
	for _, at := range []int{0, 1, scanBlock - 2*len(word), scanBlock - len(word), scanBlock - len(word) + 1, scanBlock - 1, scanBlock, size - len(word)} {
		with := slices.Clone(data)
		copy(with[at:], word)
		check(with, true, fmt.Sprintf("at %d (the blocks are %d bytes)", at, scanBlock))
	}
	check([]byte("Memory Nod"), false, "in a file shorter than the word")
}

// A mapped file cut short before it is searched faults where its end
// was: the search then answers true (the scan of the container lines
// reads the file and says what is wrong), as a read error does, and the
// fault is recovered, named after the file.
func TestMentionsOfAFileCutShort(t *testing.T) {
	data := bytes.Repeat([]byte("y Memory Nod"), 3*scanBlock/12)
	path := filepath.Join(t.TempDir(), "dump.csv")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.Truncate(path, 4096); err != nil {
		t.Fatal(err)
	}
	if !mentions(f, int64(len(data)), starPUTypeNamed, starPURareByte) {
		t.Fatal("mentions of a file cut short: false, want true")
	}
	mapped, unmap, ok := ingest.MapFile(f, int64(len(data)))
	if !ok {
		t.Skip("files are not mapped on this system")
	}
	defer unmap()
	found, err := mappedMentions(path, mapped, starPUTypeNamed, starPURareByte)
	if found || !errors.Is(err, ingest.ErrFileShrank) || !strings.Contains(err.Error(), path) {
		t.Fatalf("mapped search of a file cut short: %v, %v; want false and an error naming the file", found, err)
	}
}
