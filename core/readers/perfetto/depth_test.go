package perfetto

import (
	"strings"
	"testing"
)

// TestTrackChainDepth: a chain of tracks, each the parent of the next,
// used from the top down every 250 tracks, nests no container deeper
// than maxTrackDepth (the rest are placed under the root, said in a
// warning). Before, the chain followed from each track stopped at the
// last one made, already deep, so that the containers nested as deep as
// the chain: 300,000 levels, a hierarchy whose recursive walks (an
// overview, a kaleidoscope) ended the process with a fatal error.
func TestTrackChainDepth(t *testing.T) {
	const n, step = 5000, 250
	var packets [][]byte
	for u := uint64(1); u <= n; u++ {
		parts := [][]byte{trackName("t")}
		if u > 1 {
			parts = append(parts, parentUUID(u-1))
		}
		packets = append(packets, pkt(seqID(1), trackDesc(u, parts...)))
	}
	at := uint64(1000)
	for u := uint64(step); u <= n; u += step {
		packets = append(packets, pkt(ts(at), seqID(1), te(evType(begin), onTrack(u), named("work"))),
			pkt(ts(at+5), seqID(1), te(evType(end), onTrack(u))))
		at += 10
	}
	tr, notes := mustRead(t, traceOf(packets...))
	deepest := 0
	for i := range tr.Containers {
		d := 0
		for p := int32(i); p > 0; p = tr.Containers[p].Parent {
			d++
		}
		deepest = max(deepest, d)
	}
	if deepest > maxTrackDepth {
		t.Errorf("a container is %d deep, more than %d", deepest, maxTrackDepth)
	}
	if tr.States.Len() != n/step {
		t.Errorf("%d states, want %d", tr.States.Len(), n/step)
	}
	said := strings.Join(notes.Messages(), "\n")
	if !strings.Contains(said, "have parents that loop or nest more than 256 deep: they are placed under the root") {
		t.Errorf("no warning of the tracks moved: %q", said)
	}
}
