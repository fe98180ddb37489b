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

// freqKey tells a frequency counter: a CPU's, or a GPU's.
type freqKey struct {
	gpu bool
	n   uint32
}

// frequency reads a cpu_frequency or gpu_frequency event at t.
func (d *decoder) frequency(t trace.Time, f field) error {
	var k freqKey
	var v uint32
	state, id := protowire.Number(cfState), protowire.Number(cfCPU)
	if f.Num == feGPUFrequency {
		k.gpu, state, id = true, gfState, gfGPU
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
		if k.gpu {
			cont, name = d.conts.gpu(k.n), "gpufreq"
		} else {
			cont = d.conts.cpu(k.n)
		}
		c = &counterTrack{cont: cont, typ: d.m.typ(trace.KindVariable, name, d.m.contType[cont])}
		d.freqs[k] = c
		d.freqOrder = append(d.freqOrder, k)
	}
	if !c.add(d, t, float64(v)) {
		d.skip("frequency values earlier than values of their CPU or GPU already placed", 1)
	}
	return nil
}
