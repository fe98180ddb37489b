package pjdump

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/readers/textlines"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// pj_dump prints the dates of the Pajé trace it reads as they are, and
// StarPU writes its paje.trace in milliseconds: StarVZ's CSV dumps of it
// (entities.csv and paje.*.csv) are in milliseconds too, while SimGrid's
// and PajeNG's dumps are in seconds. The door's time_unit option (auto)
// tells them apart as the Pajé reader does, by StarPU's container types
// (trace.LooksStarPU), read from the hierarchy alone: every part of a
// split or partitioned read decides the same unit, whatever its rows.

// starPU reports whether the pj_dump output at path (a file, or a
// directory of split files) is starPU's: its container types are those
// starpu_fxt_tool defines. In a directory only the hierarchy files
// (entities.csv, *.container.csv) are read; in a single file, the
// container lines, up to the last one if need be (a scan of the file
// that stops as soon as starPU's three types have been seen).
func starPU(path string, opt readOptions) (bool, error) {
	st, err := os.Stat(path)
	if err != nil {
		return false, err
	}
	files, wholeFile := []string{path}, true
	if st.IsDir() {
		all, err := dirFiles(path)
		if err != nil {
			return false, err
		}
		files, wholeFile = nil, false
		for _, f := range all {
			if _, hierarchy := partName(filepath.Base(f)); hierarchy {
				files = append(files, f)
			}
		}
	}
	seen := &containerTypes{names: map[string]bool{}}
	for _, p := range files {
		found, err := seen.scan(p, wholeFile, opt)
		if found || err != nil {
			return found, err
		}
	}
	return false, nil
}

// errFound stops a scan once StarPU's container types have been seen.
var errFound = errors.New("StarPU's container types found")

// containerTypes is a sink that keeps the names of the container types
// defined, for StarPU; the scan gives it container lines only.
type containerTypes struct {
	trace.Sink // nil: only the hierarchy's methods are called
	names      map[string]bool
}

func (c *containerTypes) DefineType(t trace.Type) {
	if t.Kind == trace.KindContainer {
		c.names[t.Name] = true
	}
}
func (c *containerTypes) CreateContainer(trace.Container) {}

func (c *containerTypes) has(name string) bool { return c.names[name] }

// scan decodes the container lines of the file at path (of a hierarchy
// file, every line: its other rows are type declarations, which the
// decoder passes over) and reports whether StarPU's types are among them.
// An error in the file is left for the read to report.
func (c *containerTypes) scan(path string, wholeFile bool, opt readOptions) (bool, error) {
	f, err := ingest.OpenFile(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	d := newDecoder(c)
	d.startFile(path)
	if wholeFile {
		if ok, err := cuttable(f); err == nil && ok {
			// Plain text without a header: the fast scan of the container
			// lines that the parts of a distributed read make.
			st, err := f.Stat()
			if err != nil {
				return false, err
			}
			if !mentions(f, st.Size(), starPUTypeNamed, starPURareByte) {
				return false, nil
			}
			d.sawData = true
			d.stop = func() bool { return trace.LooksStarPU(c.has) }
			_, err = d.containerLines(f, 0, st.Size(), 0, opt.ReadOptions)
			return found(err)
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return false, err
		}
	}
	in := textlines.Input{Name: path, MaxDecompressed: opt.MaxDecompressed}
	d.held = opt.Held
	_, err = textlines.Scan(f, in, opt.ReadOptions, func(line []byte, n int) error {
		d.line = n
		if wholeFile && d.sawData && !isContainerLine(line) {
			return nil
		}
		if err := d.parseLine(line); err != nil {
			return err
		}
		if trace.LooksStarPU(c.has) {
			return errFound
		}
		return nil
	})
	return found(err)
}

// found tells what the error that ended a scan says: errFound that the
// types were found, cancellation that the read is canceled; any other is
// left for the read to report.
func found(err error) (bool, error) {
	switch {
	case errors.Is(err, errFound):
		return true, nil
	case errors.Is(err, trace.ErrCanceled):
		return false, err
	}
	return false, nil
}

// starPUTypeNamed is one of StarPU's container types
// (trace.StarPUContainerTypes), the one whose name is least likely to be
// found in other traces, and starPURareByte its byte least likely to be.
const (
	starPUTypeNamed = "Memory Node"
	starPURareByte  = 'y'
)

// mentions reports whether the first size bytes of f hold word. A type
// name is a field's bytes as they are (pj_dump's quotes hold no escapes),
// so a plain dump that does not hold the name of one of StarPU's types
// has no container of that type, and its container lines need not be
// parsed. The file is mapped (ingest.MapFile), else read, by blocks of
// scanBlock bytes that overlap by len(word)-1; a mapped block's pages are
// given back once searched. A read error or a file cut short gives true:
// the scan of the container lines reads it and says what is wrong.
func mentions(f *os.File, size int64, word string, rare byte) bool {
	data, unmap, ok := ingest.MapFile(f, size)
	if !ok {
		return readMentions(f, size, word, rare)
	}
	defer unmap()
	found, err := mappedMentions(f.Name(), data, word, rare)
	return found || err != nil
}

// mappedMentions is mentions searching data, the file mapped: a fault
// (the file cut short meanwhile) ends the search with the error
// ingest.RecoverFault makes of it.
func mappedMentions(name string, data []byte, word string, rare byte) (found bool, err error) {
	defer ingest.RecoverFault(name, &err)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	for off := 0; off < len(data); off += scanBlock {
		if holds(data[off:min(len(data), off+scanBlock+len(word)-1)], word, rare) {
			return true, nil
		}
		ingest.DropPages(data[off:min(len(data), off+scanBlock)])
	}
	return false, nil
}

// readMentions is mentions reading f.
func readMentions(f io.ReaderAt, size int64, word string, rare byte) bool {
	buf := make([]byte, min(scanBlock, size))
	for off := int64(0); off < size; {
		k, err := f.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		if k == 0 {
			return err != nil
		}
		if holds(buf[:k], word, rare) {
			return true
		}
		if off+int64(k) >= size {
			break
		}
		off += int64(max(k-len(word)+1, 1))
	}
	return false
}

// holds reports whether block holds word. The word's rare byte is
// searched for (bytes.IndexByte, many bytes at once), and the word checked
// around it: its first byte would stop the search at every MPI_... of an
// MPI trace.
func holds(block []byte, word string, rare byte) bool {
	at := strings.IndexByte(word, rare)
	for i := 0; ; i++ {
		j := bytes.IndexByte(block[i:], rare)
		if j < 0 {
			return false
		}
		i += j
		if from := i - at; from >= 0 && from+len(word) <= len(block) && string(block[from:from+len(word)]) == word {
			return true
		}
	}
}
