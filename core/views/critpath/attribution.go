package critpath

import "github.com/macroscope-hpc/macroscope/core/trace"

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
