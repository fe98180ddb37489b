package pjdump

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/paje"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// corpus is the collection of real traces the tests read; see its
// MANIFEST.md, sections 1.1 and 1.3.
const corpus = "../../../../shared/traces"

// oracleCommand is one line of pajeng/oracles/INDEX.tsv: an expected
// output of PajeNG's test suite and the command that wrote it.
type oracleCommand struct {
	file, command string
	rc            int
}

func oracleIndex(t *testing.T) []oracleCommand {
	t.Helper()
	f, err := os.Open(corpus + "/pajeng/oracles/INDEX.tsv")
	if err != nil {
		t.Skipf("PajeNG oracles not available: %v", err)
	}
	defer f.Close()
	var out []oracleCommand
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		rc, _ := strconv.Atoi(cols[3])
		out = append(out, oracleCommand{file: corpus + "/pajeng/oracles/" + cols[0], command: cols[2], rc: rc})
	}
	return out
}

// tracePath returns the trace a pj_dump command reads.
func tracePath(command string) string {
	fields := strings.Fields(command)
	for _, f := range fields {
		if strings.HasSuffix(f, ".trace") {
			return corpus + "/pajeng/traces/" + filepath.Base(f)
		}
	}
	return ""
}

// canonical lists a trace's containers and entities as pj_dump prints
// them (names with their quotes, entity times with six decimals,
// container times with six significant digits), one string each, sorted:
// two traces are the same dump when their lists are equal.
func canonical(tr *trace.Trace, withTimes bool) []string {
	quote := func(name string, quoted bool) string {
		if quoted {
			return `"` + name + `"`
		}
		return name
	}
	path := func(id int32) string {
		var names []string
		for c := id; c > 0; c = tr.Containers[c].Parent {
			names = append(names, quote(tr.Containers[c].Name, tr.Containers[c].Quoted))
		}
		slices.Reverse(names)
		return "/" + strings.Join(names, "/")
	}
	typ := func(id int32) string { return quote(tr.Types[id].Name, tr.Types[id].Quoted) }
	value := func(id int32) string {
		if id == trace.None {
			return "-"
		}
		return quote(tr.Values[id].Name, tr.Values[id].Quoted)
	}
	f := func(t trace.Time) string { return fmt.Sprintf("%f", t.Seconds()) }
	g := func(t trace.Time) string { return strconv.FormatFloat(t.Seconds(), 'g', 6, 64) }
	var out []string
	for i, c := range tr.Containers[1:] {
		line := fmt.Sprintf("Container %s %s", path(int32(i+1)), typ(c.Type))
		if withTimes {
			line += " " + g(c.Start) + " " + g(c.End)
		}
		out = append(out, line)
	}
	for _, s := range tr.States.All() {
		out = append(out, fmt.Sprintf("State %s %s %s %s %d %s", path(s.Container), typ(s.Type), f(s.Start), f(s.End), s.Depth, value(s.Value)))
	}
	for _, v := range tr.Variables.All() {
		out = append(out, fmt.Sprintf("Variable %s %s %s %s %f", path(v.Container), typ(v.Type), f(v.Start), f(v.End), v.Value))
	}
	for _, e := range tr.Events.All() {
		out = append(out, fmt.Sprintf("Event %s %s %s %s", path(e.Container), typ(e.Type), f(e.Time), value(e.Value)))
	}
	for _, l := range tr.Links.All() {
		out = append(out, fmt.Sprintf("Link %s %s %s %s %s %s %s %s", path(l.Container), typ(l.Type), f(l.Start), f(l.End),
			value(l.Value), path(l.From), path(l.To), l.Key))
	}
	slices.Sort(out)
	return out
}

// readPaje reads a Pajé trace as pj_dump does.
func readPaje(t *testing.T, path string, noImbrication bool) *trace.Trace {
	t.Helper()
	opt := paje.PajeNG()
	opt.NoImbrication = noImbrication
	tr := trace.New(path)
	if err := decodePaje(path, tr, opt); err != nil {
		t.Fatalf("Pajé reader: %v", err)
	}
	return tr
}

func compareDumps(t *testing.T, fromDump, fromPaje []string) {
	t.Helper()
	if len(fromDump) != len(fromPaje) {
		t.Errorf("%d lines from the dump, %d from the Pajé reader", len(fromDump), len(fromPaje))
	}
	shown := 0
	for i := 0; i < max(len(fromDump), len(fromPaje)) && shown < 5; i++ {
		var a, b string
		if i < len(fromDump) {
			a = fromDump[i]
		}
		if i < len(fromPaje) {
			b = fromPaje[i]
		}
		if a != b {
			t.Errorf("line %d:\n dump %s\n paje %s", i, a, b)
			shown++
		}
	}
}

// TestPjDumpMatchesPajeReader reads each pj_dump output of PajeNG's test
// suite and checks that it rebuilds the trace the Pajé reader reads from
// the original file: same containers at the same places, same entities
// with the same values, to the precision pj_dump prints.
func TestPjDumpMatchesPajeReader(t *testing.T) {
	n := 0
	for _, o := range oracleIndex(t) {
		fields := strings.Fields(o.command)
		if o.rc != 0 || fields[0] != "./pj_dump" || strings.Contains(o.command, ";") || strings.Contains(o.command, "--dot") {
			continue
		}
		noImbrication := slices.Contains(fields, "--no-imbrication")
		if len(fields) != 2 && !(len(fields) == 3 && noImbrication) {
			continue
		}
		n++
		t.Run(filepath.Base(o.file), func(t *testing.T) {
			dump, err := readFile(o.file)
			if err != nil {
				t.Fatal(err)
			}
			compareDumps(t, canonical(dump, true), canonical(readPaje(t, tracePath(o.command), noImbrication), true))
		})
	}
	if n != 12 {
		t.Errorf("found %d plain pj_dump oracles, want 12", n)
	}
}

// TestSplitFilesMatchPajeReader reads the split files of pj_dump_csv and
// the entity hierarchies of pj_dump --entity-hierarchy.
func TestSplitFilesMatchPajeReader(t *testing.T) {
	split := map[string][]string{} // trace -> its pj_dump_csv files
	var order []string
	n := 0
	for _, o := range oracleIndex(t) {
		switch {
		case strings.HasPrefix(o.command, "./pj_dump_csv"):
			tr := tracePath(o.command)
			if split[tr] == nil {
				order = append(order, tr)
			}
			split[tr] = append(split[tr], o.file)
		case strings.Contains(o.command, "--entity-hierarchy"):
			n++
			t.Run(filepath.Base(o.file), func(t *testing.T) {
				dump, err := readFile(o.file)
				if err != nil {
					t.Fatal(err)
				}
				var containers []string
				for _, line := range canonical(readPaje(t, tracePath(o.command), false), false) {
					if strings.HasPrefix(line, "Container ") {
						containers = append(containers, line)
					}
				}
				compareDumps(t, canonical(dump, false), containers)
			})
		}
	}
	for _, tr := range order {
		files := split[tr] // container.csv comes first in INDEX.tsv
		t.Run(filepath.Base(tr), func(t *testing.T) {
			if !strings.HasSuffix(files[0], "_container_csv.out") {
				t.Fatalf("first split file %s is not the containers", files[0])
			}
			dump := trace.New()
			if err := readFiles(files, dump, readOptions{}); err != nil {
				t.Fatal(err)
			}
			compareDumps(t, canonical(dump, true), canonical(readPaje(t, tr, false), true))
		})
	}
	if n != 5 || len(order) != 5 {
		t.Errorf("found %d entity hierarchies and %d split dumps, want 5 and 5", n, len(order))
	}
}

// decodePaje reads the Pajé trace at path into sink with opt, as the
// Pajé reader reads a file.
func decodePaje(path string, sink trace.Sink, opt paje.Options) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	return paje.Decode(f, path, st.Size(), sink, opt)
}
