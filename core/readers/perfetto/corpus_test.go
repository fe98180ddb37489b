package perfetto

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The corpus tests compare the reader with an oracle: a separate, minimal
// walk of the file's protobuf (encoding/binary varints, no protowire),
// counting what the reader should make of it.

var corpusRoot = filepath.Join("..", "..", "..", "..", "shared", "traces", "perfetto")

func corpusFile(t *testing.T, rel string) string {
	t.Helper()
	path := filepath.Join(corpusRoot, rel)
	if _, err := os.Stat(path); err != nil {
		t.Skip("the shared trace corpus (" + corpusRoot + ") is absent")
	}
	return path
}

// pb is a field as the oracle sees it.
type pb struct {
	num int
	v   uint64
	b   []byte
}

// pbFields splits a message into its fields (wire types 0, 1, 2 and 5).
func pbFields(t *testing.T, b []byte) []pb {
	t.Helper()
	var out []pb
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			t.Fatal("oracle: bad tag")
		}
		b = b[n:]
		f := pb{num: int(key >> 3)}
		switch key & 7 {
		case 0:
			f.v, n = binary.Uvarint(b)
		case 1:
			f.v, n = binary.LittleEndian.Uint64(b), 8
		case 5:
			f.v, n = uint64(binary.LittleEndian.Uint32(b)), 4
		case 2:
			l, k := binary.Uvarint(b)
			f.b, n = b[k:k+int(l)], k+int(l)
		default:
			t.Fatalf("oracle: wire type %d", key&7)
		}
		b = b[n:]
		out = append(out, f)
	}
	return out
}

func get(fs []pb, num int) (pb, bool) {
	for _, f := range fs {
		if f.num == num {
			return f, true
		}
	}
	return pb{}, false
}

// oracle is what the walk counts.
type oracle struct {
	packets   int
	byKind    map[int]int // packets by data field
	tracks    map[uint64]bool
	counters  map[uint64]bool
	begins    int
	ends      int
	instants  int
	depths    map[int32]int // depth of each begin, per track stack
	links     int
	timestamp []uint64
	withCats  int // events with categories
	withArgs  int // events with arguments (fields the model does not read)
}

func walkOracle(t *testing.T, path string) *oracle {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	o := &oracle{byKind: map[int]int{}, tracks: map[uint64]bool{}, counters: map[uint64]bool{}, depths: map[int32]int{}}
	stacks := map[uint64]int{}
	flows := map[uint64]bool{}
	rel := map[uint64][2]uint64{} // clock id -> (its value, boot time) at the latest snapshot
	meta := map[int]bool{3: true, 8: true, 10: true, 12: true, 13: true, 41: true, 42: true, 58: true, 59: true, 79: true, 87: true, 98: true}
	for _, top := range pbFields(t, data) {
		if top.num != 1 {
			t.Fatalf("oracle: top-level field %d", top.num)
		}
		o.packets++
		p := pbFields(t, top.b)
		// Clock snapshots relate built-in clocks to boot time (6); the
		// corpus uses no sequence-scoped clock nor default clock.
		if f, ok := get(p, 6); ok {
			var boot uint64
			vals := map[uint64]uint64{}
			for _, c := range pbFields(t, f.b) {
				cf := pbFields(t, c.b)
				id, _ := get(cf, 1)
				v, _ := get(cf, 2)
				vals[id.v] = v.v
			}
			boot = vals[6]
			for id, v := range vals {
				rel[id] = [2]uint64{v, boot}
			}
			o.timestamp = append(o.timestamp, boot)
		}
		if f, ok := get(p, 8); ok {
			ts := f.v
			if c, ok := get(p, 58); ok && c.v != 6 {
				r, ok := rel[c.v]
				if !ok || c.v >= 64 {
					t.Fatalf("oracle: clock %d without a snapshot", c.v)
				}
				ts = ts - r[0] + r[1]
			}
			o.timestamp = append(o.timestamp, ts)
		}
		if _, ok := get(p, 59); ok {
			t.Fatal("oracle: the corpus has no packet defaults; this walk handles none")
		}
		for _, f := range p {
			if meta[f.num] {
				continue
			}
			o.byKind[f.num]++
			switch f.num {
			case 60: // TrackDescriptor
				d := pbFields(t, f.b)
				uuid, _ := get(d, 1)
				if _, ok := get(d, 8); ok {
					o.counters[uuid.v] = true
				} else {
					o.tracks[uuid.v] = true
				}
			case 11: // TrackEvent
				e := pbFields(t, f.b)
				cats, args := false, false
				for _, g := range e {
					switch g.num {
					case 3, 22:
						cats = true
					case 1, 6, 9, 10, 11, 12, 16, 23, 30, 31, 36, 42, 44, 45, 46, 47, 48:
					default:
						args = true
					}
				}
				if cats {
					o.withCats++
				}
				if args {
					o.withArgs++
				}
				typ, _ := get(e, 9)
				track, _ := get(e, 11)
				switch typ.v {
				case 1:
					o.begins++
					o.depths[int32(stacks[track.v])]++
					stacks[track.v]++
				case 2:
					o.ends++
					stacks[track.v]--
				case 3:
					o.instants++
				}
				for _, g := range e {
					if g.num == 47 || g.num == 48 {
						id := binary.LittleEndian.Uint64(fix8(g))
						if flows[id] {
							o.links++
						}
						flows[id] = g.num == 47
					}
				}
			}
		}
	}
	return o
}

// fix8 returns the 8 bytes of a fixed64 field as the oracle stored it.
func fix8(f pb) []byte {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], f.v)
	return b[:]
}

func readCorpus(t *testing.T, path string) (*trace.Trace, *trace.Notes) {
	t.Helper()
	tr := trace.New(path)
	notes := &trace.Notes{}
	if err := Read(path, tr, trace.ReadOptions{Notes: notes}); err != nil {
		t.Fatal(err)
	}
	head, _ := os.ReadFile(path)
	if !sniff(head[:min(512, len(head))]) {
		t.Errorf("%s: not recognised by Sniff", path)
	}
	return tr, notes
}

func minMax(v []uint64) (trace.Time, trace.Time) {
	lo, hi := uint64(math.MaxUint64), uint64(0)
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	return trace.Time(lo), trace.Time(hi)
}

// TestNestedTracks reads Perfetto's own test trace of nested custom
// tracks with flows between their slices.
func TestNestedTracks(t *testing.T) {
	path := corpusFile(t, "perfetto/nested_tracks.perfetto-trace")
	o := walkOracle(t, path)
	tr, notes := readCorpus(t, path)
	if o.begins != o.ends || len(o.counters) != 0 {
		t.Fatalf("oracle: %d begins, %d ends, %d counters: the test expects matched slices and no counters", o.begins, o.ends, len(o.counters))
	}
	if got, want := len(tr.Containers)-1, len(o.tracks); got != want {
		t.Errorf("%d containers, want %d (the tracks)", got, want)
	}
	if tr.States.Len() != o.begins || tr.Events.Len() != o.instants || tr.Links.Len() != o.links || tr.Variables.Len() != 0 {
		t.Errorf("%d states, %d events, %d links, %d variables; want %d, %d, %d, 0",
			tr.States.Len(), tr.Events.Len(), tr.Links.Len(), tr.Variables.Len(), o.begins, o.instants, o.links)
	}
	depths := map[int32]int{}
	for _, s := range tr.States.All() {
		depths[s.Depth]++
	}
	for d, n := range o.depths {
		if depths[d] != n {
			t.Errorf("depth %d: %d states, want %d", d, depths[d], n)
		}
	}
	if lo, hi := minMax(o.timestamp); tr.Start != lo || tr.End != hi {
		t.Errorf("span %v..%v, want %v..%v", tr.Start, tr.End, lo, hi)
	}
	checkNotes(t, notes, fmt.Sprintf("skipped %d categories of track events (not kept)", o.withCats))
	if o.withCats != 1364 || o.withArgs != 0 {
		t.Errorf("oracle: %d events with categories, %d with arguments", o.withCats, o.withArgs)
	}
	// The numbers the oracle found, for the record.
	if o.packets != 4092 || len(o.tracks) != 1364 || o.begins != 1364 || o.links != 1360 {
		t.Errorf("the file changed: %d packets, %d tracks, %d slices, %d flow links", o.packets, len(o.tracks), o.begins, o.links)
	}
	checkTypes(t, tr)
}

// TestTypedArgs reads Perfetto's test trace of instants with typed
// arguments on a thread track.
func TestTypedArgs(t *testing.T) {
	path := corpusFile(t, "perfetto/track_event_typed_args.pb")
	o := walkOracle(t, path)
	tr, notes := readCorpus(t, path)
	if tr.Events.Len() != o.instants || o.instants != 3 {
		t.Errorf("%d events, oracle %d, want 3", tr.Events.Len(), o.instants)
	}
	checkRender(t, tr, `
		container Process 5 Process alias=5
		container Process 5/t1 1 Thread alias=1
		event Process 5/t1 1 Instant "name1" 1000
		event Process 5/t1 1 Instant "name2" 2000
		event Process 5/t1 1 Instant "name3" 3000
		span 0 3000
	`)
	checkNotes(t, notes,
		fmt.Sprintf("skipped %d categories of track events (not kept)", o.withCats),
		fmt.Sprintf("skipped %d arguments of track events (debug annotations, typed fields: not kept)", o.withArgs))
	if o.withCats != 3 || o.withArgs != 3 {
		t.Errorf("oracle: %d events with categories, %d with arguments", o.withCats, o.withArgs)
	}
}

// TestWinscope reads Android system traces holding no track events: every
// packet is counted by kind, none is lost, and the span is that of the
// packets' timestamps.
func TestWinscope(t *testing.T) {
	corpusFile(t, "platform_development/winscope")
	files, _ := filepath.Glob(filepath.Join(corpusRoot, "platform_development", "winscope", "*.perfetto-trace"))
	if len(files) != 9 {
		t.Fatalf("%d winscope traces, want 9", len(files))
	}
	for _, path := range files {
		o := walkOracle(t, path)
		tr, notes := readCorpus(t, path)
		if len(tr.Containers) != 1 || tr.States.Len()+tr.Events.Len()+tr.Variables.Len()+tr.Links.Len() != 0 {
			t.Errorf("%s: %d containers, %d states", path, len(tr.Containers), tr.States.Len())
		}
		skipped := notes.Skipped()
		total := int64(0)
		for kind, n := range o.byKind {
			what := packetKind(protowireNumber(kind))
			if kind == 6 { // clock snapshots are read, not skipped
				continue
			}
			if skipped[what] != int64(n) {
				t.Errorf("%s: %d %s skipped, want %d", filepath.Base(path), skipped[what], what, n)
			}
			total += int64(n)
		}
		sum := int64(0)
		for what, n := range skipped {
			if !strings.HasPrefix(what, "packets of kind ") {
				t.Errorf("%s: skipped %d %s", filepath.Base(path), n, what)
			}
			sum += n
		}
		if sum != total {
			t.Errorf("%s: %d packets skipped, want %d", filepath.Base(path), sum, total)
		}
		if lo, hi := minMax(o.timestamp); tr.Start != lo || tr.End != hi {
			t.Errorf("%s: span %v..%v, want %v..%v", filepath.Base(path), tr.Start, tr.End, lo, hi)
		}
	}
}
