package perfetto

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/chrome"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// laneTrace is Chromium's form of async tracks: tracks 20 to 23 all named
// "PipelineReporter" under the process, each an operation
// "PipelineReporter" at a time with slices nested in it. 20's first
// operation and 21's overlap, 22's begins when 20's ends (its lane is
// free again), 23's instant falls while lanes 0 and 1 are busy, and 20's
// second operation finds lane 0 free. Track 24 alone has its name; track
// 25 is the child of a shared track, placed under its first lane.
func laneTrace() []byte {
	slice := func(at, track uint64, name string) []byte {
		return pkt(ts(at), te(evType(begin), onTrack(track), named(name)))
	}
	endOf := func(at, track uint64) []byte { return pkt(ts(at), te(evType(end), onTrack(track))) }
	return traceOf(
		pkt(trackDesc(1, processDesc(10, "app"))),
		pkt(trackDesc(20, parentUUID(1), trackName("PipelineReporter"))),
		pkt(trackDesc(21, parentUUID(1), trackName("PipelineReporter"))),
		pkt(trackDesc(22, parentUUID(1), trackName("PipelineReporter"))),
		pkt(trackDesc(23, parentUUID(1), trackName("PipelineReporter"))),
		pkt(trackDesc(24, parentUUID(1), trackName("Other"))),
		pkt(trackDesc(25, parentUUID(20), trackName("child"))),
		slice(100, 20, "PipelineReporter"),
		slice(110, 20, "SubmitCompositorFrame"),
		endOf(120, 20),
		slice(130, 21, "PipelineReporter"),
		endOf(150, 20),
		slice(150, 22, "PipelineReporter"),
		pkt(ts(160), te(evType(instant), onTrack(23), named("tick"))),
		endOf(180, 22),
		slice(185, 24, "alone"),
		endOf(190, 24),
		endOf(200, 21),
		slice(210, 20, "PipelineReporter"),
		slice(212, 25, "kid"),
		endOf(215, 25),
		endOf(220, 20),
	)
}

func TestTracksOfOneNameInLanes(t *testing.T) {
	tr, _ := mustRead(t, laneTrace())
	checkRender(t, tr, `
		container app 10 Process alias=10
		container app 10/PipelineReporter Track alias=
		container app 10/Other Track alias=24
		container app 10/PipelineReporter/child Track alias=25
		container app 10/PipelineReporter (overlap lane 1) Track alias=
		container app 10/PipelineReporter (overlap lane 2) Track alias=
		state app 10/PipelineReporter Slice "SubmitCompositorFrame" 110 120 d1 o1
		state app 10/PipelineReporter Slice "PipelineReporter" 100 150 d0 o0
		state app 10/PipelineReporter Slice "PipelineReporter" 150 180 d0 o2
		state app 10/Other Slice "alone" 185 190 d0 o0
		state app 10/PipelineReporter (overlap lane 1) Slice "PipelineReporter" 130 200 d0 o0
		state app 10/PipelineReporter/child Slice "kid" 212 215 d0 o0
		state app 10/PipelineReporter Slice "PipelineReporter" 210 220 d0 o3
		event app 10/PipelineReporter (overlap lane 2) Instant "tick" 160
		span 100 220
	`)
}

// TestLanesAsChromeJSON: the same async slices written as Chrome JSON
// (nestable async events, one id per track) give the chrome reader the
// same lanes, holding the same slices.
func TestLanesAsChromeJSON(t *testing.T) {
	proto, _ := mustRead(t, laneTrace())
	var events []string
	ev := func(ph string, id int, name string, ns int) {
		events = append(events, fmt.Sprintf(`{"ph":%q,"cat":"c","id":"0x%d","name":%q,"pid":10,"tid":10,"ts":%g}`, ph, id, name, float64(ns)/1000))
	}
	ev("b", 20, "PipelineReporter", 100)
	ev("b", 20, "SubmitCompositorFrame", 110)
	ev("e", 20, "SubmitCompositorFrame", 120)
	ev("b", 21, "PipelineReporter", 130)
	ev("e", 20, "PipelineReporter", 150)
	ev("b", 22, "PipelineReporter", 150)
	ev("e", 22, "PipelineReporter", 180)
	ev("e", 21, "PipelineReporter", 200)
	ev("b", 20, "PipelineReporter", 210)
	ev("e", 20, "PipelineReporter", 220)
	path := filepath.Join(t.TempDir(), "lanes.json")
	doc := `{"traceEvents":[{"ph":"M","name":"process_name","pid":10,"tid":10,"args":{"name":"app"}},` + strings.Join(events, ",") + "]}"
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	json, err := readertest.ReadFormat(t, chrome.Format, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	slicesOf := func(tr *trace.Trace, prefix string) []string {
		var out []string
		for _, s := range tr.States.All() {
			c := tr.ContainerPath(s.Container, "/")
			if _, below, ok := strings.Cut(c, "/"); ok && strings.HasPrefix(below, prefix) && !strings.Contains(below, "/") {
				out = append(out, fmt.Sprintf("%s %s %d %d d%d", below, tr.Values[s.Value].Name, s.Start, s.End, s.Depth))
			}
		}
		slices.Sort(out)
		return out
	}
	got, want := slicesOf(proto, "PipelineReporter"), slicesOf(json, "PipelineReporter")
	if len(want) != 5 || !slices.Equal(got, want) {
		t.Errorf("proto:\n%s\nJSON:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestLaneNamesTaken: a track named "X (overlap lane 1)" beside tracks
// "X" whose operations overlap (a trace converted before) keeps its name,
// and X's lane takes the next one free, whether the track's container is
// created before the lane's or after: no two containers share a path.
func TestLaneNamesTaken(t *testing.T) {
	slice := func(at, track uint64, name string) []byte {
		return pkt(ts(at), te(evType(begin), onTrack(track), named(name)))
	}
	endOf := func(at, track uint64) []byte { return pkt(ts(at), te(evType(end), onTrack(track))) }
	descs := [][]byte{
		pkt(trackDesc(1, processDesc(10, "app"))),
		pkt(trackDesc(20, parentUUID(1), trackName("X"))),
		pkt(trackDesc(21, parentUUID(1), trackName("X"))),
		pkt(trackDesc(22, parentUUID(1), trackName("X (overlap lane 1)"))),
	}
	overlap := [][]byte{slice(100, 20, "a"), slice(150, 21, "b"), endOf(200, 20), endOf(250, 21)}
	own := [][]byte{slice(300, 22, "c"), endOf(310, 22)}
	for _, c := range []struct {
		name   string
		events [][]byte
		want   string
	}{
		{"lane first", append(append([][]byte(nil), overlap...), own...), `
		container app 10 Process alias=10
		container app 10/X Track alias=
		container app 10/X (overlap lane 1) Track alias=22
		container app 10/X (overlap lane 2) Track alias=
		state app 10/X Slice "a" 100 200 d0 o0
		state app 10/X (overlap lane 2) Slice "b" 150 250 d0 o0
		state app 10/X (overlap lane 1) Slice "c" 300 310 d0 o0
		span 100 310
	`},
		{"track first", append(append([][]byte(nil), own...), overlap...), `
		container app 10 Process alias=10
		container app 10/X Track alias=
		container app 10/X (overlap lane 1) Track alias=22
		container app 10/X (overlap lane 2) Track alias=
		state app 10/X (overlap lane 1) Slice "c" 300 310 d0 o0
		state app 10/X Slice "a" 100 200 d0 o0
		state app 10/X (overlap lane 2) Slice "b" 150 250 d0 o0
		span 100 310
	`},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr, _ := mustRead(t, traceOf(append(append([][]byte(nil), descs...), c.events...)...))
			checkRender(t, tr, c.want)
		})
	}
}
