// Package partition splits a trace into parts that separate processes
// read and model on their own, and whose partial models (micro.Partial)
// add up exactly into the model of the whole trace.
//
// A plan (Plan, Runs) lists the parts of an input:
//
//   - an OTF2 archive: parts of consecutive location groups, one each when
//     there are enough parts (the option location_groups of the OTF2
//     reader), merged by time (micro.ByTime); the messages between parts
//     are matched once all the parts are read, into a partial merged last
//     (Local in memory; BuildMessages, MergeMessages and MatchMessages
//     across processes);
//   - a Paraver .prv file: byte ranges cut on line boundaries (the options
//     part_start and part_end of the Paraver reader), one after the other
//     (micro.ByPart);
//   - pj_dump's output (a plain file; a compressed one or a directory of
//     split files is one part): byte ranges cut on line boundaries, never
//     before a nested state, one after the other; each part also scans
//     the container lines outside its range, and defines its links' types
//     late (micro.Partial's late definitions);
//   - an HPCToolkit database: groups of consecutive trace lines (a thread,
//     a rank or a GPU stream each; the options line_start and line_end of
//     the HPCToolkit reader), one after the other: every part creates the
//     containers of all the lines, and reads the samples of its own;
//   - several files (the ranks of a PyTorch job, one Kineto JSON file
//     each; runs to compare): one part per file, under a container of its
//     own at the top of the hierarchy (type "Run", named after the file),
//     one after the other. Runs gives the same files as one trace, for
//     the single-process model they must equal.
//
// The window and slices are fixed before any part is read (Extent gives
// the trace's first and last instants); Build then reads one part into a
// partial model sliced on that window, Read into any sink (the moments'
// sums: moments.ComputePart). What the parts are is the formats' to say
// (ingest.Format's Parts, through the registry): this package knows no
// format, and only asks for at most so many parts.
//
// On one machine, Local reads the parts on all cores; LocalPlan decides
// whether a trace is read so (the formats whose parts add up to the whole
// trace at no extra cost, ingest.Parts.Separable) or as one stream, and
// FromSource builds the model either way.
package partition
