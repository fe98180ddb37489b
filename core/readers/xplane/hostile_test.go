package xplane

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/readers/pbwalk"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Encoders of the protobuf wire format, for spaces made by hand.

func vint(num protowire.Number, v uint64) []byte {
	return protowire.AppendVarint(protowire.AppendTag(nil, num, protowire.VarintType), v)
}

func sint(num protowire.Number, v int64) []byte { return vint(num, uint64(v)) }

func str(num protowire.Number, s string) []byte {
	return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), []byte(s))
}

func sub(num protowire.Number, parts ...[]byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), bytes.Join(parts, nil))
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// meta is an event_metadata entry: id, name, display name.
func meta(id int64, name, display string) []byte {
	v := [][]byte{sint(emID, id), str(emName, name)}
	if display != "" {
		v = append(v, str(emDisplayName, display))
	}
	return sub(planeEventMetadata, sint(mapKey, id), sub(mapValue, v...))
}

// statMeta is a stat_metadata entry.
func statMeta(id int64, name string) []byte {
	return sub(planeStatMetadata, sint(mapKey, id), sub(mapValue, sint(1, id), str(smName, name)))
}

// event is an event of metadata id at offset ps lasting dur ps, with stats.
func event(id, offset, dur int64, stats ...[]byte) []byte {
	return sub(lineEvents, append([][]byte{sint(eventMetadataID, id), sint(eventOffsetPs, offset), sint(eventDurationPs, dur)}, stats...)...)
}

// line is a line of id, named name, starting at ts ns, with events.
func line(id int64, name string, ts int64, events ...[]byte) []byte {
	return sub(planeLines, append([][]byte{sint(lineID, id), str(lineName, name), sint(lineTimestampNs, ts)}, events...)...)
}

// plane is a plane (field 1 of XSpace) of id and name, with lines and
// metadata (in the order the profilers write them: lines first).
func plane(id int64, name string, parts ...[]byte) []byte {
	return sub(spacePlanes, append([][]byte{sint(planeID, id), str(planeName, name)}, parts...)...)
}

// readBytes reads the space data, as a file named mem.xplane.pb.
func readBytes(data []byte) (*trace.Trace, *trace.Notes, error) {
	tr := trace.New()
	notes := &trace.Notes{}
	done := false
	err := decode("mem.xplane.pb", tr, trace.ReadOptions{Notes: notes}, func([]byte) {}, func() ([]byte, string, error) {
		if done {
			return nil, "", io.EOF
		}
		done = true
		return data, "mem.xplane.pb", nil
	})
	return tr, notes, err
}

// A space made by hand, read as the trace viewer shows it: the planes
// in its order (host threads, then GPUs; metadata and TPU planes left
// out when there are GPUs), display names, step_name stats, counter
// lines, internal and aggregated events left out and counted.
func TestHandMade(t *testing.T) {
	data := cat(
		plane(0, "/host:metadata", meta(1, "hlo", "")),
		plane(1, "/device:GPU:0",
			line(7, "Stream #7(Kernel)", 1000, event(1, 0, 5000), event(2, 6000, 1000)),
			line(8, "_counters_", 1000, event(1, 0, 0)),
			meta(1, "fusion.1", ""), meta(2, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "")),
		plane(0, "/device:TPU:0", line(1, "XLA Ops", 0, event(1, 0, 10))),
		plane(0, "/host:CPU",
			line(3, "python", 500,
				event(1, 0, 10_000, sub(eventStats, sint(statMetadataID, 9), str(statStr, "train 3"))),
				event(2, 1000, 2000),
				event(3, 4000, 10),
				sub(lineEvents, sint(eventMetadataID, 2), sint(eventNumOccurences, 4), sint(eventDurationPs, 7))),
			meta(1, "train", ""), meta(2, "long internal name", "short"), meta(3, "MemoryAllocation", ""),
			statMeta(9, "step_name")),
	)
	if !sniff(data) {
		t.Error("not sniffed as an XSpace")
	}
	tr, notes, err := readBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range tr.States.All() {
		got = append(got, tr.ContainerPath(s.Container, "/")+" "+tr.Values[s.Value].Name+" "+s.Start.String()+" "+s.End.String())
	}
	want := []string{
		"mem//host:CPU/python short 0.000000501 0.000000503",   // the display name, nested: delivered first
		"mem//host:CPU/python train 3 0.000000500 0.000000510", // 500 ns + 0..10,000 ps, named by step_name
		"mem//device:GPU:0/Stream #7(Kernel) fusion.1 0.000001000 0.000001005",
		"mem//device:GPU:0/Stream #7(Kernel) ncclDevKernel_AllReduce_Sum_f32_RING_LL 0.000001006 0.000001007",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("states:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, v := range tr.Values {
		if v.Name == "ncclDevKernel_AllReduce_Sum_f32_RING_LL" && v.Role != trace.RoleCommunicationKernel {
			t.Errorf("NCCL kernel has role %v", v.Role)
		}
	}
	skipped := notes.Skipped()
	if len(skipped) != 3 {
		t.Errorf("skipped %v: want the counter, internal and aggregated events", skipped)
	}
	for what, n := range skipped {
		if n != 1 {
			t.Errorf("skipped %d %s, want 1", n, what)
		}
	}
}

// The events of a TPU's "Steps" line are steps, numbered by their name;
// a name that is no number, or the same number on another line, is not.
func TestStepsLine(t *testing.T) {
	data := plane(0, "/device:TPU:0",
		line(1, "Steps", 0, event(1, 0, 1000), event(2, 2000, 1000), event(3, 4000, 10)),
		line(2, "XLA Ops", 0, event(1, 0, 10)),
		meta(1, "41", ""), meta(2, "42", ""), meta(3, "warmup", ""))
	tr, _, err := readBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range tr.States.All() {
		v := tr.Values[s.Value]
		got[tr.Containers[s.Container].Name+"/"+v.Name] = v.Role.String() + " " + strconv.Itoa(int(v.Step))
	}
	want := map[string]string{"Steps/41": "step 41", "Steps/42": "step 42", "Steps/warmup": " 0", "XLA Ops/41": " 0"}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %q, want %q (all: %v)", k, got[k], w, got)
		}
	}
}

// The profiler's errors and warnings are notes, the first ten; the
// others are counted.
func TestProfilerMessages(t *testing.T) {
	data := plane(0, "/host:CPU", line(1, "t", 0, event(1, 0, 10)), meta(1, "a", ""))
	for i := range 12 {
		data = cat(data, str(spaceErrors, "lost events of CUPTI"), str(spaceWarnings, strings.Repeat("w", 1000+i)))
	}
	data = cat(data, str(spaceHostnames, "h"))
	_, notes, err := readBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	msgs := strings.Join(notes.Messages(), "\n")
	if n := strings.Count(msgs, "the profiler reports"); n != 10 || !strings.Contains(msgs, "reports an error: lost events of CUPTI") ||
		notes.Skipped()["more of the profiler's errors and warnings"] != 14 || len(msgs) > 10*400+1000 {
		t.Errorf("%d messages:\n%s\nskipped %v", n, msgs, notes.Skipped())
	}
}

// Broken spaces are FormatErrors at the byte of the field at fault.
func TestHostile(t *testing.T) {
	good := plane(0, "/host:CPU", line(1, "t", 0, event(1, 0, 10)), meta(1, "a", ""))
	for _, c := range []struct {
		name string
		data []byte
		at   int64
		says string
	}{
		{"wrong wire type of a plane", cat(good, vint(spacePlanes, 3)), int64(len(good)), "XSpace.planes (field 1) has wire type varint"},
		{"plane name a varint", sub(spacePlanes, vint(planeName, 1)), 2, "XPlane.name"},
		{"length past the end", cat(good, []byte{0x0a, 0x80, 0x80, 0x04, 1, 2}), int64(len(good)), "past the end"},
		{"huge length", cat(good, protowire.AppendVarint([]byte{0x0a}, math.MaxUint64)), int64(len(good)), "past the end"},
		{"malformed varint", cat(good, []byte{0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}), int64(len(good)), "malformed field 1"},
		{"invalid wire type", cat(good, []byte{0x0f}), int64(len(good)), "invalid wire type"},
		{"negative duration", plane(0, "/host:CPU", line(1, "t", 0, event(1, 0, -1))), -1, "negative duration"},
		{"time out of range", plane(0, "/host:CPU", line(1, "t", math.MaxInt64-5, event(1, 1e6, 0))), -1, "out of range"},
		{"end out of range", plane(0, "/host:CPU", line(1, "t", 0, event(1, math.MaxInt64-5, 10))), -1, "out of range"},
		{"event a varint", plane(0, "/host:CPU", sub(planeLines, vint(lineEvents, 5))), -1, "XLine.events"},
		{"step number a string of bytes", plane(0, "/host:CPU",
			line(1, "t", 0, event(1, 0, 10, sub(eventStats, sint(statMetadataID, 10), str(statInt, "7")))),
			meta(1, "train", ""), statMeta(10, "step_num")), -1, "XStat.int64_value or uint64_value"},
	} {
		_, _, err := readBytes(c.data)
		var fe *errs.FormatError
		if !errors.As(err, &fe) || !fe.HasOffset() || fe.File != "mem.xplane.pb" || !strings.Contains(err.Error(), c.says) ||
			(c.at >= 0 && fe.Offset != c.at) {
			t.Errorf("%s: %v, want a FormatError at byte %d saying %q", c.name, err, c.at, c.says)
		}
	}
}

// A file cut anywhere is read (cut between planes: the planes before) or
// refused as a FormatError at a byte offset; never a panic.
func TestCut(t *testing.T) {
	data, err := os.ReadFile("testdata/jax_cpu.xplane.pb")
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	for n := 1; n < len(data); n += 1 + n/64 {
		_, _, err := readBytes(data[:n])
		var fe *errs.FormatError
		switch {
		case err == nil:
		case errors.As(err, &fe) && fe.HasOffset():
			refused++
		default:
			t.Fatalf("cut at %d: %v", n, err)
		}
	}
	if refused == 0 {
		t.Error("no cut refused")
	}
	// Cut between planes: the planes before, with a warning, as the
	// hostnames come after the planes.
	var planes []int
	if err := pbwalk.Each(data, 0, func(f field) error {
		if f.Num == spacePlanes {
			planes = append(planes, int(f.Off)+len(f.B))
		}
		return nil
	}); err != nil || len(planes) < 2 {
		t.Fatal(err, planes)
	}
	for _, n := range planes {
		_, notes, err := readBytes(data[:n])
		if err != nil || !strings.Contains(strings.Join(notes.Messages(), " "), "names no host") {
			t.Errorf("cut after the plane ending at %d: %v, notes %q; want read, with a warning", n, err, notes.Messages())
		}
	}
	if _, notes, err := readBytes(nil); err != nil || len(notes.IncompleteReasons()) != 1 {
		t.Errorf("empty file: %v, notes %q; want read, incomplete", err, notes.Messages())
	}
	if _, notes, _ := readBytes(data); len(notes.Messages()) != 0 {
		t.Errorf("the whole file has notes: %q", notes.Messages())
	}
}

// A read holds the file and the events against the memory budget, and
// stops with the budget's error.
func TestBudget(t *testing.T) {
	var events [][]byte
	for i := range 10000 {
		events = append(events, event(1, int64(i)*1000, 500))
	}
	data := plane(0, "/host:CPU", line(1, "t", 0, events...), meta(1, "a", ""))
	path := filepath.Join(t.TempDir(), "big.xplane.pb")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	over := errors.New("over budget")
	var held, most int64
	err := Read(path, trace.New(), trace.ReadOptions{Hold: func(n int64) error {
		held += n
		most = max(most, held)
		if held > int64(len(data))+(1<<20) {
			return over
		}
		return nil
	}})
	if err != nil || most < int64(len(data)) || held != 0 {
		t.Errorf("read: %v, held at most %d, %d at the end: want the file held, all given back", err, most, held)
	}
	held = 0
	err = Read(path, trace.New(), trace.ReadOptions{Hold: func(n int64) error {
		if held += n; held > int64(len(data))/2 {
			return over
		}
		return nil
	}})
	if !errors.Is(err, over) {
		t.Errorf("read under half the file's size: %v, want the budget's error", err)
	}
}

// A directory is read as the profile of one run: the run's directory,
// or the log directory (or its plugins/profile) for the latest run.
func TestDirectories(t *testing.T) {
	logdir := t.TempDir()
	run := func(name string, hosts ...string) string {
		d := filepath.Join(logdir, "plugins", "profile", name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, h := range hosts {
			data := plane(0, "/host:CPU", line(1, "main", 0, event(1, 0, 1000)), meta(1, "step of "+h, ""))
			if err := os.WriteFile(filepath.Join(d, h+ext), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	run("2024_01_01_00_00_00", "old")
	latest := run("2024_05_01_12_30_00", "hostA", "hostB")
	for _, dir := range []string{latest, logdir, filepath.Join(logdir, "plugins", "profile")} {
		if !Format.SniffDir(dir) {
			t.Errorf("%s not taken", dir)
		}
		tr, err := readertest.ReadFormat(t, Format, dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		var hosts []string
		for _, c := range tr.Containers {
			if c.Parent == 0 {
				hosts = append(hosts, c.Name)
			}
		}
		if strings.Join(hosts, ",") != "hostA,hostB" || tr.States.Len() != 2 {
			t.Errorf("%s: hosts %v, %d states; want hostA, hostB of the latest run", dir, hosts, tr.States.Len())
		}
	}
	if Format.SniffDir(t.TempDir()) {
		t.Error("an empty directory taken")
	}
}

// A run directory holding a host's space and a compressed copy of it
// reads the host once, saying which file it left out: read twice, every
// event was doubled under one host.
func TestCompressedCopyOfAHost(t *testing.T) {
	dir := t.TempDir()
	space := func(h string) []byte {
		return plane(0, "/host:CPU", line(1, "main", 0, event(1, 0, 1000)), meta(1, "step of "+h, ""))
	}
	for name, data := range map[string][]byte{
		"hostA" + ext:         space("hostA"),
		"hostA" + ext + ".gz": readertest.Compress(t, space("hostA"), "gzip"),
		"hostB" + ext + ".gz": readertest.Compress(t, space("hostB"), "gzip"),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tr, notes, err := readertest.ReadFormatNotes(t, Format, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	var hosts []string
	for _, c := range tr.Containers {
		if c.Parent == 0 {
			hosts = append(hosts, c.Name)
		}
	}
	if strings.Join(hosts, ",") != "hostA,hostB" || tr.States.Len() != 2 {
		t.Errorf("hosts %v, %d states; want hostA and hostB once each, 2 states", hosts, tr.States.Len())
	}
	w := strings.Join(notes.Messages(), "\n")
	if !strings.Contains(w, "hostA.xplane.pb and hostA.xplane.pb.gz hold the profile of one host: hostA.xplane.pb is read") {
		t.Errorf("warnings %q do not name the copy left out", w)
	}
	src, err := Format.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(src.Files) != 2 {
		t.Errorf("source files %v, want one per host", src.Files)
	}
}

// Sniffing takes the profilers' spaces, not a Perfetto trace nor text.
func TestSniff(t *testing.T) {
	for _, name := range []string{"/host:CPU", "/host:metadata", "/device:GPU:0", "/device:TPU:3", "Task Environment"} {
		if !sniff(plane(0, name)) || !sniff(sub(spacePlanes, str(planeName, name))) {
			t.Errorf("%q not sniffed", name)
		}
	}
	for _, data := range [][]byte{
		nil, []byte("\n/host:CPU\n"), plane(0, "host:CPU"), plane(0, "main"),
		sub(1, sint(8, 5), sub(11, str(23, "/host:CPU"))), // a Perfetto packet with a timestamp and a track event
	} {
		if sniff(data) {
			t.Errorf("%q sniffed", data)
		}
	}
}

// A run directory's files stay inside the directory named: a link to a
// space outside it is refused, naming the link (ingest.OpenIn).
func TestDirectoryLinkOutside(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.xplane.pb")
	data := cat(plane(0, "/host:CPU", line(1, "main", 0, event(1, 0, 1000)), meta(1, "x", "")), str(spaceHostnames, "h"))
	if err := os.WriteFile(outside, data, 0o644); err != nil {
		t.Fatal(err)
	}
	run := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(run, "h.xplane.pb")); err != nil {
		t.Skip(err)
	}
	_, err := readertest.ReadFormat(t, Format, run, nil)
	if !errors.Is(err, ingest.ErrOutside) || !strings.Contains(err.Error(), "h.xplane.pb") {
		t.Errorf("read through a link outside: %v", err)
	}
}

// A file larger than the budget is refused by the budget before its
// bytes are allocated: a sparse file of 4 GiB, under a budget of 64 MiB,
// allocates none of its size (the runtime's out of memory, for a file
// larger than memory, would end the process).
func TestBudgetBeforeAllocation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sparse.xplane.pb")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(4 << 30); err != nil {
		t.Skip("no sparse file here:", err)
	}
	f.Close()
	over := errors.New("over budget")
	var held int64
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err = Read(path, trace.New(), trace.ReadOptions{Hold: func(n int64) error {
		if held += n; held > 64<<20 {
			return over
		}
		return nil
	}})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, over) || held != 0 {
		t.Errorf("read: %v, %d bytes held at the end; want the budget's error, all given back", err, held)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<30 {
		t.Errorf("allocated %d bytes before the budget refused the file", n)
	}
}

// Spaces of many small fields (empty events, metadata entries) are
// refused by the budget before the reader's own lists of them grow to
// many times the file's size: what the read allocates stays within a few
// times the budget.
func TestBudgetManySmallFields(t *testing.T) {
	const n = 1 << 20
	emptyEvents := bytes.Repeat([]byte{0x22, 0x00}, n) // XLine.events, empty
	var metas [][]byte
	for i := range n {
		metas = append(metas, sub(planeEventMetadata, sint(mapKey, int64(i+1))))
	}
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"empty events", plane(0, "/host:CPU", sub(planeLines, sint(lineID, 1), str(lineName, "t"), emptyEvents))},
		{"metadata entries", plane(0, "/host:CPU", cat(metas...), line(1, "t", 0, event(1, 0, 10)))},
	} {
		over := errors.New("over budget")
		const budget = 4 << 20
		var held int64
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		done := false
		err := decode("mem.xplane.pb", trace.New(), trace.ReadOptions{Hold: func(k int64) error {
			if held += k; held > budget {
				return over
			}
			return nil
		}}, func([]byte) {}, func() ([]byte, string, error) {
			if done {
				return nil, "", io.EOF
			}
			done = true
			return c.data, "mem.xplane.pb", nil
		})
		runtime.ReadMemStats(&after)
		if !errors.Is(err, over) || held != 0 {
			t.Errorf("%s: %v, %d bytes held at the end; want the budget's error, all given back", c.name, err, held)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 8*budget {
			t.Errorf("%s (%d bytes): allocated %d bytes under a budget of %d", c.name, len(c.data), got, budget)
		}
	}
}

// A space of a million empty planes and hostnames keeps no list of them:
// it is read (no timed event) allocating a few times its size.
func TestManyEmptyPlanesAndHostnames(t *testing.T) {
	data := cat(bytes.Repeat([]byte{0x0a, 0x00}, 1<<20), bytes.Repeat([]byte{0x22, 0x01, 'h'}, 1<<20)) // XSpace.planes, .hostnames
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, notes, err := readBytes(data)
	runtime.ReadMemStats(&after)
	if err != nil || !strings.Contains(strings.Join(notes.Messages(), " "), "no timed event") {
		t.Errorf("read: %v, notes %q; want read, with no timed event", err, notes.Messages())
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 4*uint64(len(data)) {
		t.Errorf("allocated %d bytes for a space of %d", got, len(data))
	}
}
