package lint

import (
	"bytes"
	"io"
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
		benchcorpus.RunEach(b, len(chunks), func(i int) bool {
			dec := yaml.NewDecoder(bytes.NewReader(chunks[i].data))
			var doc yaml.Node
			if err := dec.Decode(&doc); err != nil {
				return false
			}
			return dec.Decode(&doc) == io.EOF
		})
	})
	b.Run("load", func(b *testing.B) {
		benchcorpus.RunEach(b, len(chunks), func(i int) bool {
			docs := parseChunk(chunks[i])
			return len(docs) == 1 && docs[0].Err == nil
		})
	})
}
