// Package formats finds the reader for a trace file and runs it: by the
// name the user gives, else by the file's extension, else by its first
// bytes.
package formats

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/chrome"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/otf2"
	"github.com/macroscope-hpc/macroscope/core/paje"
	"github.com/macroscope-hpc/macroscope/core/paraver"
	"github.com/macroscope-hpc/macroscope/core/pjcsv"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Format is a trace format Macroscope reads.
type Format struct {
	Name       string
	Summary    string
	Extensions []string // lower case, with the dot; ".gz" variants listed too
	Read       func(path string, sink trace.Sink, opt trace.ReadOptions) error
	// sniff reports whether the first bytes (decompressed) look like this
	// format.
	sniff func(head []byte) bool
}

// All lists the formats, in the order detection tries them.
var All = []Format{
	{Name: "paje", Summary: "Pajé (PajeNG, SimGrid, StarPU, Akypuera)", Extensions: []string{".paje", ".trace"},
		Read: paje.Read, sniff: looksPaje},
	{Name: "otf2", Summary: "OTF2 archive (Score-P): the .otf2 anchor file or its directory", Extensions: []string{".otf2"},
		Read: otf2.Read},
	{Name: "chrome", Summary: "Chrome/Perfetto trace-event JSON (PyTorch Kineto, PerfFlowAspect), plain or gzip",
		Extensions: []string{".json", ".json.gz", ".pfw"}, Read: chrome.Read, sniff: looksJSON},
	{Name: "paraver", Summary: "Paraver .prv (with .pcf and .row beside it)", Extensions: []string{".prv", ".prv.gz"},
		Read: paraver.Read, sniff: func(h []byte) bool { return bytes.HasPrefix(h, []byte("#Paraver")) }},
	{Name: "pjdump", Summary: "pj_dump CSV output, or a StarVZ directory of split CSV files",
		Extensions: []string{".csv", ".csv.gz"}, Read: pjcsv.Read, sniff: looksPjdump},
}

// ByName returns the format called name.
func ByName(name string) (Format, error) {
	for _, f := range All {
		if f.Name == name {
			return f, nil
		}
	}
	names := make([]string, len(All))
	for i, f := range All {
		names[i] = f.Name
	}
	return Format{}, errs.Argument("format", "unknown format %q (one of %s)", name, strings.Join(names, ", "))
}

// Detect chooses the format of path.
func Detect(path string) (Format, error) {
	st, err := os.Stat(path)
	if err != nil {
		return Format{}, err
	}
	if st.IsDir() {
		if _, err := os.Stat(filepath.Join(path, "traces.otf2")); err == nil {
			return ByName("otf2")
		}
		if files, err := pjcsv.Files(path); err == nil && len(files) > 0 {
			return ByName("pjdump")
		}
		return Format{}, errs.Argument("path", "%s is a directory holding neither an OTF2 archive nor pj_dump files", path)
	}
	lower := strings.ToLower(path)
	for _, f := range All {
		for _, ext := range f.Extensions {
			if strings.HasSuffix(lower, ext) {
				return f, nil
			}
		}
	}
	head, err := firstBytes(path, 512)
	if err != nil {
		return Format{}, err
	}
	for _, f := range All {
		if f.sniff != nil && f.sniff(head) {
			return f, nil
		}
	}
	return Format{}, errs.Format(path, 1, "cannot tell the trace format from the name or the content; name it (format=...)")
}

// Read streams the trace at path into sink, with the reader named format
// ("" to detect it).
func Read(path, format string, sink trace.Sink, opt trace.ReadOptions) error {
	var f Format
	var err error
	if format == "" {
		f, err = Detect(path)
	} else {
		f, err = ByName(format)
	}
	if err != nil {
		return err
	}
	return f.Read(path, sink, opt)
}

// ReadFile reads a whole trace into memory.
func ReadFile(path, format string) (*trace.Trace, error) {
	t := trace.New(path)
	if err := Read(path, format, t, trace.ReadOptions{}); err != nil {
		return nil, err
	}
	return t, nil
}

// firstBytes returns up to n bytes of the file, decompressed if gzip.
func firstBytes(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var r io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		if r, err = gzip.NewReader(br); err != nil {
			return nil, errs.Format(path, 0, "broken gzip header: %v", err)
		}
	}
	head := make([]byte, n)
	k, err := io.ReadFull(r, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, err
	}
	return head[:k], nil
}

func looksPaje(h []byte) bool {
	for _, line := range bytes.Split(h, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		return bytes.HasPrefix(line, []byte("%EventDef")) || bytes.HasPrefix(line, []byte("% EventDef"))
	}
	return false
}

func looksJSON(h []byte) bool {
	h = bytes.TrimLeft(h, " \t\r\n\ufeff")
	return len(h) > 0 && (h[0] == '{' || h[0] == '[')
}

func looksPjdump(h []byte) bool {
	for _, kind := range []string{"Container, ", "State, ", "Variable, ", "Link, ", "Event, "} {
		if bytes.HasPrefix(h, []byte(kind)) {
			return true
		}
	}
	return false
}
