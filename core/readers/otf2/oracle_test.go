package otf2

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The archives of the shared trace corpus (see traces/MANIFEST.md).
var archives = []string{
	"pipit/tests/data/ping-pong-otf2",
	"pipit/tests/data/ping-pong-otf2-papi",
	"fastotf2/sample-traces/simple-mi300-example-run",
	"tracer-stencil4d/stencil4d-otf/traces-32",
	"tracer-stencil4d/stencil4d-otf/traces-64",
}

const corpus = "../../../../shared/traces"

// archivePath returns the anchor file of a corpus archive, skipping the
// test when the corpus is absent.
func archivePath(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(corpus, name, "traces.otf2")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("trace corpus not available: %v", err)
	}
	return p
}

// printed is one event line of otf2-print: the record name in otf2-print's
// spelling, the location, the timestamp in ticks and the attributes text
// (continuation lines such as ADDITIONAL ATTRIBUTES excluded).
type printed struct {
	name  string
	loc   uint64
	ticks uint64
	attrs string
}

// otf2Print runs otf2-print with args and returns its output, skipping the
// test when the tool is absent.
func otf2Print(t testing.TB, args ...string) []byte {
	t.Helper()
	if _, err := exec.LookPath("otf2-print"); err != nil {
		t.Skip("otf2-print (Debian package otf2-tools) is not installed")
	}
	out, err := exec.Command("otf2-print", args...).Output()
	if err != nil {
		t.Fatalf("otf2-print %v: %v", args, err)
	}
	return out
}

var eventLine = regexp.MustCompile(`^([A-Z_0-9]+)\s+(\d+)\s+(\d+)\s*(.*)$`)

// printedEvents parses the events otf2-print lists for an archive, in its
// order.
func printedEvents(t testing.TB, anchor string) []printed {
	t.Helper()
	var events []printed
	inEvents := false
	sc := bufio.NewScanner(bytes.NewReader(otf2Print(t, anchor)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "=== Events") {
			inEvents = true
			continue
		}
		m := eventLine.FindStringSubmatch(line)
		if !inEvents || m == nil || m[1] == "Event" {
			continue
		}
		loc, _ := strconv.ParseUint(m[2], 10, 64)
		ticks, _ := strconv.ParseUint(m[3], 10, 64)
		events = append(events, printed{name: m[1], loc: loc, ticks: ticks, attrs: m[4]})
	}
	if len(events) == 0 {
		t.Fatalf("otf2-print lists no events for %s", anchor)
	}
	return events
}

// printedDefinitions returns otf2-print's global definition lines by
// definition name ("CLOCK_PROPERTIES", "METRIC_INSTANCE"...).
func printedDefinitions(t testing.TB, anchor string) map[string][]string {
	t.Helper()
	defs := map[string][]string{}
	for _, line := range strings.Split(string(otf2Print(t, "-G", anchor)), "\n") {
		f := strings.Fields(line)
		if len(f) > 1 && strings.ToUpper(f[0]) == f[0] && f[0] != "===" {
			defs[f[0]] = append(defs[f[0]], line)
		}
	}
	return defs
}

// printName spells a record type the way otf2-print does.
func printName(kind uint8) string {
	switch kind {
	case evParameterInt:
		return "PARAMETER_INT64"
	case evParameterUnsignedInt:
		return "PARAMETER_UINT64"
	}
	name := recordName(kind)
	if name == "" {
		return "UNKNOWN"
	}
	var b strings.Builder
	for i, r := range name {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	return strings.ToUpper(b.String())
}

// Attribute patterns of otf2-print's event lines.
var (
	reRegion     = regexp.MustCompile(`^Region: ".*" <(\d+)>$`)
	reP2P        = regexp.MustCompile(`^(?:Receiver|Sender): (\d+) \(".*" <(\d+)>\), Communicator: ".*" <(\d+)>, Tag: (\d+), Length: (\d+)`)
	reCollective = regexp.MustCompile(`^Operation: (\w+), Communicator: ".*" <(\d+)>, Root: (\w+), Sent: (\d+), Received: (\d+)$`)
	reMetric     = regexp.MustCompile(`^Metric: (\d+), \d+ Values?: (.*)$`)
	reMetricVal  = regexp.MustCompile(`\(".*?" <(\d+)>; (\w+); ([-\d.e+]+)\)`)
	reParameter  = regexp.MustCompile(`^Parameter: ".*" <(\d+)>, Value: `)
	reProgram    = regexp.MustCompile(`^Name: ".*" <(\d+)>, \d+ Arguments`)
	reMode       = regexp.MustCompile(`^Mode: (ON|OFF)$`)
	reQuoted     = regexp.MustCompile(`"(.*?)" <(\d+)>`)
)

func atoi(s string) uint64 {
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		panic(err)
	}
	return v
}
