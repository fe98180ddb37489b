package partition

import (
	"slices"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Types and values that files share are defined once, but not where their
// readers gave them different roles (trace.Role): a Pajé file's
// "Application" (a name) and a Paraver file's (whose communicators are
// numbered apart, trace.RoleApplication) stay two types, so the second
// run keeps what its reader said of it.
func TestRunsKeepRoles(t *testing.T) {
	out := trace.New()
	r := newRunSink(out)
	files := []struct {
		name string
		typ  trace.Role
		val  trace.Role
	}{{"a.paje", trace.RoleNone, trace.RoleNone}, {"b.prv", trace.RoleApplication, trace.RoleNone},
		{"c.prv", trace.RoleApplication, trace.RoleOff}}
	for _, f := range files {
		r.begin(f.name, false)
		r.DefineType(trace.Type{Name: "Application", Kind: trace.KindContainer, Parent: trace.None, Start: trace.None, End: trace.None, Role: f.typ})
		r.DefineType(trace.Type{Name: "Call", Alias: "50000001", Kind: trace.KindEvent, Parent: 0, Start: trace.None, End: trace.None, Role: trace.RoleCall})
		r.DefineValue(trace.Value{Type: 1, Name: "0", Alias: "0", Role: f.val})
		r.CreateContainer(trace.Container{Name: "app", Type: 0, Parent: 0, End: trace.Unset})
	}
	// Run, two Applications, one Call type; three values: the one of the
	// Pajé file and of b are one, c's is off.
	var got []trace.Role
	for _, ty := range out.Types {
		got = append(got, ty.Role)
	}
	if want := []trace.Role{trace.RoleNone, trace.RoleNone, trace.RoleCall, trace.RoleApplication, trace.RoleCall}; !slices.Equal(got, want) {
		t.Errorf("type roles %v, want %v", got, want)
	}
	for c := 1; c < len(out.Containers); c++ {
		if cont := out.Containers[c]; cont.Name == "app" {
			want := trace.RoleApplication
			if out.Containers[cont.Parent].Name == "a.paje" {
				want = trace.RoleNone
			}
			if role := out.Types[cont.Type].Role; role != want {
				t.Errorf("app of %s has a type of role %d, want %d", out.Containers[cont.Parent].Name, role, want)
			}
		}
	}
	got = got[:0]
	for _, v := range out.Values {
		got = append(got, v.Role)
	}
	if want := []trace.Role{trace.RoleNone, trace.RoleNone, trace.RoleOff}; !slices.Equal(got, want) {
		t.Errorf("value roles %v, want %v", got, want)
	}
}
