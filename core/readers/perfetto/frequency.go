package perfetto

import (
	"github.com/macroscope-hpc/macroscope/core/readers/pbwalk"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"google.golang.org/protobuf/encoding/protowire"
)

// Clock frequencies, as Android's system traces record them ("CPU
// frequency and idle states", "GPU frequency"): the ftrace events
// cpu_frequency (power/cpu_frequency, kHz) and gpu_frequency
// (power/gpu_frequency), each a new value of a CPU's or a GPU's clock. They
// become the variables trace processor names them, "cpufreq" of the
// container "CPU <n>" and "gpufreq" of a container "GPU <n>" under the
// root, each value holding until the next, the last until the end of the
// trace. The event of one CPU's change may be written in the bundle of
// another CPU, so values come out of time order (counterTrack sorts them).
//
// The ftrace event cpu_idle (power/cpu_idle) likewise becomes the variable
// "cpuidle" of "CPU <n>", as trace processor names it: the idle state the
// CPU enters (0, 1, 2: the deeper the more power saved), and -1 when it
// leaves idle (the kernel's PWR_EVENT_EXIT, (u32)-1, which trace processor
// keeps as 4294967295: read as the signed value the kernel means).

// freqKey tells a counter of a CPU or a GPU: a clock frequency, or a
// CPU's idle state.
type freqKey struct {
	gpu, idle bool
	n         uint32
}

// frequency reads a cpu_frequency, gpu_frequency or cpu_idle event at t.
func (d *decoder) frequency(t trace.Time, f field) error {
	var k freqKey
	var v uint32
	state, id := protowire.Number(cfState), protowire.Number(cfCPU)
	switch f.Num {
	case feGPUFrequency:
		k.gpu, state, id = true, gfState, gfGPU
	case feCPUIdle:
		k.idle, state, id = true, ciState, ciCPU
	}
	err := pbwalk.Each(f.B, f.Off, func(g field) error {
		switch g.Num {
		case state:
			v = uint32(g.U)
		case id:
			k.n = uint32(g.U)
		}
		return nil
	})
	if err != nil {
		return err
	}
	d.saw(t)
	c := d.freqs[k]
	if c == nil {
		var cont int32
		name := "cpufreq"
		switch {
		case k.gpu:
			cont, name = d.conts.gpu(k.n), "gpufreq"
		case k.idle:
			cont, name = d.conts.cpu(k.n), "cpuidle"
		default:
			cont = d.conts.cpu(k.n)
		}
		c = &counterTrack{cont: cont, typ: d.m.typ(trace.KindVariable, name, d.m.contType[cont])}
		d.freqs[k] = c
		d.freqOrder = append(d.freqOrder, k)
	}
	value := float64(v)
	if k.idle {
		value = float64(int32(v)) // PWR_EVENT_EXIT is -1
	}
	if !c.add(d, t, value) {
		d.skip("frequency and idle-state values earlier than values of their CPU or GPU already placed", 1)
	}
	return nil
}
