// Package intervals builds a trace from a table of intervals: one row per
// state, naming its resource by a path ("site/cluster/host/core"), its
// state and the instants it starts and ends. Tables of this shape come out
// of profilers, schedulers' logs and pandas; the trace they make can be
// analysed like any other.
//
// The resource paths make the hierarchy: every prefix of a path is a
// container, of the container type of its depth ("Level 1", "Level 2"...,
// or the names Options.Levels gives), named by its last component and
// identified (Alias) by its whole path. States of one type and resource
// may nest, as a call stack does: a state that starts inside another and
// ends inside it too is one level deeper (trace.State.Depth), but states
// that overlap without nesting are an error, since no stack can produce
// them. Every container lives from the first instant of the table to the
// last.
//
// Rows are numbered from 0 in the order they are added, as DataFrame.iloc
// numbers them; every error names the row.
package intervals
