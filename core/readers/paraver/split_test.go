package paraver

import (
	"bytes"
	"testing"
)

// checkShortField compares shortField with the byte-at-a-time reading of
// split (the field up to the next ':', parseInt, or parseEventValue for
// an event's value) at every field start of line.
func checkShortField(t *testing.T, line []byte) {
	for i := 0; i <= len(line); i++ {
		if i > 0 && line[i-1] != ':' {
			continue
		}
		v, end, ok := shortField(line, i)
		if !ok {
			continue
		}
		j := i + bytes.IndexByte(line[i:], ':')
		if j < i {
			j = len(line)
		}
		want, wantOK := parseInt(line[i:j])
		if end != j || !wantOK || v != want {
			t.Fatalf("%q at %d: shortField %d to %d; parseInt %d, %v to %d", line, i, v, end, want, wantOK, j)
		}
		if ev, err := parseEventValue(line[i:j]); err != nil || ev != (eventValue{mag: uint64(v)}) {
			t.Fatalf("%q at %d: shortField %d; parseEventValue %v, %v", line, i, v, ev, err)
		}
	}
}

func TestShortField(t *testing.T) {
	for _, l := range []string{
		"1:1:1:1:1:0:18611:1", "3:2:1:2:1:0:0:3:1:3:1:34432:34432:4096:0", "2:1:1:1:1:0:50000001:1",
		"1:12345678:1234567:123:-4:0x1:", "1:2", "", "1:1:1:1:1:0:18611:1\r", "1:007:0:9999999:99999999",
		"2:1:1:1:1:0:50000001:123456789012345:1234567890123456:99999999999999999999", "12345678", "123456789", "1:123456789012345",
	} {
		checkShortField(t, []byte(l))
	}
}

func FuzzShortField(f *testing.F) {
	f.Add([]byte("3:2:1:2:1:0:0:3:1:3:1:34432:34432:4096:0"))
	f.Add([]byte("2:1:1:1:1:0:50000001:1"))
	f.Add([]byte("1:-1:1a:12345678:1:"))
	f.Fuzz(func(t *testing.T, line []byte) { checkShortField(t, line) })
}
