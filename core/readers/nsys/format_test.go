package nsys

import (
	"strings"
	"testing"
)

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

// TestExplainStatsColumns: the tables nsys stats prints as text (its
// default format, and nsys profile --stats=true), each header underlined
// by dashes a column, current and before 2021.1, after the lines nsys
// prints first; and text that is not one.
func TestExplainStatsColumns(t *testing.T) {
	for _, head := range []string{
		"Processing [r.sqlite] with [/opt/nvidia/nsight-systems/2024.2.1/host-linux-x64/reports/nvtx_sum.py]... \n\n" +
			" ** NVTX Range Summary (nvtx_sum):\n\n" +
			" Time (%)  Total Time (ns)  Instances    Avg (ns)      Med (ns)     Min (ns)    Max (ns)   StdDev (ns)   Style           Range         \n" +
			" --------  ---------------  ---------  ------------  ------------  ----------  ----------  -----------  -------  ----------------------\n" +
			"    100.0       20,740,491          1  20,740,491.0  20,740,491.0  20,740,491  20,740,491          0.0  PushPop  cuBLAS:cublasCreate_v2\n",
		"[3/8] Executing 'cuda_gpu_trace' stats report\n\n" +
			" Start (ns)  Duration (ns)  CorrId  GrdX  GrdY  GrdZ  BlkX  BlkY  BlkZ  Reg/Trd  Device  Ctx  Strm  Name\n" +
			" ----------  -------------  ------  ----  ----  ----  ----  ----  ----  -------  ------  ---  ----  ----\n" +
			" 43,769,847         75,200     120   148     1     1   256     1     1       40  0         1     7  gemm\n",
		"Generating CUDA API Statistics...\nCUDA API Statistics (nanoseconds)\n\n" +
			"Time(%)      Total Time       Calls         Average         Minimum         Maximum  Name            \n" +
			"-------  --------------  ----------  --------------  --------------  --------------  ----------------\n" +
			"   50.3      1709124966         195       8764743.4            2450      1707272594  cudaMalloc      \n",
	} {
		if why := explainStatsCSV([]byte(head)); !strings.Contains(why, "as text in columns") {
			t.Errorf("%q explained as %q", head, why)
		}
	}
	for _, head := range []string{
		"Name  Start  End\n----  -----  ---\nx  1  2\n",                      // no units
		" Duration (ns)  Total Time (ns)\n -------------  ---------------\n", // no start, no share of time
		"Time (%)  Total Time (ns)\n--------  ---------------",               // the dashes may be cut: not looked at
		"Title\n-----\n",
		"a - b\n--- x\n",
	} {
		if why := explainStatsCSV([]byte(head)); why != "" {
			t.Errorf("%q explained as %q", head, why)
		}
	}
}
