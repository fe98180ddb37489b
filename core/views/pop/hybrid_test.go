package pop

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/readers/otf2/pyotf2"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// hybridThread is a thread of the generated hybrid run, in microseconds:
// the OpenMP parallel region it works in, the barrier ending it (where
// it waits), the MPI_Allreduce it calls (the main threads).
type hybridThread struct {
	process, thread              int
	parallel, barrier, allreduce [2]int
}

// The run: 2 processes of 2 threads, 100 us. Process 0 computes serially
// 10 us, opens a parallel region [10, 50) where its main thread computes
// 30 us and its other thread 20 us before the barrier, computes serially
// 10 us more and waits in MPI_Allreduce from 60 us to the end; process 1
// computes serially 20 us, its region [20, 80) keeping the threads 50 and
// 40 us, then 10 us serially, and enters MPI_Allreduce at 90 us.
const hybridRuntime = 100

var hybridRun = []hybridThread{
	{0, 0, [2]int{10, 50}, [2]int{40, 50}, [2]int{60, 100}},
	{0, 1, [2]int{10, 50}, [2]int{30, 50}, [2]int{}},
	{1, 0, [2]int{20, 80}, [2]int{70, 80}, [2]int{90, 100}},
	{1, 1, [2]int{20, 80}, [2]int{60, 80}, [2]int{}},
}

func in(t int, iv [2]int) bool { return iv[0] <= t && t < iv[1] }

// writeHybridParaver writes the run as Extrae would: states Running (1),
// Synchronization (5) in barriers, Group Communication (13) in MPI calls,
// Idle (0) for the other threads outside the parallel region; the
// events of the parallel region (60000001 on the main thread, 60000018
// on the others) and of the MPI call (50000002, its communicator
// 50100004).
func writeHybridParaver(t *testing.T, dir string) string {
	t.Helper()
	const us = 1000
	type rec struct {
		at, order int
		line      string
	}
	var recs []rec
	for i, th := range hybridRun {
		obj := fmt.Sprintf("%d:1:%d:%d", i+1, th.process+1, th.thread+1)
		state := func(at int) int {
			switch {
			case in(at, th.allreduce):
				return 13
			case in(at, th.barrier):
				return 5
			case th.thread == 0 || in(at, th.parallel):
				return 1
			}
			return 0
		}
		// Maximal runs of one state (a Running burst may span a region's
		// start, as when Extrae's events fall inside a burst).
		begin := 0
		for at := 1; at <= hybridRuntime; at++ {
			if at == hybridRuntime || state(at) != state(begin) {
				recs = append(recs, rec{begin, 0, fmt.Sprintf("1:%s:%d:%d:%d", obj, begin*us, at*us, state(begin))})
				begin = at
			}
		}
		ompType := 60000018
		if th.thread == 0 {
			ompType = 60000001
		}
		recs = append(recs, rec{th.parallel[0], 1, fmt.Sprintf("2:%s:%d:%d:1", obj, th.parallel[0]*us, ompType)},
			rec{th.parallel[1], 1, fmt.Sprintf("2:%s:%d:%d:0", obj, th.parallel[1]*us, ompType)})
		if th.allreduce[1] > 0 {
			recs = append(recs, rec{th.allreduce[0], 1, fmt.Sprintf("2:%s:%d:50000002:10:50100004:1", obj, th.allreduce[0]*us)},
				rec{th.allreduce[1], 1, fmt.Sprintf("2:%s:%d:50000002:0", obj, th.allreduce[1]*us)})
		}
	}
	slices.SortStableFunc(recs, func(a, b rec) int { return (a.at-b.at)*2 + (a.order - b.order) })
	var b strings.Builder
	fmt.Fprintf(&b, "#Paraver (01/01/2026 at 00:00):%d_ns:1(4):1:2(2:1,2:1),1\nc:1:1:2:1:2\n", hybridRuntime*us)
	for _, r := range recs {
		b.WriteString(r.line + "\n")
	}
	prv := filepath.Join(dir, "hybrid.prv")
	pcf := `STATES
0    Idle
1    Running
5    Synchronization
13    Group Communication

EVENT_TYPE
9   50000002    MPI Collective Comm
VALUES
10   MPI_Allreduce
0   Outside MPI

EVENT_TYPE
9   50100004    Communicator

EVENT_TYPE
0   60000001    Parallel (OMP)
VALUES
0   Outside
1   DO (open)

EVENT_TYPE
0   60000018    Executed OpenMP parallel function
VALUES
0   End
1   hybrid_kernel
`
	for path, text := range map[string]string{prv: b.String(), filepath.Join(dir, "hybrid.pcf"): pcf} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return prv
}

// writeHybridOTF2 writes the same run as Score-P would (regions "main",
// "!$omp parallel", "!$omp implicit barrier", "MPI_Allreduce" with its
// collective records; the other threads have records only in the
// parallel region), through testdata/gen/hybrid_otf2.py.
func writeHybridOTF2(t *testing.T) string {
	t.Helper()
	const us = 1000
	run := pyotf2.HybridRun{Duration: hybridRuntime * us}
	for _, th := range hybridRun {
		out := pyotf2.Thread{Process: th.process, Thread: th.thread}
		add := func(at int, r ...any) { out.Add(at*us, r...) }
		parallel, barrier := "!$omp parallel @hybrid.c:10", "!$omp implicit barrier @hybrid.c:20"
		if th.thread == 0 {
			add(0, "enter", "main")
		}
		add(th.parallel[0], "enter", parallel)
		add(th.barrier[0], "enter", barrier)
		add(th.barrier[1], "leave", barrier)
		add(th.parallel[1], "leave", parallel)
		if th.allreduce[1] > 0 {
			add(th.allreduce[0], "enter", "MPI_Allreduce")
			add(th.allreduce[0], "coll_begin")
			add(th.allreduce[1], "coll_end")
			add(th.allreduce[1], "leave", "MPI_Allreduce")
		}
		if th.thread == 0 {
			add(hybridRuntime, "leave", "main")
		}
		run.Threads = append(run.Threads, out)
	}
	return pyotf2.WriteHybrid(t, run)
}

func computeFile(t *testing.T, path, format string) *Run {
	t.Helper()
	tr, err := formats.ReadFile(path, format)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Compute(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestHybridClosedForm checks the hybrid factors of the generated run, by
// hand (us; T = 100):
//
//	useful per thread U = 50, 20 | 80, 40: mean 47.5, largest 80
//	  of which in the parallel region 30, 20 | 50, 40: mean 35
//	main threads: in MPI 40 | 10, so outside MPI 60 | 90 (mean 75);
//	  in the parallel region O = 40 | 60 (mean 50), serial useful
//	  S = 20 | 30 (mean 25), so O + S = 60 | 90 as outside MPI
//	ideal replay: the Allreduce ends when the last enters, at 90 us.
//
// BSC: MPI parallel efficiency 75/100, load balance 75/90, communication
// 90/100, serialisation 90/90, transfer 0.9; OpenMP parallel efficiency
// 0.475/0.75, load balance (47.5/80)/(75/90), communication (80/100)/0.9.
// pypop, multiplicative: thread level 47.5/(50+25), OpenMP region
// (35+25)/(50+25), serial region 47.5/(35+25); additive: process level
// 0.75, MPI load balance 1-(90-75)/100, communication 0.9, serialisation
// 1-(90-90)/100, transfer 0.9, thread level 1-(50-35+25/2)/100, OpenMP
// region 1-(50-35)/100, serial region 1-(25/2)/100.
func TestHybridClosedForm(t *testing.T) {
	dir := t.TempDir()
	runs := map[string]*Run{"paraver": computeFile(t, writeHybridParaver(t, dir), "paraver")}
	if _, ok := pyotf2.Python(); ok {
		runs["otf2"] = computeFile(t, writeHybridOTF2(t), "otf2")
	} else {
		t.Logf("python3-otf2 is not installed: the OTF2 twin is not checked")
	}
	mul := map[string]float64{
		"parallel_efficiency": 0.475, "load_balance": 47.5 / 80, "communication_efficiency": 0.8,
		"mpi_parallel_efficiency": 0.75, "mpi_load_balance": 75.0 / 90, "mpi_communication_efficiency": 0.9,
		"mpi_serialisation_efficiency": 1, "mpi_transfer_efficiency": 0.9,
		"openmp_parallel_efficiency": 0.475 / 0.75, "openmp_load_balance": (47.5 / 80) / (75.0 / 90),
		"openmp_communication_efficiency": 0.8 / 0.9,
		"thread_level_efficiency":         47.5 / 75, "openmp_region_efficiency": 60.0 / 75, "serial_region_efficiency": 47.5 / 60,
	}
	add := map[string]float64{
		"process_level_efficiency": 0.75, "mpi_load_balance": 0.85, "mpi_communication_efficiency": 0.9,
		"mpi_serialisation_efficiency": 1, "mpi_transfer_efficiency": 0.9,
		"thread_level_efficiency": 0.725, "openmp_region_efficiency": 0.85, "serial_region_efficiency": 0.875,
	}
	for format, r := range runs {
		t.Run(format, func(t *testing.T) {
			if r.Model != "MPI+OpenMP" || r.Processes != 2 || r.Resources != 4 || r.ThreadsPerProcess != 2 {
				t.Fatalf("model %q, %d processes, %d resources, %d threads per process", r.Model, r.Processes, r.Resources, r.ThreadsPerProcess)
			}
			us := trace.Time(1000)
			wantUseful := []trace.Time{50, 20, 80, 40}
			wantOpenMP := []trace.Time{30, 20, 50, 40}
			for i, res := range r.PerResource {
				if res.Useful != wantUseful[i]*us || res.UsefulOpenMP != wantOpenMP[i]*us {
					t.Errorf("%s: useful %v, in OpenMP %v; want %v, %v", res.Path, res.Useful, res.UsefulOpenMP, wantUseful[i]*us, wantOpenMP[i]*us)
				}
			}
			want := []Process{{OutsideMPI: 60 * us, IdealOutside: 60 * us, OpenMP: 40 * us, SerialUseful: 20 * us, Threads: 2},
				{OutsideMPI: 90 * us, IdealOutside: 90 * us, OpenMP: 60 * us, SerialUseful: 30 * us, Threads: 2}}
			for i, p := range r.PerProcess {
				p.Path, p.Main = "", ""
				if p != want[i] {
					t.Errorf("process %d: %+v, want %+v", i, p, want[i])
				}
			}
			if r.Runtime != 100*us || !r.HasIdeal || r.IdealRuntime != 90*us {
				t.Errorf("runtime %v, ideal %v (%v %q); want 100us, 90us", r.Runtime, r.IdealRuntime, r.HasIdeal, r.NoIdealReason)
			}
			f, err := ComputeFactors([]Run{*r}, Auto)
			if err != nil {
				t.Fatal(err)
			}
			for form, want := range map[Form]map[string]float64{Multiplicative: mul, Additive: add} {
				seen := map[string]bool{}
				for _, row := range f.Form(form) {
					if w, ok := want[row.Key]; ok {
						seen[row.Key] = true
						if math.Abs(row.Values[0]-w) > 1e-12 {
							t.Errorf("%s (%s): %v, want %v", row.Label, row.Form, row.Values[0], w)
						}
					}
				}
				for k := range want {
					if !seen[k] {
						t.Errorf("form %d: no row %s", form, k)
					}
				}
			}
		})
	}
	// The twins agree on every factor.
	if len(runs) == 2 {
		fp, _ := ComputeFactors([]Run{*runs["paraver"]}, Auto)
		fo, _ := ComputeFactors([]Run{*runs["otf2"]}, Auto)
		if len(fp.Rows) != len(fo.Rows) {
			t.Fatalf("%d rows from Paraver, %d from OTF2", len(fp.Rows), len(fo.Rows))
		}
		for i := range fp.Rows {
			p, o := fp.Rows[i].Values[0], fo.Rows[i].Values[0]
			if p != o && !(math.IsNaN(p) && math.IsNaN(o)) {
				t.Errorf("%s (%s): Paraver %v, OTF2 %v", fp.Rows[i].Label, fp.Rows[i].Form, p, o)
			}
		}
	}
}

// TestImageMagickPypop compares the thread level with pypop's own
// computation on its ImageMagick runs (Extrae, 1 process of 2 to 8
// OpenMP threads: testdata/imagemagick, the 4- to 8-thread runs fetched by
// its fetch.sh): pypop's OpenMP_Metrics, whose OpenMP region and serial
// region efficiencies are its hybrid model's additive ones, to the 6
// digits its example notebook prints.
func TestImageMagickPypop(t *testing.T) {
	const dir = "../../../testdata/imagemagick/"
	f, err := os.ReadFile(dir + "pypop_openmp_metrics.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(f)), "\n")[3:] {
		var n int
		var region, serial, pe float64
		if _, err := fmt.Sscanf(strings.ReplaceAll(line, ",", " "), "%d %g %g %g", &n, &region, &serial, &pe); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if n == 1 {
			continue // one thread: no hybrid rows
		}
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			path := fmt.Sprintf("%somp%d.prv.zst", dir, n)
			if _, err := os.Stat(path); err != nil {
				path = fmt.Sprintf("%somp%d.prv.gz", dir, n)
			}
			if _, err := os.Stat(path); err != nil {
				t.Skipf("%d-thread run not available (testdata/imagemagick/fetch.sh)", n)
			}
			r := computeFile(t, path, "paraver")
			if r.Model != "OpenMP" || r.ThreadsPerProcess != n { // no MPI calls: pypop's OpenMP_Metrics
				t.Fatalf("model %q, %d threads", r.Model, r.ThreadsPerProcess)
			}
			fs, err := ComputeFactors([]Run{*r}, Strong)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]float64{"openmp_region_efficiency": region, "serial_region_efficiency": serial, "parallel_efficiency": pe}
			for _, row := range fs.Form(Additive) {
				if w, ok := want[row.Key]; ok && math.Abs(row.Values[0]-w) > 5e-7 {
					t.Errorf("%s: %.7f, pypop %.6f", row.Label, row.Values[0], w)
				}
			}
		})
	}
}

// TestImageMagickSeriesScaling: pypop's ImageMagick runs (1 process of
// 2 to 8 threads, the same instructions in all) are a thread-scaling
// study, strong scaling: the series is auto-detected so by comparing
// instructions per CPU (process x thread), as BSC's modelfactors.py does
// (its trace_processes counts the .row's CPUs); per process it read as weak.
// The runs are labelled PxT as pypop's hybrid layout names them.
func TestImageMagickSeriesScaling(t *testing.T) {
	const dir = "../../../testdata/imagemagick/"
	var runs []Run
	for _, n := range []int{8, 2, 6, 4} { // not in the order of the series
		path := fmt.Sprintf("%somp%d.prv.zst", dir, n)
		if _, err := os.Stat(path); err != nil {
			path = fmt.Sprintf("%somp%d.prv.gz", dir, n)
		}
		if _, err := os.Stat(path); err != nil {
			continue
		}
		runs = append(runs, *computeFile(t, path, "paraver"))
	}
	if len(runs) < 2 {
		t.Skip("one ImageMagick run only (testdata/imagemagick/fetch.sh fetches the others)")
	}
	fs, err := ComputeFactors(runs, Auto)
	if err != nil {
		t.Fatal(err)
	}
	if fs.Scaling != Strong {
		t.Errorf("scaling %v, want strong", fs.Scaling)
	}
	labels := fs.Labels()
	for i, r := range fs.Runs {
		if w := fmt.Sprintf("1x%d", r.Resources); labels[i] != w || r.Processes != 1 {
			t.Errorf("run %d: label %q, want %q", i, labels[i], w)
		}
		if i > 0 && r.Resources <= fs.Runs[i-1].Resources {
			t.Errorf("runs not ordered by threads: %v", labels)
		}
	}
	// The instructions are the same in every run: their scalability is 1
	// to the 3rd digit.
	for _, row := range fs.Form(Multiplicative) {
		if row.Key == "instruction_scalability" {
			for i, v := range row.Values {
				if math.Abs(v-1) > 1e-3 {
					t.Errorf("%s of %s: %v, want 1", row.Label, labels[i], v)
				}
			}
		}
	}
}

// TestOneThreadOpenMPRun: an OpenMP program run on one thread (pypop's
// ImageMagick omp1: Extrae's OpenMP events on a process of one thread) in
// a series with a run of several threads. Its Running bursts inside the
// constructs were not kept (a process of one thread was taken for
// MPI-only), so its computation in them counted as serial as well: pypop's
// thread level and OpenMP region efficiency were 61.94 % on omp1 where
// pypop prints 99.84 %. By hand (us, T = 100): Running [0, 20), the
// parallel region [20, 80) computing until 70 then synchronising, Running
// [80, 100): U = 90, O = 60, of which useful 50, S = 40; multiplicative
// thread level 90/(60+40), OpenMP region (50+40)/(60+40), serial region
// 90/(50+40); additive thread level and OpenMP region 1-(60-50)/100,
// serial region 1. Before: 0.6, 0.6, 1 and 0.4, 0.4, 1.
func TestOneThreadOpenMPRun(t *testing.T) {
	dir := t.TempDir()
	prv := filepath.Join(dir, "omp1.prv")
	body := "#Paraver (01/01/2026 at 00:00):100000_ns:1(1):1:1(1:1),0\n" +
		"1:1:1:1:1:0:20000:1\n" +
		"2:1:1:1:1:20000:60000001:1\n" +
		"1:1:1:1:1:20000:70000:1\n" +
		"1:1:1:1:1:70000:80000:5\n" +
		"2:1:1:1:1:80000:60000001:0\n" +
		"1:1:1:1:1:80000:100000:1\n"
	pcf := "STATES\n1    Running\n5    Synchronization\n\nEVENT_TYPE\n0   60000001    Parallel (OMP)\nVALUES\n0   Outside\n1   DO (open)\n"
	for path, text := range map[string]string{prv: body, filepath.Join(dir, "omp1.pcf"): pcf} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	one := computeFile(t, prv, "paraver")
	two := computeFile(t, writeHybridParaver(t, t.TempDir()), "paraver")
	fs, err := ComputeFactors([]Run{*one, *two}, Strong)
	if err != nil {
		t.Fatal(err)
	}
	if fs.Runs[0].ThreadsPerProcess != 1 {
		t.Fatalf("the reference is the run of %d threads", fs.Runs[0].ThreadsPerProcess)
	}
	// Named as pypop names them: an OpenMP run without MPI calls is
	// OpenMP on one thread too (it was "MPI"), and its layout is 1x1 in
	// a series with threads (it was "1").
	if one.Model != "OpenMP" || two.Model != "MPI+OpenMP" {
		t.Errorf("models %q and %q, want OpenMP and MPI+OpenMP", one.Model, two.Model)
	}
	if l := fs.Labels(); l[0] != "1x1" {
		t.Errorf("labels %v, want 1x1 first", l)
	}
	for form, want := range map[Form]map[string]float64{
		Multiplicative: {"thread_level_efficiency": 0.9, "openmp_region_efficiency": 0.9, "serial_region_efficiency": 1},
		Additive:       {"thread_level_efficiency": 0.9, "openmp_region_efficiency": 0.9, "serial_region_efficiency": 1},
	} {
		seen := 0
		for _, row := range fs.Form(form) {
			if w, ok := want[row.Key]; ok {
				seen++
				if math.Abs(row.Values[0]-w) > 1e-12 {
					t.Errorf("%v %s: %.6f, want %.6f", form, row.Label, row.Values[0], w)
				}
			}
		}
		if seen != len(want) {
			t.Errorf("%v: %d of the %d rows", form, seen, len(want))
		}
	}
}

// streamFile computes the POP data of the trace at path as the command
// line does: the reader's records straight into the accumulator, in the
// file's order, not replayed from a trace in memory.
func streamFile(t *testing.T, path, format string) (*Run, *Accumulator) {
	t.Helper()
	src, _, err := formats.Open(path, format, nil)
	if err != nil {
		t.Fatal(err)
	}
	acc := New(Options{})
	defer acc.Close()
	if err := src.Read(acc, trace.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	r, err := acc.Result()
	if err != nil {
		t.Fatal(err)
	}
	return r, acc
}

// TestOneThreadBurstAcrossFirstConstruct: on an OpenMP run of one thread,
// a Running burst that begins before the trace's first OpenMP event and
// ends inside the construct it opens. Streamed, the burst came before the
// event (records in time order) and was not kept, so its part in the
// construct counted as serial; from a trace in memory it was kept. By hand
// (us, T = 100): Running [0, 50), the region [20, 80), synchronising from
// 50, Running [80, 100): O = 60, of which useful 30; OpenMP region
// efficiency (additive) 1-(60-30)/100 = 0.7 both ways (streamed: 0.4).
func TestOneThreadBurstAcrossFirstConstruct(t *testing.T) {
	dir := t.TempDir()
	prv := filepath.Join(dir, "omp1.prv")
	body := "#Paraver (01/01/2026 at 00:00):100000_ns:1(1):1:1(1:1),0\n" +
		"1:1:1:1:1:0:50000:1\n" +
		"2:1:1:1:1:20000:60000001:1\n" +
		"1:1:1:1:1:50000:80000:5\n" +
		"2:1:1:1:1:80000:60000001:0\n" +
		"1:1:1:1:1:80000:100000:1\n"
	pcf := "STATES\n1    Running\n5    Synchronization\n\nEVENT_TYPE\n0   60000001    Parallel (OMP)\nVALUES\n0   Outside\n1   DO (open)\n"
	for path, text := range map[string]string{prv: body, filepath.Join(dir, "omp1.pcf"): pcf} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	streamed, _ := streamFile(t, prv, "paraver")
	for how, r := range map[string]*Run{"streamed": streamed, "in memory": computeFile(t, prv, "paraver")} {
		if r.Model != "OpenMP" || len(r.PerResource) != 1 {
			t.Fatalf("%s: model %q, %d resources", how, r.Model, len(r.PerResource))
		}
		if got := r.PerResource[0].UsefulOpenMP; got != 30000 {
			t.Errorf("%s: useful in the construct %d ns, want 30000", how, got)
		}
	}
}

// TestMPIOnlyDeclaringOpenMPTypes: an MPI-only run of one thread per
// process whose trace declares the OpenMP construct types without any
// such event (types defined before the records, as a .pcf lists them;
// Extrae's mpi2prv lists only the types its records use, and the Paraver
// reader defines a type at its first record, but a producer may declare
// more). Streamed, its threads keep no Running burst beyond the first
// event (they were all kept, for constructs that never come), and the
// run is MPI with the factors of the same trace without the types.
func TestMPIOnlyDeclaringOpenMPTypes(t *testing.T) {
	const n = 1000
	stream := func(declare bool) (*Run, *Accumulator) {
		acc := New(Options{})
		defer acc.Close()
		acc.DefineType(trace.Type{Name: "Task", Kind: trace.KindContainer, Parent: trace.None})
		acc.DefineType(trace.Type{Name: "Thread", Kind: trace.KindContainer, Parent: 0, Role: trace.RoleThread})
		acc.DefineType(trace.Type{Name: "State", Kind: trace.KindState, Parent: 1})
		acc.DefineType(trace.Type{Name: "MPI call", Kind: trace.KindEvent, Parent: 1})
		if declare {
			acc.DefineType(trace.Type{Name: "Parallel (OMP)", Kind: trace.KindEvent, Parent: 1, Role: trace.RoleParallelConstruct})
		}
		acc.DefineValue(trace.Value{Type: 2, Name: "Running", Role: trace.RoleUseful})
		acc.DefineValue(trace.Value{Type: 2, Name: "MPI_Barrier", Role: trace.RoleCollectiveCall})
		acc.DefineValue(trace.Value{Type: 3, Name: "begin"})
		for p := range 2 {
			acc.CreateContainer(trace.Container{Name: fmt.Sprint("task ", p), Type: 0, Parent: 0})
			acc.CreateContainer(trace.Container{Name: fmt.Sprint("thread ", p), Type: 1, Parent: int32(1 + 2*p)})
		}
		for i := range trace.Time(n) {
			for p := range int32(2) {
				c := 2 + 2*p
				acc.State(trace.State{Container: c, Type: 2, Value: 0, Start: 10 * i, End: 10*i + 6 + trace.Time(p)})
				acc.Event(trace.Event{Container: c, Type: 3, Value: 2, Time: 10*i + 6 + trace.Time(p)})
				acc.State(trace.State{Container: c, Type: 2, Value: 1, Start: 10*i + 6 + trace.Time(p), End: 10*i + 10})
			}
		}
		acc.Finish(0, 10*n)
		r, err := acc.Result()
		if err != nil {
			t.Fatal(err)
		}
		return r, acc
	}
	plain, _ := stream(false)
	declared, acc := stream(true)
	if declared.Model != "MPI" || plain.Model != "MPI" {
		t.Errorf("models %q and %q, want MPI", declared.Model, plain.Model)
	}
	for _, c := range acc.conts {
		if len(c.omp.running) > 1 {
			t.Errorf("%s keeps %d Running bursts, want at most the one before the first event", c.name, len(c.omp.running))
		}
	}
	fd, err := ComputeFactors([]Run{*declared}, Strong)
	if err != nil {
		t.Fatal(err)
	}
	fp, err := ComputeFactors([]Run{*plain}, Strong)
	if err != nil {
		t.Fatal(err)
	}
	rd, rp := fd.Form(Multiplicative), fp.Form(Multiplicative)
	if len(rd) != len(rp) {
		t.Fatalf("%d rows, %d without the types", len(rd), len(rp))
	}
	for i := range rd {
		if a, b := rd[i].Values[0], rp[i].Values[0]; a != b && !(math.IsNaN(a) && math.IsNaN(b)) {
			t.Errorf("%s: %v, %v without the types", rd[i].Label, a, b)
		}
	}
}

// TestScalingOfThreads: BSC's modelfactors.py detects weak scaling by
// the useful instructions over the ratio of CPUs (its .row file's: every
// thread of every task), and pypop's reference run has the fewest threads
// in all, then per process. A series of one process on 1 and 4 threads
// with the same instructions (pypop's ImageMagick runs) was called weak
// (the ratio of processes is 1), and a 2x4 run was the reference of a
// series with a 4x1 run (fewer processes).
func TestScalingOfThreads(t *testing.T) {
	run := func(procs, threads int, instructions float64) Run {
		return Run{Source: fmt.Sprintf("%dx%d", procs, threads), Processes: procs, Resources: procs * threads, ThreadsPerProcess: threads,
			Runtime: 100, UsefulTotal: trace.Time(90 * procs * threads), UsefulMax: 90, UsefulAvg: 90,
			Instructions: instructions, Cycles: instructions}
	}
	for _, c := range []struct {
		runs []Run
		want Scaling
		norm float64 // ((1e9/1e9)/(4/1) ... ) as BSC averages them
		ref  string
	}{
		{[]Run{run(1, 4, 1e9), run(1, 1, 1e9)}, Strong, 0.25, "1x1"},
		{[]Run{run(1, 1, 1e9), run(1, 4, 4e9)}, Weak, 1, "1x1"},
		{[]Run{run(2, 4, 1e9), run(4, 1, 1e9)}, Strong, 0.5, "4x1"},
		{[]Run{run(1, 1, 1e9), run(2, 1, 2e9), run(4, 1, 4e9)}, Weak, 1, "1x1"}, // MPI-only: as before
	} {
		f, err := ComputeFactors(c.runs, Auto)
		if err != nil {
			t.Fatal(err)
		}
		if f.Scaling != c.want || math.Abs(f.NormalisedInstructions-c.norm) > 1e-12 || f.Runs[0].Source != c.ref {
			t.Errorf("%v: %v scaling, normalised instructions %v, reference %s; want %v, %v, %s",
				c.runs, f.Scaling, f.NormalisedInstructions, f.Runs[0].Source, c.want, c.norm, c.ref)
		}
	}
	// Weak scaling scales by the resources: 4 threads doing 4x the
	// instructions in the same time have speed-up 4 (it was 1: x P/P_ref).
	f, err := ComputeFactors([]Run{run(1, 1, 1e9), run(1, 4, 4e9)}, Weak)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range f.Rows {
		if row.Key == "speedup" && row.Values[1] != 4 {
			t.Errorf("weak speed-up %v, want 4", row.Values[1])
		}
	}
}

// TestOpenMPOnlyTable: a run without MPI calls (pypop's ImageMagick omp2)
// gets pypop's OpenMP_Metrics (pypop/metrics/openmp.py), its rows in its
// order and at its depths, and no row of the MPI model. Before, the table
// had BSC's MPI rows (all 100 %), serialisation and transfer (100 % and
// the communication efficiency again) and, additive, pypop's process
// level with its "MPI ..." rows.
func TestOpenMPOnlyTable(t *testing.T) {
	r := computeFile(t, "../../../testdata/imagemagick/omp2.prv.zst", "paraver")
	fs, err := ComputeFactors([]Run{*r}, Auto)
	if err != nil {
		t.Fatal(err)
	}
	if !fs.WithoutMPI() || !fs.Hybrid() {
		t.Fatalf("WithoutMPI %v, Hybrid %v", fs.WithoutMPI(), fs.Hybrid())
	}
	layout := func(rows []Factor) []string {
		var out []string
		for _, row := range rows {
			out = append(out, fmt.Sprintf("%d %s %s", row.Depth, row.Key, row.Label))
		}
		return out
	}
	tail := []string{"1 computation_scalability Computation scalability", "2 instruction_scalability Instruction scalability",
		"2 ipc_scalability IPC scalability", "2 frequency_scalability Frequency scalability",
		"0 speedup Speedup", "0 ipc Average IPC", "0 frequency Average frequency (GHz)"}
	// pypop's _metric_list: Global Efficiency 0, Parallel Efficiency 1,
	// OpenMP Region Efficiency 2, Serial Region Efficiency 2,
	// Computational Scaling 1, Instruction Scaling 2, IPC Scaling 2,
	// Frequency Scaling 2.
	add := append([]string{"0 global_efficiency Global efficiency", "1 parallel_efficiency Parallel efficiency",
		"2 openmp_region_efficiency OpenMP region efficiency", "2 serial_region_efficiency Serial region efficiency"}, tail...)
	mul := append([]string{"0 global_efficiency Global efficiency", "1 parallel_efficiency Parallel efficiency",
		"2 load_balance Load balance", "2 communication_efficiency Communication efficiency",
		"2 thread_level_efficiency Thread level efficiency (pypop)",
		"3 openmp_region_efficiency OpenMP region efficiency (pypop)",
		"3 serial_region_efficiency Serial region efficiency (pypop)"}, tail...)
	if got := layout(fs.Form(Additive)); !slices.Equal(got, add) {
		t.Errorf("additive rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(add, "\n"))
	}
	if got := layout(fs.Form(Multiplicative)); !slices.Equal(got, mul) {
		t.Errorf("multiplicative rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(mul, "\n"))
	}
	// The multiplicative factors still multiply to their parent.
	v := map[string]float64{}
	for _, row := range fs.Form(Multiplicative) {
		v[row.Key] = row.Values[0]
	}
	if pe := v["load_balance"] * v["communication_efficiency"]; math.Abs(pe-v["parallel_efficiency"]) > 1e-12 {
		t.Errorf("load balance x communication %v, parallel efficiency %v", pe, v["parallel_efficiency"])
	}
	if tl := v["openmp_region_efficiency"] * v["serial_region_efficiency"]; math.Abs(tl-v["thread_level_efficiency"]) > 1e-12 {
		t.Errorf("OpenMP region x serial region %v, thread level %v", tl, v["thread_level_efficiency"])
	}
}

// TestWithoutMPI: which series get pypop's OpenMP table: none with an MPI
// call in a run, nor a series of serial runs (one thread, no OpenMP
// construct), whose table is serialRows' (TestSerialSeries): no MPI row.
func TestWithoutMPI(t *testing.T) {
	run := func(calls, threads int, model string) Run {
		return Run{Processes: 1, Resources: threads, ThreadsPerProcess: threads, Calls: calls, Model: model,
			Runtime: 100, UsefulTotal: 90, UsefulMax: 90, UsefulAvg: 90, Instructions: math.NaN(), Cycles: math.NaN(),
			PerProcess: []Process{{Threads: threads, OutsideMPI: 100, OpenMP: 50, SerialUseful: 40}}}
	}
	for _, c := range []struct {
		runs []Run
		want bool
	}{
		{[]Run{run(0, 1, "OpenMP")}, true},
		{[]Run{run(0, 4, "threads")}, true},
		{[]Run{run(0, 1, "serial"), run(0, 2, "OpenMP")}, true},
		{[]Run{run(0, 1, "serial")}, false},
		{[]Run{run(3, 1, "MPI+OpenMP")}, false},
		{[]Run{run(0, 2, "OpenMP"), run(3, 2, "MPI+OpenMP")}, false},
		{[]Run{run(0, 2, "MPI+OpenMP")}, false}, // built by hand: the model says MPI
	} {
		fs, err := ComputeFactors(c.runs, Strong)
		if err != nil {
			t.Fatal(err)
		}
		keys := map[string]bool{}
		for _, row := range fs.Rows {
			keys[row.Key] = true
		}
		mpiRows := !c.want && !fs.Serial()
		if fs.WithoutMPI() != c.want || keys["transfer_efficiency"] != mpiRows || keys["openmp_region_efficiency"] != (c.want || fs.Hybrid()) {
			t.Errorf("%+v: WithoutMPI %v, want %v; rows %v", c.runs[0], fs.WithoutMPI(), c.want, keys)
		}
	}
}

// TestImageMagickOpenMPSeries: pypop's ImageMagick series omp1..omp8
// (testdata/imagemagick/fetch.sh fetches all but omp2), the reference
// omp1, against every column of pypop's OpenMP_Metrics its example
// notebook prints (pypop_openmp_series.csv, 6 significant digits). The
// notebook's IPC and frequency scaling are an older pypop's (the ratio
// of the means of each thread's IPC, of its frequency), checked so; ours
// are those of pypop's openmp.py now (ratios of sums), whose product with
// instruction scalability is computation scalability.
func TestImageMagickOpenMPSeries(t *testing.T) {
	const dir = "../../../testdata/imagemagick/"
	f, err := os.ReadFile(dir + "pypop_openmp_series.csv")
	if err != nil {
		t.Fatal(err)
	}
	var header []string
	want := map[int][]float64{}
	var runs []Run
	for _, line := range strings.Split(strings.TrimSpace(string(f)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		cells := strings.Split(line, ",")
		if header == nil {
			header = cells
			continue
		}
		var n int
		fmt.Sscan(cells[0], &n)
		for _, c := range cells[1:] {
			var x float64
			if _, err := fmt.Sscan(c, &x); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			want[n] = append(want[n], x)
		}
		path := fmt.Sprintf("%somp%d.prv.zst", dir, n)
		if _, err := os.Stat(path); err != nil {
			path = fmt.Sprintf("%somp%d.prv.gz", dir, n)
		}
		if _, err := os.Stat(path); err != nil {
			t.Skipf("%d-thread run not available (testdata/imagemagick/fetch.sh)", n)
		}
		runs = append(runs, *computeFile(t, path, "paraver"))
	}
	fs, err := ComputeFactors(runs, Auto)
	if err != nil {
		t.Fatal(err)
	}
	if !fs.WithoutMPI() || fs.Scaling != Strong {
		t.Fatalf("WithoutMPI %v, scaling %v", fs.WithoutMPI(), fs.Scaling)
	}
	got := map[string][]float64{}
	for _, row := range fs.Form(Additive) {
		got[row.Key] = row.Values
	}
	close6 := func(a, b float64) bool { return math.Abs(a-b) <= 5e-7*max(1, math.Abs(b)) }
	meanOf := func(r Run, value func(Resource) float64) float64 {
		s := 0.0
		for _, res := range r.PerResource {
			s += value(res)
		}
		return s / float64(len(r.PerResource))
	}
	ipc := func(res Resource) float64 { return res.Instructions / res.Cycles }
	freq := func(res Resource) float64 { return res.Cycles / float64(res.Useful) }
	for i, r := range fs.Runs {
		w := want[r.Resources]
		for j, key := range header[1:] {
			switch key {
			case "runtime":
				if g := float64(r.Runtime); !close6(g, w[j]) {
					t.Errorf("%d threads: runtime %v, pypop %v", r.Resources, g, w[j])
				}
			case "ipc_scalability", "frequency_scalability":
				value := map[string]func(Resource) float64{"ipc_scalability": ipc, "frequency_scalability": freq}[key]
				if old := meanOf(r, value) / meanOf(fs.Runs[0], value); !close6(old, w[j]) {
					t.Errorf("%d threads: %s as pypop's notebook computed it %.7f, pypop %.6f", r.Resources, key, old, w[j])
				}
			default:
				if g := got[key][i]; !close6(g, w[j]) {
					t.Errorf("%d threads: %s %.7f, pypop %.6f", r.Resources, key, g, w[j])
				}
			}
		}
		if p := got["ipc_scalability"][i] * got["frequency_scalability"][i] * got["instruction_scalability"][i]; math.Abs(p-got["computation_scalability"][i]) > 1e-12 {
			t.Errorf("%d threads: IPC x frequency x instruction scalability %v, computation scalability %v", r.Resources, p, got["computation_scalability"][i])
		}
	}
}
