package paraver

import (
	"fmt"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Extrae's MPI and OpenMP event types, and their values 0, carry the
// roles the analyses of message passing and POP read, and so do its
// counters of instructions and cycles, the Running state, the
// applications and the threads; other types and values none. In the view
// by CPU there are no applications or threads.
func TestExtraeRoles(t *testing.T) {
	in := "#Paraver (x):100_ns:1(2):1:2(1:1,1:1)\n" +
		"1:1:1:1:1:0:10:1\n1:1:1:1:1:10:20:2\n" +
		"2:1:1:1:1:10:50000002:10:50100004:1:50100003:1:42000050:7\n" +
		"2:1:1:1:1:20:50000002:0:50100003:0\n" +
		"2:2:1:2:1:30:50000001:3:50000003:0:50000004:0:50000005:0:60000001:0:42000059:5:60000005:1:70000000:0\n"
	wantType := map[string]trace.Role{"50000001": trace.RoleCall, "50000002": trace.RoleCollectiveCall, "50000003": trace.RoleCall,
		"50000004": trace.RoleCall, "50000005": trace.RoleCall, "50100004": trace.RoleCommunicator, "50100003": trace.RoleRootFlag,
		"42000050": trace.RoleInstructions, "42000059": trace.RoleCycles, "60000001": trace.RoleParallelConstruct,
		"60000005": trace.RoleParallelConstruct, "70000000": trace.RoleNone}
	// The values by type and alias that are off: the zeros of the calls and
	// of the root flag, not of the communicator or of other types.
	off := map[string]bool{"50000002 0": true, "50000003 0": true, "50000004 0": true, "50000005 0": true, "50100003 0": true,
		"60000001 0": true}
	for _, view := range []viewKind{threadView, cpuView} {
		tr := trace.New("e.prv")
		if err := decodeStream(strings.NewReader(in), "e.prv", 0, nil, view, tr, trace.ReadOptions{}); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, ty := range tr.Types {
			switch {
			case ty.Kind == trace.KindEvent:
				if want, ok := wantType[ty.Alias]; !ok || ty.Role != want {
					t.Errorf("view %d: event type %s has role %d, want %d", view, ty.Alias, ty.Role, want)
				}
			case ty.Kind == trace.KindContainer:
				got = append(got, fmt.Sprintf("%s:%d", ty.Name, ty.Role))
			}
		}
		want := "Application:2 Task:0 Thread:1"
		if view == cpuView {
			want = "Node:0 CPU:0"
		}
		if g := strings.Join(got, " "); g != want {
			t.Errorf("view %d: container types %s, want %s", view, g, want)
		}
		for _, v := range tr.Values {
			ty := tr.Types[v.Type]
			if ty.Kind == trace.KindState {
				if want := map[bool]trace.Role{true: trace.RoleUseful}[v.Alias == "1"]; v.Role != want {
					t.Errorf("view %d: state %s has role %d, want %d", view, v.Alias, v.Role, want)
				}
				continue
			}
			want := trace.RoleNone
			if off[ty.Alias+" "+v.Alias] {
				want = trace.RoleOff
			}
			if v.Role != want {
				t.Errorf("view %d: value %s of type %s has role %d, want %d", view, v.Alias, ty.Alias, v.Role, want)
			}
		}
	}
}
