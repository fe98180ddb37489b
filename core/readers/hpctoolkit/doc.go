// Package hpctoolkit reads the traces of HPCToolkit databases, as hpcprof
// writes them, and streams them into a trace.Sink. It decodes the binary
// formats itself; no HPCToolkit library is needed.
//
// # Databases
//
// Two kinds of database are read, given their directory or any of their
// files:
//
//   - version 4 (sparse) databases: meta.db (identifier names, the
//     calling-context tree with its functions, load modules and source
//     files), profile.db (of which only the profiles' hierarchical
//     identifier tuples are read) and trace.db (one trace line per
//     profile: records of a u64 timestamp in nanoseconds and a u32
//     context identifier), laid out as FORMATS.md of HPCToolkit
//     describes; cct.db and the metric values are not read. The files of
//     the first releases of 4.0 (context trees without entry points,
//     40-byte profile infos) are read too.
//   - the older XML databases: experiment.xml (procedure table and
//     calling-context tree of PF/Pr, A, L, C and S elements) and one
//     *.hpctrace file per thread or GPU stream (an HPCRUN-trace header,
//     then big- or little-endian records of a timestamp and a call path
//     id, the "it" attribute of the tree's nodes, or "i" in files without
//     "it").
//
// Every offset of the binary files is bounds-checked: a cut or corrupt
// file ends in an errs.FormatError naming the file and the byte offset.
//
// # Hierarchy
//
// Each trace line is a container whose ancestors come from its
// identifier tuple, one level per identifier (Node > Rank > Thread, or
// Node > GPU context > GPU stream), named after the kind and its value
// ("Rank 3"; a node by its host id in hexadecimal, "Node 0x2a803c80",
// so that it reads as one number). The kinds hpcprof
// writes get readable type names (Node, Rank, Thread, Core, GPU device,
// GPU context, GPU stream); other kinds keep meta.db's name. Lines come
// in the order of their tuples. For XML databases the path is Node
// (host id) > Rank > Thread, from the *.hpctrace file name
// (program-rank-thread-hostid-pid-generation); hpcrun numbers GPU streams
// as threads from 500.
//
// # Samples as nested states
//
// The calling-context tree is reduced to its frames: the entry points
// ("main thread"), the function contexts (calls and inlined calls) and,
// with the option loops, the loops; source lines and instructions belong to
// the frame that encloses them. A sample at t in context c says that the
// frames from the outermost one down to c's frame are active from t until
// the next sample of the line. Consecutive samples that share a prefix of
// their frame paths (frames compared as nodes of the tree, not by name)
// share the states of that prefix, so each frame becomes one state per run
// of samples through it, of type "Procedure", valued by the function name,
// with Depth its depth in the path: the states nest as the boxes of a
// flame chart. The placeholders of its OMPT support for an idle or waiting
// OpenMP thread ("<omp idle>"...) have the role trace.RoleParallelIdle,
// the compilers' outlined parallel bodies trace.RoleParallelRegion. A sample in context 0 (the thread idle) ends every state;
// a sample in a context the tree does not list is taken as idle and
// counted (trace.Notes.Skip).
//
// Times start at 0 at the smallest timestamp of the traces (trace.db's
// minimum, experiment.xml's db-min-time, converted with its unit "u");
// the trace ends at the largest (trace.db's maximum, db-max-time). The
// database gives no end per line, so the last sample of each line lasts
// until the end of the trace, as pipit's reader closes it.
//
// # Parts
//
// The options line_start and line_end read the samples
// of some trace lines only, for a distributed read (core/partition): the
// containers of every line are created all the same, in the same order,
// and the time origin and end are the database's, so the partial models
// of the parts add up to the whole read's.
package hpctoolkit
