package formats

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// copyTree copies the file or directory src into dir and returns the
// copy's path.
func copyTree(t *testing.T, src, dir string) string {
	t.Helper()
	dst := filepath.Join(dir, filepath.Base(src))
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(to)
		if err != nil {
			return err
		}
		defer out.Close()
		_, err = io.Copy(out, in)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// readWithin reads the trace at path through the door, failing the test
// if the read has not ended after a minute (a FIFO waited on).
func readWithin(t *testing.T, path string) (*trace.Notes, error) {
	t.Helper()
	type result struct {
		notes *trace.Notes
		err   error
	}
	done := make(chan result, 1)
	go func() {
		src, _, err := Open(path, "", nil)
		if err != nil {
			done <- result{nil, err}
			return
		}
		notes := &trace.Notes{}
		err = src.Read(trace.New(), trace.ReadOptions{Notes: notes})
		done <- result{notes, err}
	}()
	select {
	case r := <-done:
		return r.notes, r.err
	case <-time.After(time.Minute):
		t.Fatalf("%s: the read has not ended after a minute", path)
		return nil, nil
	}
}

// The files a trace is made of besides the one named (an OTF2 archive's
// definitions and events, a Paraver trace's .pcf and .row, an HPCToolkit
// database's traces and profiles, a StarVZ dump's parts) are opened as
// the named one is: a FIFO in place of one never blocks the read, and a
// symbolic link leading outside the directory the user named is not
// followed (the error names the file and says so, without quoting what
// the link leads to). Either an error naming the companion, or the trace
// marked incomplete saying which part is missing.
func TestHostileCompanions(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("SECRET-CONTENT 1 2 3\n"), 0o644)
	cases := []struct {
		name, source, anchor, companion string
	}{
		{"otf2 .def", "pipit/tests/data/ping-pong-otf2", "traces.otf2", "traces.def"},
		{"otf2 location .def", "pipit/tests/data/ping-pong-otf2", "traces.otf2", "traces/0.def"},
		{"otf2 .evt", "pipit/tests/data/ping-pong-otf2", "traces.otf2", "traces/1.evt"},
		{"paraver .pcf", "paraver/test/cutter", "qsort_beo3.prv", "qsort_beo3.pcf"},
		{"hpctoolkit .hpctrace", "hpctoolkit-db/xml/vectorAdd", "", "vectorAdd-000000-500-2a803c80-4067513-0.hpctrace"},
		{"hpctoolkit experiment.mdb", "hpctoolkit-db/xml/vectorAdd", "", "experiment-1.mdb"},
		{"hpctoolkit profile.db", "hpctoolkit-db/vectorAdd", "", "profile.db"},
		{"hpctoolkit trace.db", "hpctoolkit-db/vectorAdd", "", "trace.db"},
		{"starvz part", "starvz/extra_data/qr_trace", "", "paje.worker_state.csv.gz"},
	}
	for _, c := range cases {
		src := filepath.Join(shared, c.source)
		if _, err := os.Stat(filepath.Join(src, c.companion)); err != nil {
			t.Logf("%s: %v (the corpus is not here)", c.name, err)
			continue
		}
		for _, kind := range []string{"fifo", "outside"} {
			dir := copyTree(t, src, t.TempDir())
			companion := filepath.Join(dir, c.companion)
			os.Remove(companion)
			if kind == "fifo" {
				if err := syscall.Mkfifo(companion, 0o644); err != nil {
					t.Skip("no FIFO here:", err)
				}
			} else if err := os.Symlink(secret, companion); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, c.anchor)
			notes, err := readWithin(t, path)
			label := c.name + " (" + kind + ")"
			t.Logf("%s: %v; notes %q", label, err, notes.Messages())
			if err != nil {
				var fe *errs.FormatError
				if !errors.As(err, &fe) || !strings.HasPrefix(fe.File, dir) {
					t.Errorf("%s: %v (%T), want a FormatError naming a file of the trace", label, err, err)
				}
				if strings.Contains(err.Error(), "SECRET") {
					t.Errorf("%s: the error quotes the file the link leads to: %v", label, err)
				}
				if kind == "outside" && !strings.Contains(err.Error(), "outside the directory") {
					t.Errorf("%s: %v, want it to say the link leads outside", label, err)
				}
				continue
			}
			// Read: the part is said to be missing (the trace incomplete), or,
			// for a file that only checks the others (HPCToolkit's merged
			// profiles), said not to be used.
			said := strings.Join(notes.Messages(), " ")
			if !strings.Contains(said, filepath.Base(c.companion)) && !strings.Contains(said, "location") {
				t.Errorf("%s: read without a word of the part (%q)", label, said)
			}
			if kind == "outside" && strings.Contains(said, "SECRET") {
				t.Errorf("%s: the notes quote the file the link leads to: %s", label, said)
			}
		}
	}
}

// An HPCToolkit XML database whose db-glob names files of another
// directory is refused before any file is listed or opened there.
func TestHostileDBGlob(t *testing.T) {
	src := filepath.Join(shared, "hpctoolkit-db/xml/vectorAdd")
	if _, err := os.Stat(src); err != nil {
		t.Skip("the corpus is not here")
	}
	for _, glob := range []string{"../*", "/etc/*", "../../../../../../etc/pass*", `..\*`} {
		dir := copyTree(t, src, t.TempDir())
		xml := filepath.Join(dir, "experiment.xml")
		b, _ := os.ReadFile(xml)
		os.WriteFile(xml, []byte(strings.Replace(string(b), `db-glob="*.hpctrace"`, `db-glob="`+glob+`"`, 1)), 0o644)
		_, err := readWithin(t, dir)
		var fe *errs.FormatError
		if !errors.As(err, &fe) || fe.File != xml || !strings.Contains(err.Error(), "outside the database's directory") {
			t.Errorf("db-glob %q: %v", glob, err)
		}
	}
}

// An HPCToolkit database of profiles only (hpcrun run without -t) is
// said to be one, and why it has no timeline, whether read through the
// door (detected) or named: the corpus's databases without their traces.
func TestProfilesOnlyDatabase(t *testing.T) {
	for _, c := range []struct{ source, drop string }{
		{"hpctoolkit-db/vectorAdd", "trace.db"},
		{"hpctoolkit-db/xml/vectorAdd", ".hpctrace"},
	} {
		src := filepath.Join(shared, c.source)
		if _, err := os.Stat(src); err != nil {
			t.Skip("the corpus is not here")
		}
		dir := copyTree(t, src, t.TempDir())
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), c.drop) {
				os.Remove(filepath.Join(dir, e.Name()))
			}
		}
		for _, format := range []string{"", "hpctoolkit"} {
			_, _, err := Open(dir, format, nil)
			if err == nil {
				src, _, _ := Open(dir, format, nil)
				err = src.Read(trace.New(), trace.ReadOptions{})
			}
			var fe *errs.FormatError
			if !errors.As(err, &fe) || !strings.HasPrefix(fe.File, dir) || !strings.Contains(err.Error(), "HPCToolkit database of profiles only") ||
				!strings.Contains(err.Error(), "no timeline") {
				t.Errorf("%s without %s (format %q): %v", c.source, c.drop, format, err)
			}
		}
	}
}

// writeMeasurements writes what hpcrun leaves in its output directory for
// each rank: a profile (HPCRUN-profile) and a trace (HPCRUN-trace) whose
// records name call paths of the profile's tree, as in HPCToolkit's own
// test measurements (tests/data/meas/*.m).
func writeMeasurements(t *testing.T, dir string, ranks int) (profiles, traces []string) {
	t.Helper()
	for r := range ranks {
		base := filepath.Join(dir, fmt.Sprintf("app-%06d-000-11ac0300-4974-0", r))
		prof := append([]byte("HPCRUN-profile____04.00b"), make([]byte, 40)...)
		tr := append([]byte("HPCRUN-trace______01.01b"), make([]byte, 8+24)...)
		if err := os.WriteFile(base+".hpcrun", prof, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(base+".hpctrace", tr, 0o644); err != nil {
			t.Fatal(err)
		}
		profiles, traces = append(profiles, base+".hpcrun"), append(traces, base+".hpctrace")
	}
	return profiles, traces
}

// hpcrun's measurements directory (not yet a database) is said to be one,
// with the way to a database (hpcprof), given as the directory, one of its
// traces or one of its profiles, detected or named. Before, a directory of
// one rank was "a directory holding no trace Macroscope knows", one of
// several ranks was read as a set of traces each refused with "not an
// HPCToolkit database", and a profile was of no format one could tell.
func TestMeasurementsDirectory(t *testing.T) {
	for _, ranks := range []int{1, 4} {
		dir := filepath.Join(t.TempDir(), "hpctoolkit-app-measurements")
		os.Mkdir(dir, 0o755)
		profiles, traces := writeMeasurements(t, dir, ranks)
		if _, err := Detect(dir); err == nil || !strings.Contains(err.Error(), dir+": is an HPCToolkit measurements directory") ||
			!strings.Contains(err.Error(), "run hpcprof") {
			t.Errorf("%d ranks, the directory detected: %v", ranks, err)
		}
		for _, c := range []struct{ path, format, says string }{
			{dir, "hpctoolkit", "HPCToolkit measurements directory"},
			{traces[0], "", "is in an HPCToolkit measurements directory"},
			{traces[0], "hpctoolkit", "is in an HPCToolkit measurements directory"},
			{profiles[0], "", "is a profile of hpcrun (HPCRUN-profile)"},
		} {
			_, _, err := Open(c.path, c.format, nil)
			var fe *errs.FormatError
			if !errors.As(err, &fe) || fe.File != c.path || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), "hpcprof") {
				t.Errorf("%d ranks, %s (format %q): %v; want a FormatError naming it, saying %q", ranks, c.path, c.format, err, c.says)
			}
		}
	}
}

// Extrae's intermediate files (a set-0 directory of *.mpit files, one per
// thread, with no header to tell them by, and the TRACE.mpits list of
// them, as Extrae 3.2.1's pthread example leaves them) are said to be
// what they are, with the mpi2prv command that makes the Paraver trace.
// Before, each was of no format one could tell, and the directory held
// "no trace Macroscope knows".
func TestExtraeIntermediateFiles(t *testing.T) {
	dir := t.TempDir()
	set := filepath.Join(dir, "set-0")
	os.Mkdir(set, 0o755)
	var mpits strings.Builder
	for th := range 2 {
		mpit := filepath.Join(set, fmt.Sprintf("TRACE@node.00000122120000000000%02d.mpit", th))
		os.WriteFile(mpit, make([]byte, 2240), 0o644)
		fmt.Fprintf(&mpits, "%s named\n", mpit)
	}
	list := filepath.Join(dir, "TRACE.mpits")
	os.WriteFile(list, []byte(mpits.String()), 0o644)
	mpit := filepath.Join(set, "TRACE@node.0000012212000000000000.mpit")
	for _, c := range []struct{ path, format string }{{set, ""}, {dir, ""}, {list, ""}, {mpit, ""}, {mpit, "paraver"}} {
		_, _, err := Open(c.path, c.format, nil)
		var fe *errs.FormatError
		if !errors.As(err, &fe) || fe.File != c.path || !strings.Contains(err.Error(), "Extrae's intermediate trace") ||
			!strings.Contains(err.Error(), "mpi2prv -f TRACE.mpits") {
			t.Errorf("%s (format %q): %v", c.path, c.format, err)
		}
	}
	// Once merged, the directory of the list is the run's: its trace is
	// read as the .prv, not explained away.
	os.WriteFile(filepath.Join(dir, "trace.prv"), []byte("#Paraver (01/12/26 at 10:05):1000:1(1):1:1(1:1)\n1:1:1:1:1:0:1000:1\n"), 0o644)
	if why := ExplainDir(dir); why != "" {
		t.Errorf("a directory with its merged trace explained as %q", why)
	}
}

// Extrae's temporary files, left by a traced process that did not finish
// tracing (a course's MPI Poisson run, set-0 holding TRACE@c7125...ttmp
// beside the .mpit of the processes that did), are refused for what they
// are, detected or named, and so is a directory holding only such files
// (records or samples); a set-N holding .mpit files too stays Extrae's
// intermediate trace, with the warning that mpi2prv will lack the
// unfinished processes. Before: "cannot tell the trace format from the
// name or the content"; a directory of .stmp only, "holding no trace";
// no warning.
func TestExtraeTemporaryFiles(t *testing.T) {
	set := filepath.Join(t.TempDir(), "set-0")
	os.Mkdir(set, 0o755)
	ttmp := filepath.Join(set, "TRACE@c7125.0000027748000000000000.ttmp")
	stmp := filepath.Join(set, "TRACE@c7125.0000027748000000000000.stmp")
	os.WriteFile(ttmp, make([]byte, 3248), 0o644)
	os.WriteFile(stmp, nil, 0o644)
	for _, c := range []struct{ path, format string }{{ttmp, ""}, {ttmp, "paraver"}, {ttmp, "otf2"}, {stmp, ""}, {set, ""},
		{set, "paraver"}, {set, "otf2"}} { // a directory named with a format: explained all the same

		_, _, err := Open(c.path, c.format, nil)
		var fe *errs.FormatError
		if !errors.As(err, &fe) || fe.File != c.path || !strings.Contains(err.Error(), "Extrae's temporary trace file") ||
			!strings.Contains(err.Error(), "did not finish tracing") || !strings.Contains(err.Error(), "mpi2prv") {
			t.Errorf("%s (format %q): %v", c.path, c.format, err)
		}
	}
	// A directory of samples only, left by processes whose records were
	// renamed .mpit but whose samples were not.
	samples := filepath.Join(t.TempDir(), "set-1")
	os.Mkdir(samples, 0o755)
	os.WriteFile(filepath.Join(samples, "TRACE@c7125.0000027749000001000000.stmp"), nil, 0o644)
	for _, format := range []string{"", "paraver"} {
		if _, _, err := Open(samples, format, nil); err == nil || !strings.Contains(err.Error(), "Extrae's temporary trace file") {
			t.Errorf("a directory of .stmp files (format %q): %v", format, err)
		}
	}
	// With the .mpit of the processes that finished, the directory is the
	// intermediate trace, short of the others: mpi2prv will lack them.
	os.WriteFile(filepath.Join(set, "TRACE@c7125.0000027750000002000000.mpit"), make([]byte, 3360), 0o644)
	if why := ExplainDir(set); !strings.Contains(why, "Extrae's intermediate trace") || !strings.Contains(why, "mpi2prv -f TRACE.mpits") ||
		!strings.Contains(why, "1 of its files are still temporary (TRACE@c7125.0000027748000000000000.ttmp...)") ||
		!strings.Contains(why, "will lack their records") {
		t.Errorf("a set-N with .mpit and .ttmp files explained as %q", why)
	}
	os.WriteFile(filepath.Join(samples, "TRACE@c7125.0000027749000001000000.mpit"), make([]byte, 3360), 0o644)
	if why := ExplainDir(samples); !strings.Contains(why, "1 of its files are still temporary (TRACE@c7125.0000027749000001000000.stmp...)") {
		t.Errorf("a set-N with .mpit and .stmp files explained as %q", why)
	}
}

// TAU's outputs without an OTF2 trace are refused for what they are, with
// the way to one: its profiles (profile.0.0.0, text opening with "N
// templated_functions_MULTI_TIME", as TAU 2.25 wrote them for a K computer
// NPB BT-MZ run) and a directory of them, detected or named; a directory
// of TAU's own trace files (tautrace.0.0.0.trc, events.0.edf); the
// directory of a run of several metrics (MULTI__TIME/profile.0.0.0...).
// Before: "cannot tell the trace format" and "a directory holding no
// trace"; named otf2, "not an OTF2 anchor".
func TestTAUOutputsWithoutOTF2(t *testing.T) {
	profiles := filepath.Join(t.TempDir(), "vi-hps")
	os.Mkdir(profiles, 0o755)
	for i, first := range []string{"39 templated_functions_MULTI_TIME\n", "12 templated_functions\n"} {
		os.WriteFile(filepath.Join(profiles, fmt.Sprintf("profile.%d.0.0", i)),
			[]byte(first+"# Name Calls Subrs Excl Incl ProfileCalls #\n\".TAU application\" 1 1 113 51685783 0 GROUP=\"TAU_USER\"\n"), 0o644)
	}
	// A first profile.*.*.* that is not TAU's does not hide the others.
	renamed := filepath.Join(t.TempDir(), "renamed")
	os.Mkdir(renamed, 0o755)
	os.WriteFile(filepath.Join(renamed, "profile.0.0.0.orig"), []byte("notes\n"), 0o644)
	os.WriteFile(filepath.Join(renamed, "profile.1.0.0"), []byte("12 templated_functions\n"), 0o644)
	// A run of several metrics: a MULTI__<metric> directory each.
	multi := filepath.Join(t.TempDir(), "multi")
	for _, metric := range []string{"MULTI__PAPI_TOT_CYC", "MULTI__TIME"} {
		os.MkdirAll(filepath.Join(multi, metric), 0o755)
		os.WriteFile(filepath.Join(multi, metric, "profile.0.0.0"),
			[]byte("1 templated_functions_MULTI_"+strings.TrimPrefix(metric, "MULTI__")+"\n# Name Calls Subrs Excl Incl ProfileCalls #\n"), 0o644)
	}
	traces := filepath.Join(t.TempDir(), "tracedir")
	os.Mkdir(traces, 0o755)
	os.WriteFile(filepath.Join(traces, "tautrace.0.0.0.trc"), make([]byte, 96), 0o644)
	os.WriteFile(filepath.Join(traces, "events.0.edf"), []byte("12 dynamic_trace_events\n"), 0o644)
	for _, c := range []struct{ path, format, says, way string }{
		{filepath.Join(profiles, "profile.0.0.0"), "", "is a TAU profile", "TAU_TRACE_FORMAT=otf2"},
		{filepath.Join(profiles, "profile.1.0.0"), "", "is a TAU profile", "TAU_TRACE_FORMAT=otf2"},
		{filepath.Join(profiles, "profile.0.0.0"), "otf2", "is a TAU profile", "TAU_TRACE_FORMAT=otf2"}, // named: explained all the same
		{profiles, "", "is a TAU profile", "TAU_TRACE=1"},
		{profiles, "otf2", "is a TAU profile", "TAU_TRACE=1"}, // a directory named: explained too
		{renamed, "", "is a TAU profile", "TAU_TRACE=1"},
		{multi, "", "is a TAU profile of several metrics (MULTI__<metric> directories such as MULTI__PAPI_TOT_CYC", "TAU_TRACE=1"},
		{multi, "otf2", "is a TAU profile of several metrics (MULTI__<metric> directories such as MULTI__PAPI_TOT_CYC", "TAU_TRACE=1"},
		{filepath.Join(multi, "MULTI__TIME"), "", "is a TAU profile", "TAU_TRACE=1"},
		{filepath.Join(multi, "MULTI__TIME"), "chrome", "is a TAU profile", "TAU_TRACE=1"},
		{traces, "", "is a trace in TAU's own format", "tau2otf2"},
		{traces, "otf2", "is a trace in TAU's own format", "tau2otf2"},
	} {
		src, _, err := Open(c.path, c.format, nil)
		if err == nil {
			err = src.Read(trace.New(), trace.ReadOptions{})
		}
		if c.says == "" {
			if err == nil {
				t.Errorf("%s (format %q): read", c.path, c.format)
			}
			continue
		}
		var fe *errs.FormatError
		if !errors.As(err, &fe) || fe.File != c.path || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), c.way) {
			t.Errorf("%s (format %q): %v; want a FormatError saying %q and %q", c.path, c.format, err, c.says, c.way)
		}
	}
}

// Akypuera's librastro files (rastro-0-0.rst of its examples: the first
// event's header word 10 44 ff ff, then the seconds, the clock's 1e9) and
// their directory are refused as not yet a Pajé trace, with
// aky_converter; a reStructuredText file of that ending is not. Before:
// "cannot tell the trace format" and "a directory holding no trace".
func TestAkypueraRastroFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "traces")
	os.Mkdir(dir, 0o755)
	head := []byte{0x10, 0x44, 0xff, 0xff, 0xad, 0x9c, 0x6f, 0x58, 0, 0, 0, 0, 0x00, 0xca, 0x9a, 0x3b}
	rst := filepath.Join(dir, "rastro-0-0.rst")
	os.WriteFile(rst, append(head, make([]byte, 100)...), 0o644)
	for _, c := range []struct{ path, format, says string }{
		{rst, "", "is a librastro file of Akypuera"},
		{dir, "", "is a directory of Akypuera's librastro files"},
		{dir, "paje", "is a directory of Akypuera's librastro files"}, // named: explained all the same
	} {
		_, _, err := Open(c.path, c.format, nil)
		var fe *errs.FormatError
		if !errors.As(err, &fe) || fe.File != c.path || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), "aky_converter rastro-*.rst") {
			t.Errorf("%s: %v", c.path, err)
		}
	}
	doc := filepath.Join(t.TempDir(), "README.rst")
	os.WriteFile(doc, []byte("Title\n=====\n"), 0o644)
	if _, _, err := Open(doc, "", nil); err == nil || strings.Contains(err.Error(), "librastro") {
		t.Errorf("%s: %v", doc, err)
	}
}

// A Caliper .cali file (the records of LLNL thicket's test profiles:
// "__rec=node,id=12,attr=10,data=64,parent=3"...) is refused as Caliper's
// own records, with cali2traceevent, the way from an event trace to the
// trace-event JSON read; detected (whatever its name) or named chrome.
// Before: "cannot tell the trace format".
func TestCaliperRecords(t *testing.T) {
	dir := t.TempDir()
	body := []byte("__rec=node,id=12,attr=10,data=64,parent=3\n__rec=node,id=13,attr=8,data=attribute.alias,parent=12\n" +
		"__rec=ctx,ref=40=41,attr=83,data=0.000123\n")
	cali, other := filepath.Join(dir, "27_cores.cali"), filepath.Join(dir, "run.out")
	os.WriteFile(cali, body, 0o644)
	os.WriteFile(other, body, 0o644)
	for _, c := range []struct{ path, format string }{{cali, ""}, {other, ""}, {cali, "chrome"}} {
		src, _, err := Open(c.path, c.format, nil)
		if err == nil {
			err = src.Read(trace.New(), trace.ReadOptions{})
		}
		var fe *errs.FormatError
		if !errors.As(err, &fe) || fe.File != c.path || !strings.Contains(err.Error(), "is a Caliper .cali file") ||
			!strings.Contains(err.Error(), "cali2traceevent") {
			t.Errorf("%s (format %q): %v", c.path, c.format, err)
		}
	}
}

// A Score-P experiment directory of a profiling run (Score-P's default:
// MANIFEST.md, scorep.cfg and profile.cubex, a CUBE4 tar whose first
// member is remapping.spec, as in a summer school's Mandelbrot demo) is
// said to hold a profile only, with the way to a trace, detected or
// named; so is its profile.cubex. Before: "a directory holding no trace
// Macroscope knows", "invalid path: ... holds no OTF2 anchor file" (a
// usage error) and "cannot tell the trace format".
func TestScorePProfileOnly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "scorep_mandelbrot_4_sum")
	os.Mkdir(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "MANIFEST.md"), []byte("# Experiment directory overview\n\n      * `profile.cubex`       CUBE4 result file of the summary measurement.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "scorep.cfg"), []byte("SCOREP_ENABLE_PROFILING=true\nSCOREP_ENABLE_TRACING=false\n"), 0o644)
	cubex := filepath.Join(dir, "profile.cubex")
	tarHead := append([]byte("remapping.spec"), make([]byte, 1024-14)...)
	os.WriteFile(cubex, tarHead, 0o644)
	os.WriteFile(cubex+".gz", tarHead, 0o644) // named so, whatever its bytes
	for _, c := range []struct{ path, format, says string }{
		{dir, "", "is a Score-P experiment directory holding a profile only (profile.cubex)"},
		{dir, "otf2", "is a Score-P experiment directory holding a profile only (profile.cubex)"},
		{cubex, "", "is a CUBE4 profile"},
		{cubex, "otf2", "is a CUBE4 profile"},
		{cubex + ".gz", "paje", "is a CUBE4 profile"},
	} {
		_, _, err := Open(c.path, c.format, nil)
		if err == nil {
			src, _, _ := Open(c.path, c.format, nil)
			err = src.Read(trace.New(), trace.ReadOptions{})
		}
		var fe *errs.FormatError
		if !errors.As(err, &fe) || fe.File != c.path || !strings.Contains(err.Error(), c.says) ||
			!strings.Contains(err.Error(), "SCOREP_ENABLE_TRACING=true") {
			t.Errorf("%s (format %q): %v; want a FormatError saying %q", c.path, c.format, err, c.says)
		}
	}
	// A profile is no file of the format: its description does not list it.
	for _, d := range Describe() {
		if d.Name == "otf2" && slices.Contains(d.Extensions, ".cubex") {
			t.Errorf("otf2 lists .cubex among the files it reads: %v", d.Extensions)
		}
	}
}
