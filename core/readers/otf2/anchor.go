package otf2

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
)

// Markers that structure every OTF2 file. A file is a sequence of chunks;
// each chunk begins with a header and ends with endOfChunk padding.
const (
	endOfChunk  = 0x00
	endOfBuffer = 0x01
	endOfFile   = 0x02
	chunkHeader = 0x03
	timestamp   = 0x05 // events: the time of the records that follow
	attrList    = 0x06 // events: attributes of the next event record

	littleEndian = 0x42
	bigEndian    = 0x23

	// chunkHeaderSize is the header of a chunk in definition and event
	// files: marker, byte order, then the numbers of the chunk's first and
	// last events as full 8-byte integers.
	chunkHeaderSize = 18
)

// OTF2's file substrates and compressions (anchor file codes).
const (
	substratePOSIX  = 1
	substrateSION   = 2
	substrateNone   = 3
	compressionNone = 1
	compressionZlib = 2
)

// anchor is the content of the .otf2 anchor file that describes an archive.
type anchor struct {
	path                    string // the anchor file
	dir, name               string // the archive's directory and name ("traces")
	format                  uint8  // anchor file format
	version                 [3]uint8
	chunkEvents, chunkDefs  uint64
	substrate, compression  uint8
	locations, globalDefs   uint64
	machine, creator, descr string
	properties              map[string]string
	traceID                 uint64
	snapshots, thumbnails   uint32
}

// globalDefsPath, localDefsPath and eventsPath name the archive's files.
func (a *anchor) globalDefsPath() string { return filepath.Join(a.dir, a.name+".def") }

func (a *anchor) localDefsPath(loc uint64) string {
	return filepath.Join(a.dir, a.name, strconv.FormatUint(loc, 10)+".def")
}

func (a *anchor) eventsPath(loc uint64) string {
	return filepath.Join(a.dir, a.name, strconv.FormatUint(loc, 10)+".evt")
}

// findAnchor accepts the anchor file itself or a directory holding exactly
// one anchor file, whatever its name: Score-P writes traces.otf2, APEX
// APEX.otf2. In a directory, the anchor is the *.otf2 file that starts
// like one (OTF2's header and magic); the archive's other files are named
// after it (APEX.def, APEX/0.evt).
func findAnchor(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !st.IsDir() {
		if !strings.HasSuffix(path, ".otf2") {
			return "", errs.Argument("path", "%s is not an OTF2 anchor file (*.otf2)", path)
		}
		return path, nil
	}
	candidates, err := filepath.Glob(filepath.Join(path, "*.otf2"))
	if err != nil {
		return "", err
	}
	var found []string
	for _, c := range candidates {
		if isAnchor(path, c) {
			found = append(found, c)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		if len(candidates) > 0 {
			return "", errs.Argument("path", "directory %s holds no OTF2 anchor file: no *.otf2 file there (%s) starts like one",
				path, baseNames(candidates))
		}
		if why := explainDir(path); why != "" {
			return "", errs.Format(path, 0, "is %s", why)
		}
		return "", errs.Argument("path", "directory %s holds no OTF2 anchor file (*.otf2)", path)
	}
	return "", errs.Argument("path", "directory %s holds %d OTF2 archives (%s): give the anchor file of the one to read",
		path, len(found), baseNames(found))
}

func baseNames(paths []string) string {
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = filepath.Base(p)
	}
	return strings.Join(names, ", ")
}

// isAnchor reports whether the regular file at path starts like an OTF2
// anchor file: a header with a byte order mark, then the magic "OTF2".
func isAnchor(dir, path string) bool {
	st, err := ingest.CheckIn(dir, path)
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	f, err := ingest.OpenIn(dir, path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 16)
	n, _ := io.ReadFull(f, head)
	c := cursor{buf: head[:n]}
	if readHeader(&c, false) != nil {
		return false
	}
	return c.str() == "OTF2" && c.err == nil
}

// maxAnchor bounds an anchor file, a few hundred bytes of properties.
const maxAnchor = 16 << 20

// readAnchor reads and checks the anchor file at path.
func readAnchor(path string) (*anchor, error) {
	data, err := ingest.ReadFileIn(filepath.Dir(path), path, maxAnchor)
	if err != nil {
		return nil, err
	}
	a, derr := decodeAnchor(data)
	if derr != nil {
		return nil, &errs.FormatError{File: path, AtOffset: true, Offset: derr.offset, Err: errorString(derr.msg)}
	}
	a.path = path
	a.dir = filepath.Dir(path)
	a.name = strings.TrimSuffix(filepath.Base(path), ".otf2")
	if err := a.supported(); err != nil {
		return nil, &errs.FormatError{File: path, Err: err}
	}
	return a, nil
}

// decodeAnchor parses an anchor file. Its layout: an unchunked header
// (marker and byte order), the magic "OTF2", the anchor format, the trace
// format, the OTF2 version, chunk sizes, substrate, compression, counts of
// locations and definitions, three strings, then (format 2 and later) the
// properties and trace identifier, and (format 3 and later) the numbers of
// snapshots and thumbnails, then an end-of-file marker.
func decodeAnchor(data []byte) (*anchor, *decodeError) {
	c := cursor{buf: data}
	if err := readHeader(&c, false); err != nil {
		return nil, err
	}
	if magic := c.str(); c.err == nil && magic != "OTF2" {
		return nil, &decodeError{offset: 2, msg: "not an OTF2 anchor file (magic " + strconv.Quote(magic) + ")"}
	}
	a := &anchor{properties: map[string]string{}}
	a.format = c.u8()
	if c.err == nil && a.format == 0 {
		c.pos--
		c.fail(false, "invalid anchor file format 0")
	}
	c.u8() // trace format, always 2 so far
	for i := range a.version {
		a.version[i] = c.u8()
	}
	a.chunkEvents = c.u64Full()
	a.chunkDefs = c.u64Full()
	a.substrate = c.u8()
	a.compression = c.u8()
	a.locations = c.u64Full()
	a.globalDefs = c.u64Full()
	a.machine = c.str()
	a.creator = c.str()
	a.descr = c.str()
	if a.format > 1 {
		n := c.u32Full()
		for i := uint32(0); i < n && c.err == nil; i++ {
			k := c.str()
			a.properties[k] = c.str()
		}
		a.traceID = c.u64Full()
	}
	if a.format > 2 {
		a.snapshots = c.u32Full()
		a.thumbnails = c.u32Full()
	}
	if a.format <= 3 { // the formats we know end with an end-of-file marker
		if m := c.u8(); c.err == nil && m != endOfFile {
			c.pos--
			c.fail(false, "expected the end-of-file marker, found byte 0x%02x", m)
		}
	}
	if c.err != nil {
		return nil, c.err
	}
	return a, nil
}

// supported tells why an archive cannot be read, if it cannot.
func (a *anchor) supported() error {
	switch a.substrate {
	case substratePOSIX:
	case substrateSION:
		return errorString("the archive uses the SIONlib file substrate, which packs the location files into SIONlib containers; this reader only reads the POSIX substrate (one file per location)")
	case substrateNone:
		return errorString("the archive was written with the NONE file substrate: it has no event files")
	default:
		return errorString("unknown file substrate " + strconv.Itoa(int(a.substrate)))
	}
	switch a.compression {
	case compressionNone:
	case compressionZlib:
		return errorString("the archive is zlib-compressed, which this reader does not support")
	default:
		return errorString("unknown compression " + strconv.Itoa(int(a.compression)))
	}
	// A chunk must hold at least its header and one marker byte; the upper
	// bound only guards against absurd values in a damaged file.
	for _, size := range []uint64{a.chunkEvents, a.chunkDefs} {
		if size <= chunkHeaderSize || size > 1<<32 {
			return errorString("invalid chunk size " + strconv.FormatUint(size, 10))
		}
	}
	return nil
}

// readHeader reads a chunk header and sets the cursor's byte order. Files
// other than the anchor file are chunked: their headers also carry event
// numbers, which the reader does not need.
func readHeader(c *cursor, chunked bool) *decodeError {
	start := c.pos
	if m := c.u8(); c.err == nil && m != chunkHeader {
		c.pos = start
		c.fail(false, "expected a chunk header, found byte 0x%02x", m)
	}
	switch order := c.u8(); {
	case c.err != nil:
	case order == littleEndian:
		c.big = false
	case order == bigEndian:
		c.big = true
	default:
		c.pos--
		c.fail(false, "invalid byte order mark 0x%02x", order)
	}
	if chunked {
		c.u64Full() // first event of the chunk
		c.u64Full() // last event of the chunk
	}
	return c.err
}

// errorString is an error with a fixed message.
type errorString string

func (e errorString) Error() string { return string(e) }
