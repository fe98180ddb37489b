package otf2

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Format is the OTF2 format, for the door (package ingest).
var Format = ingest.Format{
	Name:        "otf2",
	Summary:     "OTF2 archive (Score-P, APEX): the .otf2 anchor file or its directory",
	Extensions:  []string{".otf2"},
	NotTraces:   []ingest.NotTrace{{Ending: ".cubex", Is: cubeProfile}},
	SniffDir:    func(dir string) bool { _, err := findAnchor(dir); return err == nil },
	ExplainDir:  explainDir,
	ExplainFile: explainFile,
	Options: []ingest.Option{
		{Name: "location_groups", Kind: ingest.Strings,
			Doc: "read the locations of these location groups (IDs) only: a part of the archive, for a distributed read"},
	},
	Open: func(path string, v ingest.Values) (*ingest.Source, error) {
		groups, err := parseGroups(v.Strings("location_groups"))
		if err != nil {
			return nil, err
		}
		return &ingest.Source{Read: func(sink trace.Sink, ro trace.ReadOptions) error { return readGroups(path, groups, sink, ro) },
			// The clock properties' span when they give one (nothing but
			// the definitions read), else the timestamps walked (exact).
			Probe: func() (trace.Time, trace.Time, bool) {
				if start, end, ok := window(path, groups); ok {
					return start, end, true
				}
				return probe(path, groups)
			},
			Job: true, Files: []string{path}}, nil
	},
	// Parts of consecutive location groups, merged by time; the messages
	// between groups are kept by the parts and matched afterwards.
	Parts: &ingest.Parts{
		Cut:         cut,
		IsPart:      func(v ingest.Values) bool { return len(v.Strings("location_groups")) > 0 },
		Interleaved: true,
		Separable:   separable,
		UnmarshalEnds: func(data []byte) (ingest.Ends, error) {
			m, err := unmarshalMessages(data)
			if err != nil {
				return nil, err // not a nil *messages in a non-nil Ends
			}
			return m, nil
		},
		PairEnds: pairEnds,
	},
}

// cut lists at most n parts of the archive at path: consecutive location
// groups, as even as can be, a group each when n is at least their
// number. A part per group costs more than the read of a small group, so
// thousands of groups are better read in fewer parts.
func cut(path string, n int) ([]ingest.Part, error) {
	groups, err := locationGroups(path)
	if err != nil {
		return nil, err
	}
	k := min(n, len(groups))
	parts := make([]ingest.Part, 0, k)
	for i := range k {
		var ids []string
		for _, g := range groups[i*len(groups)/k : (i+1)*len(groups)/k] {
			ids = append(ids, strconv.FormatUint(uint64(g), 10))
		}
		label := "location group " + ids[0]
		if len(ids) > 1 {
			label = fmt.Sprintf("location groups %s-%s", ids[0], ids[len(ids)-1])
		}
		parts = append(parts, ingest.Part{Options: ingest.Values{"location_groups": ids}, Label: label})
	}
	return parts, nil
}

// cubeProfile says what a Score-P (or Scalasca) profile is: a CUBE4 file
// (a tar archive of metric data and an anchor.xml), a call-path profile
// without a timeline, and how Score-P records a trace instead.
const cubeProfile = "a CUBE4 profile (profile.cubex of Score-P or Scalasca: metrics per call path, no timeline), not a trace: " +
	"Score-P writes an OTF2 trace (traces.otf2) when run with SCOREP_ENABLE_TRACING=true; read that"

// tauProfile says what a TAU profile is (profile.NODE.CONTEXT.THREAD, one
// per thread, of text: the totals of each timer, no timeline) and how TAU
// records an OTF2 trace instead.
const tauProfile = "a TAU profile (profile.NODE.CONTEXT.THREAD: calls and times per function, no timeline), not a trace: " +
	"TAU writes an OTF2 trace (traces.otf2) when run with TAU_TRACE=1 and TAU_TRACE_FORMAT=otf2; read that"

// tauTrace says what TAU's own trace files are and the way to OTF2.
const tauTrace = "a trace in TAU's own format (tautrace.NODE.CONTEXT.THREAD.trc with events.NODE.edf), which Macroscope does not read: " +
	"merge and convert it (tau_treemerge.pl, then tau2otf2 tau.trc tau.edf app.otf2), or run with TAU_TRACE_FORMAT=otf2, and read the OTF2 archive"

// explainFile says what a file is from its first bytes when it is a TAU
// profile: its first line counts the timers, "N templated_functions" (with
// "_MULTI_" and the metric's name when TAU measured several). "" otherwise.
func explainFile(head []byte) string {
	digits := 0
	for digits < len(head) && head[digits] >= '0' && head[digits] <= '9' {
		digits++
	}
	if digits > 0 && bytes.HasPrefix(head[digits:], []byte(" templated_functions")) {
		return tauProfile
	}
	return ""
}

// tauMultiProfile says what the directory of a TAU run that measured
// several metrics is (%s: one of its MULTI__<metric> subdirectories).
const tauMultiProfile = "a TAU profile of several metrics (MULTI__<metric> directories such as %s, each of profile.NODE.CONTEXT.THREAD: " +
	"calls and values per function, no timeline), not a trace: " +
	"TAU writes an OTF2 trace (traces.otf2) when run with TAU_TRACE=1 and TAU_TRACE_FORMAT=otf2; read that"

// tauProfiles reports whether dir holds TAU profiles: one of its first
// profile.*.*.* files (ingest.AnyHead; other tools write files of such
// names too) opens as a TAU profile does.
func tauProfiles(dir string) bool {
	return ingest.AnyHead(filepath.Join(dir, "profile.*.*.*"), 64, func(head []byte) bool { return explainFile(head) != "" })
}

// explainDir says what dir is when it holds a producer's output of the
// OTF2 producers without a trace: a Score-P experiment directory with a
// profile (*.cubex) and no OTF2 anchor; TAU's profiles (profile.N.C.T,
// or in MULTI__<metric> subdirectories for a run of several metrics);
// TAU's own trace files (tautrace.*.trc). "" otherwise.
func explainDir(dir string) string {
	if m, _ := filepath.Glob(filepath.Join(dir, "*.otf2")); len(m) > 0 {
		return "" // an archive there that findAnchor refused says why itself
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "tautrace.*.trc")); len(m) > 0 {
		return tauTrace
	}
	if tauProfiles(dir) {
		return tauProfile
	}
	// A run that measured several metrics (TAU_METRICS=TIME:PAPI_...)
	// keeps each metric's profiles in a MULTI__<metric> subdirectory.
	metrics, _ := filepath.Glob(filepath.Join(dir, "MULTI__*"))
	for _, m := range metrics[:min(len(metrics), ingest.MaxLooked)] {
		if tauProfiles(m) {
			return fmt.Sprintf(tauMultiProfile, filepath.Base(m))
		}
	}
	profiles, _ := filepath.Glob(filepath.Join(dir, "*.cubex"))
	if len(profiles) == 0 {
		return ""
	}
	return "a Score-P experiment directory holding a profile only (" + filepath.Base(profiles[0]) + "), not a trace: " +
		"Score-P writes an OTF2 trace (traces.otf2) when run with SCOREP_ENABLE_TRACING=true; read that"
}
