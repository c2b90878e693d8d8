package kumadiff

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCompareInBatches: the proxies compared a batch at a time (more than two
// batches here) give the report that comparing them one at a time gives.
func TestCompareInBatches(t *testing.T) {
	n := 2*fieldsBatch + 7
	old, now := store(t, benchMesh(n, 7, "5s")), store(t, benchMesh(n, 7, "2s"))
	batched := Compare(old, now, Options{})
	oneByOne := Compare(store(t, benchMesh(n, 7, "5s")), store(t, benchMesh(n, 7, "2s")), Options{MaxProxies: n + 1})
	if batched.Changed != n || batched.Compared != n {
		t.Fatalf("compared %d, changed %d, want %d", batched.Compared, batched.Changed, n)
	}
	if diff := cmp.Diff(oneByOne, batched); diff != "" {
		t.Errorf("batched differs from one at a time (-one +batched):\n%s", diff)
	}
}

// TestBothFieldsBatch: each proxy of a batch gets what fields gives it from
// each store, and a proxy a store cannot compute says which set failed. (A
// Store serves one goroutine at a time: each side has its own.)
func TestBothFieldsBatch(t *testing.T) {
	text := benchMesh(3, 2, "5s")
	withoutMesh := text[strings.Index(text, "---")+4:]
	ok, ok2, noMesh := store(t, text), store(t, text), store(t, withoutMesh)
	ps := proxies(ok)
	got := bothFieldsBatch(ok, ok2, ps, nil)
	for i, p := range ps {
		want, err := fields(ok, p, nil)
		if err != nil || got[i].err != nil || !reflect.DeepEqual(want, got[i].before) || !reflect.DeepEqual(want, got[i].after) {
			t.Errorf("%s: got %+v, want the fields of each store (%v)", p.Name, got[i], err)
		}
	}
	for _, tc := range []struct {
		name     string
		got      []proxyFields
		wantText string
	}{
		{"old", bothFieldsBatch(noMesh, ok, ps, nil), "old set: "},
		{"new", bothFieldsBatch(ok, noMesh, ps, nil), "new set: "},
	} {
		for i, f := range tc.got {
			if f.err == nil || !strings.HasPrefix(f.err.Error(), tc.wantText) || f.before != nil || f.after != nil {
				t.Errorf("%s set without its mesh, %s: %+v, want an error starting %q", tc.name, ps[i].Name, f, tc.wantText)
			}
		}
	}
}
