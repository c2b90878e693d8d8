package lint

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"

	"github.com/meshguard/meshguard/api"
)

// smallMTPStream builds n ~200-byte namespace-wide MeshTrafficPermissions that
// allow the whole mesh, in 50 namespaces: the documents of issue 27's 294,000
// (hack/genmanifests -small-mtp).
func smallMTPStream(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "---\napiVersion: kuma.io/v1alpha1\nkind: MeshTrafficPermission\nmetadata:\n  name: mtp-%d\n  namespace: team-%03d\n"+
			"spec:\n  targetRef:\n    kind: Mesh\n  from:\n    - targetRef:\n        kind: Mesh\n      default:\n        action: Allow\n", i, i%50)
	}
	return b.Bytes()
}

// liveHeap is the heap in use after a full collection.
func liveHeap() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// TestRunKeepsLittlePerDocument: what a run keeps of each document until its
// end (its findings, its place, the RBAC stage's summary) is marked by the
// collector at every collection of a large run, so a run of 294,000 small
// policies spent a third of its CPU marking ~1.4 KB a document (issue 27 point
// 5). The heap that 4,096 more documents leave live must stay under 512 bytes
// a document (~280 now). The window starts after 1,000 documents, when the
// kind's schema validators are built, and spans a chunk of each kept list.
func TestRunKeepsLittlePerDocument(t *testing.T) {
	if testing.Short() {
		t.Skip("lints 5,500 documents")
	}
	const from, window = 1000, chunkSize
	s := api.DefaultSettings()
	o := Options{Settings: s, Namespace: "default", Registry: api.DefaultRegistry(),
		Stages: func() []Stage { return []Stage{&rbacStage{systemNamespace: s.SystemNamespace}} }}
	data := smallMTPStream(from + window + 400)
	sets := o.newStageSets()
	n := 0
	var start, end int64
	Stream([]string{"-"}, bytes.NewReader(data), LoadOptions{}, func(d *Document) docResult {
		return checkDoc(d, o, sets.summarizers())
	}, func(r docResult) {
		r.add(sets)
		n++
		switch n {
		case from:
			start = liveHeap()
		case from + window:
			end = liveHeap()
		}
	})
	if n != from+window+400 {
		t.Fatalf("linted %d documents", n)
	}
	per := (end - start) / window
	t.Logf("%d bytes live per document", per)
	if per > 512 {
		t.Errorf("a run keeps %d bytes per document until its end, want at most 512", per)
	}
	fs, sum := finish(sets, n)
	if sum.Documents != n || len(fs) == 0 {
		t.Errorf("finish: %+v, %d findings", sum, len(fs))
	}
}

// TestChunksKeepOrder: entries come back in the order added, across chunks.
func TestChunksKeepOrder(t *testing.T) {
	var c chunks[int]
	for i := range 2*chunkSize + 3 {
		c.add(i)
	}
	if c.len() != 2*chunkSize+3 {
		t.Fatalf("len %d", c.len())
	}
	for i := range c.len() {
		if *c.at(i) != i {
			t.Fatalf("entry %d is %d", i, *c.at(i))
		}
	}
}
