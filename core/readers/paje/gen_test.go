package paje

import (
	"os"
	"strconv"
	"strings"
)

func writeFile(path, s string) error { return os.WriteFile(path, []byte(s), 0o644) }

// genConfig describes a synthetic trace: processes that set, push and pop
// states and change a variable, in time order.
type genConfig struct {
	processes, events int
	seed              uint64
}

// generate writes a deterministic trace in SimGrid's style (numeric
// aliases, nine decimals) driven by a 64-bit LCG.
func generate(c genConfig) string {
	var b strings.Builder
	b.WriteString(`%EventDef PajeDefineContainerType 0
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeDefineStateType 1
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeDefineVariableType 2
% Alias string
% Type string
% Name string
% Color color
%EndEventDef
%EventDef PajeCreateContainer 3
% Time date
% Alias string
% Type string
% Container string
% Name string
%EndEventDef
%EventDef PajeSetState 4
% Time date
% Type string
% Container string
% Value string
%EndEventDef
%EventDef PajePushState 5
% Time date
% Type string
% Container string
% Value string
%EndEventDef
%EventDef PajePopState 6
% Time date
% Type string
% Container string
%EndEventDef
%EventDef PajeSetVariable 7
% Time date
% Type string
% Container string
% Value double
%EndEventDef
0 1 0 PROCESS
1 2 1 STATE
2 3 1 load "1 0 0"
`)
	for p := 0; p < c.processes; p++ {
		b.WriteString("3 0.000000000 p" + strconv.Itoa(p) + " 1 0 \"rank-" + strconv.Itoa(p) + "\"\n")
	}
	states := []string{"compute", "MPI_Send", "MPI_Recv", "MPI_Wait"}
	depth := make([]int, c.processes)
	s := c.seed
	var ns int64
	for i := 0; i < c.events; i++ {
		s = s*6364136223846793005 + 1442695040888963407
		ns += int64(s>>40) % 5000
		p := int((s >> 8) % uint64(c.processes)) // the modulo before int: 32-bit ints too
		at := strconv.FormatInt(ns/1e9, 10) + "." + strconv.FormatInt(ns%1e9+1e9, 10)[1:]
		proc := " p" + strconv.Itoa(p)
		switch r := (s >> 20) % 8; {
		case r < 3:
			b.WriteString("4 " + at + " 2" + proc + " " + states[(s>>30)%4] + "\n")
			depth[p] = 1
		case r < 5:
			b.WriteString("5 " + at + " 2" + proc + " " + states[(s>>30)%4] + "\n")
			depth[p]++
		case r < 7 && depth[p] > 0:
			b.WriteString("6 " + at + " 2" + proc + "\n")
			depth[p]--
		default:
			b.WriteString("7 " + at + " 3" + proc + " " + strconv.FormatUint((s>>33)%1000, 10) + ".5\n")
		}
	}
	return b.String()
}
