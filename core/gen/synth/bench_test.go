package synth

import (
	"io"
	"testing"
)

// benchConfig is a machine room of 2 sites x 4 clusters x 8 machines x 8
// cores (512 cores) changing state 10^6 times.
func benchConfig() Config {
	return Config{Sites: 2, Clusters: 4, Machines: 8, Cores: 8, Events: 1_000_000, Seed: 1,
		Anomalies: []Anomaly{{Level: Cluster, At: []int{1, 2}, Weights: map[string]float64{"MPI_Wait": 8}, From: 0.3, To: 0.6}}}
}

func BenchmarkWritePaje(b *testing.B) {
	c := benchConfig()
	var st Stats
	for b.Loop() {
		var err error
		if st, err = WritePaje(io.Discard, c); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(st.Bytes)
	b.ReportMetric(float64(st.States)*float64(b.N)/b.Elapsed().Seconds(), "states/s")
}
