package paraver

import (
	"os"
	"path/filepath"
	"testing"
)

// TestUnsignedEventValues checks that event values span the unsigned
// 64-bit range Extrae writes (it prints hardware counters with %lu), that
// each keeps its exact decimal text as its name and alias, and that the
// .pcf names such values too.
func TestUnsignedEventValues(t *testing.T) {
	dir := t.TempDir()
	prv := filepath.Join(dir, "t.prv")
	in := twoThreads +
		"2:1:1:1:1:1:42000050:18446744073709551615\n" + // 2^64-1
		"2:1:1:1:1:2:42000050:9223372036854775808\n" + // 2^63
		"2:1:1:1:1:3:42000050:9007199254740993\n" + // 2^53+1: no float64 holds it
		"2:1:1:1:1:4:42000050:-1:42000050:0:42000050:-0\n" +
		"2:1:1:1:1:5:42000050:-9223372036854775808\n"
	pcf := "EVENT_TYPE\n0 42000050 PAPI_TOT_INS\nVALUES\n18446744073709551615 all ones\n0 zero\n"
	if err := os.WriteFile(prv, []byte(in), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "t.pcf"), []byte(pcf), 0o600); err != nil {
		t.Fatal(err)
	}
	tr, err := readFile(prv)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range tr.Events.All() {
		got = append(got, tr.TypeName(e.Type)+"="+tr.ValueName(e.Value)+"|"+tr.Values[e.Value].Alias+"@"+e.Time.String())
	}
	want := []string{
		"PAPI_TOT_INS=all ones|18446744073709551615@0.000000001",
		"PAPI_TOT_INS=9223372036854775808|9223372036854775808@0.000000002",
		"PAPI_TOT_INS=9007199254740993|9007199254740993@0.000000003",
		"PAPI_TOT_INS=-1|-1@0.000000004",
		"PAPI_TOT_INS=zero|0@0.000000004",
		"PAPI_TOT_INS=zero|0@0.000000004", // -0 is 0
		"PAPI_TOT_INS=-9223372036854775808|-9223372036854775808@0.000000005",
	}
	if !equal(got, want) {
		t.Errorf("events\n%q\nwant\n%q", got, want)
	}
	// Six distinct values: -0 and 0 are one.
	if n := len(tr.Values); n != 6 {
		t.Errorf("%d values, want 6", n)
	}
}

func TestEventValueRange(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
	}{
		{"18446744073709551616", "value 18446744073709551616 is out of range for an unsigned 64-bit event value"},
		{"99999999999999999999999", "value 99999999999999999999999 is out of range for an unsigned 64-bit event value"},
		{"-9223372036854775809", "value -9223372036854775809 is out of range for a 64-bit event value (the least is -9223372036854775808)"},
		{"12a", `event value "12a" is not an integer`},
		{"", `event value "" is not an integer`},
		{"-", `event value "-" is not an integer`},
		{"+5", `event value "+5" is not an integer`},
	} {
		// The record is skipped, as Paraver skips it, with its cause.
		tr, notes, err := decodeNotes([]byte(twoThreads+"2:1:1:1:1:0:5:1\n2:1:1:1:1:0:5:"+c.in+"\n"), threadView)
		want := "skipped 1 event records (2:) that Paraver's reader also rejects (first: line 3: field 8: " + c.want + ")"
		if err != nil || len(notes) != 1 || notes[0] != want {
			t.Errorf("%q: got %v, %q; want %q", c.in, err, notes, want)
		}
		if tr.Events.Len() != 1 {
			t.Errorf("%q: %d events, want the good one", c.in, tr.Events.Len())
		}
	}
}
