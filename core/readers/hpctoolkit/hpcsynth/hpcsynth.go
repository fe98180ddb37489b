// Package hpcsynth writes, for tests, a small HPCToolkit database of the
// older XML form whose every sample is known: the partitioned readers'
// and the views' tests read it as they read the corpus's databases.
package hpcsynth

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
)

// hpcXML is an older (XML) HPCToolkit database's experiment.xml: main
// calls solve and io; solve calls a kernel. Times are in microseconds.
const hpcXML = `<?xml version="1.0"?>
<HPCToolkitExperiment version="2.2">
<Header n="synth"><Info/></Header>
<SecCallPathProfile i="0" n="synth">
<SecHeader>
  <TraceDBTable>
    <TraceDB i="0" u="1000000" db-glob="*.hpctrace" db-min-time="1000" db-max-time="9000" db-header-sz="32"/>
  </TraceDBTable>
  <FileTable><File i="5" n="./src/a.c"/></FileTable>
  <ProcedureTable>
    <Procedure i="10" n="main"/>
    <Procedure i="11" n="solve"/>
    <Procedure i="12" n="io"/>
    <Procedure i="13" n="kernel"/>
  </ProcedureTable>
</SecHeader>
<SecCallPathProfileData>
<M n="1" v="1"/>
<PF i="2" s="10" l="1" lm="1" f="5" n="10">
  <S i="3" s="1" l="2" it="100"/>
  <C i="4" s="1" l="3" v="0x1">
    <PF i="5" n="11" f="5" lm="1" l="0" s="11"><S i="6" it="101"/>
      <C i="7" l="4"><PF i="8" n="13" s="13" l="0" lm="1" f="5"><S i="9" it="103"/></PF></C>
    </PF>
  </C>
  <C i="10" s="1" l="5" v="0x2">
    <PF i="11" n="12" f="5" lm="1" l="0" s="12"><S i="12" it="102"/></PF>
  </C>
</PF>
</SecCallPathProfileData>
</SecCallPathProfile>
</HPCToolkitExperiment>
`

// Write writes into dir an XML database of ranks x threads trace lines
// (and a GPU stream, thread 500, on rank 0): each line samples its own mix
// of the call paths of hpcXML, the kernel first in a late line, and one
// line (rank 1, thread 1) holds no sample, so that a part of the database
// read alone holds no record.
func Write(dir string, ranks, threads int) error {
	var err error
	write := func(name string, data []byte) {
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, name), data, 0o644)
		}
	}
	write("experiment.xml", []byte(hpcXML))
	paths := []uint64{100, 101, 102, 0, 101, 100, 103}
	line := 0
	for r := range ranks {
		ths := make([]int, threads)
		for i := range ths {
			ths[i] = i
		}
		if r == 0 {
			ths = append(ths, 500)
		}
		for _, th := range ths {
			b := []byte("HPCRUN-trace______01.01b")
			b = append(b, make([]byte, 8)...)
			n := 0
			if !(r == 1 && th == 1) { // that line has no sample
				n = 20 + 3*line
			}
			for k := range n {
				cp := paths[(k*(line+1))%len(paths)]
				if cp == 103 && line < 4 {
					cp = 101
				}
				ts := uint64(1000 + line*37 + k*(7000/n))
				b = binary.BigEndian.AppendUint64(b, ts)
				b = binary.BigEndian.AppendUint32(b, uint32(cp))
			}
			write(fmt.Sprintf("synth-%06d-%03d-0000abcd-42-0.hpctrace", r, th), b)
			line++
		}
	}
	return err
}
