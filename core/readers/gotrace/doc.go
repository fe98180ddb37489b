// Package gotrace reads Go execution traces, as runtime/trace, `go test
// -trace` and net/http/pprof's /debug/pprof/trace write them, and streams
// them into a trace.Sink.
//
// # Input
//
// The format of Go 1.22 and later (up to Go 1.26's) is decoded by the
// package's own decoder (wire.go: generations of a few megabytes split
// from the stream, their tables decoded on all cores; merge.go: the Ms'
// events decoded and merged in the order of golang.org/x/exp/trace, the
// Go project's own parser, the one `go tool trace` uses; pipe.go: the
// merge runs on a core of its own, ahead of the model's builder), which
// builds the same model call for call as that parser on every trace tested,
// broken and cut ones included. The environment variable
// MACROSCOPE_GOTRACE_PARSER (any value) reads through the parser instead
// (kept for one release). The older format of Go 1.11 to 1.21 is read by
// the parser, which parses it whole in memory and converts it. The
// formats of Go 1.5 to 1.10 are refused with a FormatError naming the
// version, as is the text form of the runtime's parser tests ("Trace
// Go1.22" ...), which runtime/trace never writes. The file may be gzip,
// bzip2 or zstd compressed. Files are recognized by their header, "go
// 1.NN trace\x00\x00\x00" (Format.Sniff): Go traces have no extension of
// their own, and ".trace" is Pajé's.
//
// A trace broken or cut short after its first generation (the program
// crashed or was killed before trace.Stop) is read up to the end of its
// last whole generation, as the Go distribution's trace viewer does, and
// the notes say it is incomplete (Notes.IncompleteReasons); one broken
// within its first generation is refused.
//
// Times are the parser's nanoseconds, less the time of the first event,
// which becomes 0; the trace ends with its last event.
//
// # Model
//
// Three containers hang from the root:
//
//   - "Runtime" holds the global ranges of the runtime as states: "GC
//     concurrent mark phase" and "STW" (valued "stop-the-world (reason)");
//     and the runtime's metrics (heap in use, heap goal, GOMAXPROCS) as
//     variables named as runtime/metrics names them, each value holding
//     until the next different one.
//   - "Goroutines" holds a "Goroutine" container per goroutine, named "G<id>
//     <function>" (alias "G<id>"). A goroutine created during the trace is
//     created then, named after the function it starts in, and destroyed
//     when it exits. One that exists when the trace starts is born at 0
//     and named after the outermost frame of the first stack seen of it
//     (none may be: it is then just "G<id>"); its first few states wait
//     for that stack, as a goroutine parked before the trace is made
//     runnable and running before the stack of its parking names it. A
//     goroutine first stated waiting or runnable has been so since 0 (no
//     transition of it went unrecorded). Its states, of type
//     "Goroutine state", are running, runnable, syscall and "waiting:
//     <reason>" ("waiting: chan receive"; "waiting" without a reason), from
//     the parser's state transitions. User regions (trace.WithRegion,
//     trace.StartRegion) are states of type "Region" valued by the region
//     type, nested with their Depth; GC mark assists are states of type
//     "GC mark assist". trace.Log calls are events "Log" valued "category:
//     message", trace.NewTask and Task.End events "Task begin" and "Task
//     end" valued by the task type, and the runtime's goroutine labels
//     ("GC (dedicated)") events "Label".
//   - "Procs" holds a "P" container per P (logical processor), "P<id>",
//     with states "P state" (running, idle), "Running goroutine" (valued by
//     the function of the goroutine the P runs, one state per run) and "GC
//     incremental sweep".
//
// A goroutine created by another is joined to it by a link of type
// "spawn" (LinkSpawn), from the creator to the new goroutine at the
// instant of creation, valued by the new goroutine's function:
// kaleido.FromSpawnLinks builds the goroutine spawn tree from them.
// Goroutines created outside any goroutine (by the runtime, or by C code
// calling Go) have no link.
//
// States still open when the trace ends end with it; user regions among
// them (trace.StartRegion without End) are counted in a warning, with
// their goroutines. Goroutine states and
// ranges that the parser restates at each generation's start are not
// split there.
//
// # Not modelled
//
// Counted in trace.Notes as skipped: CPU profile samples (when the
// program also ran the CPU profiler), experimental events, thread state
// transitions, region ends whose beginning precedes the trace, ranges of
// resources not yet seen. Stacks are not kept, beyond naming goroutines.
// Tasks are not joined across goroutines.
package gotrace
