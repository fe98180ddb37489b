// Package ingest is the door every trace comes through. A Format names a
// trace format, tells how to recognise its files, lists the options its
// reader takes, and opens a file as a Source that streams the trace into a
// trace.Sink. A Format also says how its traces are cut into parts read
// apart (Parts), and writes them when Macroscope writes the format
// (Write). Reader packages each declare their Format; the registry in
// package formats lists them; the model builder, the partitioned reads,
// the command line and the Python facade only ever see Formats and
// Sources, so that adding a format touches its reader package and one
// registration.
//
// The package also holds what every reader shares: decompression of gzip,
// bzip2 and zstd input recognised by its magic bytes (Decompress), the
// refusal of anything that is not a regular file or a directory
// (CheckPath), and the notes a reader leaves about what it skipped
// (trace.ReadOptions.Skip and Warn).
package ingest
