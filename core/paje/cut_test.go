package paje

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestCutLastLine: a file whose last line has no end of line was cut
// (the corruption suite found a Pajé file cut at half its size that read
// as complete, its last state's value shortened): the trace is marked
// incomplete. A last comment or blank line without '\n' is no sign.
func TestCutLastLine(t *testing.T) {
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
