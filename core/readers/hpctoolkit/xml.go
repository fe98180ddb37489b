package hpctoolkit

import (
	"bufio"
	"cmp"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// xmlDB is an opened XML database: experiment.xml, whose calling-context
// tree names the call path ids of the *.hpctrace files.
type xmlDB struct {
	file  string
	fr    frames
	ids   map[uint64]int32 // call path id -> frame
	unit  uint64           // timestamp ticks per second
	min   uint64           // db-min-time, in ticks
	max   uint64           // db-max-time, in ticks
	hasMM bool             // db-min-time and db-max-time were given
	dir   string           // the database's directory, which its files must stay in
	hdr   uint64           // size of a *.hpctrace header
	glob  string
	lines []xmlLine
	part  [2]int // the trace lines read (options.Lines)
	files []string
}

// xmlLine is one *.hpctrace file and its place in the hierarchy.
type xmlLine struct {
	file string
	path []level
	key  [3]uint64 // host id, rank, thread: the order of the lines
}

func xmlAttrs(se xml.StartElement) map[string]string {
	m := make(map[string]string, len(se.Attr))
	for _, a := range se.Attr {
		m[a.Name.Local] = a.Value
	}
	return m
}

// openXML decodes experiment.xml and lists the trace files.
func openXML(dir string, o options) (*xmlDB, error) {
	return openXMLFile(dir, filepath.Join(dir, "experiment.xml"), o)
}

// openXMLFile is openXML with the experiment file named: one kept under
// another name than experiment.xml (experiment1.xml beside a copy of its
// database), whose traces are still those of its directory.
func openXMLFile(dir, file string, o options) (*xmlDB, error) {
	db := &xmlDB{dir: dir, file: file, glob: "*.hpctrace"}
	f, err := ingest.OpenIn(dir, db.file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := db.decode(bufio.NewReaderSize(f, 1<<16), o); err != nil {
		return nil, err
	}
	if db.unit == 0 {
		return nil, errs.Format(db.file, 0, "%s", profilesOnly("experiment.xml has no TraceDB entry"))
	}
	// The pattern comes from the file: it names files of the database's
	// directory, never of another (hpcprof writes "*.hpctrace").
	if strings.ContainsAny(db.glob, `/\`) || strings.Contains(db.glob, "..") {
		return nil, errs.Format(db.file, 0, "TraceDB's db-glob %s names files outside the database's directory: not read", errs.Quote(db.glob))
	}
	names, err := filepath.Glob(filepath.Join(dir, db.glob))
	if err != nil || len(names) == 0 {
		return nil, errs.Format(db.file, 0, "%s", profilesOnly("no trace file ("+errs.Quote(db.glob)+") beside experiment.xml"))
	}
	for _, n := range names {
		if _, err := ingest.CheckIn(dir, n); err != nil {
			return nil, err
		}
	}
	for _, n := range names {
		db.lines = append(db.lines, xmlLineOf(n))
	}
	slices.SortStableFunc(db.lines, func(a, b xmlLine) int {
		for i := range a.key {
			if c := cmp.Compare(a.key[i], b.key[i]); c != 0 {
				return c
			}
		}
		return cmp.Compare(a.file, b.file)
	})
	db.files = append([]string{db.file}, names...)
	return db, nil
}

// xmlLineOf places a trace file in the hierarchy from its name,
// program-rank-thread-hostid-pid-generation.hpctrace as hpcrun writes it.
func xmlLineOf(name string) xmlLine {
	stem := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	f := strings.Split(stem, "-")
	l := xmlLine{file: name}
	if len(f) >= 6 {
		rank, e1 := strconv.ParseUint(f[len(f)-5], 10, 32)
		thread, e2 := strconv.ParseUint(f[len(f)-4], 10, 32)
		host, e3 := strconv.ParseUint(f[len(f)-3], 16, 64)
		if e1 == nil && e2 == nil && e3 == nil {
			l.key = [3]uint64{host, rank, thread}
			l.path = []level{
				{"Node", "Node " + hostID(host)},
				{"Rank", fmt.Sprintf("Rank %d", rank)},
				{"Thread", fmt.Sprintf("Thread %d", thread)},
			}
			return l
		}
	}
	l.key = [3]uint64{1 << 63, 0, 0}
	l.path = []level{{"Trace file", stem}}
	return l
}

// Element names of the calling-context tree of experiment.xml: procedure
// frames (PF; Pr in older files), inlined procedures (A), loops (L), call
// sites (C) and statements (S).
var cctElements = map[string]bool{"PF": true, "Pr": true, "A": true, "L": true, "C": true, "S": true}

func (db *xmlDB) decode(r io.Reader, o options) error {
	dec := xml.NewDecoder(r)
	procs := map[string]string{}
	files := map[string]string{}
	byIt := map[uint64]int32{}
	byID := map[uint64]int32{}
	// stack holds the enclosing frame of each open element of the tree.
	var stack []int32
	inTree := false
	fail := func(err error) error {
		line, _ := dec.InputPos()
		return errs.Format(db.file, line, "%v", err)
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return errs.Format(db.file, se.Line, "%s", se.Msg)
			}
			return fail(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			name := t.Name.Local
			switch {
			case name == "SecCallPathProfileData":
				inTree = true
			case name == "TraceDB":
				a := xmlAttrs(t)
				db.unit = 1e9
				if u, ok := a["u"]; ok {
					v, err := strconv.ParseUint(u, 10, 64)
					if err != nil || v == 0 {
						return fail(fmt.Errorf("TraceDB: bad time unit u=%s", errs.Quote(u)))
					}
					db.unit = v
				}
				if s, ok := a["db-glob"]; ok && s != "" {
					db.glob = s
				}
				db.hdr = 32
				if s, ok := a["db-header-sz"]; ok {
					if db.hdr, err = strconv.ParseUint(s, 10, 16); err != nil {
						return fail(fmt.Errorf("TraceDB: bad header size %s", errs.Quote(s)))
					}
				}
				lo, e1 := strconv.ParseUint(a["db-min-time"], 10, 64)
				hi, e2 := strconv.ParseUint(a["db-max-time"], 10, 64)
				if e1 == nil && e2 == nil && lo <= hi {
					db.min, db.max, db.hasMM = lo, hi, true
				}
				if _, ok := a["u"]; !ok && db.hasMM && db.min < 1e17 {
					// Older files give no unit; their timestamps are
					// microseconds since the epoch.
					db.unit = 1e6
				}
			case name == "Procedure":
				a := xmlAttrs(t)
				procs[a["i"]] = a["n"]
			case name == "File":
				a := xmlAttrs(t)
				files[a["i"]] = a["n"]
			case inTree && cctElements[name]:
				a := xmlAttrs(t)
				parent := trace.None
				if len(stack) > 0 {
					parent = stack[len(stack)-1]
				}
				frame := parent
				switch name {
				case "PF", "Pr", "A":
					pname, ok := procs[a["n"]]
					if !ok || pname == "" {
						pname = "<unknown procedure>"
					}
					frame = db.fr.add(pname, parent)
				case "L":
					if o.Loops {
						ln := "loop"
						if fn, ok := files[a["f"]]; ok {
							ln = fmt.Sprintf("loop at %s: %s", path.Base(fn), a["l"])
						}
						frame = db.fr.add(ln, parent)
					}
				}
				stack = append(stack, frame)
				if s, ok := a["it"]; ok {
					if v, err := strconv.ParseUint(s, 10, 64); err == nil {
						byIt[v] = frame
					}
				}
				if s, ok := a["i"]; ok {
					if v, err := strconv.ParseUint(s, 10, 64); err == nil {
						byID[v] = frame
					}
				}
			}
		case xml.EndElement:
			name := t.Name.Local
			if name == "SecCallPathProfileData" {
				inTree = false
			} else if inTree && cctElements[name] && len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
	}
	// Files that give trace ids (it) use them in the traces; older ones
	// use the node ids.
	db.ids = byIt
	if len(byIt) == 0 {
		db.ids = byID
	}
	return nil
}

// hpctraceMagic starts every *.hpctrace file.
const hpctraceMagic = "HPCRUN-trace______"

// traceHeader checks a *.hpctrace header and returns the byte order and
// the record size.
func (db *xmlDB) traceHeader(h []byte, file string) (big bool, rec uint64, err error) {
	if len(h) < 24 || string(h[:18]) != hpctraceMagic {
		return false, 0, &errs.FormatError{File: file, Err: errors.New("not an hpcrun trace: no HPCRUN-trace header")}
	}
	switch h[23] {
	case 'b':
		big = true
	case 'l':
	default:
		return false, 0, &errs.FormatError{File: file, AtOffset: true, Offset: 23, Err: fmt.Errorf("unknown byte order %q in the header", h[23])}
	}
	rec = 12
	if db.hdr >= 32 && len(h) >= 32 {
		flags := uint64(0)
		for i := range 8 {
			if big {
				flags = flags<<8 | uint64(h[24+i])
			} else {
				flags |= uint64(h[24+i]) << (8 * i)
			}
		}
		if flags&1 != 0 { // data-centric traces add a metric id
			rec = 16
		}
	}
	return big, rec, nil
}

// read streams the traces into sink.
// read streams the traces into sink.
func (db *xmlDB) read(sink trace.Sink, opt trace.ReadOptions) error {
	_, err := db.readLines(sink, opt)
	return err
}

// readLines streams the traces into sink and tells how many samples each
// trace line had.
func (db *xmlDB) readLines(sink trace.Sink, opt trace.ReadOptions) ([]lineStat, error) {
	var total int64
	for i, l := range db.lines {
		if !inPart(i, db.part) {
			continue
		}
		if st, err := os.Stat(l.file); err == nil {
			total += st.Size()
		}
	}
	lo, hi := db.min, db.max
	if !db.hasMM {
		// No range given: take it from the samples themselves.
		lo, hi = ^uint64(0), 0
		for _, l := range db.lines {
			err := db.scan(l.file, func(ts uint64, _ uint64, _ int64) error {
				lo, hi = min(lo, ts), max(hi, ts)
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
		if lo > hi {
			lo, hi = 0, 0
		}
	}
	toTime := func(ts uint64) (trace.Time, bool) { return db.toTime(lo, hi, ts) }
	end, ok := toTime(hi)
	if !ok {
		return nil, errs.Format(db.file, 0, "the traces' time range [%d, %d] is too long", lo, hi)
	}

	b := newBuilder(sink)
	conts := make([]int32, len(db.lines))
	for i, l := range db.lines {
		conts[i] = b.container(l.path, 0)
	}
	var done int64
	var stats []lineStat
	spans := make([]lineSpan, len(db.lines))
	unknown := int64(0)
	for i, l := range db.lines {
		if !inPart(i, db.part) {
			continue
		}
		fl := newFlame(b, &db.fr, conts[i])
		n := 0
		span := &spans[i]
		err := db.scan(l.file, func(ts, cpid uint64, at int64) error {
			if span.records == 0 {
				span.first = ts
			}
			span.records++
			span.last = ts
			if n++; n%4096 == 0 {
				if err := opt.Canceled(); err != nil {
					return err
				}
				if n%(1<<16) == 0 && opt.Progress != nil {
					opt.Progress(done+at, total)
				}
			}
			t, ok := toTime(ts)
			if !ok {
				return &errs.FormatError{File: l.file, AtOffset: true, Offset: at, Err: fmt.Errorf("timestamp %d lies outside the traces' range [%d, %d] of experiment.xml", ts, lo, hi)}
			}
			if t < fl.last {
				return &errs.FormatError{File: l.file, AtOffset: true, Offset: at, Err: fmt.Errorf("timestamp %d comes before the previous one", ts)}
			}
			f, ok := db.ids[cpid]
			if !ok {
				unknown++
				f = trace.None
			}
			fl.sample(t, f)
			return nil
		})
		if err != nil {
			return nil, err
		}
		fl.close(end, 0)
		stats = append(stats, lineStat{container: fl.container, samples: fl.samples})
		if st, err := os.Stat(l.file); err == nil {
			done += st.Size()
		}
		if opt.Progress != nil {
			opt.Progress(done, total)
		}
		if err := opt.Canceled(); err != nil {
			return nil, err
		}
	}
	if unknown > 0 {
		opt.Notes.Skip("samples in a call path experiment.xml does not list (taken as idle)", unknown)
	}
	db.checkComplete(spans, opt)
	sink.Finish(0, end)
	return stats, nil
}

// toTime converts a timestamp of the range [lo, hi] to a time from lo, in
// nanoseconds; false if it lies outside or does not fit.
func (db *xmlDB) toTime(lo, hi, ts uint64) (trace.Time, bool) {
	d := ts - lo
	if ts < lo || d > hi-lo {
		return 0, false
	}
	if 1e9%db.unit == 0 {
		m := uint64(1e9) / db.unit
		if d > (1<<62)/m {
			return 0, false
		}
		return trace.Time(d * m), true
	}
	return trace.FromSeconds(float64(d) / float64(db.unit))
}

// scan calls fn with the timestamp, call path id and offset of each record
// of a *.hpctrace file.
func (db *xmlDB) scan(file string, fn func(ts, cpid uint64, at int64) error) error {
	f, err := ingest.OpenIn(db.dir, file)
	if err != nil {
		return err
	}
	defer f.Close()
	return db.scanReader(bufio.NewReaderSize(f, 1<<16), file, fn)
}

// scanReader is scan on the content of a *.hpctrace file.
func (db *xmlDB) scanReader(r io.Reader, file string, fn func(ts, cpid uint64, at int64) error) error {
	hdr := make([]byte, max(db.hdr, 24))
	if _, err := io.ReadFull(r, hdr); err != nil {
		return &errs.FormatError{File: file, Err: errors.New("the trace file is cut in its header")}
	}
	big, rec, err := db.traceHeader(hdr, file)
	if err != nil {
		return err
	}
	buf := make([]byte, rec)
	at := int64(len(hdr))
	for {
		k, err := io.ReadFull(r, buf)
		if err == io.EOF {
			return nil
		}
		if err == io.ErrUnexpectedEOF {
			return &errs.FormatError{File: file, AtOffset: true, Offset: at, Err: fmt.Errorf("the last record is cut (%d of %d bytes): the file is truncated", k, rec)}
		}
		if err != nil {
			return &errs.FormatError{File: file, AtOffset: true, Offset: at, Err: err}
		}
		var ts, cpid uint64
		if big {
			ts = beUint(buf[:8])
			cpid = beUint(buf[8:12])
		} else {
			ts = leUint(buf[:8])
			cpid = leUint(buf[8:12])
		}
		if err := fn(ts, cpid, at); err != nil {
			return err
		}
		at += int64(rec)
	}
}

func beUint(b []byte) uint64 {
	var v uint64
	for _, c := range b {
		v = v<<8 | uint64(c)
	}
	return v
}

func leUint(b []byte) uint64 {
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}
