package xplane

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/readers/pbwalk"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Format is the XSpace format of the TensorFlow and JAX profilers.
var Format = ingest.Format{
	Name: "xplane",
	Summary: "TensorFlow / JAX profiler XSpace (.xplane.pb: jax.profiler.trace, tf.profiler, " +
		"a plugins/profile/<run>/ directory)",
	Extensions: []string{ext},
	Sniff:      sniff,
	SniffDir:   func(dir string) bool { files, _ := spaceFiles(dir); return len(files) > 0 },
	Open:       open,
}

// ext is the ending the profilers give their XSpace files,
// <host>.xplane.pb.
const ext = ".xplane.pb"

func open(path string, _ ingest.Values) (*ingest.Source, error) {
	files := []string{path}
	if st, err := ingest.CheckPath(path); err == nil && st.IsDir() {
		files, _ = spaceFiles(path)
		files, _ = oneFilePerHost(files)
	}
	return &ingest.Source{Read: ingest.ReadFunc(path, Read), Files: files, Whole: true}, nil
}

// Read streams the XSpace at path into sink: a file (plain or compressed
// with gzip, bzip2 or zstd), or a directory of the files of one profile,
// one per host, as the profilers write them in plugins/profile/<run>/
// (the directory itself, or the log directory holding it: its latest
// run).
func Read(path string, sink trace.Sink, opt trace.ReadOptions) error {
	st, err := ingest.CheckPath(path)
	if err != nil {
		return err
	}
	files := []string{path}
	dir := "" // a directory's files must stay inside it (ingest.OpenIn)
	if st.IsDir() {
		dir = path
		if files, err = spaceFiles(path); err != nil {
			return err
		}
		if len(files) == 0 {
			return errs.Format(path, 0, "is a directory holding no %s file (nor a plugins/profile/<run>/ directory of them)", ext)
		}
		var left [][2]string
		files, left = oneFilePerHost(files)
		for _, l := range left {
			opt.Warn("%s and %s hold the profile of one host: %s is read, %s left out (a copy, compressed or not, of the same host's space)",
				filepath.Base(l[0]), filepath.Base(l[1]), filepath.Base(l[0]), filepath.Base(l[1]))
		}
	}
	var total int64
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			total += st.Size()
		}
	}
	var done int64
	next := 0
	release := func(data []byte) { opt.Held(-int64(cap(data))) } // what load held
	return decode(path, sink, opt, release, func() ([]byte, string, error) {
		if next == len(files) {
			return nil, "", io.EOF
		}
		f := files[next]
		next++
		data, n, err := load(dir, f, opt, done, total)
		done += n
		return data, f, err
	})
}

// decode reads the spaces next gives (the decompressed bytes of a file,
// and its name; io.EOF after the last) into one trace, named path, and
// streams it into sink. Each file's bytes are given to release once
// decoded.
func decode(path string, sink trace.Sink, opt trace.ReadOptions, release func([]byte), next func() ([]byte, string, error)) error {
	m := newModel(opt)
	defer m.release()
	for {
		data, f, err := next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		m.file = f
		err = m.decodeSpace(data, hostStem(f))
		release(data)
		if err == nil {
			err = m.err
		}
		if err != nil {
			return located(f, err)
		}
	}
	if len(m.recs) == 0 {
		opt.Warn("%s holds no timed event on the planes a timeline shows (%s, %s*, %s* or %s*)", path,
			hostThreadsPlane, gpuPlanePrefix, tpuPlanePrefix, customPlane)
	}
	if err := m.emit(sink, path); err != nil {
		return err
	}
	m.text.Note(opt, path)
	return nil
}

// hostStem is the host's name in a file's name: <host>.xplane.pb.
func hostStem(path string) string {
	base := filepath.Base(path)
	if i := strings.Index(strings.ToLower(base), ext); i > 0 {
		return base[:i]
	}
	return base
}

// located turns a decoding error into a FormatError naming the file and
// the byte offset (in the decompressed input).
func located(path string, err error) error {
	var c *pbwalk.Corrupt
	if errors.As(err, &c) {
		return &errs.FormatError{File: path, AtOffset: true, Offset: c.Off, Err: c.Err}
	}
	return err
}

// loadChunk is how much of the input is read between two looks at
// cancellation and the memory budget.
const loadChunk = 4 << 20

// load reads the file at path whole, decompressed: an XSpace is one
// message whose planes keep their metadata after their lines, so nothing
// can be decoded before the end of a plane, and the planes of a profile
// are few and large. The bytes count against the read's memory budget
// (the caller gives them back). A file of a directory the user named
// (dir, "" for a file named) must stay inside it, links resolved. done
// and total are the progress before this file and of all files; n is the
// file's size read.
func load(dir, path string, opt trace.ReadOptions, done, total int64) (data []byte, n int64, err error) {
	f, err := ingest.OpenIn(dir, path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	var size int64
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	cr := &ingest.Counter{R: f, Stop: opt.Canceled}
	in, release, err := ingest.Decompress(bufio.NewReaderSize(cr, 64<<10), path, ingest.DefaultMaxDecompressed)
	if err != nil {
		return nil, 0, err
	}
	defer release()
	var held int64
	defer func() {
		if err != nil {
			opt.Held(-held)
		}
	}()
	for {
		if err := opt.Canceled(); err != nil {
			return nil, 0, err
		}
		if len(data) == cap(data) {
			// The file's size first (a plain file fits, with a byte for
			// the read that finds its end), then doubling. The budget is
			// asked before the allocation: a file larger than memory (or
			// sparse) is refused by it, not by the runtime's out of
			// memory, which no caller can recover from.
			more := max(size+1, int64(cap(data)), 4096)
			if more > math.MaxInt-int64(cap(data)) {
				return nil, 0, &errs.FormatError{File: path, Err: fmt.Errorf("is too large to be held in memory (%d bytes read)", len(data))}
			}
			held += more // the budget counts what it refuses too
			if err := opt.Held(more); err != nil {
				return nil, 0, err
			}
			grown := slices.Grow(data, int(more))
			if extra := int64(cap(grown)-cap(data)) - more; extra != 0 { // the allocator's rounding
				held += extra
				if err := opt.Held(extra); err != nil {
					return nil, 0, err
				}
			}
			data = grown
		}
		k, rerr := io.ReadFull(in, data[len(data):min(cap(data), len(data)+loadChunk)])
		data = data[:len(data)+k]
		if opt.Progress != nil {
			opt.Progress(done+cr.N(), total)
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			return data, cr.N(), nil
		}
		if rerr != nil {
			var fe *errs.FormatError
			if errors.As(rerr, &fe) || errors.Is(rerr, trace.ErrCanceled) {
				return nil, 0, rerr
			}
			return nil, 0, &errs.FormatError{File: path, Err: rerr}
		}
	}
}

// spaceFiles lists the XSpace files of a directory: its own, or those of
// the latest run of plugins/profile/ (a log directory given to
// jax.profiler.trace or TensorBoard), or of the latest run directory it
// holds (plugins/profile itself). Run directories are named by their
// date (2024_05_01_12_30_00), so the latest is the last by name.
func spaceFiles(dir string) ([]string, error) {
	own := func(d string) []string {
		entries, err := os.ReadDir(d)
		if err != nil {
			return nil
		}
		var out []string
		for _, e := range entries {
			if !e.IsDir() && strings.HasSuffix(strings.ToLower(ingest.StripCompressed(e.Name())), ext) {
				out = append(out, filepath.Join(d, e.Name()))
			}
		}
		return out
	}
	if files := own(dir); len(files) > 0 {
		return files, nil
	}
	for _, runs := range []string{filepath.Join(dir, "plugins", "profile"), dir} {
		entries, err := os.ReadDir(runs)
		if err != nil {
			continue
		}
		for i := len(entries) - 1; i >= 0; i-- {
			if entries[i].IsDir() {
				if files := own(filepath.Join(runs, entries[i].Name())); len(files) > 0 {
					return files, nil
				}
			}
		}
	}
	return nil, nil
}

// oneFilePerHost keeps one file of each host among a run's files: a run
// directory holding both <host>.xplane.pb and a compressed copy of it
// (<host>.xplane.pb.gz, as a user keeps one beside the other) would read
// the host twice, one plane over the other, every event doubled. The
// uncompressed file, the profiler's own, is kept (else the first by
// name); the pairs of kept and left out files are returned.
func oneFilePerHost(files []string) (kept []string, left [][2]string) {
	byHost := map[string]int{} // the index in kept of each host's file
	for _, f := range files {
		host := strings.ToLower(ingest.StripCompressed(filepath.Base(f)))
		i, seen := byHost[host]
		if !seen {
			byHost[host] = len(kept)
			kept = append(kept, f)
			continue
		}
		if plain := ingest.StripCompressed(f) == f; plain {
			left = append(left, [2]string{f, kept[i]})
			kept[i] = f
		} else {
			left = append(left, [2]string{kept[i], f})
		}
	}
	return kept, left
}

// sniff reports whether head, the first bytes of a file, start an
// XSpace: its first plane (field 1) opening with the plane's id (field
// 1, a varint) or at once its name (field 2), as the profilers name
// their planes: "/host:CPU", "/host:metadata", "/device:GPU:0",
// "/device:TPU:0"... A Perfetto trace also opens with field 1, a
// packet, but no packet opens with these two fields.
func sniff(head []byte) bool {
	if len(head) == 0 || head[0] != 0x0a {
		return false
	}
	_, k := protowire.ConsumeVarint(head[1:])
	if k < 0 {
		return false
	}
	plane := head[1+k:]
	if num, typ, n := protowire.ConsumeTag(plane); n > 0 && num == planeID && typ == protowire.VarintType {
		m := protowire.ConsumeFieldValue(num, typ, plane[n:])
		if m < 0 {
			return false
		}
		plane = plane[n+m:]
	}
	num, typ, n := protowire.ConsumeTag(plane)
	if n < 0 || num != planeName || typ != protowire.BytesType {
		return false
	}
	size, k := protowire.ConsumeVarint(plane[n:])
	if k < 0 {
		return false
	}
	name := plane[n+k:]
	if uint64(len(name)) > size {
		name = name[:size]
	}
	for _, p := range []string{"/host:", "/device:", "/virtualdevice:", "Task Environment"} {
		if bytes.HasPrefix(name, []byte(p)) {
			return true
		}
	}
	return false
}
