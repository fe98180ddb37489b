package readertest

import (
	"flag"
	"os"
	"testing"
)

// MinimizeTime is how long the fuzzer may spend minimizing each new
// input it finds, unless -fuzzminimizetime says otherwise (see
// BoundMinimization).
const MinimizeTime = "3s"

// BoundMinimization bounds the time the fuzzer spends minimizing each
// input that reaches new code to MinimizeTime, unless the command line
// gave -fuzzminimizetime. Call it first thing in a fuzz target.
//
// Go's default is a minute per input, and minimizing n bytes may take up
// to n²/2 runs of the target (it tries removing every range of bytes):
// on inputs of a kilobyte that parse in tens of microseconds, the minute
// is spent, and the fuzzer reports no progress meanwhile; in the first
// minutes, when new code is found every few seconds, fuzzing stalls.
func BoundMinimization(f *testing.F) {
	set := false
	flag.Visit(func(fl *flag.Flag) { set = set || fl.Name == "test.fuzzminimizetime" })
	if !set {
		if err := flag.Set("test.fuzzminimizetime", MinimizeTime); err != nil {
			f.Fatal(err)
		}
	}
}

// FuzzDir returns a directory for the files a fuzz target writes at each
// run, removed when the target ends: in memory (under /dev/shm) when the
// system has it, since writing a file to disk may take milliseconds on a
// busy machine, a hundred times the run itself.
func FuzzDir(f *testing.F) string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if d, err := os.MkdirTemp("/dev/shm", "macroscope-fuzz-"); err == nil {
			f.Cleanup(func() { os.RemoveAll(d) })
			return d
		}
	}
	return f.TempDir()
}
