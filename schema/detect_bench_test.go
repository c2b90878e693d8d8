package schema

import "testing"

// BenchmarkDetectKuma is what detection costs a door beside the cluster's answers:
// the names of the CRDs to read and the comparison with every embedded release
// (EmbeddedReleases parses and hashes the embedded CRDs of the mesh, once).
func BenchmarkDetectKuma(b *testing.B) {
	kuma := Meshes()[0]
	installed, err := EmbeddedHashes("kuma-2.13", kuma.Group)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		rh, err := EmbeddedReleases(kuma)
		if err != nil {
			b.Fatal(err)
		}
		_ = rh.Names()
		_ = rh.Match(installed)
	}
}
