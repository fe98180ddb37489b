package trace

// DeferSink is implemented by sinks that take a part of a trace (a byte
// range of a file) whose definitions are merged afterwards with those of
// the other parts (micro.Partial). A reader whose whole-trace read makes
// some definitions at its end, after those of every record (pj_dump's
// links, resolved once all containers are known), or that a part must
// borrow from later in the file (the containers a link joins), calls
// Defer before making them: the merge then puts them after the
// definitions of all the parts, where the whole trace's reader puts them,
// instead of before those of the parts that follow.
type DeferSink interface {
	Defer()
}
