// Package compare tells what changed between two or many runs, where in
// the resource hierarchy and when, measured in bits (docs/compare.md).
//
// Build reads the runs one after the other, each into its own
// microscopic model on a common time axis (Align: stretched to a common
// length, from each run's start, on the trace's clock, or warped between
// markers the traces carry), matches their hierarchies (by path or by
// position) and lays them out as one model whose hierarchy has the run
// as a level: under each resource, or above the whole hierarchy
// (Placement). Every cell is completed with Idle (time in no state) and
// Absent (a resource or a time a run does not have), so that each sums to
// 1.
//
// The loss of the seed's aggregation then decomposes exactly: merging the
// runs over a footprint costs their own losses plus the mass times the
// Jensen-Shannon divergence of their state distributions (Diverge). The
// optimal partition of the model (package aggregate) keeps the runs apart
// where they differ enough for the trade-off p; PartitionRows and NodesOf
// turn it into the rows of the differences table, NodeRows gives every
// node of the hierarchy over chosen phases, and Differences measures the
// rows (divergence, score = divergence x size, outlier score, each run's
// proportions and seconds) and tests them against the noise between
// repetitions by permutation (TestOptions).
//
// Ops computes the per-operation counts and durations of HTA's TraceDiff
// for PyTorch (Kineto) traces, and Summarize the one-row summary of a run
// of a series against a reference, without the joint model.
package compare
