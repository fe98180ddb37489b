package chrome_test

import (
	"fmt"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/readers/chrome"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// A trace cut by a crash: the complete events are read, what the model
// does not hold is counted, and the cut is noted.
func ExampleDecode() {
	text := `[
{"ph":"M","name":"thread_name","pid":1,"tid":7,"args":{"name":"main"}},
{"ph":"X","name":"step","cat":"cpu_op","pid":1,"tid":7,"ts":10,"dur":2.5,"args":{"n":1}},
{"ph":"X","name":"running","pid":1,"tid":7,"ts":11},
{"ph":"P","name":"sample","pid":1,"tid":7,"ts":12},
{"ph":"X","name":"cut","pid":1,"tid":7,"ts":14,"du`
	tr := trace.New("crash.json")
	tr.KeepArgs = true
	notes := &trace.Notes{}
	if err := chrome.Decode(strings.NewReader(text), "crash.json", 0, tr, trace.ReadOptions{Notes: notes}); err != nil {
		fmt.Println(err)
		return
	}
	for i, s := range tr.States.All() {
		v := tr.Values[s.Value]
		fmt.Printf("%s %q [%s] %d-%d ns depth %d args %q\n", tr.ContainerPath(s.Container, "/"), v.Name, v.Category,
			s.Start, s.End, s.Depth, tr.ArgsOf(trace.KindState, i))
	}
	for _, m := range notes.Messages() {
		fmt.Println(m)
	}
	// Output:
	// 1/main "step" [cpu_op] 10000-12500 ns depth 0 args "{\"n\":1}"
	// 1/main "running" [] 11000-12500 ns depth 1 args ""
	// incomplete: the input ends inside an event starting at byte 269 (line 6), as when the program writing it stopped abruptly: the 4 complete events before it were read
	// 1 complete events (ph X) without dur, cut at the end of their thread's recording
	// skipped 1 sample events (ph P)
}
