package lint

import (
	"bytes"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/meshguard/meshguard/internal/benchcorpus"
)

// BenchmarkFloorYAML10k is the floor the mandated YAML parser puts under `meshguard
// lint`: BenchmarkLint10k's 10,000 documents, cut at their "---" lines outside the
// timer, parsed on GOMAXPROCS goroutines as the linter parses them. "yaml-node" is
// yaml.v3 alone, each document decoded into the node tree the linter needs for
// line numbers (nothing of meshguard's runs); "load" is what the linter does with
// the same chunks (parseChunk: the yaml.v3 parse, the conversion to the values an
// unstructured object holds, the List and type-meta checks), so the difference is
// meshguard's own loading work. Both report docs/s and the CPU per document with the
// rate it allows on 2 CPUs (docs/performance.md, "Linter with the schema layer,
// against kubeconform").
func BenchmarkFloorYAML10k(b *testing.B) {
	const n = 10_000
	var chunks []chunk
	for _, c := range splitDocuments([]byte(benchcorpus.Kuma(n))) {
		if c.contentLine() > 0 { // the "---" after the last document
			chunks = append(chunks, c)
		}
	}
	if len(chunks) != n {
		b.Fatalf("%d chunks, want %d", len(chunks), n)
	}
	b.Run("yaml-node", func(b *testing.B) {
		floorRun(b, len(chunks), func(i int) bool {
			dec := yaml.NewDecoder(bytes.NewReader(chunks[i].data))
			var doc yaml.Node
			if err := dec.Decode(&doc); err != nil {
				return false
			}
			return dec.Decode(&doc) == io.EOF
		})
	})
	b.Run("load", func(b *testing.B) {
		floorRun(b, len(chunks), func(i int) bool {
			docs := parseChunk(chunks[i])
			return len(docs) == 1 && docs[0].Err == nil
		})
	})
}

// floorRun runs check(0..n-1) on GOMAXPROCS goroutines per iteration and reports
// documents/s (wall), CPU µs per document and the rate that CPU allows on 2 CPUs.
func floorRun(b *testing.B, n int, check func(int) bool) {
	b.ReportAllocs()
	start := cpuNanos()
	for b.Loop() {
		var next, bad atomic.Int64
		var wg sync.WaitGroup
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
					if !check(i) {
						bad.Add(1)
					}
				}
			})
		}
		wg.Wait()
		if bad.Load() > 0 {
			b.Fatalf("%d of %d documents not parsed", bad.Load(), n)
		}
	}
	docs := float64(n * b.N)
	cpu := float64(cpuNanos()-start) / 1e3 / docs
	b.ReportMetric(docs/b.Elapsed().Seconds(), "docs/s")
	b.ReportMetric(cpu, "cpu-µs/doc")
	b.ReportMetric(2e6/cpu, "docs/s-on-2-cpus")
}

// cpuNanos is the process's user+system CPU time in ns.
func cpuNanos() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
