package rocprof

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/macroscope-hpc/macroscope/core/budget"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// gzipFile writes what write writes, gzip-compressed, to a file of dir.
func gzipFile(t *testing.T, name string, write func(w io.Writer)) string {
	t.Helper()
	var b bytes.Buffer
	w, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
	write(w)
	w.Close()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func repeat(w io.Writer, mib int) {
	chunk := bytes.Repeat([]byte("a"), 1<<20)
	for range mib {
		w.Write(chunk)
	}
}

// A string of 300 MiB in a rocprofv3 JSON file, or a CSV line of as much,
// stops the read with a FormatError naming the file, instead of a buffer
// of its size.
func TestLongValuesRefused(t *testing.T) {
	js := gzipFile(t, "run_results.json.gz", func(w io.Writer) {
		io.WriteString(w, `{"rocprofiler-sdk-tool": [{"strings": {"x": "`)
		repeat(w, 300)
		io.WriteString(w, `"}}]}`)
	})
	err := readJSONFile(js, trace.New(), trace.ReadOptions{})
	var fe *errs.FormatError
	if !errors.As(err, &fe) || fe.File != js || !strings.Contains(err.Error(), "runs past 256 MiB") {
		t.Errorf("JSON: %v", err)
	}
	csv := gzipFile(t, "1_kernel_trace.csv.gz", func(w io.Writer) {
		io.WriteString(w, `"Kind","Agent_Id","Queue_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp"`+"\n")
		repeat(w, 300)
	})
	err = ReadCSV([]string{csv}, false, trace.New(), trace.ReadOptions{})
	if !errors.As(err, &fe) || fe.File != csv || fe.Line != 2 || !strings.Contains(err.Error(), "runs past 256 MiB") {
		t.Errorf("CSV: %v", err)
	}
}

// A long value the JSON decoder buffers weighs against the read's memory
// budget (trace.ReadOptions.Hold), as twice its size: a string of 32 MiB
// without its end under a budget of 16 MiB stops the read with the
// budget's error, where it took 3 times maxValue before reaching it. The
// CSV reader's long line is weighed by textlines.
func TestLongValueWeighed(t *testing.T) {
	js := gzipFile(t, "run_results.json.gz", func(w io.Writer) {
		io.WriteString(w, `{"rocprofiler-sdk-tool": [{"strings": {"x": "`)
		repeat(w, 32)
	})
	stop := make(chan struct{})
	meter := budget.NewMeter(16<<20, func() { close(stop) })
	err := readJSONFile(js, trace.New(), trace.ReadOptions{Hold: meter.Hold, Cancel: stop})
	var ae *errs.ArgumentError
	if !errors.As(meter.Err(), &ae) || ae.Name != "memory_budget" || !strings.Contains(ae.Reason, "more than the memory budget of 16 MiB") {
		t.Errorf("meter: %v", meter.Err())
	}
	if err == nil {
		t.Error("the read went on past its budget")
	}
	if meter.Held() != 0 {
		t.Errorf("%d bytes still held after the read", meter.Held())
	}
}

// Kernel names that are not UTF-8 are read with U+FFFD in place of their
// invalid bytes, and the read says so.
func TestInvalidUTF8Names(t *testing.T) {
	src := corpus(t, "rocprofv3-docs", "kernel_trace.csv")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	for i := 1; i < len(lines); i++ {
		lines[i] = strings.ReplaceAll(lines[i], "_kernel", "_k\xe9\xffernel") // Latin-1, and a byte no text has
	}
	path := filepath.Join(t.TempDir(), "kernel_trace.csv")
	os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644)
	tr := trace.New()
	notes := &trace.Notes{}
	if err := ReadCSV([]string{path}, false, tr, trace.ReadOptions{Notes: notes}); err != nil {
		t.Fatal(err)
	}
	for _, v := range tr.Values {
		if !utf8.ValidString(v.Name) {
			t.Errorf("value %q", v.Name)
		}
	}
	for _, c := range tr.Containers {
		if !utf8.ValidString(c.Name) {
			t.Errorf("container %q", c.Name)
		}
	}
	if !strings.Contains(strings.Join(notes.Messages(), " "), "not valid UTF-8") {
		t.Errorf("notes %q", notes.Messages())
	}
}
