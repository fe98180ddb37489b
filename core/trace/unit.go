package trace

// Text formats that do not say the unit of their dates (Pajé, pj_dump's
// CSV) are read in seconds, their usual unit, but StarPU's
// starpu_fxt_tool writes milliseconds: its paje.trace, and StarVZ's CSV
// dumps of it, would otherwise last a thousand times too long. The
// readers of those formats share their time_unit option and its rule.

// TimeUnitNames are the values of a reader's time_unit option: auto
// first (the reader decides), then the units TimeUnit knows.
var TimeUnitNames = []string{"auto", "s", "ms", "us", "ns"}

var timeUnits = map[string]Time{
	"s": Second, "ms": Second / 1e3, "us": Second / 1e6, "ns": Nanosecond,
}

// TimeUnit returns the length of the unit named ("s", "ms", "us", "ns"),
// and false for any other name (auto included).
func TimeUnit(name string) (Time, bool) {
	u, ok := timeUnits[name]
	return u, ok
}

// InUnit converts a date parsed as seconds (ParseTime) to a trace whose
// dates are in unit: 0 or Second leaves it as it is.
func InUnit(t, unit Time) Time {
	if unit <= 0 || unit == Second {
		return t
	}
	return t / (Second / unit)
}

// StarPUContainerTypes are the container types starpu_fxt_tool defines
// (StarPU 1.1 to 1.4: a "Program" of "Memory Node"s whose threads are
// "Worker"s). A trace whose hierarchy has all three is StarPU's, with
// dates in milliseconds.
var StarPUContainerTypes = []string{"Program", "Memory Node", "Worker"}

// LooksStarPU reports whether a hierarchy holds StarPU's container types,
// has telling whether it holds the container type named.
func LooksStarPU(has func(containerType string) bool) bool {
	for _, name := range StarPUContainerTypes {
		if !has(name) {
			return false
		}
	}
	return true
}
