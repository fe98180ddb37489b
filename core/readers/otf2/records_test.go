package otf2

import (
	"strconv"
	"testing"
)

// decoded is a record as the merge delivered it, with its metric values.
type decoded struct {
	loc    uint64
	r      record
	values []float64
}

func decodeAll(t testing.TB, anchor string) (*archive, []decoded) {
	t.Helper()
	arch, err := open(anchor, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []decoded
	err = newMerger(arch.streams).run(func(loc int, r *record, values []float64) error {
		d := decoded{loc: arch.defs.locations[loc].id, r: *r}
		if r.kind == evMetric {
			d.values = append([]float64(nil), values[r.first:r.first+uint32(r.n)]...)
		}
		out = append(out, d)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return arch, out
}

// TestRecordsMatchOTF2Print checks every decoded event record of every
// archive against otf2-print: same records per location, in the same
// order, with the same timestamps (clock offsets applied) and attributes.
// It also checks that the merge delivers the records in otf2-print's
// order, which sorts by time and then by location.
func TestRecordsMatchOTF2Print(t *testing.T) {
	for _, name := range archives {
		t.Run(name, func(t *testing.T) {
			anchor := archivePath(t, name)
			arch, got := decodeAll(t, anchor)
			want := printedEvents(t, anchor)
			if len(got) != len(want) {
				t.Fatalf("decoded %d records, otf2-print lists %d", len(got), len(want))
			}
			perLocation := map[uint64]uint64{}
			for i, w := range want {
				g := got[i]
				perLocation[g.loc]++
				if g.loc != w.loc || g.r.ticks != w.ticks || printName(g.r.kind) != w.name {
					t.Fatalf("record %d: got %s at location %d, tick %d; otf2-print has %s at location %d, tick %d",
						i, printName(g.r.kind), g.loc, g.r.ticks, w.name, w.loc, w.ticks)
				}
				if err := sameAttributes(g, w.attrs); err != "" {
					t.Fatalf("record %d (%s at location %d, tick %d): %s; otf2-print: %s", i, w.name, w.loc, w.ticks, err, w.attrs)
				}
			}
			// The writer counts each location's events in its definition.
			for _, l := range arch.defs.locations {
				if perLocation[l.id] != l.events {
					t.Errorf("location %d: %d records, its definition announces %d", l.id, perLocation[l.id], l.events)
				}
			}
		})
	}
}

// sameAttributes compares the attributes the reader decodes with
// otf2-print's text; it returns "" when they agree.
func sameAttributes(g decoded, text string) string {
	r := g.r
	switch r.kind {
	case evEnter, evLeave:
		m := reRegion.FindStringSubmatch(text)
		if m == nil || atoi(m[1]) != uint64(r.ref) {
			return "region " + strconv.Itoa(int(r.ref))
		}
	case evMpiSend, evMpiIsend, evMpiRecv, evMpiIrecv:
		m := reP2P.FindStringSubmatch(text)
		if m == nil || atoi(m[1]) != uint64(r.peer) || atoi(m[3]) != uint64(r.ref) || atoi(m[4]) != uint64(r.tag) || atoi(m[5]) != r.size {
			return "peer/comm/tag/length " + strconv.Itoa(int(r.peer)) + "/" + strconv.Itoa(int(r.ref)) + "/" + strconv.Itoa(int(r.tag)) + "/" + strconv.FormatUint(r.size, 10)
		}
	case evMpiCollectiveEnd:
		m := reCollective.FindStringSubmatch(text)
		if m == nil || m[1] != collectiveName(r.tag) || atoi(m[2]) != uint64(r.ref) || atoi(m[4]) != r.size {
			return "operation/comm/sent " + collectiveName(r.tag) + "/" + strconv.Itoa(int(r.ref)) + "/" + strconv.FormatUint(r.size, 10)
		}
		if m[3] != "NONE" && atoi(m[3]) != uint64(r.peer) {
			return "root " + strconv.Itoa(int(r.peer))
		}
	case evMetric:
		m := reMetric.FindStringSubmatch(text)
		if m == nil || atoi(m[1]) != uint64(r.ref) {
			return "metric " + strconv.Itoa(int(r.ref))
		}
		vals := reMetricVal.FindAllStringSubmatch(m[2], -1)
		if len(vals) != len(g.values) {
			return "number of values " + strconv.Itoa(len(g.values))
		}
		for i, v := range vals {
			want, err := strconv.ParseFloat(v[3], 64)
			if err != nil || want != g.values[i] {
				return "value " + strconv.Itoa(i) + " = " + strconv.FormatFloat(g.values[i], 'g', -1, 64)
			}
		}
	case evParameterString, evParameterInt, evParameterUnsignedInt:
		if m := reParameter.FindStringSubmatch(text); m == nil || atoi(m[1]) != uint64(r.ref) {
			return "parameter " + strconv.Itoa(int(r.ref))
		}
	case evProgramBegin:
		if m := reProgram.FindStringSubmatch(text); m == nil || atoi(m[1]) != uint64(r.ref) {
			return "program name " + strconv.Itoa(int(r.ref))
		}
	case evMeasurementOnOff:
		m := reMode.FindStringSubmatch(text)
		if m == nil || (m[1] == "ON") != (r.tag == 1) {
			return "mode " + strconv.Itoa(int(r.tag))
		}
	}
	return ""
}
