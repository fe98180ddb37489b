package arrowio

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/core/views/pop"
)

// POPFactorsTable lists the POP metrics of a series of runs, one row per
// metric and form, one column per run (labels):
//
//	metric      the metric's name ("Parallel efficiency"...)
//	key         its identifier ("parallel_efficiency"...)
//	depth       its level in the hierarchy of efficiencies (0 global)
//	form        "multiplicative", "additive", or "" when both forms agree
//	efficiency  true for efficiencies (fractions of 1), false for plain
//	            numbers (speed-up, IPC, frequency in GHz)
//	<label>...  the value for each run; NaN when unknown (no counters, no
//	            ideal replay)
func POPFactorsTable(f *pop.Factors, labels []string, meta map[string]string, mem memory.Allocator) arrow.RecordBatch {
	n := len(f.Rows)
	c := newColumns(mem, n)
	metric, key, form := make([]string, n), make([]string, n), make([]string, n)
	depth := make([]int32, n)
	frac := make([]bool, n)
	for i, r := range f.Rows {
		metric[i], key[i], form[i], depth[i], frac[i] = r.Label, r.Key, r.Form, int32(r.Depth), r.Fraction
	}
	c.strings("metric", metric)
	c.strings("key", key)
	c.int32s("depth", depth)
	c.strings("form", form)
	c.bools("efficiency", frac)
	for j, l := range labels {
		v := make([]float64, n)
		for i, r := range f.Rows {
			v[i] = r.Values[j]
		}
		c.float64s(l, v)
	}
	return c.batch(meta)
}

// POPRawTable lists the raw data of each run (BSC's "#" lines; times in
// seconds): run (its label), source, processes, resources (the rows the
// useful times are over), runtime, useful_avg, useful_max, useful_total,
// runtime_ideal and useful_ideal_max (NaN without the ideal replay),
// instructions, cycles (NaN without counters), ipc, frequency_ghz, calls,
// messages, useful_rule (what counted as useful), no_ideal (why there
// is no ideal replay, "" when there is one), model (pop.Run.Model: "MPI",
// "MPI+OpenMP", "MPI+threads", "OpenMP", "threads" or "serial") and
// threads_per_process.
func POPRawTable(runs []pop.Run, labels []string, meta map[string]string, mem memory.Allocator) arrow.RecordBatch {
	n := len(runs)
	c := newColumns(mem, n)
	src, rule, noIdeal, model := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	procs, res, threads := make([]int32, n), make([]int32, n), make([]int32, n)
	calls, msgs := make([]int64, n), make([]int64, n)
	cols := map[string][]float64{}
	names := []string{"runtime", "useful_avg", "useful_max", "useful_total", "runtime_ideal", "useful_ideal_max",
		"instructions", "cycles", "ipc", "frequency_ghz"}
	for _, name := range names {
		cols[name] = make([]float64, n)
	}
	for i, r := range runs {
		src[i], rule[i], noIdeal[i], model[i], threads[i] = r.Source, r.UsefulRule, r.NoIdealReason, r.Model, int32(r.ThreadsPerProcess)
		procs[i], res[i], calls[i], msgs[i] = int32(r.Processes), int32(r.Resources), int64(r.Calls), int64(r.Messages)
		cols["runtime"][i] = r.Runtime.Seconds()
		cols["useful_avg"][i] = r.UsefulAvg / 1e9
		cols["useful_max"][i] = r.UsefulMax.Seconds()
		cols["useful_total"][i] = r.UsefulTotal.Seconds()
		cols["runtime_ideal"][i], cols["useful_ideal_max"][i] = math.NaN(), math.NaN()
		if r.HasIdeal {
			cols["runtime_ideal"][i], cols["useful_ideal_max"][i] = r.IdealRuntime.Seconds(), r.UsefulIdealMax.Seconds()
		}
		cols["instructions"][i], cols["cycles"][i] = r.Instructions, r.Cycles
		cols["ipc"][i] = r.Instructions / r.Cycles
		cols["frequency_ghz"][i] = r.Cycles / float64(r.UsefulTotal)
	}
	c.strings("run", labels)
	c.strings("source", src)
	c.int32s("processes", procs)
	c.int32s("resources", res)
	for _, name := range names {
		c.float64s(name, cols[name])
	}
	c.int64s("calls", calls)
	c.int64s("messages", msgs)
	c.strings("useful_rule", rule)
	c.strings("no_ideal", noIdeal)
	c.strings("model", model)
	c.int32s("threads_per_process", threads)
	return c.batch(meta)
}

// POPResourcesTable lists every resource of every run (times in seconds):
// run, resource, process (paths), useful, mpi (time in MPI calls),
// outside_mpi (from the trace's start to its last record, outside MPI
// calls: what the ideal replay keeps), ideal_end (its end in the ideal
// replay, NaN without it), instructions and cycles (NaN without
// counters), useful_openmp (the part of useful inside OpenMP
// constructs).
func POPResourcesTable(runs []pop.Run, labels []string, meta map[string]string, mem memory.Allocator) arrow.RecordBatch {
	var run, res, proc []string
	var useful, mpiT, outside, idealEnd, ins, cyc, usefulOMP []float64
	for i, r := range runs {
		for _, x := range r.PerResource {
			run, res, proc = append(run, labels[i]), append(res, x.Path), append(proc, x.Process)
			useful, mpiT, outside = append(useful, x.Useful.Seconds()), append(mpiT, x.MPI.Seconds()), append(outside, x.Outside.Seconds())
			end := math.NaN()
			if x.IdealEnd >= 0 {
				end = x.IdealEnd.Seconds()
			}
			idealEnd, ins, cyc = append(idealEnd, end), append(ins, x.Instructions), append(cyc, x.Cycles)
			usefulOMP = append(usefulOMP, x.UsefulOpenMP.Seconds())
		}
	}
	n := len(run)
	c := newColumns(mem, n)
	runLabels, runCodes := columnLabels(n, func(i int) string { return run[i] })
	resLabels, resCodes := columnLabels(n, func(i int) string { return res[i] })
	procLabels, procCodes := columnLabels(n, func(i int) string { return proc[i] })
	c.categories("run", runLabels, runCodes)
	c.categories("resource", resLabels, resCodes)
	c.categories("process", procLabels, procCodes)
	c.float64s("useful", useful)
	c.float64s("mpi", mpiT)
	c.float64s("outside_mpi", outside)
	c.float64s("ideal_end", idealEnd)
	c.float64s("instructions", ins)
	c.float64s("cycles", cyc)
	c.float64s("useful_openmp", usefulOMP)
	return c.batch(meta)
}

// POPProcessesTable lists every process of every run, the quantities of
// the hybrid factors (times in seconds): run, process, main_thread (the
// thread longest in MPI calls), threads, outside_mpi (the runtime less
// the main thread's time in MPI calls: BSC's), ideal_outside_mpi (the
// main thread's time outside MPI calls to its last record, which the
// ideal replay keeps), openmp (the main thread's time inside OpenMP
// constructs: pypop's OpenMP total runtime) and serial_useful (its
// useful computation outside them).
func POPProcessesTable(runs []pop.Run, labels []string, meta map[string]string, mem memory.Allocator) arrow.RecordBatch {
	var run, proc, main []string
	var threads []int32
	var out, idealOut, omp, serial []float64
	for i, r := range runs {
		for _, p := range r.PerProcess {
			run, proc, main, threads = append(run, labels[i]), append(proc, p.Path), append(main, p.Main), append(threads, int32(p.Threads))
			out, idealOut = append(out, p.OutsideMPI.Seconds()), append(idealOut, p.IdealOutside.Seconds())
			omp, serial = append(omp, p.OpenMP.Seconds()), append(serial, p.SerialUseful.Seconds())
		}
	}
	n := len(run)
	c := newColumns(mem, n)
	runLabels, runCodes := columnLabels(n, func(i int) string { return run[i] })
	c.categories("run", runLabels, runCodes)
	c.strings("process", proc)
	c.strings("main_thread", main)
	c.int32s("threads", threads)
	c.float64s("outside_mpi", out)
	c.float64s("ideal_outside_mpi", idealOut)
	c.float64s("openmp", omp)
	c.float64s("serial_useful", serial)
	return c.batch(meta)
}
