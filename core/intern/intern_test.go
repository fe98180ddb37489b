package intern

import (
	"fmt"
	"strings"
	"testing"
)

func TestTable(t *testing.T) {
	var tab Table
	words := strings.Fields("MPI_Send compute MPI_Recv compute MPI_Send idle")
	var ids []int32
	for i, w := range words {
		if i%2 == 0 {
			ids = append(ids, tab.ID(w))
		} else {
			ids = append(ids, tab.IDBytes([]byte(w)))
		}
	}
	if got, want := fmt.Sprint(ids), "[0 1 2 1 0 3]"; got != want {
		t.Errorf("ids %s, want %s (dense, in order of first use)", got, want)
	}
	if tab.Len() != 4 || strings.Join(tab.Strings(), ",") != "MPI_Send,compute,MPI_Recv,idle" {
		t.Errorf("strings %q", tab.Strings())
	}
	for i, w := range words {
		if tab.String(ids[i]) != w {
			t.Errorf("String(%d) = %q, want %q", ids[i], tab.String(ids[i]), w)
		}
	}
	if tab.String(None) != "" {
		t.Error("String(None) is not empty")
	}
	if id, ok := tab.Lookup("idle"); !ok || id != 3 {
		t.Errorf("Lookup(idle) = %d, %v", id, ok)
	}
	if _, ok := tab.Lookup("nope"); ok || tab.Len() != 4 {
		t.Error("Lookup of an unknown string added it or found it")
	}
	if want := int64(len("MPI_Send"+"compute"+"MPI_Recv"+"idle")) + 4*entryBytes; tab.Bytes() != want {
		t.Errorf("Bytes %d, want %d", tab.Bytes(), want)
	}
}

// Keep sees each new string once; String gives what it returned, and the
// string as given stays the key.
func TestTableKeep(t *testing.T) {
	var kept []string
	tab := Table{Keep: func(s string) string { kept = append(kept, s); return strings.ToValidUTF8(s, "?") }}
	buf := []byte("kernel_A\xff")
	tab.IDBytes(buf)
	buf[7] = 'B' // the caller's buffer changes: the table's strings do not
	tab.IDBytes(buf)
	if tab.ID("kernel_A\xff") != 0 || tab.ID("kernel_A?") != 2 {
		t.Error("the key is not the string as given")
	}
	if strings.Join(kept, ",") != "kernel_A\xff,kernel_B\xff,kernel_A?" || tab.String(0) != "kernel_A?" || tab.Len() != 3 {
		t.Errorf("kept %q, strings %q", kept, tab.Strings())
	}
}

func TestIDBytesDoesNotAllocateForKnownStrings(t *testing.T) {
	var tab Table
	b := []byte("ncclKernel_AllReduce")
	tab.IDBytes(b)
	if n := testing.AllocsPerRun(100, func() { tab.IDBytes(b) }); n != 0 {
		t.Errorf("%v allocations per lookup of a known string", n)
	}
}

func ExampleTable() {
	var names Table
	for _, s := range []string{"compute", "MPI_Wait", "compute"} {
		fmt.Print(names.ID(s), " ")
	}
	fmt.Println(names.Strings())
	// Output: 0 1 0 [compute MPI_Wait]
}

func TestAppend(t *testing.T) {
	var tab Table
	a := tab.ID("a")
	n := tab.Append("17")
	b := tab.IDBytes([]byte("b"))
	if a != 0 || n != 1 || b != 2 || tab.String(n) != "17" || tab.Len() != 3 {
		t.Errorf("ids %d %d %d, String(%d) %q: want 0 1 2, dense in order of use", a, n, b, n, tab.String(n))
	}
	if _, ok := tab.Lookup("17"); ok {
		t.Error("an appended string is found by Lookup")
	}
}
