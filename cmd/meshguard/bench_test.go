package main

import (
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/internal/benchcorpus"
	"github.com/meshguard/meshguard/lint"
)

// corpus builds n realistic policy documents of mixed kinds, roles and namespaces
// (benchcorpus.Kuma, shared with the benchmarks of the validator and YAML floors).
func corpus(n int) string { return benchcorpus.Kuma(n) }

// BenchmarkLint10k is `meshguard lint -o json -` over 10,000 documents, in process:
// loading with line numbers, defaulting, validation (with the schema layer, Kuma's
// CRDs compiled once per run as the door does), RBAC analysis and output.
// "no-schema" is the same run with Settings.Schemas nil, which no door does: it is
// there to show, side by side in one run, what the schema layer costs.
func BenchmarkLint10k(b *testing.B) {
	const n = 10000
	in := corpus(n)
	b.Run("door", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(in)))
		start := benchcorpus.CPUNanos()
		for b.Loop() {
			code := run([]string{"lint", "-o", "json", "-"}, streams{in: strings.NewReader(in), out: io.Discard, err: io.Discard})
			if code != exitOK {
				b.Fatalf("exit %d", code)
			}
		}
		benchcorpus.ReportDocs(b, n, start)
	})
	b.Run("no-schema", func(b *testing.B) {
		o := &lintOptions{settings: api.DefaultSettings(), namespace: "default"}
		b.ReportAllocs()
		b.SetBytes(int64(len(in)))
		start := benchcorpus.CPUNanos()
		for b.Loop() {
			restore := tuneGCForLint() // as the door does
			eng := lint.Options{Settings: o.settings, Namespace: o.namespace, Registry: api.DefaultRegistry(),
				Stages: lint.CrossDocument(o.settings, o.namespace)}
			findings, sum, skipped := lint.Run([]string{"-"}, strings.NewReader(in), o.loadOptions(), eng, nil)
			if err := lint.WriteJSON(io.Discard, findings, sum, skipped); err != nil {
				b.Fatal(err)
			}
			restore()
		}
		benchcorpus.ReportDocs(b, n, start)
	})
}

// TestWriteBenchCorpus writes BenchmarkLint10k's documents to the file named by
// MESHGUARD_BENCH_CORPUS (MESHGUARD_BENCH_DOCS of them, 10,000 unless set), so
// that the binary and other tools can be measured on the same input
// (`go run ./hack/bench lint`). Without the variable it does nothing.
func TestWriteBenchCorpus(t *testing.T) {
	path := os.Getenv("MESHGUARD_BENCH_CORPUS")
	if path == "" {
		t.Skip("MESHGUARD_BENCH_CORPUS not set")
	}
	n := 10000
	if s := os.Getenv("MESHGUARD_BENCH_DOCS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 1 {
			t.Fatalf("MESHGUARD_BENCH_DOCS=%q: want a positive number", s)
		}
	}
	if err := os.WriteFile(path, []byte(corpus(n)), 0o644); err != nil {
		t.Fatal(err)
	}
}
