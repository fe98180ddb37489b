package perfetto

import (
	"strconv"

	"github.com/macroscope-hpc/macroscope/core/readers/pbwalk"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Kernel scheduling: the sched_switch events of ftrace bundles (and their
// compact encoding) tell which thread runs on each CPU. Each CPU is a
// container of type "CPU" under the root holding states "Running" valued
// by the thread that runs, "<comm> [<tid>]"; the idle task (pid 0) is no
// state. What ran before a CPU's first switch is unknown and not shown;
// the thread running at the end of the trace runs until then.

// cpuState is what runs on a CPU since when.
type cpuState struct{ oneState }

func (d *decoder) cpu(n uint32) *cpuState {
	c := d.cpus[n]
	if c == nil {
		cont := d.conts.cpu(n)
		c = &cpuState{oneState{cont: cont, typ: d.m.typ(trace.KindState, "Running", d.m.contType[cont])}}
		d.m.threadType = c.typ
		d.cpus[n] = c
		d.cpuOrder = append(d.cpuOrder, n)
	}
	return c
}

// switchTo ends what ran on the CPU at t and starts thread pid (comm).
func (c *cpuState) switchTo(d *decoder, t trace.Time, comm string, pid int32) {
	if c.on && t < c.start {
		d.skip("sched_switch events earlier than the previous one on their CPU", 1)
		return
	}
	d.saw(t)
	c.end(d.m.sink, t)
	if pid == 0 {
		return
	}
	if comm == "" {
		comm = d.cat.threadName(pid)
	}
	// Named as Perfetto's UI labels a CPU's slice, "<thread name> [<tid>]"
	// (sched_switch's next_pid is the kernel's thread id): the thread name
	// groups its threads (names' thread-id rule, for the values of
	// threadType: trace.RoleScheduledThread), the id tells them apart.
	name := strconv.Itoa(int(pid))
	if comm != "" {
		name = comm + " [" + name + "]"
	}
	c.begin(t, d.m.value(c.typ, name))
}

// ftrace reads an FtraceEventBundle: the sched_switch events of one CPU.
func (d *decoder) ftrace(f field) error {
	var cpu uint32
	var events, compact []field
	err := pbwalk.Each(f.B, f.Off, func(g field) error {
		switch g.Num {
		case fbCPU:
			cpu = uint32(g.U)
		case fbEvent:
			events = append(events, g)
		case fbCompactSched:
			compact = append(compact, g)
		}
		return nil
	})
	if err != nil {
		return err
	}
	shift, other, converted, err := ftraceClock(f)
	if err != nil {
		return err
	}
	d.ftraceShift = trace.Time(shift)
	if other && !converted {
		d.skip("ftrace bundles on a clock other than boot time without a snapshot of both clocks (times used as they are)", 1)
	}
	for _, ev := range events {
		if err := d.ftraceEvent(cpu, ev); err != nil {
			return err
		}
	}
	for _, cs := range compact {
		if err := d.compactSched(cpu, cs); err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) ftraceEvent(cpu uint32, f field) error {
	var ts uint64
	var sw, pr, freq, binder field
	var tid int32
	isSwitch, isPrint, isFreq, isBinder, otherKind := false, false, false, false, false
	err := pbwalk.Each(f.B, f.Off, func(g field) error {
		switch {
		case g.Num == feTimestamp:
			ts = g.U
		case g.Num == feSchedSwitch && g.IsBytes():
			sw, isSwitch = g, true
		case (g.Num == fePrint || g.Num == feTracingMarkWrite) && g.IsBytes():
			pr, isPrint = g, true
		case (g.Num == feCPUFrequency || g.Num == feGPUFrequency || g.Num == feCPUIdle) && g.IsBytes():
			freq, isFreq = g, true
		case (g.Num == feBinderTransaction || g.Num == feBinderTransactionReceived) && g.IsBytes():
			binder, isBinder = g, true
		case g.Num == fePID:
			tid = g.Int32()
		case g.Num == 5: // common_flags
		default:
			otherKind = true
		}
		return nil
	})
	if err != nil {
		return err
	}
	ts = uint64(trace.Time(ts) + d.ftraceShift)
	if isPrint {
		if pr.Num == feTracingMarkWrite {
			return d.tracingMarkWrite(trace.Time(ts), tid, pr)
		}
		var buf string
		if err := pbwalk.Each(pr.B, pr.Off, func(g field) error {
			if g.Num == printBuf {
				buf = g.String()
			}
			return nil
		}); err != nil {
			return err
		}
		d.print(trace.Time(ts), tid, buf)
		return nil
	}
	if isFreq {
		return d.frequency(trace.Time(ts), freq)
	}
	if isBinder {
		return d.binderEvent(trace.Time(ts), tid, binder)
	}
	if !isSwitch {
		if otherKind {
			d.skip("ftrace events of kinds not modelled (other than sched_switch, print, tracing_mark_write, cpu_frequency, gpu_frequency, cpu_idle, binder_transaction, binder_transaction_received)", 1)
		}
		return nil
	}
	var comm string
	var pid int32
	err = pbwalk.Each(sw.B, sw.Off, func(g field) error {
		switch g.Num {
		case ssNextComm:
			comm = g.String()
		case ssNextPID:
			pid = g.Int32()
		}
		return nil
	})
	if err != nil {
		return err
	}
	d.cpu(cpu).switchTo(d, trace.Time(ts), comm, pid)
	return nil
}

// compactSched reads the compact encoding of sched_switch: columns of
// delta-encoded timestamps, next pids and next comms (indices into the
// bundle's intern table). sched_waking events are counted, not modeled.
func (d *decoder) compactSched(cpu uint32, f field) error {
	var table []string
	var times []uint64
	var pids, comms []uint64
	waking := int64(0)
	err := pbwalk.Each(f.B, f.Off, func(g field) error {
		switch g.Num {
		case csInternTable:
			table = append(table, g.String())
		case csSwitchTS:
			return uints(g, false, func(v uint64) { times = append(times, v) })
		case csSwitchPID:
			return uints(g, false, func(v uint64) { pids = append(pids, v) })
		case csSwitchComm:
			return uints(g, false, func(v uint64) { comms = append(comms, v) })
		case csWakingTS:
			return uints(g, false, func(uint64) { waking++ })
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(pids) != len(times) || len(comms) != len(times) {
		return pbwalk.Corruptf(f.Off, "compact sched_switch columns differ in length: %d timestamps, %d pids, %d comms",
			len(times), len(pids), len(comms))
	}
	d.skip("compact sched_waking events", waking)
	c := d.cpu(cpu)
	var t uint64
	for i := range times {
		t += times[i]
		comm := ""
		if k := comms[i]; k < uint64(len(table)) {
			comm = table[k]
		} else {
			return pbwalk.Corruptf(f.Off, "compact sched_switch %d names comm %d of an intern table of %d", i, k, len(table))
		}
		c.switchTo(d, trace.Time(t)+d.ftraceShift, comm, int32(pids[i]))
	}
	return nil
}
