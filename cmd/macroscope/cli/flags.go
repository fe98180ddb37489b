package cli

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
)

// The flags of a command are a flag.FlagSet read the GNU way: --name
// value or --name=value (the flag package also takes -name), anywhere
// among the arguments, "--" ending them; a boolean that is true by default
// is turned off with --no-name; a few flags have a second name (-o for
// --figure, -q for --quiet). The help lists them in the same spelling.

// parseFlags reads c.args: the flags wherever they are, the other
// arguments in their order.
func (c *cli) parseFlags() ([]string, error) {
	args := c.args
	var positional []string
	for {
		if err := c.fs.Parse(args); err != nil {
			return nil, err
		}
		rest := c.fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			// The flag package stopped after "--": the rest are arguments.
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// alias gives the flag name a second name, the same flag.
func (c *cli) alias(name, other string) {
	f := c.fs.Lookup(name)
	c.fs.Var(f.Value, other, f.Usage)
	c.aliases[other] = name
}

// negatable declares --no-name beside the boolean flag name, which is
// true by default.
func (c *cli) negatable(name string) {
	f := c.fs.Lookup(name)
	c.fs.BoolFunc("no-"+name, "", func(string) error { return f.Value.Set("false") })
	c.aliases["no-"+name] = name
}

// placeholders name the values of flags in the help.
var placeholders = map[string]string{
	"format": "NAME", "read": "NAME=VALUE,...", "memory-budget": "SIZE", "start": "SECONDS", "end": "SECONDS", "slices": "N", "key": "KEY",
	"out": "DIR", "figure": "FILE", "width": "PIXELS", "height": "PIXELS", "table": "FILE", "levels": "FILE",
	"nodes": "FILE", "edges-table": "FILE", "kind": "KIND", "p": "P", "threshold": "DP", "scenario": "NAME",
	"seed": "N", "value": "VALUE", "root": "PATH", "zooms": "N", "resources": "NAMES", "state-types": "TYPES",
	"colors": "STATE=COLOUR,...", "edges": "SOURCE", "kinds": "TYPES", "size": "NAMES", "fill": "NAMES",
	"collapse": "PATHS", "depth": "N", "optimal": "P", "charge": "RULE", "iterations": "N", "busy": "STATES",
	"idle": "STATES", "nesting": "RULE", "by": "ROW", "containers": "NAMES", "view": "VIEW", "subtree": "N",
	"spacing": "PIXELS", "min-sector": "PIXELS", "sites": "N", "clusters": "N", "machines": "N", "cores": "N",
	"events": "N", "mean": "SECONDS", "states": "NAME=WEIGHT,...", "anomaly": "SPEC", "to": "FORMAT",
	"partition-by": "rank|TYPE|none", "labels": "LABELS", "names": "NAMES", "reference": "I", "align": "METHOD",
	"length": "LENGTH", "markers": "NAME", "markers-by": "number|ordinal", "markers-resource": "PATH",
	"run-level": "resource|top", "match": "auto|path|position", "rows": "ROWS", "rank": "RANK", "top": "N",
	"permutations": "N", "alpha": "A", "ops": "FILE", "iteration": "N", "device": "DEVICE", "series": "FILE",
	"metadata": "FILE", "proportions": "FILE", "runs": "FILE",
}

// isBool tells a flag that takes no value.
func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// printFlags lists the flags of the command, in alphabetical order, as
// they are typed.
func (c *cli) printFlags(w io.Writer) {
	others := map[string][]string{} // a flag's other names
	for other, name := range c.aliases {
		others[name] = append(others[name], other)
	}
	var names []string
	c.fs.VisitAll(func(f *flag.Flag) {
		if _, isAlias := c.aliases[f.Name]; !isAlias {
			names = append(names, f.Name)
		}
	})
	sort.Strings(names)
	for _, name := range names {
		f := c.fs.Lookup(name)
		spellings := []string{}
		for _, o := range others[name] {
			if len(o) == 1 {
				spellings = append(spellings, "-"+o)
			}
		}
		spellings = append(spellings, "--"+name)
		for _, o := range others[name] {
			if len(o) > 1 {
				spellings = append(spellings, "--"+o)
			}
		}
		line := "  " + strings.Join(spellings, ", ")
		if !isBool(f) {
			v := placeholders[name]
			if v == "" {
				v = "VALUE"
			}
			line += " " + v
		}
		usage := f.Usage
		if f.DefValue != "" && f.DefValue != "false" && !strings.Contains(usage, "default") {
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(w, "%s\n%s", line, wrap(usage, "      ", 80))
	}
}

// wrap breaks text into lines of at most width columns (but for words
// longer than that), each starting with indent and ending with a newline;
// the text's own newlines start new lines.
func wrap(text, indent string, width int) string {
	var b strings.Builder
	for _, para := range strings.Split(text, "\n") {
		n := 0
		for i, word := range strings.Fields(para) {
			switch {
			case i == 0:
				b.WriteString(indent)
				n = len(indent)
			case n+1+len(word) > width:
				b.WriteString("\n" + indent)
				n = len(indent)
			default:
				b.WriteByte(' ')
				n++
			}
			b.WriteString(word)
			n += len(word)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// typed tells whether any of the flags was given on the command line.
func (c *cli) typed(names ...string) bool {
	if c == nil || c.fs == nil {
		return false
	}
	given := false
	c.fs.Visit(func(f *flag.Flag) {
		if slices.Contains(names, f.Name) {
			given = true
		}
	})
	return given
}

// flagOf spells the parameter of an argument error as the flag the user
// typed: "slices" is --slices, "state_types" --state-types; a few
// parameters of the core are flags of other names (see paramFlags).
func (c *cli) flagOf(param string) string {
	if param == "" || strings.HasPrefix(param, "-") {
		return param
	}
	name := strings.ReplaceAll(param, "_", "-")
	if c == nil {
		return "--" + name
	}
	if f, ok := c.paramFlags[param]; ok {
		return f
	}
	if c.fs.Lookup(name) != nil {
		if canonical, ok := c.aliases[name]; ok && len(name) == 1 {
			return "-" + name + " (--" + canonical + ")"
		}
		return "--" + name
	}
	return param
}

// flagError rewrites an error of the flag package (an unknown flag, a
// value that does not parse) in the command line's spelling: the flag
// package writes every flag -name.
func flagError(err error) string {
	msg := err.Error()
	for _, f := range []struct{ prefix, say string }{
		{"flag provided but not defined: -", "unknown flag --%s"},
		{"flag needs an argument: -", "--%s needs a value"},
	} {
		if name, ok := strings.CutPrefix(msg, f.prefix); ok {
			return fmt.Sprintf(f.say, name)
		}
	}
	// invalid value "x" for flag -name: reason; invalid boolean value "x"
	// for -name: reason
	for _, sep := range []string{" for flag -", " for -"} {
		head, tail, ok := strings.Cut(msg, sep)
		if !ok {
			continue
		}
		name, reason, _ := strings.Cut(tail, ": ")
		value := strings.TrimPrefix(strings.TrimPrefix(head, "invalid value "), "invalid boolean value ")
		switch {
		case strings.HasSuffix(reason, "invalid syntax") || reason == "parse error":
			reason = "not a number"
			if strings.HasPrefix(head, "invalid boolean") {
				reason = "a switch takes no value, or =true or =false"
			}
		case strings.HasSuffix(reason, "value out of range"):
			reason = "out of range"
		}
		return fmt.Sprintf("invalid --%s: %s: %s", name, value, reason)
	}
	return msg
}
