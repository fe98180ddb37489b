package gotrace

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The traces in testdata/versions were written by the same program
// (testdata/gen/versions.go) built with each Go release from 1.18 to
// 1.25: four formats before Go 1.22 ("go 1.11 trace" of Go 1.11 to 1.18,
// "go 1.19 trace" of 1.19 and 1.20, "go 1.21 trace") and the generation
// format after it, as users' programs still write them.

// release is one fixture and the toolchain that wrote it.
type release struct {
	file      string // in testdata/versions
	toolchain string // GOTOOLCHAIN value of the release that wrote it
	debug     string // its `go tool trace` flag printing the parsed events
	old       oldCounts
}

// oldCounts are what the old parser (internal/trace of Go 1.21 and
// before) prints with `go tool trace -d`, one line per event, counted by
// kind. The numbers in releases were so counted with the matching release.
type oldCounts struct {
	goroutines  int // GoCreate: created during the trace, or alive at its start (creator g=0)
	spawns      int // GoCreate by a goroutine (g != 0)
	runs        int // GoStart + GoStartLabel + GoSysCall - GoSysBlock (see modelOldCounts)
	labels      int // GoStartLabel ("GC (dedicated)", ...)
	sysCalls    int // GoSysCall
	regions     int // UserRegion begin+end, /2
	logs        int // UserLog
	taskCreates int // UserTaskCreate
	taskEnds    int // UserTaskEnd
}

var releases = []release{
	{"go1.18.trace", "go1.18.10", "-d", oldCounts{goroutines: 12, spawns: 7, runs: 3293, labels: 9, sysCalls: 35, regions: 8, logs: 4, taskCreates: 4, taskEnds: 4}},
	{"go1.19.trace", "go1.19.13", "-d", oldCounts{goroutines: 12, spawns: 7, runs: 1396, labels: 6, sysCalls: 35, regions: 8, logs: 4, taskCreates: 4, taskEnds: 4}},
	{"go1.20.trace", "go1.20.14", "-d", oldCounts{goroutines: 12, spawns: 7, runs: 2755, labels: 7, sysCalls: 51, regions: 8, logs: 4, taskCreates: 4, taskEnds: 4}},
	{"go1.21.trace", "go1.21.13", "-d", oldCounts{goroutines: 12, spawns: 7, runs: 10443, labels: 8, sysCalls: 51, regions: 8, logs: 4, taskCreates: 4, taskEnds: 4}},
	{"go1.22.trace", "go1.22.12", "-d=1", oldCounts{}},
	{"go1.23.trace", "go1.23.12", "-d=1", oldCounts{}},
	{"go1.24.trace", "go1.24.13", "-d=parsed", oldCounts{}},
	{"go1.25.trace", "go1.25.7", "-d=parsed", oldCounts{}},
}

// isOld tells the format before Go 1.22's.
func (r release) isOld() bool { return r.debug == "-d" }

// toolOutput runs `go tool trace` of the release that wrote the fixture,
// when that toolchain is already in the module cache (GOPROXY=off: no
// download); it skips the test otherwise.
func (r release) toolOutput(t *testing.T, path string) []byte {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not installed: no oracle")
	}
	cmd := exec.Command("go", "tool", "trace", r.debug, path)
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN="+r.toolchain, "GOPROXY=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if strings.Contains(stderr.String(), "download") || strings.Contains(stderr.String(), "toolchain not available") {
			t.Skipf("toolchain %s not in the module cache (GOTOOLCHAIN=%[1]s go version fetches it)", r.toolchain)
		}
		t.Fatalf("GOTOOLCHAIN=%s go tool trace %s %s: %v\n%s", r.toolchain, r.debug, path, err, stderr.Bytes())
	}
	return out
}

func readRelease(t *testing.T, r release) *trace.Trace {
	t.Helper()
	path := filepath.Join("testdata", "versions", r.file)
	tr := trace.New(path)
	var notes trace.Notes
	if err := read(path, tr, trace.ReadOptions{Notes: &notes}); err != nil {
		t.Fatal(err)
	}
	if m := notes.Messages(); len(m) != 0 {
		t.Errorf("notes %q, want none", m)
	}
	checkNesting(t, tr)
	return tr
}

// TestReleasesAgainstGoTool reads the trace of each release and compares
// everything it delivered with the Go toolchain's parser (the installed
// one: Go 1.26 reads every format since 1.11).
func TestReleasesAgainstGoTool(t *testing.T) {
	for _, r := range releases {
		t.Run(r.file, func(t *testing.T) {
			tr := readRelease(t, r)
			got, want := modelFacts(tr), oracle(t, filepath.Join("testdata", "versions", r.file))
			if r.isOld() {
				got, want = got.withoutTimes(), want.withoutTimes()
			}
			compareFacts(t, got, want)
		})
	}
}

// TestReleasesAgainstTheirOwnTool compares the trace of each release with
// what that release's own `go tool trace` prints: the generation format's
// parsed events (Go 1.22 to 1.25) fact by fact, and the old format's
// events (Go 1.18 to 1.21, read by a parser Go 1.22 replaced) by count.
// The old counts are also recorded in releases, so that they are checked
// where the old toolchain is absent.
func TestReleasesAgainstTheirOwnTool(t *testing.T) {
	for _, r := range releases {
		t.Run(r.file, func(t *testing.T) {
			tr := readRelease(t, r)
			if r.isOld() {
				got := modelOldCounts(tr)
				t.Logf("%+v", got)
				if r.old != (oldCounts{}) && got != r.old {
					t.Errorf("recorded oracle of %s:\n got %+v\nwant %+v", r.toolchain, got, r.old)
				}
				want := parseOldOracle(r.toolOutput(t, filepath.Join("testdata", "versions", r.file)))
				if got != want {
					t.Errorf("go tool trace -d of %s:\n got %+v\nwant %+v", r.toolchain, got, want)
				}
				return
			}
			out := r.toolOutput(t, filepath.Join("testdata", "versions", r.file))
			got, want := modelFacts(tr), parseOracle(t, out)
			t.Logf("%d goroutine states, %d runs, %d P states, %d regions, %d spawn links, %d logs/tasks/labels",
				len(got.goStates), len(got.pRunning), len(got.pStates), len(got.regions), len(got.links), len(got.logs))
			if !bytes.HasPrefix(out, []byte("M=-1 P=-1 G=-1 Sync ")) {
				// Before Go 1.25 the tool does not print the first Sync
				// event, which is the reader's time 0: the times are
				// compared with Go 1.26's tool above.
				got, want = got.withoutTimes(), want.withoutTimes()
			}
			compareFacts(t, got, want)
		})
	}
}

// parseOldOracle counts the events the old parser prints, "ts Kind p=.. g=..
// off=.." a line.
func parseOldOracle(out []byte) oldCounts {
	var c oldCounts
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[2], "p=") {
			continue
		}
		switch f[1] {
		case "GoCreate":
			c.goroutines++
			if f[3] != "g=0" {
				c.spawns++
			}
		case "GoStart":
			c.runs++
		case "GoStartLabel":
			c.runs++
			c.labels++
		case "GoSysCall":
			c.runs++
			c.sysCalls++
		case "GoSysBlock":
			c.runs--
		case "UserRegion":
			c.regions++ // begin and end: halved below
		case "UserLog":
			c.logs++
		case "UserTaskCreate":
			c.taskCreates++
		case "UserTaskEnd":
			c.taskEnds++
		}
	}
	c.regions /= 2
	return c
}

// modelOldCounts counts in the model what the old parser's counts tell.
// The model has a "Running goroutine" state per run; a system call splits
// a run in two (the goroutine is in state syscall meanwhile), where the
// old parser prints one GoStart and a GoSysCall within; a system call that
// blocks (GoSysBlock) loses its P, and the goroutine's next run is a
// GoStart of its own. Hence runs = GoStart + GoSysCall - GoSysBlock.
func modelOldCounts(tr *trace.Trace) oldCounts {
	var c oldCounts
	for _, k := range tr.Containers {
		if tr.TypeName(k.Type) == TypeGoroutine {
			c.goroutines++
		}
	}
	c.spawns = tr.Links.Len()
	for _, s := range tr.States.All() {
		switch tr.TypeName(s.Type) {
		case StatePRunning:
			c.runs++
		case StateRegion:
			c.regions++
		case StateGoroutine:
			if tr.ValueName(s.Value) == "syscall" {
				c.sysCalls++
			}
		}
	}
	for _, e := range tr.Events.All() {
		switch tr.TypeName(e.Type) {
		case EventLog:
			c.logs++
		case EventTaskBegin:
			c.taskCreates++
		case EventTaskEnd:
			c.taskEnds++
		case EventLabel:
			c.labels++
		}
	}
	return c
}
