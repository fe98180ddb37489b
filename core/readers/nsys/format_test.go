package nsys

import "testing"

// TestExplainStatsCSVOthers: CSV that is not a table of nsys stats (one
// unit only, no start or share of time, the header past the lines nsys
// prints, other producers' tables) is left to the other formats.
func TestExplainStatsCSVOthers(t *testing.T) {
	for _, head := range []string{
		"Container,Start,End,Duration,Value\n",
		"Name,Start (ns)\n",                                  // one unit only
		"Duration (ns),Total Time (ns),Name\n",               // no start, no share of time
		"Time (s),Value (s)\n",                               // a time, not a share
		"KernelName,BeginNs,EndNs,DurationNs\n",              // rocprof-like
		"a\nb\nc\nd\ne\nf\ng\nh\nStart (ns),Duration (ns)\n", // past the lines looked at
		"Start (ns)\n",
		"",
	} {
		if why := explainStatsCSV([]byte(head)); why != "" {
			t.Errorf("%q explained as %q", head, why)
		}
	}
	for _, head := range []string{
		"Start (ns),Duration (ns),Name\n",
		"\"Time(%)\",\"Total Time (ns)\",\"Name\"\r\n",
		"Name,Projected Start (ns),Projected Duration (ns)\n",
		"Processing [r.sqlite] with [cuda_kern_exec_trace.py]... \n\nAPI Start (ms),API Dur (ms),Kernel Name\n",
	} {
		if explainStatsCSV([]byte(head)) == "" {
			t.Errorf("%q not explained", head)
		}
	}
}
