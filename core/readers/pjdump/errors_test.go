package pjdump

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

func decode(in []byte) (*trace.Trace, error) {
	tr := trace.New()
	return tr, decodeStream(bytes.NewReader(in), "d.csv", 0, tr, trace.ReadOptions{})
}

const smallDump = `Container, 0, 0, 0, 3, 3, 0
Container, 0, P, 0, 3, 3, "p1"
State, "p1", S, 0.000000, 1.000000, 1.000000, 0.000000, run
Variable, "p1", V, 0.000000, 3.000000, 3.000000, 2.500000
Event, "p1", E, 2.000000, "hello, world"
Container, "p1", T, 0, 2, 2, t1
Link, "p1", L, 1.000000, 2.000000, 1.000000, msg, t1, t1, k1
`

func TestSmallDump(t *testing.T) {
	tr, err := decode([]byte(smallDump))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(canonical(tr, true), "\n")
	want := strings.Join([]string{
		`Container /"p1" P 0 3`,
		`Container /"p1"/t1 T 0 2`,
		`Event /"p1" E 2.000000 "hello, world"`,
		`Link /"p1" L 1.000000 2.000000 msg /"p1"/t1 /"p1"/t1 k1`,
		`State /"p1" S 0.000000 1.000000 0 run`,
		`Variable /"p1" V 0.000000 3.000000 2.500000`,
	}, "\n")
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if tr.Start != 0 || tr.End != 3*trace.Second {
		t.Errorf("range [%v, %v]", tr.Start, tr.End)
	}
	for _, ty := range tr.Types {
		if ty.Name == "L" && (tr.TypeName(ty.Start) != "T" || tr.TypeName(ty.End) != "T" || tr.TypeName(ty.Parent) != "P") {
			t.Errorf("link type %+v", ty)
		}
	}
}

// TestDuplicateNames reads containers with the same name under different
// parents: pj_dump's order tells them apart.
func TestDuplicateNames(t *testing.T) {
	in := "Container, 0, P, 0, 1, 1, a\n" +
		"Container, a, T, 0, 1, 1, x\n" +
		"State, x, S, 0.100000, 0.200000, 0.100000, 0.000000, one\n" +
		"Container, 0, P, 0, 1, 1, b\n" +
		"Container, b, T, 0, 1, 1, x\n" +
		"State, x, S, 0.300000, 0.400000, 0.100000, 0.000000, two\n" +
		"Container, x, U, 0, 1, 1, x\n" + // a child named like its parent
		"State, x, S2, 0.500000, 0.600000, 0.100000, 1.000000, three\n"
	tr, err := decode([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(canonical(tr, false), "\n")
	want := strings.Join([]string{
		"Container /a P", "Container /a/x T", "Container /b P", "Container /b/x T", "Container /b/x/x U",
		"State /a/x S 0.100000 0.200000 0 one", "State /b/x S 0.300000 0.400000 0 two", "State /b/x/x S2 0.500000 0.600000 1 three",
	}, "\n")
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestErrors(t *testing.T) {
	for _, c := range []struct {
		in   string
		line int
		want string
	}{
		{"hello\n", 1, `expected Container, State, Variable, Event or Link, found "hello"`},
		{"Container, 0, 0, 0, 1, 1, 0\nContainer, 0, 0, 0, 1, 1, 0\n", 2, "root container (type 0) appears twice"},
		{"Container, 0, P, 0, 1, 1, a\nContainer, b, P, 0, 1, 1, c\n", 2, `parent "b" is not among the enclosing containers`},
		{"Container, 0, P, 0, 1, 1, a\nContainer, 0, P, 0, 1, 1, b\nState, a, S, 0, 1, 1, 0, v\n", 3, `container "a" is not among the containers enclosing this line`},
		{"State, a, S, 0, 1, 1, 0, v\n", 1, `unknown container "a" (no container lines`},
		{"Container, 0, P, 0, 1, 1, a\nState, a, S, x, 1, 1, 0, v\n", 2, `bad start "x"`},
		{"Container, 0, P, 0, 1, 1, a\nState, a, S, 0.5, 0.25, 1, 0, v\n", 2,
			"ends at 0.25, before it starts at 0.5; read the file anyway, skipping such rows, with skip_inverted=True (Python) or --read skip_inverted=true (command line)"},
		{"Container, 0, P, 0.5, 0.25, 1, a\n", 1, "ends at 0.25, before it starts at 0.5"},
		{"Container, 0, P, 0, 1, 1, a\nState, a, S, 0, 1, 1, 0.5, v\n", 2, `imbrication "0.5" is not a natural number`},
		{"Container, 0, P, 0, 1, 1, a\nVariable, a, V, 0, 1, 1, nan\n", 2, `variable value "nan" is not a finite number`},
		{"Container, 0, P, 0, 1, 1, a\nState, a, S, 0, 1\n", 2, "State line has 5 fields, too few"},
		{"Container, 0, P, 0, 1, 1, \"a\n", 1, "unterminated quoted field"},
		{"Container, 0, P, 0, 1, 1, \"a\"b\n", 1, "text after a quoted field"},
		{"Container, 0, P, 0, 1, 1, a\xff\n", 1, "not valid UTF-8"},
		{"Container, 0, P, 0, 1, 1, a\nContainer, 0, Q, 0, 1, 1, b\nLink, 0, L, 0, 1, 1, v, a, a, k\nLink, 0, L, 0, 1, 1, v, a, b, k\n", 4,
			`link type "L" joins "P" and "Q" containers, but earlier links of this type joined "P" and "P"`},
		{"Container, 0, P, 0, 1, 1, a\nLink, 0, L, 0, 1, 1, v, a, z, k\n", 2, `unknown container "z"`},
		{"State, Container, Type, Start, End, Duration, Imbrication, Value\nLink, 0, L, 0, 1, 1, v, a, b, k\n", 2, "Link line under a header for State lines"},
		{"Container, Parent, Type, Start, Name\nContainer, 0, P, 0, a\n", 2, "has a start but no end"},
		{"Nature, Container, Type, Start, Value\nPotato, a, T, 0, v\n", 2, `unknown nature "Potato"`},
	} {
		_, err := decode([]byte(c.in))
		var fe *errs.FormatError
		if !errors.As(err, &fe) {
			t.Errorf("%q: got %v, want a FormatError", c.in, err)
			continue
		}
		if fe.Line != c.line || fe.File != "d.csv" || !strings.Contains(fe.Err.Error(), c.want) {
			t.Errorf("%q: got %v (line %d), want line %d and %q", c.in, fe, fe.Line, c.line, c.want)
		}
	}
}

// TestAmbiguousNames: in split files, entities find their containers by
// name, which must be unique.
func TestAmbiguousNames(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(dir+"/x.container.csv", []byte("Container, Parent, Type, Start, End, Duration, Name\n"+
		"Container, 0, 0, 0, 1, 1, 0\nContainer, 0, P, 0, 1, 1, a\nContainer, a, T, 0, 1, 1, t\n"+
		"Container, 0, P, 0, 1, 1, b\nContainer, b, T, 0, 1, 1, t\n"), 0o600)
	os.WriteFile(dir+"/x.state.csv", []byte("State, Container, Type, Start, End, Duration, Imbrication, Value\n"+
		"State, a, S, 0.000000, 1.000000, 1.000000, 0.000000, v\nState, t, S, 0.000000, 1.000000, 1.000000, 0.000000, v\n"), 0o600)
	_, err := readFile(dir)
	var fe *errs.FormatError
	if !errors.As(err, &fe) || fe.Line != 3 || !strings.HasSuffix(fe.File, "x.state.csv") || !strings.Contains(err.Error(), `container name "t" is ambiguous: 2 containers have it`) {
		t.Errorf("got %v", err)
	}
	if _, err := readFile(t.TempDir()); err == nil || !strings.Contains(err.Error(), "holds no pj_dump files") {
		t.Errorf("empty directory: %v", err)
	}
}

func TestGzipAndTruncation(t *testing.T) {
	z := readertest.Compress(t, []byte(smallDump), "gzip")
	tr, err := decode(z)
	if err != nil || tr.States.Len() != 1 || tr.Links.Len() != 1 {
		t.Fatalf("gzip: %v", err)
	}
	// Every cut is refused, naming the file, or read as the plain cut
	// where decompression stops and noted incomplete at its byte.
	for cut := 1; cut < len(z); cut++ {
		tr := trace.New()
		notes := &trace.Notes{}
		err := decodeStream(bytes.NewReader(z[:cut]), "d.csv", 0, tr, trace.ReadOptions{Notes: notes})
		var fe *errs.FormatError
		if err != nil {
			if !errors.As(err, &fe) || fe.File != "d.csv" {
				t.Fatalf("cut at %d: %v", cut, err)
			}
			continue
		}
		want, err := decode(readertest.Decompressible(t, z[:cut], "gzip"))
		if err != nil {
			t.Fatalf("cut at %d read, its plain cut refused: %v", cut, err)
		}
		if diff := readertest.Difference(tr, want); diff != "" {
			t.Errorf("cut at %d: %s", cut, diff)
		}
		where := fmt.Sprintf("d.csv: the compressed data ends at byte %d,", cut)
		if r := notes.IncompleteReasons(); len(r) == 0 || !strings.HasPrefix(r[0], where) {
			t.Errorf("cut at %d: incomplete %q, want %q", cut, r, where)
		}
	}
}

// maxFuzzInput bounds the inputs FuzzDecode reads: the fuzzer minimizes
// every new input at one execution per byte removed, so long inputs
// would stall it.
const maxFuzzInput = 8 << 10

// FuzzDecode checks that no input makes the reader panic, that every
// failure is a FormatError naming the file, and that the calls to the
// sink keep its contract.
func FuzzDecode(f *testing.F) {
	readertest.BoundMinimization(f)
	for _, name := range []string{"/pajeng/oracles/046_pj_dump_containers_trace.out",
		"/pajeng/oracles/047_pj_dump_q_entity_hierarchy_FILE_containers_trace_cat_FILE.out"} {
		if b, err := os.ReadFile(corpus + name); err == nil && len(b) <= 2<<10 {
			f.Add(b)
		}
	}
	f.Add([]byte(smallDump))
	f.Add(readertest.Compress(f, []byte(smallDump), "gzip"))
	f.Add([]byte("Nature, ResourceId, Type, Start, End, Duration, Depth, Value, Size\nState, a, S, 0, 1, 1, 0, v, 3\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzInput {
			return
		}
		sink := readertest.NewContract(nil)
		err := decodeStream(bytes.NewReader(data), "d.csv", int64(len(data)), sink, trace.ReadOptions{})
		readertest.CheckRead(t, "d.csv", err, sink)
	})
}

// TestCutLastLine: a dump whose last line has no end of line was cut (the
// corruption suite found one cut at 90% that read as complete): the
// trace is marked incomplete.
func TestCutLastLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{smallDump, ""},
		{smallDump + "State, \"p1\", S, 1.000000, 2.000000, 1.000000, 0.000000, ru", "incomplete: d.csv: the last line (8) has no end of line: the file is cut"},
		{smallDump + "   ", ""},
	} {
		notes := &trace.Notes{}
		err := decodeStream(bytes.NewReader([]byte(c.in)), "d.csv", 0, trace.New(), trace.ReadOptions{Notes: notes})
		if got := strings.Join(notes.Messages(), "\n"); err != nil || got != c.want {
			t.Errorf("%q: %v, notes %q, want %q", c.in[len(smallDump):], err, got, c.want)
		}
	}
}

// TestEmptyInput: a dump cut to nothing is an error, not an empty trace.
func TestEmptyInput(t *testing.T) {
	for _, in := range []string{"", "\n  \n"} {
		err := decodeStream(bytes.NewReader([]byte(in)), "d.csv", 0, trace.New(), trace.ReadOptions{})
		var fe *errs.FormatError
		if !errors.As(err, &fe) || err.Error() != "d.csv: empty input: no container or entity line" {
			t.Errorf("%q: %v", in, err)
		}
	}
}
