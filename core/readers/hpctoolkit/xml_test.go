package hpctoolkit

import (
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

const synthXML = `<?xml version="1.0"?>
<HPCToolkitExperiment version="2.2">
<Header n="synth"><Info/></Header>
<SecCallPathProfile i="0" n="synth">
<SecHeader>
  <TraceDBTable>
    <TraceDB i="0" u="1000000" db-glob="*.hpctrace" db-min-time="1000" db-max-time="2000" db-header-sz="32"/>
  </TraceDBTable>
  <FileTable><File i="5" n="./src/a.c"/></FileTable>
  <ProcedureTable>
    <Procedure i="10" n="main"/>
    <Procedure i="11" n="&lt;unknown procedure&gt; 0x10 [libx.so]"/>
    <Procedure i="12" n="work"/>
  </ProcedureTable>
</SecHeader>
<SecCallPathProfileData>
<M n="1" v="1"/>
<PF i="2" s="10" l="1" lm="1" f="5" n="10">
  <S i="3" s="1" l="2" it="100"/>
  <C i="4" s="1" l="3" v="0x1">
    <PF i="5" n="11" f="5" lm="1" l="0" s="11"><S i="6" it="101"/></PF>
  </C>
  <L i="7" s="1" l="20" f="5">
    <C i="8" l="21"><PF i="9" n="12" s="12" l="0" lm="1" f="5"><S i="10" it="102"/></PF></C>
  </L>
</PF>
</SecCallPathProfileData>
</SecCallPathProfile>
</HPCToolkitExperiment>
`

// hpctrace builds a *.hpctrace file of the given byte order with records
// (time, call path id).
func hpctrace(order binary.AppendByteOrder, records ...[2]uint64) []byte {
	b := []byte("HPCRUN-trace______01.01")
	if order == binary.AppendByteOrder(binary.BigEndian) {
		b = append(b, 'b')
	} else {
		b = append(b, 'l')
	}
	b = append(b, make([]byte, 8)...)
	for _, r := range records {
		b = order.AppendUint64(b, r[0])
		b = order.AppendUint32(b, uint32(r[1]))
	}
	return b
}

func writeXMLDB(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string][]byte{
		"experiment.xml": []byte(synthXML),
		// Times in microseconds (u="1000000"); 999 is no call path.
		"synth-000003-002-0000abcd-42-0.hpctrace": hpctrace(binary.BigEndian,
			[2]uint64{1000, 100}, [2]uint64{1100, 101}, [2]uint64{1200, 102},
			[2]uint64{1300, 100}, [2]uint64{1300, 999}, [2]uint64{1500, 101}, [2]uint64{2000, 101}),
		"synth-000003-000-0000abcd-42-0.hpctrace": hpctrace(binary.LittleEndian, [2]uint64{1000, 102}),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestSyntheticXML(t *testing.T) {
	dir := writeXMLDB(t)
	const t0, t2 = "Node 0xabcd/Rank 3/Thread 0", "Node 0xabcd/Rank 3/Thread 2"
	const unk = "<unknown procedure> 0x10 [libx.so]"
	for _, loops := range []bool{false, true} {
		tr := trace.New()
		notes := &trace.Notes{}
		if err := readWith(filepath.Join(dir, "experiment.xml"), options{Loops: loops}, tr, trace.ReadOptions{Notes: notes}); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range tr.States.All() {
			got = append(got, stateLine(tr, s))
		}
		want := []string{
			t0 + " work [0,1000000) d1 o1",
			t0 + " main [0,1000000) d0 o0",
			t2 + " " + unk + " [100000,200000) d1 o1",
			t2 + " work [200000,300000) d1 o2",
			t2 + " main [0,300000) d0 o0",
			t2 + " " + unk + " [500000,1000000) d1 o4",
			t2 + " main [500000,1000000) d0 o3",
		}
		if loops {
			want = []string{
				t0 + " work [0,1000000) d2 o2",
				t0 + " loop at a.c: 20 [0,1000000) d1 o1",
				t0 + " main [0,1000000) d0 o0",
				t2 + " " + unk + " [100000,200000) d1 o1",
				t2 + " work [200000,300000) d2 o3",
				t2 + " loop at a.c: 20 [200000,300000) d1 o2",
				t2 + " main [0,300000) d0 o0",
				t2 + " " + unk + " [500000,1000000) d1 o5",
				t2 + " main [500000,1000000) d0 o4",
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("loops=%v: states\n%s\nwant\n%s", loops, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if n := notes.Skipped()["samples in a call path experiment.xml does not list (taken as idle)"]; n != 1 {
			t.Errorf("skipped %v, want one unknown sample", notes.Skipped())
		}
		if tr.End != 1000000 {
			t.Errorf("trace ends at %d, want 1000000", tr.End)
		}
		checkNesting(t, tr)
	}
}

// A database without traces (hatchet's cpi, a profile) is refused with a
// FormatError that says why.
func TestXMLProfileOnly(t *testing.T) {
	dir := corpus(t, "hatchet", "tests", "data", "hpctoolkit-cpi-database")
	err := Read(dir, trace.New(), trace.ReadOptions{})
	wantFormatError(t, err, "profiles only")
}

// Cut and corrupt XML databases end in FormatErrors.
func TestXMLCorrupt(t *testing.T) {
	dir := writeXMLDB(t)
	tf := filepath.Join(dir, "synth-000003-002-0000abcd-42-0.hpctrace")
	data, _ := os.ReadFile(tf)
	for _, c := range []struct {
		cut  int
		want string
	}{{10, "cut in its header"}, {len(data) - 5, "the last record is cut"}} {
		os.WriteFile(tf, data[:c.cut], 0o644)
		wantFormatError(t, Read(dir, trace.New(), trace.ReadOptions{}), c.want)
	}
	os.WriteFile(tf, data, 0o644)
	xf := filepath.Join(dir, "experiment.xml")
	os.WriteFile(xf, []byte(synthXML[:len(synthXML)/2]), 0o644)
	wantFormatError(t, Read(dir, trace.New(), trace.ReadOptions{}), "experiment.xml")
	// A timestamp past db-max-time.
	os.WriteFile(xf, []byte(synthXML), 0o644)
	os.WriteFile(tf, hpctrace(binary.BigEndian, [2]uint64{5000, 100}), 0o644)
	wantFormatError(t, Read(dir, trace.New(), trace.ReadOptions{}), "outside the traces' range")
}

var (
	bigEndian    binary.AppendByteOrder = binary.BigEndian
	littleEndian binary.AppendByteOrder = binary.LittleEndian
)

// Data-centric traces (flag bit 0 of the header) carry a metric id after
// each record's call path id: 16-byte records.
func TestHpctraceDataCentric(t *testing.T) {
	b := hpctrace(bigEndian)
	b[len(b)-1] = 1 // the flags, big-endian
	for _, r := range [][3]uint64{{1000, 100, 7}, {1100, 101, 8}} {
		b = binary.BigEndian.AppendUint64(b, r[0])
		b = binary.BigEndian.AppendUint32(b, uint32(r[1]))
		b = binary.BigEndian.AppendUint32(b, uint32(r[2]))
	}
	var got [][2]uint64
	db := &xmlDB{hdr: 32}
	err := db.scanReader(bytes.NewReader(b), "x.hpctrace", func(ts, cpid uint64, at int64) error {
		got = append(got, [2]uint64{ts, cpid})
		return nil
	})
	if err != nil || !slices.Equal(got, [][2]uint64{{1000, 100}, {1100, 101}}) {
		t.Errorf("records %v (%v), want (1000, 100) and (1100, 101)", got, err)
	}
}

// The procedure frames of hatchet's cpi database (experiment.xml 2.0,
// profile only) are named as hatchet names them in its reference table
// (hpctoolkit-cpi-graphframe.csv: node id, name and type of every node;
// hatchet prefixes a frame reached through a call site with the call's
// line, "27:MPI_Init").
func TestXMLFramesAgainstHatchet(t *testing.T) {
	dir := corpus(t, "hatchet", "tests", "data")
	f, err := os.Open(filepath.Join(dir, "hpctoolkit-cpi-database", "experiment.xml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	db := &xmlDB{file: "experiment.xml"}
	if err := db.decode(f, options{}); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(mustOpen(t, filepath.Join(dir, "hpctoolkit-cpi-graphframe.csv"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, r := range rows[1:] {
		nid, name, typ := r[4], r[5], r[6]
		if typ != "PF" {
			continue
		}
		if i := strings.IndexByte(name, ':'); i > 0 && strings.Trim(name[:i], "0123456789") == "" {
			name = name[i+1:]
		}
		id, _ := strconv.ParseUint(nid, 10, 64)
		fr, ok := db.ids[id]
		if !ok {
			t.Fatalf("node %s unknown", nid)
		}
		if got := db.fr.name[fr]; got != name {
			t.Errorf("node %s: frame %q, hatchet %q", nid, got, name)
		}
		checked++
	}
	if checked != 4*26 {
		t.Errorf("%d rows checked, want 104 (26 frames, 4 ranks)", checked)
	}
}

func mustOpen(t *testing.T, name string) *os.File {
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// Without db-min-time and db-max-time the range is that of the samples;
// without the unit u, timestamps below 10^17 are microseconds.
func TestXMLTimeRange(t *testing.T) {
	for _, c := range []struct {
		from, to string
		end      trace.Time
	}{
		{`db-min-time="1000" db-max-time="2000" `, ``, 500000},
		{`u="1000000" `, ``, 1000000},
	} {
		dir := writeXMLDB(t)
		x := strings.Replace(synthXML, c.from, c.to, 1)
		if x == synthXML {
			t.Fatalf("%q not in the XML", c.from)
		}
		os.WriteFile(filepath.Join(dir, "experiment.xml"), []byte(x), 0o644)
		if c.end == 500000 {
			// The samples end at 1500 µs, before db-max-time.
			f := filepath.Join(dir, "synth-000003-002-0000abcd-42-0.hpctrace")
			data, _ := os.ReadFile(f)
			os.WriteFile(f, data[:len(data)-12], 0o644)
		}
		tr := trace.New()
		if err := Read(dir, tr, trace.ReadOptions{}); err != nil {
			t.Fatal(err)
		}
		if tr.End != c.end || tr.States.Len() != 7 {
			t.Errorf("without %s: end %d (want %d), %d states", c.from, tr.End, c.end, tr.States.Len())
		}
		checkNesting(t, tr)
	}
}

// An experiment file kept under another name (experiment1.xml, as a
// test suite keeps several beside each other) is read as its database's
// experiment.xml: with its directory's traces, the same states; without
// them, refused as a database of profiles only. Before, it was "not an
// HPCToolkit database: no meta.db nor experiment.xml".
func TestExperimentUnderAnotherName(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "experiment1.xml"), []byte(synthXML), 0o644)
	err := Read(filepath.Join(dir, "experiment1.xml"), trace.New(), trace.ReadOptions{})
	wantFormatError(t, err, "profiles only")
	os.WriteFile(filepath.Join(dir, "app-000000-000-0000abcd-42-0.hpctrace"),
		hpctrace(bigEndian, [2]uint64{1000, 100}, [2]uint64{1400, 102}), 0o644)
	tr := trace.New()
	if err := Read(filepath.Join(dir, "experiment1.xml"), tr, trace.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range tr.States.All() {
		got = append(got, fmt.Sprint(tr.Values[s.Value].Name, " ", s.Depth, " ", s.Start, " ", s.End))
	}
	if want := []string{"work 1 0.000400000 0.001000000", "main 0 0.000000000 0.001000000"}; !slices.Equal(got, want) {
		t.Errorf("states %q, want %q (as ExampleRead's experiment.xml)", got, want)
	}
}
