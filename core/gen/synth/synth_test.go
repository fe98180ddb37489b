package synth

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/budget"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/readers/paje"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// small is a hierarchy of 2 sites x 2 clusters x 2 machines x 3 cores.
func small(events int64, seed uint64) Config {
	return Config{Sites: 2, Clusters: 2, Machines: 2, Cores: 3, Events: events, Seed: seed}
}

func generatePaje(t testing.TB, c Config) ([]byte, Stats) {
	t.Helper()
	var b bytes.Buffer
	st, err := WritePaje(&b, c)
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), st
}

func readPaje(t testing.TB, in []byte, opt paje.Options) *trace.Trace {
	t.Helper()
	tr := trace.New("synth.trace")
	if err := paje.Decode(bytes.NewReader(in), "synth.trace", 0, tr, opt); err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestSameSeedSameBytes pins the output of one configuration: a change of
// the generator that changes the traces it writes shows here.
func TestSameSeedSameBytes(t *testing.T) {
	c := small(5000, 7)
	c.Anomalies = []Anomaly{{Level: Cluster, At: []int{1, 0}, Weights: map[string]float64{"Idle": 5}, From: 0.5}}
	a, _ := generatePaje(t, c)
	b, _ := generatePaje(t, c)
	if !bytes.Equal(a, b) {
		t.Fatal("two runs with the same seed differ")
	}
	sum := sha256.Sum256(a)
	const want = "07a1c99accf8f3b684cf74c34dc556d810239c57eef30797dadc3a72791e9c08"
	if got := hex.EncodeToString(sum[:]); got != want {
		t.Errorf("SHA-256 of the trace is %s, want %s", got, want)
	}
	c.Seed = 8
	if d, _ := generatePaje(t, c); bytes.Equal(a, d) {
		t.Error("seeds 7 and 8 give the same trace")
	}
}

// TestPajeReadsBack reads a generated trace with our reader and checks the
// hierarchy, the counts the generator reports and that every core is in
// exactly one state at every instant of [0, Duration].
func TestPajeReadsBack(t *testing.T) {
	c := small(20000, 1)
	in, st := generatePaje(t, c)
	if st.Bytes != int64(len(in)) {
		t.Errorf("Stats.Bytes = %d, wrote %d", st.Bytes, len(in))
	}
	lines := 0
	for _, l := range strings.Split(string(in), "\n") {
		if l != "" && l[0] != '%' {
			lines++
		}
	}
	if st.Events != int64(lines) {
		t.Errorf("Stats.Events = %d, the file has %d event lines", st.Events, lines)
	}
	tr := readPaje(t, in, paje.Options{})
	// 2 sites + 4 clusters + 8 machines + 24 cores.
	if got := len(tr.Containers) - 1; got != 38 || st.Containers != 38 {
		t.Fatalf("%d containers read, %d reported, want 38", got, st.Containers)
	}
	if int64(tr.States.Len()) != st.States {
		t.Fatalf("%d states read, %d reported", tr.States.Len(), st.States)
	}
	if math.Abs(float64(st.States)/20000-1) > 0.02 {
		t.Errorf("%d states for 20000 events asked", st.States)
	}
	if tr.Start != 0 || tr.End != st.Duration || st.Duration != c.Duration() {
		t.Errorf("trace spans [%s, %s], reported duration %s, configured %s", tr.Start, tr.End, st.Duration, c.Duration())
	}
	// Duration: ceil(20000/24) = 834 mean durations of 1 ms.
	if c.Duration() != 834*trace.Second/1000 {
		t.Errorf("duration %s, want 0.834 s", c.Duration())
	}
	wantType := []string{"Site", "Cluster", "Machine", "Core"}
	cores := map[string]int32{}
	for id := int32(1); id < int32(len(tr.Containers)); id++ {
		path := tr.ContainerPath(id, "/")
		depth := strings.Count(path, "/")
		if got := tr.TypeName(tr.Containers[id].Type); got != wantType[depth] {
			t.Fatalf("%s is a %s, want a %s", path, got, wantType[depth])
		}
		if !strings.HasPrefix(tr.Containers[id].Name, strings.ToLower(wantType[depth])+"-") {
			t.Fatalf("container %s badly named", path)
		}
		if n := len(tr.Containers[id].Children); depth < 3 && n != []int{2, 2, 3}[depth] {
			t.Fatalf("%s has %d children", path, n)
		}
		if depth == 3 {
			cores[path] = id
		}
		if tr.Containers[id].Start != 0 || tr.Containers[id].End != st.Duration {
			t.Fatalf("%s lives [%s, %s]", path, tr.Containers[id].Start, tr.Containers[id].End)
		}
	}
	if len(cores) != 24 || cores["site-1/cluster-0/machine-1/core-2"] == 0 {
		t.Fatalf("cores %v", cores)
	}
	covered := map[int32]trace.Time{}
	for _, s := range tr.States.All() {
		if s.Start != covered[s.Container] || s.End <= s.Start || s.Depth != 0 {
			t.Fatalf("state %+v does not follow the previous one, which ended at %s", s, covered[s.Container])
		}
		covered[s.Container] = s.End
	}
	for path, id := range cores {
		if covered[id] != st.Duration {
			t.Errorf("%s: states stop at %s", path, covered[id])
		}
	}
	if len(tr.Values) != len(DefaultStates()) || tr.Values[3].Name != "MPI_Wait" {
		t.Errorf("values %+v", tr.Values)
	}
}

// share returns, for the cores whose path starts with prefix, the share
// of the time of [from, to) each state takes.
func share(tr *trace.Trace, prefix string, from, to trace.Time) map[string]float64 {
	paths := make([]string, len(tr.Containers))
	for i := range tr.Containers {
		paths[i] = tr.ContainerPath(int32(i), "/") + "/"
	}
	out := map[string]float64{}
	total := 0.0
	for _, s := range tr.States.All() {
		if !strings.HasPrefix(paths[s.Container], prefix+"/") {
			continue
		}
		a, b := max(s.Start, from), min(s.End, to)
		if b > a {
			out[tr.Values[s.Value].Name] += float64(b - a)
			total += float64(b - a)
		}
	}
	for k := range out {
		out[k] /= total
	}
	return out
}

// TestAnomaliesWhereAsked injects an anomaly at each level but the core and
// measures the share of each state where and when it applies, and around.
// Weights (1, 1, 2): the baseline shares are 1/4, 1/4, 1/2; with B's
// weight 6 they are 1/9, 6/9, 2/9; with C's weight 0, 1/2, 1/2, 0.
func TestAnomaliesWhereAsked(t *testing.T) {
	c := Config{Sites: 3, Clusters: 2, Machines: 2, Cores: 4, Events: 600_000, Seed: 3,
		States: []State{{"A", 1}, {"B", 1}, {"C", 2}},
		Anomalies: []Anomaly{
			{Level: Machine, At: []int{0, 1, 1}, Weights: map[string]float64{"B": 6}, From: 0.25, To: 0.75},
			{Level: Cluster, At: []int{1, 0}, Weights: map[string]float64{"C": 0}, From: 0.5},
			{Level: Site, At: []int{2}, Weights: map[string]float64{"B": 6}},
		}}
	in, st := generatePaje(t, c)
	tr := readPaje(t, in, paje.Options{})
	d := st.Duration
	q1, half, q3 := d/4, d/2, 3*d/4
	base := map[string]float64{"A": 0.25, "B": 0.25, "C": 0.5}
	moreB := map[string]float64{"A": 1.0 / 9, "B": 6.0 / 9, "C": 2.0 / 9}
	noC := map[string]float64{"A": 0.5, "B": 0.5}
	cases := []struct {
		what     string
		prefix   string
		from, to trace.Time
		want     map[string]float64
	}{
		{"anomalous machine, in its window", "site-0/cluster-1/machine-1", q1, q3, moreB},
		{"anomalous machine, before", "site-0/cluster-1/machine-1", 0, q1, base},
		{"anomalous machine, after", "site-0/cluster-1/machine-1", q3, d, base},
		{"its sibling machine", "site-0/cluster-1/machine-0", q1, q3, base},
		{"anomalous cluster, in its window", "site-1/cluster-0", half, d, noC},
		{"anomalous cluster, before", "site-1/cluster-0", 0, half, base},
		{"its sibling cluster", "site-1/cluster-1", half, d, base},
		{"anomalous site", "site-2", 0, d, moreB},
		{"the other site", "site-0/cluster-0", 0, d, base},
	}
	for _, k := range cases {
		got := share(tr, k.prefix, k.from, k.to)
		t.Logf("%s: %v", k.what, got)
		for _, s := range []string{"A", "B", "C"} {
			if math.Abs(got[s]-k.want[s]) > 0.02 {
				t.Errorf("%s (%s): share of %s %.4f, want %.4f", k.what, k.prefix, s, got[s], k.want[s])
			}
		}
		// Proportions gives the same expectation, at the middle of the span.
		idx := parseIndices(k.prefix)
		p := c.Proportions(idx[0], idx[1], idx[2], idx[3], (k.from+k.to)/2)
		for i, s := range []string{"A", "B", "C"} {
			if math.Abs(p[i]-k.want[s]) > 1e-12 {
				t.Errorf("%s: Proportions gives %v", k.what, p)
			}
		}
	}
}

// parseIndices reads the indices of the first core below a path prefix.
func parseIndices(prefix string) [4]int {
	var out [4]int
	for i, part := range strings.Split(prefix, "/") {
		_, n, _ := strings.Cut(part, "-")
		out[i] = int(n[0] - '0')
	}
	return out
}

func TestInvalidConfigurations(t *testing.T) {
	ok := small(100, 1)
	cases := []struct {
		name  string
		edit  func(*Config)
		param string
	}{
		{"no site", func(c *Config) { c.Sites = 0 }, "sites"},
		{"negative cores", func(c *Config) { c.Cores = -1 }, "cores"},
		{"too many cores", func(c *Config) { c.Sites, c.Clusters, c.Machines, c.Cores = 1<<10, 1<<10, 1<<10, 1 }, "cores"},
		{"no event", func(c *Config) { c.Events = 0 }, "events"},
		{"mean of 1 ns", func(c *Config) { c.Mean = 1 }, "mean"},
		{"endless", func(c *Config) { c.Mean = trace.Second * 1e9; c.Events = 1e6 }, "events"},
		{"empty states", func(c *Config) { c.States = []State{} }, "states"},
		{"NaN weight", func(c *Config) { c.States = []State{{"A", math.NaN()}} }, "states"},
		{"negative weight", func(c *Config) { c.States = []State{{"A", 1}, {"B", -1}} }, "states"},
		{"zero weights", func(c *Config) { c.States = []State{{"A", 0}} }, "states"},
		{"twice the same state", func(c *Config) { c.States = []State{{"A", 1}, {"A", 1}} }, "states"},
		{"quote in a name", func(c *Config) { c.States = []State{{`A"`, 1}} }, "states"},
		{"bad UTF-8 name", func(c *Config) { c.States = []State{{"\xff", 1}} }, "states"},
		{"anomaly badly located", func(c *Config) {
			c.Anomalies = []Anomaly{{Level: Machine, At: []int{0, 1}, Weights: map[string]float64{"Idle": 1}}}
		}, "anomalies"},
		{"anomaly out of range", func(c *Config) {
			c.Anomalies = []Anomaly{{Level: Cluster, At: []int{0, 2}, Weights: map[string]float64{"Idle": 1}}}
		}, "anomalies"},
		{"anomaly of an unknown state", func(c *Config) {
			c.Anomalies = []Anomaly{{Level: Site, At: []int{0}, Weights: map[string]float64{"Sleep": 1}}}
		}, "anomalies"},
		{"anomaly changing nothing", func(c *Config) { c.Anomalies = []Anomaly{{Level: Site, At: []int{0}}} }, "anomalies"},
		{"anomaly window reversed", func(c *Config) {
			c.Anomalies = []Anomaly{{Level: Site, At: []int{0}, Weights: map[string]float64{"Idle": 1}, From: 0.6, To: 0.4}}
		}, "anomalies"},
		{"anomaly window beyond the end", func(c *Config) {
			c.Anomalies = []Anomaly{{Level: Site, At: []int{0}, Weights: map[string]float64{"Idle": 1}, To: 1.5}}
		}, "anomalies"},
	}
	for _, k := range cases {
		c := ok
		k.edit(&c)
		_, err := WritePaje(io.Discard, c)
		var ae *errs.ArgumentError
		if !errors.As(err, &ae) || ae.Name != k.param {
			t.Errorf("%s: got %v, want an argument error about %s", k.name, err, k.param)
		}
	}
}

func TestParseAnomaly(t *testing.T) {
	a, err := ParseAnomaly("machine:1/0/2:MPI_Wait=6,Idle=0.5@0.25-0.75")
	if err != nil {
		t.Fatal(err)
	}
	if a.Level != Machine || len(a.At) != 3 || a.At[0] != 1 || a.At[1] != 0 || a.At[2] != 2 ||
		a.Weights["MPI_Wait"] != 6 || a.Weights["Idle"] != 0.5 || len(a.Weights) != 2 || a.From != 0.25 || a.To != 0.75 {
		t.Fatalf("got %+v", a)
	}
	if a, err := ParseAnomaly("site:0:Idle=3"); err != nil || a.Level != Site || a.From != 0 || a.To != 0 {
		t.Fatalf("got %+v, %v", a, err)
	}
	for _, bad := range []string{"", "rack:0:Idle=1", "site:x:Idle=1", "site:0:Idle", "site:0:Idle=x",
		"site:0:Idle=1@0.5", "site:0:Idle=1@a-b", "site:0"} {
		if _, err := ParseAnomaly(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	st, err := ParseStates("A=1,B=2.5")
	if err != nil || len(st) != 2 || st[1] != (State{"B", 2.5}) {
		t.Fatalf("got %v, %v", st, err)
	}
}

// TestMemoryDoesNotGrow checks that generation allocates as much for a
// trace of 10^5 events as for one of 10^4: nothing is kept per event.
// A few more are allowed (the reused line buffer grows once more when the
// longer trace writes longer dates): ten times the events would make
// thousands.
func TestMemoryDoesNotGrow(t *testing.T) {
	allocs := func(events int64) float64 {
		return testing.AllocsPerRun(2, func() {
			if _, err := WritePaje(io.Discard, small(events, 1)); err != nil {
				t.Fatal(err)
			}
		})
	}
	smallRun, bigRun := allocs(1e4), allocs(1e5)
	if bigRun > smallRun+4 {
		t.Fatalf("%v allocations for 10^5 events, %v for 10^4", bigRun, smallRun)
	}
}

// TestMemoryBudget: a configuration that needs more memory than the
// budget is refused before anything is generated, naming the estimate;
// the million sites of a user's typo need gigabytes.
func TestMemoryBudget(t *testing.T) {
	huge := Config{Sites: 1_000_000, Clusters: 4, Machines: 8, Cores: 8, Events: 1_000_000, MemoryBudget: 1 << 30}
	// 256,000,000 cores: 24 bytes each and 8 MiB in Pajé, 48 and 192 MiB
	// in Parquet.
	if got, want := huge.MemoryNeeded(), int64(256_000_000*24+8<<20); got != want {
		t.Errorf("MemoryNeeded = %d, want %d", got, want)
	}
	parquet := huge
	parquet.Format = FormatParquet
	if got, want := parquet.MemoryNeeded(), int64(256_000_000*48+192<<20); got != want {
		t.Errorf("MemoryNeeded (Parquet) = %d, want %d", got, want)
	}
	var out strings.Builder
	_, err := WritePaje(&out, huge)
	var ae *errs.ArgumentError
	if !errors.As(err, &ae) || ae.Name != "cores" || out.Len() != 0 ||
		!strings.Contains(err.Error(), "a synthetic Pajé trace of 256000000 cores (1000000 sites x 4 clusters x 8 machines x 8 cores) needs about 5.73 GiB of memory, more than the memory budget of 1 GiB") {
		t.Fatalf("got %v (%d bytes written)", err, out.Len())
	}
	if err := parquet.Validate(); err == nil || !strings.Contains(err.Error(), "a synthetic Parquet trace of 256000000 cores (1000000 sites x 4 clusters x 8 machines x 8 cores) needs about 11.6 GiB of memory") {
		t.Errorf("Parquet: %v", err)
	}
	small := Config{Sites: 1, Clusters: 1, Machines: 1, Cores: 2, Events: 10}
	for _, b := range []int64{0, -1, 1 << 30} {
		small.MemoryBudget = b
		if err := small.Validate(); err != nil {
			t.Errorf("budget %d: %v", b, err)
		}
	}
	small.MemoryBudget = 1 << 20
	if err := small.Validate(); err == nil {
		t.Error("a 1 MiB budget accepted the writers' buffers")
	}
	small.MemoryBudget, small.Format = 0, "csv"
	if err := small.Validate(); !errors.As(err, &ae) || ae.Name != "format" {
		t.Errorf("format csv: %v", err)
	}
}

// peakHelper, set in the environment, makes TestMain's process write the
// Pajé trace of that many sites (of 4 x 8 x 8 cores) to nowhere and print
// its peak resident size (VmHWM, in kB): TestMemoryEstimate measures
// writers in processes of their own.
const peakHelper = "MACROSCOPE_SYNTH_PEAK_SITES"

// TestMemoryEstimate compares the estimate with what a process writing
// the trace takes: its peak resident size less that of a process writing
// a trace of one site (the test program itself). The estimate must be
// above it, and within a factor of two.
func TestMemoryEstimate(t *testing.T) {
	if testing.Short() {
		t.Skip("writes millions of lines")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc/self/status to read the peak resident size from")
	}
	peak := func(sites int) int64 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", peakHelper, sites))
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%d sites: %v\n%s", sites, err, out)
		}
		var kb int64
		if _, err := fmt.Sscanf(strings.TrimSpace(string(out)), "peak %d", &kb); err != nil {
			t.Fatalf("%d sites: %q", sites, out)
		}
		return kb << 10
	}
	base := peak(1)
	for _, sites := range []int{1000, 4000} {
		used := peak(sites) - base
		c := Config{Sites: sites, Clusters: 4, Machines: 8, Cores: 8, Events: 1}
		est := c.MemoryNeeded()
		t.Logf("%d sites (%d cores): %s over the %s of a process writing one site, estimate %s",
			sites, c.NumCores(), budget.Bytes(used), budget.Bytes(base), budget.Bytes(est))
		if est < used || est > 2*used {
			t.Errorf("%d sites: estimate %d bytes, %d used", sites, est, used)
		}
	}
}

func TestMain(m *testing.M) {
	if v := os.Getenv(peakHelper); v != "" {
		sites, _ := strconv.Atoi(v)
		if _, err := WritePaje(io.Discard, Config{Sites: sites, Clusters: 4, Machines: 8, Cores: 8, Events: 1, MemoryBudget: -1}); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		status, _ := os.ReadFile("/proc/self/status")
		for _, l := range strings.Split(string(status), "\n") {
			if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
				fmt.Println("peak", f[1])
			}
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestDiskCheck: a trace that surely cannot fit on the disk where it
// would go is refused before the file is created.
func TestDiskCheck(t *testing.T) {
	c := Config{Sites: 1000, Clusters: 4, Machines: 8, Cores: 8, Events: 1 << 50, MemoryBudget: -1}
	// 256,000 cores changing state 2^50/256,000 times each, 20 bytes a
	// line at least: some 22 PiB.
	if got, want := c.MinBytes(FormatPaje), int64(c.NumContainers())*40+256000*((1<<50+255999)/256000)*20; got != want {
		t.Errorf("MinBytes = %d, want %d", got, want)
	}
	path := filepath.Join(t.TempDir(), "huge.trace")
	_, err := WriteFile(path, c)
	var ae *errs.ArgumentError
	if !errors.As(err, &ae) || ae.Name != "cores" || !strings.Contains(err.Error(), "of disk, more than the") {
		t.Fatalf("got %v", err)
	}
	if _, serr := os.Stat(path); serr == nil {
		t.Error("the file was created")
	}
	// A small trace is written.
	if _, err := WriteFile(path, Config{Sites: 1, Clusters: 1, Machines: 1, Cores: 2, Events: 10}); err != nil {
		t.Errorf("small trace: %v", err)
	}
}

// TestLargestEvents: event counts near the largest int64 do not overflow
// into a negative duration or disk size that checks would let through.
func TestLargestEvents(t *testing.T) {
	c := Config{Sites: 1, Clusters: 1, Machines: 1, Cores: 3, Events: math.MaxInt64, Mean: 2, MemoryBudget: -1}
	if per := c.perCore(); per != math.MaxInt64/3+1 {
		t.Errorf("perCore = %d, want %d", per, int64(math.MaxInt64/3+1))
	}
	if got := c.MinBytes(FormatPaje); got != math.MaxInt64 {
		t.Errorf("MinBytes = %d, want the largest int64", got)
	}
	var ae *errs.ArgumentError
	if err := c.Validate(); !errors.As(err, &ae) || ae.Name != "events" {
		t.Errorf("Validate: %v, want the events refused (146 years)", err)
	}
}
