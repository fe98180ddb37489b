package rocprof

import (
	"os"
	"strconv"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The CSV files of rocprof v1 (results.csv, timestamps.csv) and v2 hold one
// row per kernel dispatch: where it ran, when, and the counters asked for.

// legacyColumns names the columns of a legacy row that are not counters,
// in both versions' spelling.
var legacyColumns = map[string]bool{
	// v1
	"Index": true, "KernelName": true, "gpu-id": true, "queue-id": true, "queue-index": true,
	"pid": true, "tid": true, "grd": true, "wgr": true, "lds": true, "scr": true,
	"arch_vgpr": true, "accum_vgpr": true, "vgpr": true, "sgpr": true, "fbar": true,
	"sig": true, "obj": true, "wave_size": true, "DispatchNs": true, "BeginNs": true,
	"EndNs": true, "CompleteNs": true, "DurationNs": true,
	// v2
	"Dispatch_ID": true, "GPU_ID": true, "Queue_ID": true, "PID": true, "TID": true,
	"Grid_Size": true, "Workgroup_Size": true, "LDS_Per_Workgroup": true,
	"Scratch_Per_Workitem": true, "Arch_VGPR": true, "Accum_VGPR": true, "SGPR": true,
	"Wave_Size": true, "Kernel_Name": true, "Start_Timestamp": true, "End_Timestamp": true,
	"Correlation_ID": true,
}

// legacyLayout tells the columns of a legacy file, by version.
type legacyLayout struct {
	name, gpu, queue, start, end int
}

func legacyHeader(h header) (legacyLayout, bool) {
	switch {
	case h.has("KernelName", "gpu-id", "queue-id", "BeginNs", "EndNs"):
		return legacyLayout{h["KernelName"], h["gpu-id"], h["queue-id"], h["BeginNs"], h["EndNs"]}, true
	case h.has("Kernel_Name", "GPU_ID", "Queue_ID", "Start_Timestamp", "End_Timestamp"):
		return legacyLayout{h["Kernel_Name"], h["GPU_ID"], h["Queue_ID"], h["Start_Timestamp"], h["End_Timestamp"]}, true
	case h.has("Kernel_Name", "GPU_ID", "queue-id", "Start_Timestamp", "End_Timestamp"):
		// v2 as Omniperf runs it (ROCm 6, MI300A): the queue's columns keep
		// v1's spelling (queue-id, queue-index, pid, tid, DispatchNs).
		return legacyLayout{h["Kernel_Name"], h["GPU_ID"], h["queue-id"], h["Start_Timestamp"], h["End_Timestamp"]}, true
	}
	return legacyLayout{}, false
}

// sniffLegacy reports whether head starts with the header of a rocprof v1
// or v2 CSV file with timestamps.
func sniffLegacy(head []byte) bool {
	line := firstLine(head)
	h, err := parseHeader(line)
	if err != nil {
		return false
	}
	_, ok := legacyHeader(h)
	return ok
}

// readLegacyCSV reads a CSV file of rocprof v1 or v2 (with its kernel
// timestamps) into sink: each row is a kernel dispatch on a queue of a
// GPU. Counter columns are not modelled: their values are counted as
// skipped. With strict, a row that cannot be read is an error.
func readLegacyCSV(path string, strict bool, sink trace.Sink, opt trace.ReadOptions) error {
	var total int64
	if st, err := os.Stat(path); err == nil {
		total = st.Size()
	}
	return readLegacy(csvFile{path: path, strict: strict, total: total}, sink, opt)
}

func readLegacy(f csvFile, sink trace.Sink, opt trace.ReadOptions) error {
	path := f.path
	m := newModel(opt)
	defer m.release() // a read that stops early gives back what the model held
	host := m.host("")
	var lay legacyLayout
	var counters, reversed int64
	ncounters := 0
	_, _, err := f.read(opt, "kernel dispatch", func(h header) (func(*row) error, error) {
		var ok bool
		lay, ok = legacyHeader(h)
		if !ok {
			return nil, errs.Format(path, 1, "not a rocprof v1/v2 CSV file: no KernelName, gpu-id, queue-id, BeginNs, EndNs (v1) nor Kernel_Name, GPU_ID, Queue_ID (or queue-id), Start_Timestamp, End_Timestamp (v2) columns")
		}
		for name := range h {
			if !legacyColumns[name] {
				ncounters++
			}
		}
		return func(w *row) error {
			s, err := w.int(lay.start)
			if err != nil {
				return badRow("start: %v", err)
			}
			e, err := w.int(lay.end)
			if err != nil {
				return badRow("end: %v", err)
			}
			gpu, err := w.int(lay.gpu)
			if err != nil {
				return badRow("GPU id: %v", err)
			}
			q, err := w.int(lay.queue)
			if err != nil {
				return badRow("queue id: %v", err)
			}
			counters += int64(ncounters)
			if e < s {
				reversed++
				return nil
			}
			g := strconv.FormatInt(gpu, 10)
			a := m.agent(host, g, gpu, "GPU "+g)
			c := m.queue(a, "Queue "+strconv.FormatInt(q, 10), q)
			m.add(c, kindKernel, w.str(lay.name), trace.Time(s), trace.Time(e), 0, nan)
			return m.err // the budget's refusal (model.tick), placed at this line
		}, nil
	})
	if err != nil {
		return err
	}
	opt.Skip("kernel dispatches ending before they start", reversed)
	opt.Skip("counter values (one per kernel dispatch and counter column)", counters)
	if err := opt.Canceled(); err != nil {
		return err
	}
	return m.emit(sink, path)
}
