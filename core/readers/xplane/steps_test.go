package xplane

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// stepsOf lists the states of the values of role RoleStep of tr as
// "container name step start end" (ns), in time order.
func stepsOf(tr *trace.Trace) []string {
	var out []string
	for _, s := range tr.States.All() {
		v := tr.Values[s.Value]
		if v.Role != trace.RoleStep {
			continue
		}
		out = append(out, strings.Join([]string{tr.Containers[s.Container].Name, v.Name, strconv.Itoa(int(v.Step)),
			strconv.FormatInt(int64(s.Start), 10), strconv.FormatInt(int64(s.End), 10)}, " "))
	}
	slices.SortStableFunc(out, func(a, b string) int {
		return strings.Compare(strings.Fields(a)[3], strings.Fields(b)[3])
	})
	return out
}

// JAX's host steps (StepTraceAnnotation("train", step_num=N): an event
// named "train" with the stats step_num=N and _r=1) are steps numbered
// N, each keeping the name "train". The times are the files' (read with
// the protobuf package): in jax_cpu, line timestamp 9433 ns, offsets
// 106,855,000, 658,352,000 and 782,426,000 ps, durations 538,685,000,
// 121,827,000 and 76,895,000 ps; in jax_cpu_steps1to4, 9758 ns, offsets
// 98,560,000, 3,237,759,000, 3,368,519,000 and 3,432,912,000 ps,
// durations 3,103,024,000, 127,825,000, 62,677,000 and 51,356,000 ps.
// They overlap other events of the thread without nesting, so lie on its
// overlap lane, as in the trace viewer.
func TestJAXHostSteps(t *testing.T) {
	for file, want := range map[string][]string{
		"jax_cpu.xplane.pb": {
			"python (overlap lane 1) train 0 116288 654973",
			"python (overlap lane 1) train 1 667785 789612",
			"python (overlap lane 1) train 2 791859 868754",
		},
		"jax_cpu_steps1to4.xplane.pb": {
			"python (overlap lane 1) train 1 108318 3211342",
			"python (overlap lane 1) train 2 3247517 3375342",
			"python (overlap lane 1) train 3 3378277 3440954",
			"python (overlap lane 1) train 4 3442670 3494026",
		},
	} {
		tr, err := readertest.ReadFormat(t, Format, "testdata/"+file, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := stepsOf(tr); !slices.Equal(got, want) {
			t.Errorf("%s: steps:\n%s\nwant:\n%s", file, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		// One name for all: the figures, which group values by name,
		// show one "train".
		names := map[string]bool{}
		for _, v := range tr.Values {
			if v.Role == trace.RoleStep {
				names[v.Name] = true
			}
		}
		if len(names) != 1 || !names["train"] {
			t.Errorf("%s: step names %v, want train only", file, names)
		}
	}
}

// stepNum and root are the stats of a host's step annotation, with the
// stat metadata ids of hostPlane.
func stepNum(n int64) []byte { return sub(eventStats, sint(statMetadataID, 10), sint(statInt, n)) }
func root() []byte           { return sub(eventStats, sint(statMetadataID, 9), sint(statInt, 1)) }

// hostPlane is a host plane of step annotations, as jax writes them, and
// of events that are not steps.
func hostPlane() []byte {
	return plane(0, "/host:CPU",
		line(3, "python", 1000,
			event(1, 0, 10_000, root(), stepNum(7)),                                                      // a root step: 7
			event(1, 20_000, 10_000, stepNum(8), root()),                                                 // stats in another order: 8
			event(2, 40_000, 1000, stepNum(9)),                                                           // neither a root nor a step's name
			event(3, 50_000, 1000, stepNum(10)),                                                          // "train_loop": a step by its name, as xprof's
			event(1, 60_000, 1000, root()),                                                               // no number
			event(1, 70_000, 1000, root(), stepNum(-1)),                                                  // no step number
			event(1, 80_000, 1000, root(), sub(eventStats, sint(statMetadataID, 10), str(statStr, "3"))), // a string
			event(4, 90_000, 1000, stepNum(11))),                                                         // a name with '/': not a step
		meta(1, "train", ""), meta(2, "inner", ""), meta(3, "train_loop", ""), meta(4, "train/step", ""),
		statMeta(9, "_r"), statMeta(10, "step_num"))
}

// xprof's rule: a host event with a step_num is a step when it is a root
// (_r) or named as a step ("train...", "test...", "TraceContext...",
// without '/'); the same name's other events are not steps.
func TestHostStepRule(t *testing.T) {
	tr, _, err := readBytes(hostPlane())
	if err != nil {
		t.Fatal(err)
	}
	got := stepsOf(tr)
	want := []string{
		"python train 7 1000 1010",
		"python train 8 1020 1030",
		"python train_loop 10 1050 1051",
	}
	if !slices.Equal(got, want) {
		t.Errorf("steps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := tr.States.Len(); n != 8 {
		t.Errorf("%d states, want 8: steps or not, every event is one", n)
	}
}

// When the devices have steps (a "Steps" line), they are the steps and
// the host's annotations are not, as in xprof, which takes the host's
// steps only without a device: stragglers and compare would count each
// step twice.
func TestDeviceStepsWin(t *testing.T) {
	data := cat(hostPlane(), plane(1, "/device:TPU:0",
		line(1, "Steps", 1000, event(1, 0, 10_000), event(2, 20_000, 10_000)),
		meta(1, "7", ""), meta(2, "8", "")))
	tr, _, err := readBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	got := stepsOf(tr)
	want := []string{"Steps 7 7 1000 1010", "Steps 8 8 1020 1030"}
	if !slices.Equal(got, want) {
		t.Errorf("steps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// A "Steps" line whose events are not numbered has no steps: the
	// host's are the steps.
	data = cat(hostPlane(), plane(1, "/device:TPU:0", line(1, "Steps", 1000, event(1, 0, 10_000)), meta(1, "warmup", "")))
	if tr, _, err = readBytes(data); err != nil {
		t.Fatal(err)
	}
	if got := stepsOf(tr); len(got) != 3 || !strings.HasPrefix(got[0], "python train 7 ") {
		t.Errorf("steps %v, want the host's 3", got)
	}
}
