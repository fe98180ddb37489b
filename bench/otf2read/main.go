// Command otf2read reads OTF2 archives with Macroscope's reader into a sink
// that only counts, and prints the counts and the best reading time of
// several runs. bench/otf2_vs_otf2print.sh compares it with otf2-print.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/macroscope-hpc/macroscope/core/otf2"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

func main() {
	repeat := flag.Int("n", 5, "number of runs; the best time is printed")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: otf2read [-n runs] anchor.otf2...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	for _, path := range flag.Args() {
		var c trace.Counter
		best := time.Duration(1<<63 - 1)
		for range max(*repeat, 1) {
			c = trace.Counter{}
			start := time.Now()
			if err := otf2.Read(path, &c, trace.ReadOptions{}); err != nil {
				fmt.Fprintln(os.Stderr, "otf2read:", err)
				os.Exit(1)
			}
			best = min(best, time.Since(start))
		}
		fmt.Printf("%s\t%.6f s\t%d containers, %d states, %d variable pieces, %d links, %d events\n",
			path, best.Seconds(), c.Containers, c.States, c.Variables, c.Links, c.Events)
	}
}
