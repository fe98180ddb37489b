package mpi

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

const (
	smpiDir  = "../../../testdata/critpath/"
	epochDir = "../../../testdata/epoch/"
	corpus   = "../../../../shared/traces/"
)

func readRun(t *testing.T, path, format string) *Run {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Skipf("trace not available: %v", err)
	}
	tr, err := formats.ReadFile(path, format)
	if err != nil {
		t.Fatal(err)
	}
	run, err := FromTrace(tr)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func TestOperation(t *testing.T) {
	for name, want := range map[string]string{
		"MPI_Allreduce": "allreduce", "PMPI_Send": "send", "mpi_waitall_": "waitall", "MPI_Comm_rank": "comm_rank",
	} {
		if got, ok := Operation(name); !ok || got != want {
			t.Errorf("Operation(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
	for _, name := range []string{"main", "computing", "MPI", "MPI_", "TRACER_Loop"} {
		if got, ok := Operation(name); ok {
			t.Errorf("Operation(%q) = %q: not an MPI call", name, got)
		}
	}
	for name, want := range map[string]Class{
		"MPI_Send": Send, "PMPI_Recv": Recv, "MPI_Isend": Local, "MPI_Waitall": Wait, "MPI_Sendrecv": SendRecv,
		"MPI_Allreduce": AllToAll, "MPI_Barrier": AllToAll, "MPI_Bcast": OneToAll, "MPI_Reduce": AllToOne,
		"MPI_Scan": Scan, "MPI_Init": Local, "MPI_Iallreduce": Local,
	} {
		if got := Classify(name); got != want {
			t.Errorf("Classify(%q) = %v, want %v", name, got, want)
		}
	}
}

// The SMPI run of a rendezvous send: one message of 4 MiB (the Size user
// field of SimGrid's links), sent by rank 0's PMPI_Send and received by
// rank 1's PMPI_Recv.
func TestSMPIMessage(t *testing.T) {
	run := readRun(t, smpiDir+"cp_laterecv.trace", "paje")
	if len(run.Resources) != 2 || run.Resources[0].Path != "rank-0" || run.Resources[1].Path != "rank-1" {
		t.Fatalf("resources %+v", run.Resources)
	}
	if len(run.Messages) != 1 {
		t.Fatalf("%d messages, want 1", len(run.Messages))
	}
	m := run.Messages[0]
	if m.From != 0 || m.To != 1 || m.Size != 4<<20 {
		t.Errorf("message %+v, want rank-0 -> rank-1, 4194304 bytes", m)
	}
	send, recv := run.Calls[0][m.SendCall], run.Calls[1][m.RecvCall]
	if run.Name(&send) != "PMPI_Send" || send.Class != Send || run.Name(&recv) != "PMPI_Recv" || recv.Class != Recv {
		t.Errorf("send call %s (%v), receive call %s (%v)", run.Name(&send), send.Class, run.Name(&recv), recv.Class)
	}
	// rank-1 computes 2 s before receiving; the send completes at 2.004482 s.
	if recv.Enter != 2*trace.Second || send.Leave != 2004482000 {
		t.Errorf("receive entered at %v, send left at %v", recv.Enter, send.Leave)
	}
}

// Three MPI_Allreduce of 4 ranks: three instances of 4 members each, the
// k-th call of every rank in instance k.
func TestSMPICollectives(t *testing.T) {
	run := readRun(t, smpiDir+"cp_coll.trace", "paje")
	if len(run.Collectives) != 3 {
		t.Fatalf("%d collectives, want 3", len(run.Collectives))
	}
	for k, c := range run.Collectives {
		if run.Names[c.Name] != "PMPI_Allreduce" || c.Class != AllToAll || len(c.Members) != 4 || c.Root != -1 {
			t.Errorf("collective %d: %s %v, %d members, root %d", k, run.Names[c.Name], c.Class, len(c.Members), c.Root)
		}
		for r, m := range c.Members {
			if int(m.Resource) != r || run.Call(m).Coll != int32(k) {
				t.Errorf("collective %d member %d is %+v", k, r, m)
			}
		}
	}
	// Rank k%4 computes 3 s in iteration k, the others 1 s: rank 0 enters
	// the first last, at 3 s.
	if got := run.Call(run.Collectives[0].Members[0]).Enter; got != 3*trace.Second {
		t.Errorf("rank-0 enters the first MPI_Allreduce at %v, want 3s", got)
	}
}

// Score-P's stencil on 32 ranks: 512 messages, each sent by an MPI_Send
// and received by the MPI_Waitall that completes its MPI_Irecv; three MPI_Barrier on MPI_COMM_WORLD (the
// communicator the "MPI collective" events name).
func TestOTF2Stencil(t *testing.T) {
	run := readRun(t, corpus+"tracer-stencil4d/stencil4d-otf/traces-32/traces.otf2", "otf2")
	if len(run.Resources) != 32 || run.Processes() != 32 {
		t.Fatalf("%d resources in %d processes, want 32", len(run.Resources), run.Processes())
	}
	if len(run.Messages) != 512 {
		t.Fatalf("%d messages, want 512 (pipit's comm matrix)", len(run.Messages))
	}
	var bytes float64
	for _, m := range run.Messages {
		bytes += m.Size
		if m.SendCall < 0 || m.RecvCall < 0 {
			t.Fatalf("message %+v not tied to its calls", m)
		}
		s, r := run.Calls[m.From][m.SendCall], run.Calls[m.To][m.RecvCall]
		if s.Class != Send || r.Class != Wait {
			t.Fatalf("message %+v sent by %s, received by %s", m, run.Name(&s), run.Name(&r))
		}
	}
	if bytes != 67108864 {
		t.Errorf("%v bytes, want 67108864 (pipit's comm matrix)", bytes)
	}
	if len(run.Collectives) == 0 {
		t.Fatal("no collectives")
	}
	for k, c := range run.Collectives {
		if run.Comms[c.Comm] != "MPI_COMM_WORLD" || len(c.Members) != 32 {
			t.Errorf("collective %d: %s on %q with %d members", k, run.Names[c.Name], run.Comms[c.Comm], len(c.Members))
		}
	}
}

// Extrae's EPOCH run on 4 processes: the calls come from the events
// 5000000x (value: the call, 0: its end), the communicator of each
// collective from 50100004 and its root from 50100003.
func TestParaverEpoch(t *testing.T) {
	run := readRun(t, epochDir+"epoch_4proc.prv.zst", "paraver")
	if len(run.Resources) != 4 || run.Processes() != 4 {
		t.Fatalf("%d resources in %d processes, want 4", len(run.Resources), run.Processes())
	}
	// zcat epoch_4proc.prv.gz | grep -o ':5000000[1-5]:[1-9][0-9]*' | wc -l
	if n := run.NumCalls(); n != 7496 {
		t.Errorf("%d calls, want 7496", n)
	}
	if len(run.Messages) != 2556 {
		t.Errorf("%d messages, want 2556 (the 3: records)", len(run.Messages))
	}
	bcasts, roots := 0, 0
	for _, c := range run.Collectives {
		if len(c.Members) != 4 {
			t.Fatalf("collective %s with %d members", run.Names[c.Name], len(c.Members))
		}
		if run.Names[c.Name] == "MPI_Bcast" {
			bcasts++
			if c.Root >= 0 {
				roots++
			}
		}
		if run.Comms[c.Comm] == "" {
			t.Fatalf("collective %s without communicator", run.Names[c.Name])
		}
	}
	// 1744 MPI_Bcast entries on 4 processes; each names its root.
	if bcasts != 436 || roots != 436 {
		t.Errorf("%d MPI_Bcast instances, %d with a root; want 436 and 436", bcasts, roots)
	}
	for _, m := range run.Messages {
		if m.SendCall < 0 || m.RecvCall < 0 || math.IsNaN(m.Size) {
			t.Fatalf("message %+v", m)
		}
	}
}

func TestStencilBarriers(t *testing.T) {
	run := readRun(t, corpus+"tracer-stencil4d/stencil4d-otf/traces-32/traces.otf2", "otf2")
	n := map[string]int{}
	for _, c := range run.Collectives {
		n[run.Names[c.Name]]++
	}
	if len(n) != 1 || n["MPI_Barrier"] != 3 {
		t.Errorf("collectives %v, want 3 MPI_Barrier", n)
	}
}

// Extrae numbers the communicators of each application from 1: in a
// Paraver trace of two applications, both on their communicator 1, each
// application's collective is an instance of its own communicator (the
// two would otherwise be paired as one collective of an MPI_Allreduce and
// an MPI_Bcast, and the run refused), named after its application.
func TestParaverCommunicatorOfEachApplication(t *testing.T) {
	dir := t.TempDir()
	const pcf = "EVENT_TYPE\n9   50000002    MPI Collective Comm\nVALUES\n10   MPI_Allreduce\n7   MPI_Bcast\n0   Outside MPI\n\n\n" +
		"EVENT_TYPE\n9   50100004    Communicator\n"
	prv := "#Paraver (01/01/26 at 00:00):100_ns:2(1,1):2:2(1:1,1:2):2(1:1,1:2)\n"
	for _, r := range []struct{ app, op, enter int }{{1, 10, 10}, {2, 7, 12}} {
		for task := 1; task <= 2; task++ {
			prv += fmt.Sprintf("2:%d:%d:%d:1:%d:50000002:%d:50100004:1\n", task, r.app, task, r.enter, r.op)
			prv += fmt.Sprintf("2:%d:%d:%d:1:%d:50000002:0\n", task, r.app, task, r.enter+10)
		}
	}
	path := filepath.Join(dir, "two.prv")
	os.WriteFile(path, []byte(prv), 0o644)
	os.WriteFile(filepath.Join(dir, "two.pcf"), []byte(pcf), 0o644)
	run := readRun(t, path, "paraver")
	var got []string
	for _, c := range run.Collectives {
		got = append(got, fmt.Sprintf("%s on %s: %d members", run.Names[c.Name], run.Comms[c.Comm], len(c.Members)))
	}
	want := []string{"MPI_Allreduce on 1 of APPL 1: 2 members", "MPI_Bcast on 1 of APPL 2: 2 members"}
	if !slices.Equal(got, want) {
		t.Errorf("collectives %q, want %q", got, want)
	}
}
