// Package pjdump reads and writes the tables of PajeNG's pj_dump, as Go's
// image/png decodes and encodes PNG. It reads them and rebuilds the trace
// they describe, so that traces shipped only as dumps (StarVZ's, PajeNG's
// test oracles) can be analysed like the original Pajé files; and it
// writes a trace as pj_dump would, byte for byte.
//
// # Inputs
//
// Three layouts are read:
//
//   - pj_dump's output: one file of comma-separated lines without header,
//     each starting with its nature (the layouts are below);
//   - pj_dump_csv's split files (prefix.container.csv, prefix.state.csv...),
//     the same lines under a header naming the columns;
//   - StarVZ's split gzipped files (paje.worker_state.csv.gz,
//     paje.variable.csv.gz, paje.link.csv.gz, paje.events.csv.gz...) under
//     a "Nature, ResourceId, Type, ..." header, with entities.csv, the
//     "Parent, Name, Type, Nature" entity hierarchy of pj_dump
//     --entity-hierarchy, for the containers.
//
// pj_dump's lines are:
//
//	Container, Parent, Type, Start, End, Duration, Name
//	State, Container, Type, Start, End, Duration, Imbrication, Value
//	Variable, Container, Type, Start, End, Duration, Value
//	Event, Container, Type, Time, Value
//	Link, Container, Type, Start, End, Duration, Value, StartContainer, EndContainer, Key
//
// Columns are found by their header names (ResourceId or Container,
// Imbrication or Depth, Time or Start, StartContainer or Origin,
// EndContainer or Dest, Value, Key, Size); extra columns, such as StarVZ's
// task parameters, have no place in the model and are ignored. Rows may
// stop before the optional columns. Any file may be compressed (gzip, bzip2, zstd).
//
// Read takes a file, or a directory whose pj_dump files are the split
// files of one trace.
//
// # Rebuilding the trace
//
// pj_dump writes containers depth first, each followed by its entities, and
// names them by name only, which need not be unique (three containers may
// be called "t1"). The reader follows that order: a container's parent is
// the nearest container of that name on the path of the last container
// line (preferring one of the type earlier containers of that type had),
// and an entity's container is found on that path too. In files that hold
// no container lines (the split files), containers are found by name,
// which must then be unique, or the line is an error naming the ambiguous
// name. The root's own line (type 0) is recognised and maps to the root.
//
// An entity hierarchy may miss containers the entity files use (StarVZ's
// lu_trace lists 30 of its 38 workers): such a container is created when
// first named, directly under the root, with the container type
// "Unlisted", so that its entities are kept without inventing a place for
// it. With pj_dump's container lines, which list every container, an
// unknown name is an error.
//
// A state, variable or link row that ends before it starts is an error,
// unless readOptions.OnInverted is set: the row is then reported to it and
// skipped. StarVZ's dumps hold a few such variable rows (a value set after
// its container was destroyed, which pj_dump prints with a negative
// duration).
//
// Types are named, not declared: a type is identified by its name, its
// kind (the nature of the lines using it) and the type of the containers
// holding it, and is defined on first use; a link type also fixes the
// types of the containers at its ends. Values are defined on first use.
// Names pj_dump printed between double quotes lose the quotes and are
// marked Quoted. Links without a Value column (StarVZ's) have no value
// (trace.None); their Size column gives Link.Size, NaN otherwise.
//
// Times are the decimal numbers pj_dump printed, parsed exactly: entities
// carry six decimals, containers six significant digits (pj_dump's
// formats), so a container may seem to end a little after its last
// entity. The Duration column is redundant and not read. Entity
// hierarchies give no container times: those containers start at 0 and
// end with the trace.
//
// pj_dump prints the dates of the Pajé trace as they are: seconds for
// SimGrid and PajeNG, milliseconds for StarPU (hence StarVZ's dumps).
// readOptions.TimeUnit gives the unit (0: seconds); the door's time_unit
// option, auto by default, reads milliseconds when the hierarchy has
// StarPU's container types (StarPU, trace.LooksStarPU), as the Pajé
// reader does.
//
// # Speed
//
// Most lines are pj_dump's own: ASCII, no quotes, ", " between fields.
// A plain file is mapped (textlines.Input.Map): its lines are read where
// the page cache holds them. splitPlain finds their commas eight bytes at
// a time (a SWAR test of each 64-bit word, swar.Bytes), the bytes after
// the last whole word as one more word, and learns in the same pass that
// the line is ASCII, hence valid UTF-8; the field after ", " is cut
// without a loop; a line with a double quote goes to splitQuoted, the
// byte-at-a-time reader of every line (FuzzSplit checks one against the
// other). Nothing is allocated for a line: natures are constants, the
// layouts of pj_dump's natures are package variables passed by pointer,
// containers, types and values are looked up with the field's bytes (the
// type of the last line and the first values of each type before the
// maps), times go through swar.Decimal (a word at a time; then
// trace.ParseTimeBytes) and the imbrication through plainDepth (one word
// for "0.000000"), exact, with strconv for any other text. Before the
// read, the time unit's scan (time_unit auto) parses the container lines
// only in a file that names StarPU's Memory Node, a search of the mapped
// file for its 'y'. The read of the generated 150 MB dump takes about
// 480 MB a second of CPU time on a 2-core Intel Xeon guest, 1.45x the
// reader before (bench/RESULTS.md).
//
// # Memory
//
// States, variables and events are passed to the sink as they are read.
// The reader keeps the containers, types and values, and the link lines,
// because pj_dump prints a link under the container that declares it,
// possibly before the containers at its ends.
//
// # Writing
//
// The format's writer (Format.Write) writes a trace in the CSV-like text
// of PajeNG's pj_dump, byte for byte, so that scripts written for pj_dump (R and StarVZ
// pipelines, for instance) can read Macroscope's output, and so that our Pajé
// reader can be checked against pj_dump.
//
// The trace must come from core/readers/paje, which records what the output needs
// (the order in which states began, names that were quoted). For output
// identical to pj_dump's, read with the Pajé reader's option strict
// (paje.PajeNG), which rounds variable values to float32 as PajeNG does;
// pj_dump --no-imbrication and --ignore-incomplete-links are options of
// the Pajé reader too (paje.Options).
//
// Times are printed from the trace's nanoseconds: the double nearest to
// the decimal value, which is what pj_dump's atof gives when the file
// writes at most nine decimals. Dates with more decimals are rounded to the
// nanosecond first, so their last printed digit can differ from pj_dump's.
package pjdump
