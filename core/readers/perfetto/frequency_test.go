package perfetto

import "testing"

// TestFrequencies covers the cpu_frequency and gpu_frequency ftrace
// events: variables cpufreq of the CPU the event names (not the CPU of
// its bundle) and gpufreq of a GPU container, values out of time order
// across bundles put in order, each holding until the next.
func TestFrequencies(t *testing.T) {
	cpuFreq := func(at, khz, cpu uint64) []byte {
		return sub(2, vint(1, at), vint(2, 0), sub(11, vint(1, khz), vint(2, cpu)))
	}
	gpuFreq := func(at, gpu, hz uint64) []byte {
		return sub(2, vint(1, at), vint(2, 0), sub(332, vint(1, gpu), vint(2, hz)))
	}
	sw := func(at uint64, comm string, pid uint64) []byte {
		return sub(2, vint(1, at), vint(2, 99), sub(4, str(1, "prev"), vint(2, 99), str(5, comm), vint(6, pid)))
	}
	data := traceOf(
		pkt(sub(1, vint(1, 0), sw(100, "A", 5), cpuFreq(150, 1800000, 1), cpuFreq(400, 300000, 1), gpuFreq(420, 0, 585000000))),
		pkt(sub(1, vint(1, 1), cpuFreq(200, 1200000, 1), cpuFreq(250, 2400000, 0))),
		pkt(ts(500), sub(35)),
	)
	tr, notes := mustRead(t, data)
	checkRender(t, tr, `
		container CPU 0 CPU alias=0
		container CPU 1 CPU alias=1
		container GPU 0 GPU alias=0
		state CPU 0 Running "A [5]" 100 500 d0 o0
		variable CPU 1 cpufreq 150 200 1.8e+06
		variable CPU 1 cpufreq 200 400 1.2e+06
		variable CPU 1 cpufreq 400 500 300000
		variable GPU 0 gpufreq 420 500 5.85e+08
		variable CPU 0 cpufreq 250 500 2.4e+06
		span 100 500
	`)
	checkTypes(t, tr)
	checkNotes(t, notes, "skipped 1 packets of kind trace_stats")
}

// TestFtraceGlobalClock covers bundles of kernels whose ftrace has no
// boot clock: on the global clock with the two clocks read at one instant
// (ftrace_timestamp, boot_timestamp), their times are turned into boot
// time, as trace processor does, the trace's start too; without them they
// are used as they are and counted.
func TestFtraceGlobalClock(t *testing.T) {
	sw := func(at uint64, comm string, pid uint64) []byte {
		return sub(2, vint(1, at), vint(2, 99), sub(4, str(1, "prev"), vint(2, 99), str(5, comm), vint(6, pid)))
	}
	cpuFreq := func(at, khz, cpu uint64) []byte {
		return sub(2, vint(1, at), vint(2, 0), sub(11, vint(1, khz), vint(2, cpu)))
	}
	data := traceOf(
		pkt(sub(1, vint(1, 0), sw(1100, "A", 5), cpuFreq(1150, 300000, 0), vint(5, 2), vint(6, 1000), vint(7, 400))),
		pkt(sub(1, vint(1, 1), sw(700, "B", 6), vint(5, 2))),
		pkt(ts(900), sub(35)),
	)
	tr, notes := mustRead(t, data)
	checkRender(t, tr, `
		container CPU 0 CPU alias=0
		container CPU 1 CPU alias=1
		state CPU 0 Running "A [5]" 500 900 d0 o0
		state CPU 1 Running "B [6]" 700 900 d0 o0
		variable CPU 0 cpufreq 550 900 300000
		span 500 900
	`)
	checkTypes(t, tr)
	checkNotes(t, notes,
		"skipped 1 ftrace bundles on a clock other than boot time without a snapshot of both clocks (times used as they are)",
		"skipped 1 packets of kind trace_stats")
}

// TestCPUIdle covers the cpu_idle ftrace event: the variable cpuidle of
// the CPU it names, the idle state entered, and -1 when the CPU leaves
// idle (the kernel's PWR_EVENT_EXIT, written as 4294967295), as Android
// 9's system traces hold them (a Samsung J5's: 35,844 events, 17,922
// exits).
func TestCPUIdle(t *testing.T) {
	idle := func(at, state, cpu uint64) []byte {
		return sub(2, vint(1, at), vint(2, 0), sub(13, vint(1, state), vint(2, cpu)))
	}
	data := traceOf(
		pkt(sub(1, vint(1, 0), idle(100, 1, 0), idle(180, 4294967295, 0), idle(300, 0, 0))),
		pkt(sub(1, vint(1, 1), idle(150, 2, 1), idle(250, 4294967295, 1))),
		pkt(ts(400), sub(35)),
	)
	tr, notes := mustRead(t, data)
	checkRender(t, tr, `
		container CPU 0 CPU alias=0
		container CPU 1 CPU alias=1
		variable CPU 0 cpuidle 100 180 1
		variable CPU 0 cpuidle 180 300 -1
		variable CPU 0 cpuidle 300 400 0
		variable CPU 1 cpuidle 150 250 2
		variable CPU 1 cpuidle 250 400 -1
		span 100 400
	`)
	checkTypes(t, tr)
	checkNotes(t, notes, "skipped 1 packets of kind trace_stats")
}
