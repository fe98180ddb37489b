package gotrace

import xtrace "golang.org/x/exp/trace"

// innermost returns the function of the first frame of s, "" if none. The
// stack of a goroutine's creation has one frame, the function the new
// goroutine starts in.
func innermost(s xtrace.Stack) string {
	for f := range s.Frames() {
		return f.Func
	}
	return ""
}

// outermost returns the function of the last frame of s, the one the
// goroutine started in, "" if none. runtime.goexit, which some stacks
// end with, is the runtime's return address, not the function.
func outermost(s xtrace.Stack) string {
	fn := ""
	for f := range s.Frames() {
		if f.Func != "" && f.Func != "runtime.goexit" {
			fn = f.Func
		}
	}
	return fn
}
