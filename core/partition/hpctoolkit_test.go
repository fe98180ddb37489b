package partition

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/micro"
)

// hpcXML is an older (XML) HPCToolkit database's experiment.xml: main
// calls solve and io; solve calls a kernel. Times are in microseconds.
const hpcXML = `<?xml version="1.0"?>
<HPCToolkitExperiment version="2.2">
<Header n="synth"><Info/></Header>
<SecCallPathProfile i="0" n="synth">
<SecHeader>
  <TraceDBTable>
    <TraceDB i="0" u="1000000" db-glob="*.hpctrace" db-min-time="1000" db-max-time="9000" db-header-sz="32"/>
  </TraceDBTable>
  <FileTable><File i="5" n="./src/a.c"/></FileTable>
  <ProcedureTable>
    <Procedure i="10" n="main"/>
    <Procedure i="11" n="solve"/>
    <Procedure i="12" n="io"/>
    <Procedure i="13" n="kernel"/>
  </ProcedureTable>
</SecHeader>
<SecCallPathProfileData>
<M n="1" v="1"/>
<PF i="2" s="10" l="1" lm="1" f="5" n="10">
  <S i="3" s="1" l="2" it="100"/>
  <C i="4" s="1" l="3" v="0x1">
    <PF i="5" n="11" f="5" lm="1" l="0" s="11"><S i="6" it="101"/>
      <C i="7" l="4"><PF i="8" n="13" s="13" l="0" lm="1" f="5"><S i="9" it="103"/></PF></C>
    </PF>
  </C>
  <C i="10" s="1" l="5" v="0x2">
    <PF i="11" n="12" f="5" lm="1" l="0" s="12"><S i="12" it="102"/></PF>
  </C>
</PF>
</SecCallPathProfileData>
</SecCallPathProfile>
</HPCToolkitExperiment>
`

// writeHPCToolkit writes an XML database of ranks x threads trace lines
// (and a GPU stream, thread 500, on rank 0): each line samples its own
// mix of the call paths, the kernel first in a late line, one line
// without samples (a part of it holds no record).
func writeHPCToolkit(t *testing.T, ranks, threads int) string {
	dir := t.TempDir()
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("experiment.xml", []byte(hpcXML))
	paths := []uint64{100, 101, 102, 0, 101, 100, 103}
	line := 0
	for r := range ranks {
		ths := make([]int, threads)
		for i := range ths {
			ths[i] = i
		}
		if r == 0 {
			ths = append(ths, 500)
		}
		for _, th := range ths {
			b := []byte("HPCRUN-trace______01.01b")
			b = append(b, make([]byte, 8)...)
			n := 0
			if !(r == 1 && th == 1) { // that line has no sample
				n = 20 + 3*line
			}
			for k := range n {
				cp := paths[(k*(line+1))%len(paths)]
				if cp == 103 && line < 4 {
					cp = 101
				}
				ts := uint64(1000 + line*37 + k*(7000/n))
				b = binary.BigEndian.AppendUint64(b, ts)
				b = binary.BigEndian.AppendUint32(b, uint32(cp))
			}
			write(fmt.Sprintf("synth-%06d-%03d-0000abcd-42-0.hpctrace", r, th), b)
			line++
		}
	}
	return dir
}

func checkHPCToolkit(t *testing.T, path string, counts []int, lines int, kinds ...string) {
	t.Helper()
	for _, n := range counts {
		plan, err := PlanFile(path, "", nil, n)
		if err != nil {
			t.Fatal(err)
		}
		if plan.Order != micro.ByPart || len(plan.Parts) != min(n, lines) {
			t.Fatalf("%d parts of %d trace lines for %d asked", len(plan.Parts), lines, n)
		}
		next := 0
		for _, p := range plan.Parts {
			if p.Options.Int("line_start") != next || p.Options.Int("line_end") <= next {
				t.Fatalf("part %s does not follow line %d", p.Label, next)
			}
			next = p.Options.Int("line_end")
		}
		if next != lines {
			t.Fatalf("the parts end at line %d of %d", next, lines)
		}
		for name, opt := range options() {
			if !contains(kinds, strings.Split(name, "/")[0]) {
				continue
			}
			t.Run(fmt.Sprintf("%d/%s", n, name), func(t *testing.T) {
				exactly(t, name, distributed(t, plan, opt), whole(t, path, "", opt))
			})
		}
		// The moments of the parts: see package moments' tests.
	}
}

func TestHPCToolkitLines(t *testing.T) {
	// 2 ranks x 3 threads and a GPU stream: 7 lines.
	checkHPCToolkit(t, writeHPCToolkit(t, 2, 3), []int{1, 2, 3, 7, 100}, 7, "states", "average")
}

func TestHPCToolkitCorpus(t *testing.T) {
	for _, tc := range []struct {
		path  []string
		lines int
	}{
		// Trace lines: the count of trace.db's Context Trace Headers
		// section (the u32 at its pointer + 8, read with Python's
		// struct), or the *.hpctrace files of an XML database.
		{[]string{"hpctoolkit-db", "multithread"}, 3},
		{[]string{"hpctoolkit-db", "issue-233-lulesh"}, 135},
		{[]string{"hpctoolkit-db", "xml", "vectorAdd"}, 2},
	} {
		t.Run(strings.Join(tc.path, "/"), func(t *testing.T) {
			path := corpus(t, tc.path...)
			checkHPCToolkit(t, path, []int{1, 2, 3, 7, 1000}, tc.lines, "states", "average")
		})
	}
}
