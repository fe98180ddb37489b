package textlines

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

func gz(t *testing.T, text string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(text))
	w.Close()
	return b.Bytes()
}

func collect(t *testing.T, input []byte, opt trace.ReadOptions) ([]string, error) {
	t.Helper()
	var lines []string
	_, err := Scan(bytes.NewReader(input), Input{Name: "f.txt"}, opt, func(text []byte, n int) error {
		if n != len(lines)+1 {
			t.Fatalf("line %d numbered %d", len(lines)+1, n)
		}
		lines = append(lines, string(text))
		return nil
	})
	return lines, err
}

func TestPlainAndGzipGiveTheSameLines(t *testing.T) {
	long := strings.Repeat("x", 3<<20) // longer than the buffer
	text := "a\n\nb c\r\n" + long + "\nlast without newline"
	want := []string{"a\n", "\n", "b c\r\n", long + "\n", "last without newline"}
	for name, input := range map[string][]byte{"plain": []byte(text), "gzip": gz(t, text)} {
		got, err := collect(t, input, trace.ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d lines, want %d", name, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s: line %d differs", name, i+1)
			}
		}
	}
}

// TestTruncatedGzipEndsAtTheCut: compressed input cut short gives the
// lines of what decompresses, as a plain file cut there, and says where
// the compressed data ends.
func TestTruncatedGzipEndsAtTheCut(t *testing.T) {
	full := gz(t, strings.Repeat("0123456789\n", 100000))
	cut := full[:len(full)/2]
	notes := &trace.Notes{}
	got, err := collect(t, cut, trace.ReadOptions{Notes: notes})
	if err != nil {
		t.Fatal(err)
	}
	want, err := collect(t, readertest.Decompressible(t, cut, "gzip"), trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) < 2 || !slices.Equal(got, want) {
		t.Errorf("%d lines, want the %d of the plain cut", len(got), len(want))
	}
	where := fmt.Sprintf("f.txt: the compressed data ends at byte %d, in the middle of its stream", len(cut))
	if r := notes.IncompleteReasons(); len(r) != 1 || !strings.HasPrefix(r[0], where) {
		t.Errorf("incomplete %q, want %q", r, where)
	}
}

func TestLineErrorStopsTheScan(t *testing.T) {
	stop := errors.New("bad record")
	calls := 0
	_, err := Scan(strings.NewReader("1\n2\n3\n"), Input{Name: "f"}, trace.ReadOptions{}, func(_ []byte, n int) error {
		calls++
		if n == 2 {
			return stop
		}
		return nil
	})
	if err != stop || calls != 2 {
		t.Fatalf("err %v after %d calls", err, calls)
	}
}

func TestCancelAndProgress(t *testing.T) {
	input := []byte(strings.Repeat("0123456789\n", 300000)) // ~3.3 MB
	var last, total int64
	opt := trace.ReadOptions{Progress: func(done, all int64) { last, total = done, all }}
	n, err := Scan(bytes.NewReader(input), Input{Name: "f", Before: 7, Total: 99}, opt, func([]byte, int) error { return nil })
	if err != nil || n != int64(len(input)) || last != 7+n || total != 99 {
		t.Fatalf("n %d err %v progress %d/%d", n, err, last, total)
	}
	cancel := make(chan struct{})
	close(cancel)
	_, err = Scan(bytes.NewReader(input), Input{Name: "f"}, trace.ReadOptions{Cancel: cancel}, func([]byte, int) error { return nil })
	if !errors.Is(err, trace.ErrCanceled) {
		t.Fatalf("canceled scan: %v", err)
	}
}

// A line past MaxLine (one line of a decompression bomb) stops the scan
// with an error naming the line, instead of a buffer of its size.
func TestLongLineRefused(t *testing.T) {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte("first line\n"))
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	for range MaxLine>>20 + 2 {
		w.Write(chunk)
	}
	w.Close()
	var held, peak int64
	hold := func(n int64) error {
		held += n
		peak = max(peak, held)
		return nil
	}
	_, err := collect(t, b.Bytes(), trace.ReadOptions{Hold: hold})
	var fe *errs.FormatError
	if !errors.As(err, &fe) || fe.Line != 2 || !strings.Contains(err.Error(), "runs past 256 MiB") {
		t.Errorf("%v", err)
	}
	// The buffer stops growing at MaxLine (append would double it past,
	// to 512 MiB): its last growth holds it and the one before, 384 MiB
	// and a few buffers, weighed before they are made.
	if held != 0 || peak > MaxLine+MaxLine/2+4<<20 || peak < MaxLine {
		t.Errorf("held %d at the end, %d at most", held, peak)
	}
	// Under a budget, the growth that would pass it is refused before the
	// buffer is made, with the budget's error.
	budget := errors.New("over budget")
	held, peak = 0, 0
	_, err = collect(t, b.Bytes(), trace.ReadOptions{Hold: func(n int64) error {
		hold(n)
		if held > 100<<20 {
			return budget
		}
		return nil
	}})
	if !errors.Is(err, budget) || held != 0 || peak > 100<<20+128<<20 {
		t.Errorf("%v: held %d at the end, %d at most", err, held, peak)
	}
}

// TestTruncatedGzipExplained: a line the reader refuses once the
// compressed data ended (the last one, cut short) is refused with why.
func TestTruncatedGzipExplained(t *testing.T) {
	full := gz(t, strings.Repeat("0123456789\n", 100000))
	cut := full[:len(full)/2]
	_, err := Scan(bytes.NewReader(cut), Input{Name: "f.txt"}, trace.ReadOptions{}, func(text []byte, n int) error {
		if len(text) != 11 {
			return errs.Format("f.txt", n, "a line of %d bytes", len(text))
		}
		return nil
	})
	var fe *errs.FormatError
	want := fmt.Sprintf("(the compressed data ends at byte %d, after", len(cut))
	if !errors.As(err, &fe) || fe.File != "f.txt" || fe.Line < 2 || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want a FormatError of f.txt saying %q", err, want)
	}
	// A refusal of the complete data says nothing of a cut.
	_, err = Scan(bytes.NewReader(full), Input{Name: "f.txt"}, trace.ReadOptions{}, func(text []byte, n int) error {
		return errs.Format("f.txt", n, "refused")
	})
	if err == nil || strings.Contains(err.Error(), "compressed data ends") {
		t.Errorf("complete data refused: %v", err)
	}
}
