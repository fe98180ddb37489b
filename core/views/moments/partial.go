package moments

import (
	"bytes"
	"encoding/gob"
	"fmt"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Results of the parts of a trace read apart (its location groups, its
// files) merge into the result of the whole: a container's busy sums come
// from the parts that hold its states. When each container's states lie
// in one part (location groups, files), a merged container's sums are
// that part's, bit for bit; otherwise they are added (double-double: to
// about 1e-32 relative). The parts must be read on one window (Options'
// Start and End set), so that they clip alike.

// wire is a Result as gob encodes it (Sums has unexported fields).
type wire struct {
	Start, End trace.Time
	Origin     trace.Time
	Containers []Container
	Resources  []int32
	Busy       []wireSums
}

type wireSums struct {
	Origin trace.Time
	Set    bool
	P      [4][2]float64
}

// MarshalBinary encodes the result (without its per-state sums), to
// ship it between processes.
func (r *Result) MarshalBinary() ([]byte, error) {
	w := wire{Start: r.Start, End: r.End, Origin: r.Origin, Containers: r.Containers, Resources: r.Resources}
	for _, s := range r.Busy {
		ws := wireSums{Origin: s.origin, Set: s.set}
		for k, p := range s.p {
			ws.P[k] = [2]float64{p.hi, p.lo}
		}
		w.Busy = append(w.Busy, ws)
	}
	var b bytes.Buffer
	err := gob.NewEncoder(&b).Encode(&w)
	return b.Bytes(), err
}

// UnmarshalResult decodes what MarshalBinary encoded.
func UnmarshalResult(data []byte) (*Result, error) {
	var w wire
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&w); err != nil {
		return nil, fmt.Errorf("moments: not an encoded result: %w", err)
	}
	r := &Result{Start: w.Start, End: w.End, Origin: w.Origin, Containers: w.Containers, Resources: w.Resources}
	for _, ws := range w.Busy {
		s := Sums{origin: ws.Origin, set: ws.Set}
		for k, p := range ws.P {
			s.p[k] = dd{p[0], p[1]}
		}
		r.Busy = append(r.Busy, s)
	}
	return r, nil
}

// Merge returns the result of two parts of a trace read on the same
// window, a's before b's: containers are matched by their parent, name,
// type and state type (and rank among such siblings), in a's order then
// b's; resources likewise.
func Merge(a, b *Result) (*Result, error) {
	if a.Start != b.Start || a.End != b.End {
		return nil, fmt.Errorf("moments: results of windows [%s, %s) and [%s, %s) do not merge", a.Start, a.End, b.Start, b.End)
	}
	out := &Result{Start: a.Start, End: a.End, Origin: min(a.Origin, b.Origin)}
	index := map[string]int32{}
	for _, r := range []*Result{a, b} {
		ids := make([]int32, len(r.Containers))
		rank := map[string]int{}
		for id := range r.Containers {
			c := r.Containers[id]
			parent := trace.None
			if c.Parent >= 0 && int(c.Parent) < len(ids) {
				parent = ids[c.Parent]
			}
			sib := fmt.Sprintf("%d\x00%s\x00%s\x00%s", parent, c.Name, c.Type, c.StateType)
			key := fmt.Sprintf("%s\x00%d", sib, rank[sib])
			rank[sib]++
			if id == 0 {
				key = "root"
			}
			m, ok := index[key]
			if !ok {
				m = int32(len(out.Containers))
				index[key] = m
				c.Parent, c.Children = parent, nil
				out.Containers = append(out.Containers, c)
				out.Busy = append(out.Busy, Sums{})
				if parent != trace.None {
					out.Containers[parent].Children = append(out.Containers[parent].Children, m)
				}
			} else {
				// A container lives as long as in any part.
				o := &out.Containers[m]
				o.Start, o.End = min(o.Start, c.Start), max(o.End, c.End)
			}
			ids[id] = m
			out.Busy[m].Merge(r.Busy[id])
		}
		seen := map[int32]bool{}
		for _, id := range out.Resources {
			seen[id] = true
		}
		for _, id := range r.Resources {
			if m := ids[id]; !seen[m] {
				seen[m] = true
				out.Resources = append(out.Resources, m)
			}
		}
	}
	return out, nil
}
