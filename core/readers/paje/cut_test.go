package paje

import (
	"bytes"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestCutLastLine: a file whose last line lacks its '\n' was cut (its
// last number may be cut too): the trace is marked incomplete, whether
// the line was read by the pipeline's tokenizers or line by line, and
// whichever file of several it ends. A file ending with its '\n' is
// complete.
func TestCutLastLine(t *testing.T) {
	data, err := os.ReadFile("../../../testdata/jacobi32.trace")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	lines := strings.Count(text, "\n")
	if !strings.HasSuffix(text, "\n") {
		t.Fatal("the bundled trace should end with its '\\n'")
	}
	// Cut before the last '\n': every field of the last line is there,
	// but nothing tells whether its last number was whole. (Cuts that
	// leave a line short of fields fail the read with a FormatError.)
	cut := text[:len(text)-1]
	for _, chunk := range []int{0, 4096, 1 << 20} {
		var notes trace.Notes
		o := readWith([][2]string{{"c.trace", cut}}, Options{ReadOptions: trace.ReadOptions{Notes: &notes}}, chunk, nil)
		want := []string{"c.trace: the last line (" + strconv.Itoa(lines) + ") has no end of line: the file is cut"}
		if o.err != "" || !slices.Equal(notes.IncompleteReasons(), want) {
			t.Errorf("chunk %d: err %q, reasons %q, want %q", chunk, o.err, notes.IncompleteReasons(), want)
		}
		var whole trace.Notes
		o = readWith([][2]string{{"w.trace", text}}, Options{ReadOptions: trace.ReadOptions{Notes: &whole}}, chunk, nil)
		if o.err != "" || len(whole.IncompleteReasons()) != 0 {
			t.Errorf("chunk %d, whole file: err %q, reasons %q", chunk, o.err, whole.IncompleteReasons())
		}
	}
	// The first of two files cut: its name and line are given.
	head := text[:strings.Index(text, "\n0 ")+1] // the definitions
	var notes trace.Notes
	o := readWith([][2]string{{"defs.trace", strings.TrimSuffix(head, "\n")}, {"rest.trace", text[len(head):]}},
		Options{ReadOptions: trace.ReadOptions{Notes: &notes}}, 0, nil)
	defLines := strings.Count(head, "\n")
	want := []string{"defs.trace: the last line (" + strconv.Itoa(defLines) + ") has no end of line: the file is cut"}
	if o.err != "" || !slices.Equal(notes.IncompleteReasons(), want) {
		t.Errorf("two files: err %q, reasons %q, want %q", o.err, notes.IncompleteReasons(), want)
	}
}

// TestCutLastLineKinds: a file whose last line has no end of line was cut
// (the corruption suite found a Pajé file cut at half its size that read
// as complete, its last state's value shortened): the trace is marked
// incomplete. A last comment or blank line without '\n' is no sign.
func TestCutLastLineKinds(t *testing.T) {
	body := miniHeader + "3 1 p1 S a\n"
	lines := strings.Count(body, "\n")
	for _, c := range []struct {
		in   string
		want string
	}{
		{body, ""},
		{body + "3 2 p1 S ab", "incomplete: t.trace: the last line (" + strconv.Itoa(lines+1) + ") has no end of line: the file is cut"},
		{body + "3 2", ""}, // too short to parse: an error, tested below
		{body + "# the end", ""},
		{body + "  \t", ""},
	} {
		for _, serial := range []bool{false, true} {
			notes := &trace.Notes{}
			d := newDecoder(trace.New(), Options{ReadOptions: trace.ReadOptions{Notes: notes}}, 0)
			d.serial = serial
			err := d.decode(bytes.NewReader([]byte(c.in)), "t.trace")
			if err == nil {
				err = d.finish()
			}
			if c.in == body+"3 2" {
				if err == nil {
					t.Errorf("a line cut inside its fields reads")
				}
				continue
			}
			got := strings.Join(notes.Messages(), "\n")
			if err != nil || got != c.want {
				t.Errorf("%q (serial %v): %v, notes %q, want %q", c.in[len(body):], serial, err, got, c.want)
			}
		}
	}
}
