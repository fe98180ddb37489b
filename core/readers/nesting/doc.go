// Package nesting gives complete slices (intervals whose start and end
// are both known, as a profiler writes them once a call returns) their
// place on a thread's call stack: a depth, and an overlap lane for the
// slices that cannot nest. Readers of formats that write complete slices
// (Chrome's X events, Nsight Systems' tables, rocprof's records) use it
// so that the same input nests the same way whatever the format.
//
// A Tracker takes the slices of one thread (or stream, or queue) in the
// order Compare defines, parents before their children, and places each
// as it comes. Slices of a thread normally nest like calls: each one
// inside the slice open around it, one level deeper. A slice that starts
// inside another and ends after it cannot nest; it goes to an overlap
// lane, a sibling track of the thread, so that depths keep their meaning.
// Once every slice is placed, the Tracker can tell the order in which
// they complete, lane by lane: the order of Pajé's PopState and OTF2's
// Leave, which streaming consumers of a trace.Sink follow.
//
// # Policies
//
// Containment. Intervals are Closed by default: a slice contains the
// slices that start at or after its start and end at or before its end,
// so a zero-length slice at the very end of another is its child (the
// rule the call-stack tests of Holistic Trace Analysis pin down for
// Kineto traces). With HalfOpen, a slice is [start, end): one that starts
// when another ends, even a zero-length one, comes after it, not inside
// it.
//
// Identical slices. Compare leaves slices with the same start and end in
// a tie, which callers break by their order in the file; of two identical
// slices the first is then the parent of the second (with HalfOpen, two
// identical zero-length slices are siblings, as [t, t) holds nothing).
//
// The lane of a slice. A slice goes to the lane whose innermost open
// slice contains it, that slice being the latest started of the lanes'
// innermost ones (on equal starts, the deeper). In Compare's order that
// tie cannot arise: a slice that starts when an open slice starts is
// contained in it (it is not longer) and nothing open started later, so
// it joins that slice's lane, and open slices on different lanes never
// start together; the rule is stated all the same, so that nothing
// depends on it. When no open slice contains the slice, it goes to the
// first lane with nothing open, else to a new lane. Lane 0 is the thread
// itself.
//
// The bound on lanes. A Tracker opens at most MaxLanes lanes (lane 0
// included; DefaultMaxLanes unless set). Real traces need a handful; more
// means the slices are not a call stack at all, and as each slice looks at
// every lane, the bound also bounds the time. Place reports the slice that
// would need one more lane, and the reader reports the input as malformed.
//
// Order of completion (recorded with KeepCompletion). On each lane a
// slice completes after the slices nested in it and before the next slice
// at its depth: the order of a depth-first walk that visits children
// first, children in the order they start. A slice that ends when its
// successor at its depth starts completes before that successor, even
// when a zero-length slice nested in the successor ends at the same
// instant.
package nesting
