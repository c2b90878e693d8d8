package benchcorpus

import (
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

// CPUNanos is the process's user+system CPU time in ns: the benchmarks report the
// CPU per document next to wall time, because a shared build machine loaded beyond
// its cores inflates wall time but not the CPU the code burns.
func CPUNanos() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// ReportDocs reports n documents per iteration as documents/s (wall), CPU µs per
// document since cpuStart (a CPUNanos reading), and the rate that CPU allows on 2
// CPUs.
func ReportDocs(b *testing.B, n int, cpuStart int64) {
	docs := float64(n * b.N)
	cpu := float64(CPUNanos()-cpuStart) / 1e3 / docs
	b.ReportMetric(docs/b.Elapsed().Seconds(), "docs/s")
	b.ReportMetric(cpu, "cpu-µs/doc")
	b.ReportMetric(2e6/cpu, "docs/s-on-2-cpus")
}

// RunEach runs check(0..n-1) on GOMAXPROCS goroutines per iteration, as the linter
// spreads documents over its workers, fails the benchmark when check rejects any,
// and reports as ReportDocs does. The floors of the libraries (schema, lint) use it.
func RunEach(b *testing.B, n int, check func(int) bool) {
	b.ReportAllocs()
	start := CPUNanos()
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
			b.Fatalf("%d of %d documents rejected", bad.Load(), n)
		}
	}
	ReportDocs(b, n, start)
}
