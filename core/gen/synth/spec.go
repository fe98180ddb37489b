package synth

import (
	"strconv"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// ParseStates reads states written "Name=weight,Name=weight,...", as the
// command line takes them.
func ParseStates(s string) ([]State, error) {
	var out []State
	for _, item := range strings.Split(s, ",") {
		name, w, err := parseWeight("states", item)
		if err != nil {
			return nil, err
		}
		out = append(out, State{name, w})
	}
	return out, nil
}

// ParseAnomaly reads an anomaly written
//
//	level:i/j/...:State=weight[,State=weight...][@from-to]
//
// as the command line takes it: "machine:1/0/2:MPI_Wait=6@0.25-0.75" gives
// MPI_Wait the weight 6 on machine 2 of cluster 0 of site 1, from a quarter
// to three quarters of the trace.
func ParseAnomaly(s string) (Anomaly, error) {
	bad := func(format string, args ...any) (Anomaly, error) {
		return Anomaly{}, errs.Argument("anomaly", "%q: "+format, append([]any{s}, args...)...)
	}
	spec, window, hasWindow := strings.Cut(s, "@")
	parts := strings.Split(spec, ":")
	if len(parts) != 3 {
		return bad("want level:indices:State=weight[,...][@from-to]")
	}
	level, err := ParseLevel(parts[0])
	if err != nil {
		return bad("unknown level %q (use site, cluster, machine or core)", parts[0])
	}
	a := Anomaly{Level: level, Weights: map[string]float64{}}
	for _, x := range strings.Split(parts[1], "/") {
		i, err := strconv.Atoi(x)
		if err != nil {
			return bad("index %q is not an integer", x)
		}
		a.At = append(a.At, i)
	}
	for _, item := range strings.Split(parts[2], ",") {
		name, w, err := parseWeight("anomaly", item)
		if err != nil {
			return Anomaly{}, err
		}
		a.Weights[name] = w
	}
	if hasWindow {
		from, to, ok := strings.Cut(window, "-")
		var err1, err2 error
		a.From, err1 = strconv.ParseFloat(from, 64)
		a.To, err2 = strconv.ParseFloat(to, 64)
		if !ok || err1 != nil || err2 != nil {
			return bad("window %q is not from-to (fractions of the trace's duration)", window)
		}
	}
	return a, nil
}

func parseWeight(param, item string) (string, float64, error) {
	name, ws, ok := strings.Cut(item, "=")
	if !ok || name == "" {
		return "", 0, errs.Argument(param, "%q is not State=weight", item)
	}
	w, err := strconv.ParseFloat(ws, 64)
	if err != nil {
		return "", 0, errs.Argument(param, "the weight of %q, %q, is not a number", name, ws)
	}
	return name, w, nil
}
