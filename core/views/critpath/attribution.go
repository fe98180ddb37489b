package critpath

import (
	"cmp"
	"slices"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// NoState names the time of a resource in no state and no MPI call.
const NoState = "(no state)"

// Piece is a stretch of one resource doing one thing: an MPI call, else
// its innermost state, else nothing (NoState).
type Piece struct {
	Resource   int32
	Start, End trace.Time
	State      string
}

// StateShare is a state's part in the critical path.
type StateShare struct {
	State string
	// OnPath is its time on the path, Share that over the path's length.
	OnPath trace.Time
	Share  float64
	// Total is its time on all resources within the path's extent, and
	// Imbalance Scalasca's critical-path imbalance: OnPath minus Total's
	// mean per resource, when positive.
	Total, Imbalance trace.Time
}

// ResourceShare is a resource's part in the critical path.
type ResourceShare struct {
	Resource string
	OnPath   trace.Time
	Share    float64
	Segments int
}

// Attribution is what the critical path's time was spent on.
type Attribution struct {
	// Pieces are the path's segments cut where the resource's activity
	// changes, in time order.
	Pieces     []Piece
	ByState    []StateShare    // the most time on the path first
	ByResource []ResourceShare // the most time on the path first
}

// resourceShares returns each resource's time on the path and number of
// segments there, in r.Resources' order (shares still to be set).
func resourceShares(r *Result) []ResourceShare {
	byRes := make([]ResourceShare, len(r.Resources))
	for i := range byRes {
		byRes[i].Resource = r.Resources[i]
	}
	for _, seg := range r.Segments {
		byRes[seg.Resource].OnPath += seg.End - seg.Start
		byRes[seg.Resource].Segments++
	}
	return byRes
}

// finish completes a, whose ByState holds each state's OnPath and Total:
// their shares of the path's length and critical-path imbalance, then
// the resources of byRes that the path crosses, each list the most time
// on the path first.
func (a *Attribution) finish(r *Result, byRes []ResourceShare) {
	length := r.Length()
	n := trace.Time(len(r.Resources))
	for i := range a.ByState {
		s := &a.ByState[i]
		s.Imbalance = max(0, s.OnPath-s.Total/n)
		if length > 0 {
			s.Share = float64(s.OnPath) / float64(length)
		}
	}
	slices.SortFunc(a.ByState, func(x, y StateShare) int {
		return cmp.Or(cmp.Compare(y.OnPath, x.OnPath), cmp.Compare(x.State, y.State))
	})
	for _, b := range byRes {
		if b.Segments == 0 {
			continue
		}
		if length > 0 {
			b.Share = float64(b.OnPath) / float64(length)
		}
		a.ByResource = append(a.ByResource, b)
	}
	slices.SortStableFunc(a.ByResource, func(x, y ResourceShare) int { return cmp.Compare(y.OnPath, x.OnPath) })
}
