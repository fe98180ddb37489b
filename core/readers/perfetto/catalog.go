package perfetto

import (
	"math"

	"github.com/macroscope-hpc/macroscope/core/readers/pbwalk"
)

// The first pass: what names and places the containers get. Track
// descriptors, process and thread descriptors and process trees may come
// anywhere in the file (another sequence's packets, the end of the trace),
// while a container must be created, with its name and parent, before the
// first state in it. The catalog keeps them: one small record per track,
// process and thread, never per event.

// trackKind tells what a track describes.
type trackKind uint8

const (
	trackCustom  trackKind = iota // async, global or custom track
	trackProcess                  // the process-global track of a process
	trackThread                   // the track of a thread
	trackCounter                  // a counter: its values become a variable
	trackState                    // a state track: its events name the state it is in
)

// trackInfo is what a TrackDescriptor tells of a track.
type trackInfo struct {
	kind      trackKind
	parent    uint64
	hasParent bool
	name      string
	pid, tid  int32
	mult      int64 // counter values' unit multiplier (0: 1)
	increment bool  // counter values are deltas
	// lanes is the lane group of a track that shares its name and parent
	// with others (see lanes.go), set once the catalog is whole.
	lanes *laneGroup
}

type catalog struct {
	inflate     *inflater
	tracks      map[uint64]*trackInfo
	procNames   map[int32]string // from process_name
	procCmds    map[int32]string // from command lines, when no process_name says
	threadNames map[int32]string // from thread descriptors: the last one says
	threadComms map[int32]string // from process trees (the kernel's 15-byte comm)
	threadPID   map[int32]int32
	// seqClock is each sequence's default timestamp clock, to tell which
	// packet timestamps are absolute boot-time ones.
	seqClock map[uint32]uint32
	// first is the earliest boot-time timestamp met (packets, clock
	// snapshots, ftrace events): containers start there.
	first    int64
	hasFirst bool
}

func newCatalog() *catalog {
	return &catalog{inflate: newInflater(), tracks: map[uint64]*trackInfo{}, procNames: map[int32]string{}, procCmds: map[int32]string{},
		threadNames: map[int32]string{}, threadComms: map[int32]string{}, threadPID: map[int32]int32{}, seqClock: map[uint32]uint32{}}
}

// maxTimestamp is the largest timestamp a trace may hold: times are
// nanoseconds in an int64, 292 years; a larger one (a varint of 2^63 and
// more) would turn negative.
const maxTimestamp = math.MaxInt64

// checkTime refuses a timestamp past maxTimestamp, at the field holding it.
func checkTime(f field, what string) error {
	if f.U > maxTimestamp {
		return pbwalk.Corruptf(f.At(), "%s %d is past 2^63-1 ns (292 years): not a time", what, f.U)
	}
	return nil
}

func (c *catalog) sawTime(t int64) {
	if !c.hasFirst || t < c.first {
		c.first, c.hasFirst = t, true
	}
}

// packet reads what the catalog needs from one packet.
func (c *catalog) packet(b []byte, off int64) error {
	var ts uint64
	var hasTS, hasClock bool
	var clock, seq uint32
	var defaults []byte
	var defaultsOff int64
	err := pbwalk.Each(b, off, func(f field) error {
		switch f.Num {
		case pktTimestamp:
			ts, hasTS = f.U, f.IsVarint()
			if err := checkTime(f, "packet timestamp"); err != nil {
				return err
			}
		case pktClockID:
			clock, hasClock = uint32(f.U), true
		case pktSequenceID:
			seq = uint32(f.U)
		case pktDefaults:
			defaults, defaultsOff = f.B, f.Off
		case pktTrackDescriptor:
			return c.trackDescriptor(f)
		case pktProcessDescriptor:
			pid, name, cmd, err := processDescriptor(f)
			if err == nil {
				c.nameProcess(pid, name)
				c.nameProcessCmd(pid, cmd)
			}
			return err
		case pktThreadDescriptor:
			return c.threadDescriptor(f)
		case pktProcessTree:
			return c.processTree(f)
		case pktClockSnapshot:
			return pbwalk.Each(f.B, f.Off, func(g field) error {
				if g.Num != csClocks || !g.IsBytes() {
					return nil
				}
				var id uint64
				var t uint64
				err := pbwalk.Each(g.B, g.Off, func(h field) error {
					switch h.Num {
					case clkID:
						id = h.U
					case clkTimestamp:
						t = h.U
						return checkTime(h, "clock snapshot timestamp")
					}
					return nil
				})
				if err == nil && id == clockBoottime {
					c.sawTime(int64(t))
				}
				return err
			})
		case pktFtraceEvents:
			return c.ftraceTimes(f)
		case pktCompressedPackets, pktZstdCompressed:
			if f.IsBytes() {
				return c.inflate.each(f, f.Num == pktZstdCompressed, c.packet)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if defaults != nil {
		err := pbwalk.Each(defaults, defaultsOff, func(f field) error {
			if f.Num == defaultsClockID {
				c.seqClock[seq] = uint32(f.U)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	if !hasClock {
		clock = c.seqClock[seq]
	}
	if hasTS && (clock == 0 || clock == clockBoottime) {
		c.sawTime(int64(ts))
	}
	return nil
}

// catalogScan is what the catalog makes of a packet on its own, on the
// reading goroutine: most packets hold nothing but their timestamp.
type catalogScan struct {
	ts              uint64
	hasTS, hasClock bool
	clock, seq      uint32
	// full: the packet holds more (descriptions, clocks, defaults,
	// compressed packets), and catalog.packet walks it again, in order.
	full bool
	err  error
}

// scan fills s for the packet b at offset off.
func (s *catalogScan) scan(b []byte, off int64) {
	if s.scanCommon(b) {
		return
	}
	s.scanAll(b, off)
}

// scanCommon is scan for the packets most traces are made of: a
// timestamp, a track event, a sequence id, each tag one byte; false when
// a packet holds more, or is malformed, and scanAll reads it.
func (s *catalogScan) scanCommon(b []byte) bool {
	*s = catalogScan{}
	for pos := 0; pos < len(b); {
		c := b[pos]
		if c >= 0x80 || c < 8 {
			return false
		}
		pos++
		switch c {
		case pktTimestamp << 3, pktSequenceID << 3: // varints
			v, next := varintAt(b, pos)
			if next < 0 {
				return false
			}
			pos = next
			if c>>3 == pktSequenceID {
				s.seq = uint32(v)
			} else if v <= maxTimestamp {
				s.ts, s.hasTS = v, true
			} else {
				return false
			}
		case pktTrackEvent<<3 | 2:
			l, next := varintAt(b, pos)
			if next < 0 || l > uint64(len(b)-next) {
				return false
			}
			pos = next + int(l)
		default:
			return false
		}
	}
	return true
}

// varintAt decodes the varint at b[pos:]: its value and the position after
// it; -1 when it is cut or longer than 64 bits.
func varintAt(b []byte, pos int) (uint64, int) {
	var x uint64
	for s := uint(0); s < 64 && pos < len(b); s += 7 {
		c := b[pos]
		pos++
		if c < 0x80 {
			if s == 63 && c > 1 {
				return 0, -1
			}
			return x | uint64(c)<<s, pos
		}
		x |= uint64(c&0x7f) << s
	}
	return 0, -1
}

// scanAll is scan for packets of any encoding.
func (s *catalogScan) scanAll(b []byte, off int64) {
	*s = catalogScan{}
	it := pbwalk.NewIter(b, off)
	var f field
	for {
		ok, err := it.Next(&f)
		if !ok {
			s.err = err
			return
		}
		if !s.field(&f) {
			return
		}
	}
}

// field reads one field of the packet; false once the scan is over.
func (s *catalogScan) field(f *field) bool {
	switch f.Num {
	case pktTimestamp:
		s.ts, s.hasTS = f.U, f.IsVarint()
		if err := checkTime(*f, "packet timestamp"); err != nil {
			s.err = err
			return false
		}
	case pktClockID:
		s.clock, s.hasClock = uint32(f.U), true
	case pktSequenceID:
		s.seq = uint32(f.U)
	case pktDefaults, pktTrackDescriptor, pktProcessDescriptor, pktThreadDescriptor, pktProcessTree,
		pktClockSnapshot, pktFtraceEvents, pktCompressedPackets, pktZstdCompressed:
		s.full = true
		return false
	}
	return true
}

// apply does what packet does, for a packet scanned into s.
func (c *catalog) apply(b []byte, off int64, s *catalogScan) error {
	if s.full {
		return c.packet(b, off)
	}
	if s.err != nil {
		return s.err
	}
	clock := s.clock
	if !s.hasClock {
		clock = c.seqClock[s.seq]
	}
	if s.hasTS && (clock == 0 || clock == clockBoottime) {
		c.sawTime(int64(s.ts))
	}
	return nil
}

// trackDescriptor records a track; a track described twice keeps what
// its first description said, completed by the later ones.
func (c *catalog) trackDescriptor(f field) error {
	var uuid uint64
	t := trackInfo{}
	var procName, procCmd, threadName string
	err := pbwalk.Each(f.B, f.Off, func(g field) error {
		switch g.Num {
		case tdUUID:
			uuid = g.U
		case tdParentUUID:
			t.parent, t.hasParent = g.U, true
		case tdName, tdStaticName, tdAtraceName:
			if g.IsBytes() {
				t.name = g.String()
			}
		case tdProcess:
			pid, name, cmd, err := processDescriptor(g)
			if err != nil {
				return err
			}
			if t.kind != trackThread {
				t.kind = trackProcess
			}
			t.pid, procName, procCmd = pid, name, cmd
		case tdThread:
			pid, tid, name, _, err := threadDescriptor(g)
			if err != nil {
				return err
			}
			t.kind, t.pid, t.tid, threadName = trackThread, pid, tid, name
		case tdState:
			t.kind = trackState
		case tdCounter:
			t.kind = trackCounter
			return pbwalk.Each(g.B, g.Off, func(h field) error {
				switch h.Num {
				case cdUnitMult:
					t.mult = h.Int64()
				case cdIncremental:
					t.increment = h.Bool()
				}
				return nil
			})
		}
		return nil
	})
	if err != nil {
		return err
	}
	switch t.kind {
	case trackProcess:
		c.nameProcess(t.pid, procName)
		c.nameProcessCmd(t.pid, procCmd)
	case trackThread:
		c.nameThread(t.pid, t.tid, threadName)
	}
	if old, ok := c.tracks[uuid]; ok {
		if old.name == "" {
			old.name = t.name
		}
		if !old.hasParent {
			old.parent, old.hasParent = t.parent, t.hasParent
		}
		return nil
	}
	c.tracks[uuid] = &t
	return nil
}

func (c *catalog) nameProcess(pid int32, name string) {
	if name != "" && c.procNames[pid] == "" {
		c.procNames[pid] = name
	}
}

// nameProcessCmd records a name from a command line, which a
// process_name, even a later one, overrides: Chromium describes each
// process first with its command line and an empty name, then again with
// its name ("GPU Process", "Renderer").
func (c *catalog) nameProcessCmd(pid int32, cmd string) {
	if cmd != "" && c.procCmds[pid] == "" {
		c.procCmds[pid] = cmd
	}
}

// processName is the name of process pid: its process_name, else its
// command line; "" if none is known.
func (c *catalog) processName(pid int32) string {
	if n := c.procNames[pid]; n != "" {
		return n
	}
	return c.procCmds[pid]
}

// nameThread records a thread's name from a thread descriptor: a later
// one wins, as in trace processor (Chromium describes each thread first
// with its 15-byte kernel name, "ThreadPoolForeg", then with its full
// one, "ThreadPoolForegroundWorker").
func (c *catalog) nameThread(pid, tid int32, name string) {
	if name != "" {
		c.threadNames[tid] = name
	}
	c.threadOf(pid, tid)
}

// nameThreadComm records a thread's name from a process tree, which a
// descriptor's name overrides.
func (c *catalog) nameThreadComm(pid, tid int32, name string) {
	if name != "" && c.threadComms[tid] == "" {
		c.threadComms[tid] = name
	}
	c.threadOf(pid, tid)
}

// threadName is the name of thread tid; "" if none is known.
func (c *catalog) threadName(tid int32) string {
	if n := c.threadNames[tid]; n != "" {
		return n
	}
	return c.threadComms[tid]
}

// threadOf records the process of a thread, the first one said.
func (c *catalog) threadOf(pid, tid int32) {
	if pid != 0 {
		if _, ok := c.threadPID[tid]; !ok {
			c.threadPID[tid] = pid
		}
	}
}

// threadDescriptor reads a ThreadDescriptor packet of an old writer: its
// reference time precedes the delta-encoded times of its sequence.
func (c *catalog) threadDescriptor(f field) error {
	pid, tid, name, refUS, err := threadDescriptor(f)
	if err == nil {
		c.nameThread(pid, tid, name)
		if refUS != 0 {
			c.sawTime(refUS * 1000)
		}
	}
	return err
}

// processDescriptor reads a ProcessDescriptor: its pid, process name
// and the first entry of its command line.
func processDescriptor(f field) (pid int32, name, cmdline string, err error) {
	err = pbwalk.Each(f.B, f.Off, func(g field) error {
		switch g.Num {
		case pdPID:
			pid = g.Int32()
		case pdProcessName:
			name = g.String()
		case pdCmdline:
			if cmdline == "" {
				cmdline = g.String()
			}
		}
		return nil
	})
	return pid, name, cmdline, err
}

// threadDescriptor reads a ThreadDescriptor.
func threadDescriptor(f field) (pid, tid int32, name string, refUS int64, err error) {
	err = pbwalk.Each(f.B, f.Off, func(g field) error {
		switch g.Num {
		case thPID:
			pid = g.Int32()
		case thTID:
			tid = g.Int32()
		case thThreadName:
			name = g.String()
		case thRefTimeUS:
			refUS = g.Int64()
		}
		return nil
	})
	return
}

// processTree reads the names of processes (first word of the command
// line) and threads, and which process each thread belongs to.
func (c *catalog) processTree(f field) error {
	return pbwalk.Each(f.B, f.Off, func(g field) error {
		switch g.Num {
		case ptProcesses:
			pid, name, err := treeProcess(g)
			if err == nil {
				c.nameProcessCmd(pid, name)
			}
			return err
		case ptThreads:
			tid, tgid, name, err := treeThread(g)
			if err == nil {
				c.nameThreadComm(tgid, tid, name)
			}
			return err
		}
		return nil
	})
}

func treeProcess(f field) (pid int32, name string, err error) {
	err = pbwalk.Each(f.B, f.Off, func(h field) error {
		switch h.Num {
		case ptpPID:
			pid = h.Int32()
		case ptpCmdline:
			if name == "" {
				name = h.String()
			}
		}
		return nil
	})
	return
}

func treeThread(f field) (tid, tgid int32, name string, err error) {
	err = pbwalk.Each(f.B, f.Off, func(h field) error {
		switch h.Num {
		case pttTID:
			tid = h.Int32()
		case pttTGID:
			tgid = h.Int32()
		case pttName:
			name = h.String()
		}
		return nil
	})
	return
}

// ftraceTimes notes the first ftrace timestamp of a bundle, in boot time
// (see ftraceClock).
func (c *catalog) ftraceTimes(f field) error {
	shift, _, _, err := ftraceClock(f)
	if err != nil {
		return err
	}
	return pbwalk.Each(f.B, f.Off, func(g field) error {
		switch g.Num {
		case fbEvent:
			return pbwalk.Each(g.B, g.Off, func(h field) error {
				if h.Num == feTimestamp {
					if err := checkTime(h, "ftrace event timestamp"); err != nil {
						return err
					}
					c.sawTime(int64(h.U) + shift)
				}
				return nil
			})
		case fbCompactSched:
			return pbwalk.Each(g.B, g.Off, func(h field) error {
				if h.Num == csSwitchTS || h.Num == csWakingTS {
					first := true
					return uints(h, false, func(v uint64) {
						if first {
							c.sawTime(int64(v) + shift)
							first = false
						}
					})
				}
				return nil
			})
		}
		return nil
	})
}

// ftraceClock returns what turns the times of an ftrace bundle into boot
// time: 0 for a bundle on boot time, the difference of the two clocks
// read at one instant for one on another clock that gives them (kernels
// older than 4.x, whose ftrace has no boot clock, as trace processor
// converts them), 0 again without them (the times are used as they are).
// other tells that the bundle is on another clock than boot time,
// converted that it gives the two clocks to convert by.
func ftraceClock(f field) (shift int64, other, converted bool, err error) {
	var ftraceTS, bootTS int64
	snapshot := 0
	err = pbwalk.Each(f.B, f.Off, func(g field) error {
		switch g.Num {
		case fbFtraceClock:
			other = g.U > 1 // FTRACE_CLOCK_GLOBAL, LOCAL, MONO_RAW: not boot time
		case fbFtraceTimestamp:
			ftraceTS, snapshot = g.Int64(), snapshot|1
		case fbBootTimestamp:
			bootTS, snapshot = g.Int64(), snapshot|2
		}
		return nil
	})
	if converted = other && snapshot == 3; converted {
		shift = bootTS - ftraceTS
	}
	return shift, other, converted, err
}
