package chrome

import "testing"

// clangTimeTrace is laid out as clang's -ftime-trace writes it (LLVM's
// TimeProfiler, clang 14 and 21 alike): the run's complete events on the
// compiler's thread in the order they end, then one "Total <name>" per
// name at ts 0 on threads numbered on from it, longest first, then the
// metadata. "Total ParseClass" names no event (its intervals were shorter
// than the granularity), and "Total Source" lasts longer than the run
// (its intervals overlap the others'), as a run's totals do when threads
// work at once.
const clangTimeTrace = `{"traceEvents":[
{"pid":7664,"tid":7664,"ph":"X","ts":120,"dur":30,"name":"Source","args":{"detail":"/usr/include/features.h"}},
{"pid":7664,"tid":7664,"ph":"X","ts":100,"dur":400,"name":"Frontend"},
{"pid":7664,"tid":7664,"ph":"X","ts":500,"dur":300,"name":"Backend"},
{"pid":7664,"tid":7664,"ph":"X","ts":90,"dur":720,"name":"ExecuteCompiler"},
{"pid":7664,"tid":7665,"ph":"X","ts":0,"dur":2000,"name":"Total Source","args":{"count":1,"avg ms":0}},
{"pid":7664,"tid":7666,"ph":"X","ts":0,"dur":720,"name":"Total ExecuteCompiler","args":{"count":1,"avg ms":0}},
{"pid":7664,"tid":7667,"ph":"X","ts":0,"dur":400,"name":"Total Frontend","args":{"count":1,"avg ms":0}},
{"pid":7664,"tid":7668,"ph":"X","ts":0,"dur":300,"name":"Total Backend","args":{"count":1,"avg ms":0}},
{"pid":7664,"tid":7669,"ph":"X","ts":0,"dur":12,"name":"Total ParseClass","args":{"count":3,"avg ms":0}},
{"cat":"","pid":7664,"tid":7664,"ts":0,"ph":"M","name":"process_name","args":{"name":"clang"}},
{"cat":"","pid":7664,"tid":7664,"ts":0,"ph":"M","name":"thread_name","args":{"name":"clang++"}}
],"beginningOfTime":1764600000000000}`

// TestLLVMTimeTraceTotals: clang's totals were read as intervals, a
// thread each, and the profile was led by them; they are now dropped and
// said, and the trace ends with the run.
func TestLLVMTimeTraceTotals(t *testing.T) {
	tr, notes := decodeNotes(t, clangTimeTrace)
	checkLines(t, "containers", containerPaths(tr), []string{
		"clang (Process, alias 7664)", "clang/clang++ (Thread, alias 7664)",
	})
	checkLines(t, "entities", dump(tr), []string{
		"state /clang/clang++ Slice ExecuteCompiler 90.000-810.000 d0",
		"state /clang/clang++ Slice Frontend 100.000-500.000 d1",
		"state /clang/clang++ Slice Source 120.000-150.000 d2 {\"detail\":\"/usr/include/features.h\"}",
		"state /clang/clang++ Slice Backend 500.000-800.000 d1",
	})
	checkLines(t, "notes", notes.Messages(), []string{"skipped 5 " + llvmTotalsSkipped})
	if tr.End != 810_000 {
		t.Errorf("trace ends at %d ns, want 810,000 (the run's end, not the longest total's)", tr.End)
	}
}

// TestTotalsOfOtherProducers: a "Total ..." interval at ts 0 that is not
// one of LLVM's totals stays: on a named thread, off the run of threads
// after the highest tid, or naming nothing of its process.
func TestTotalsOfOtherProducers(t *testing.T) {
	for _, c := range []struct{ name, text string }{
		{"named thread", `[
{"pid":1,"tid":1,"ph":"X","ts":10,"dur":50,"name":"load"},
{"pid":1,"tid":2,"ph":"X","ts":0,"dur":50,"name":"Total load"},
{"pid":1,"tid":2,"ph":"M","name":"thread_name","args":{"name":"summary"}}]`},
		{"not after the highest tid", `[
{"pid":1,"tid":5,"ph":"X","ts":10,"dur":50,"name":"load"},
{"pid":1,"tid":2,"ph":"X","ts":0,"dur":50,"name":"Total load"}]`},
		{"a gap in the tids", `[
{"pid":1,"tid":1,"ph":"X","ts":10,"dur":50,"name":"load"},
{"pid":1,"tid":3,"ph":"X","ts":0,"dur":50,"name":"Total load"}]`},
		{"names nothing", `[
{"pid":1,"tid":1,"ph":"X","ts":10,"dur":50,"name":"load"},
{"pid":1,"tid":2,"ph":"X","ts":0,"dur":50,"name":"Total time"}]`},
		{"longer after shorter", `[
{"pid":1,"tid":1,"ph":"X","ts":10,"dur":50,"name":"load"},
{"pid":1,"tid":1,"ph":"X","ts":10,"dur":20,"name":"parse"},
{"pid":1,"tid":2,"ph":"X","ts":0,"dur":20,"name":"Total parse"},
{"pid":1,"tid":3,"ph":"X","ts":0,"dur":50,"name":"Total load"}]`},
		{"something else on its thread", `[
{"pid":1,"tid":1,"ph":"X","ts":10,"dur":50,"name":"load"},
{"pid":1,"tid":2,"ph":"X","ts":0,"dur":50,"name":"Total load"},
{"pid":1,"tid":2,"ph":"i","s":"t","ts":20,"name":"mark"}]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr, notes := decodeNotes(t, c.text)
			for _, m := range notes.Messages() {
				if m == "skipped 1 "+llvmTotalsSkipped || m == "skipped 2 "+llvmTotalsSkipped {
					t.Errorf("dropped: %s", m)
				}
			}
			n := 0
			for _, s := range dump(tr) {
				if len(s) > 5 && s[:5] == "state" {
					n++
				}
			}
			want := 2
			if c.name == "longer after shorter" {
				want = 4
			}
			if n != want {
				t.Errorf("%d states, want %d:\n%v", n, want, dump(tr))
			}
		})
	}
}
