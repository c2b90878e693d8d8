package kumadiff

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/kumainspect"
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
	got := bothFieldsBatch(ok, ok2, ps, nil, nil)
	for i, p := range ps {
		want, err := fields(ok, p, nil, nil)
		if err != nil || got[i].err != nil || !reflect.DeepEqual(want, got[i].before) || !reflect.DeepEqual(want, got[i].after) {
			t.Errorf("%s: got %+v, want the fields of each store (%v)", p.Name, got[i], err)
		}
	}
	for _, tc := range []struct {
		name     string
		got      []proxyFields
		wantText string
	}{
		{"old", bothFieldsBatch(noMesh, ok, ps, nil, nil), "old set: "},
		{"new", bothFieldsBatch(ok, noMesh, ps, nil, nil), "new set: "},
	} {
		for i, f := range tc.got {
			if f.err == nil || !strings.HasPrefix(f.err.Error(), tc.wantText) || f.before != nil || f.after != nil {
				t.Errorf("%s set without its mesh, %s: %+v, want an error starting %q", tc.name, ps[i].Name, f, tc.wantText)
			}
		}
	}
}

// TestCompareComputesOnlyChangedKinds: where only policies changed, the
// proxies' fields are computed for the changed policies' kinds alone, and
// that loses nothing: every other kind's fields are the same in both sets, and
// the changes found are those the whole views give.
func TestCompareComputesOnlyChangedKinds(t *testing.T) {
	mesh := benchMesh(6, 3, "5s")
	for _, tc := range []struct {
		edit func(string) string
		kind string
	}{
		{func(s string) string { return strings.Replace(s, "connectionTimeout: 5s", "connectionTimeout: 2s", 1) }, "MeshTimeout"},
		{func(s string) string { return strings.Replace(s, "numRetries: 2", "numRetries: 7", 1) }, "MeshRetry"},
		{func(s string) string { return strings.Replace(s, "maxConnections: 101", "maxConnections: 9", 1) }, "MeshCircuitBreaker"},
	} {
		old, now := store(t, mesh), store(t, tc.edit(mesh))
		affected, kinds, ok := kumainspect.AffectedKinds(old, now)
		if !ok || !reflect.DeepEqual(kinds, map[string]bool{tc.kind: true}) || len(affected) == 0 {
			t.Fatalf("%s: affected %v, kinds %v, narrowed %v", tc.kind, affected, kinds, ok)
		}
		wholeGroups, onlyGroups := map[groupKey]*Change{}, map[groupKey]*Change{}
		var wholeOrder, onlyOrder []groupKey
		for _, p := range proxies(now) {
			wholeOld, err1 := fields(old, p, nil, nil)
			wholeNew, err2 := fields(now, p, nil, nil)
			onlyOld, err3 := fields(old, p, nil, kinds)
			onlyNew, err4 := fields(now, p, nil, kinds)
			if err := errors.Join(err1, err2, err3, err4); err != nil {
				t.Fatal(err)
			}
			for at, f := range wholeOld {
				if !kinds[at.kind] && !reflect.DeepEqual(f, wholeNew[at]) {
					t.Errorf("%s: %s %v changes although only %s changed", tc.kind, p.Name, at, tc.kind)
				}
			}
			if !reflect.DeepEqual(onlyOld, ofKinds(wholeOld, kinds)) || !reflect.DeepEqual(onlyNew, ofKinds(wholeNew, kinds)) {
				t.Errorf("%s: %s: the fields of the changed kind differ from the whole view's", tc.kind, p.Name)
			}
			compareFields(wholeOld, wholeNew, proxyName(p), p.Namespace, wholeGroups, &wholeOrder)
			compareFields(onlyOld, onlyNew, proxyName(p), p.Namespace, onlyGroups, &onlyOrder)
		}
		// (The order groups are found in follows map iteration; Compare sorts them.)
		if len(wholeOrder) == 0 || len(wholeOrder) != len(onlyOrder) || !reflect.DeepEqual(wholeGroups, onlyGroups) {
			t.Errorf("%s: the changes of the kind's fields (%d) differ from the whole views' (%d)", tc.kind, len(onlyOrder), len(wholeOrder))
		}
	}
}

// ofKinds are the fields of kinds.
func ofKinds(fs map[location]field, kinds map[string]bool) map[location]field {
	out := map[location]field{}
	for at, f := range fs {
		if kinds[at.kind] {
			out[at] = f
		}
	}
	return out
}
