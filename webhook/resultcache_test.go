package webhook

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/meshguard/meshguard/compile"
)

func testKey(i int) resultKey {
	k := newKeyHasher()
	k.value(int64(i))
	return k.sum()
}

func TestResultCacheBounds(t *testing.T) {
	c := newResultCache(4, 1<<20)
	for i := range 4 {
		c.put(testKey(i), previewResult{lines: []string{fmt.Sprint(i)}, annotation: "a"})
	}
	// Touch 0 so that 1 is the least recently used.
	if _, ok := c.get(testKey(0)); !ok {
		t.Fatal("entry 0 missing")
	}
	c.put(testKey(4), previewResult{lines: []string{"4"}})
	if _, ok := c.get(testKey(1)); ok {
		t.Error("least recently used entry 1 still cached")
	}
	if _, ok := c.get(testKey(0)); !ok {
		t.Error("recently used entry 0 evicted")
	}
	for i := 5; i < 10; i++ {
		c.put(testKey(i), previewResult{lines: []string{fmt.Sprint(i)}, annotation: "a"})
	}
	if n, _ := c.len(); n != 4 {
		t.Errorf("%d entries, want 4", n)
	}
	for _, i := range []int{6, 7, 8, 9} {
		if r, ok := c.get(testKey(i)); !ok || r.lines[0] != fmt.Sprint(i) {
			t.Errorf("entry %d: %v %v", i, r, ok)
		}
	}

	// The byte bound: 64 KiB total, 4 KiB answers; one larger than 1/16 of the
	// bound is not kept at all.
	c = newResultCache(1000, 64<<10)
	big := strings.Repeat("x", 4<<10-entryOverhead)
	for i := range 100 {
		c.put(testKey(i), previewResult{annotation: big})
		if _, b := c.len(); b > 64<<10 {
			t.Fatalf("after %d puts: %d bytes cached, bound 64 KiB", i+1, b)
		}
	}
	if n, _ := c.len(); n != 16 {
		t.Errorf("%d entries of 4 KiB in 64 KiB, want 16", n)
	}
	c.put(testKey(1000), previewResult{annotation: big + "y"})
	if _, ok := c.get(testKey(1000)); ok {
		t.Error("an answer over 1/16 of the byte bound was cached")
	}

	// Lines handed out are copies.
	c.put(testKey(2000), previewResult{lines: []string{"a"}})
	r, _ := c.get(testKey(2000))
	r.lines[0] = "changed"
	if r, _ := c.get(testKey(2000)); r.lines[0] != "a" {
		t.Error("a caller's change reached the cache")
	}
}

func TestResultCacheConcurrent(t *testing.T) {
	c := newResultCache(64, 1<<20)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for range 2000 {
				i := r.IntN(200)
				if v, ok := c.get(testKey(i)); ok {
					if v.annotation != fmt.Sprint(i) {
						t.Errorf("key %d holds %q", i, v.annotation)
						return
					}
					continue
				}
				c.put(testKey(i), previewResult{lines: []string{"l"}, annotation: fmt.Sprint(i)})
			}
		})
	}
	wg.Wait()
	if n, _ := c.len(); n > 64 {
		t.Errorf("%d entries, bound 64", n)
	}
}

func TestPreviewKey(t *testing.T) {
	base := func() *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "kuma.io/v1alpha1", "kind": "MeshTrafficPermission",
			"metadata": map[string]any{"name": "a", "namespace": "ns", "resourceVersion": "1",
				"labels": map[string]any{"kuma.io/mesh": "default", "x": "y"}},
			"spec": map[string]any{"targetRef": map[string]any{"kind": "Mesh"},
				"from": []any{map[string]any{"targetRef": map[string]any{"kind": "Mesh"}, "default": map[string]any{"action": "Allow"}}}},
		}}
	}
	var v1, v2 setVersion
	v2[0] = 1
	key := func(u *unstructured.Unstructured, v setVersion, listed bool) resultKey {
		k, ok := previewKey(u, v, listed)
		if !ok {
			t.Fatalf("no key for %v", u.Object)
		}
		return k
	}
	want := key(base(), v1, true)
	// What the preview does not read does not change the key.
	same := base()
	same.SetResourceVersion("2")
	same.SetAnnotations(map[string]string{"kubectl.kubernetes.io/last-applied-configuration": "{}"})
	same.SetManagedFields(nil)
	if key(same, v1, true) != want {
		t.Error("resourceVersion or annotations changed the key")
	}
	// Everything it reads does.
	changes := map[string]func(u *unstructured.Unstructured){
		"name":      func(u *unstructured.Unstructured) { u.SetName("b") },
		"namespace": func(u *unstructured.Unstructured) { u.SetNamespace("other") },
		"kind":      func(u *unstructured.Unstructured) { u.SetKind("MeshTimeout") },
		"label":     func(u *unstructured.Unstructured) { u.SetLabels(map[string]string{"kuma.io/mesh": "other"}) },
		"no labels": func(u *unstructured.Unstructured) { u.SetLabels(nil) },
		"action": func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{"targetRef": map[string]any{"kind": "Mesh"}, "default": map[string]any{"action": "Deny"}}}, "spec", "from")
		},
		"int type": func(u *unstructured.Unstructured) { u.Object["spec"].(map[string]any)["n"] = int64(1) },
		"float":    func(u *unstructured.Unstructured) { u.Object["spec"].(map[string]any)["n"] = float64(1) },
		"no spec":  func(u *unstructured.Unstructured) { delete(u.Object, "spec") },
	}
	seen := map[resultKey]string{want: "base"}
	for name, change := range changes {
		u := base()
		change(u)
		k := key(u, v1, true)
		if other, dup := seen[k]; dup {
			t.Errorf("%s: same key as %s", name, other)
		}
		seen[k] = name
	}
	if key(base(), v2, true) == want {
		t.Error("the stored set's version does not change the key")
	}
	if key(base(), v1, false) == want {
		t.Error("the list's availability does not change the key")
	}
	odd := base()
	odd.Object["spec"] = struct{}{}
	if _, ok := previewKey(odd, v1, true); ok {
		t.Error("a value of unknown type got a key")
	}
}

func TestStoredSetVersion(t *testing.T) {
	obj := func(ns, name, uid, rv string) unstructured.Unstructured {
		u := unstructured.Unstructured{Object: map[string]any{}}
		u.SetNamespace(ns)
		u.SetName(name)
		u.SetUID(types.UID("u-" + uid))
		u.SetResourceVersion(rv)
		return u
	}
	a, b, self := obj("n", "a", "1", "10"), obj("n", "b", "2", "20"), obj("n", "me", "3", "30")
	v, ok := storedSetVersion([]unstructured.Unstructured{a, b, self}, "n", "me")
	if !ok {
		t.Fatal("no version")
	}
	if w, _ := storedSetVersion([]unstructured.Unstructured{b, a}, "n", "me"); w != v {
		t.Error("list order or the object itself changed the version")
	}
	b2 := obj("n", "b", "2", "21")
	if w, _ := storedSetVersion([]unstructured.Unstructured{a, b2}, "n", "me"); w == v {
		t.Error("an update of a stored policy kept the version")
	}
	if w, _ := storedSetVersion([]unstructured.Unstructured{a}, "n", "me"); w == v {
		t.Error("a deletion kept the version")
	}
	if _, ok := storedSetVersion([]unstructured.Unstructured{a, obj("n", "c", "4", "")}, "n", "me"); ok {
		t.Error("a set with an object without resourceVersion got a version")
	}
}

// TestPreviewResultCache checks hits, and invalidation by a stored write and by a
// change of the object, against answers computed without the result cache.
func TestPreviewResultCache(t *testing.T) {
	mtp := func(name, rv, action string) unstructured.Unstructured {
		return unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "kuma.io/v1alpha1", "kind": "MeshTrafficPermission",
			"metadata": map[string]any{"name": name, "namespace": "kuma-system", "uid": "uid-" + name, "resourceVersion": rv},
			"spec": map[string]any{"targetRef": map[string]any{"kind": "Mesh"},
				"from": []any{map[string]any{"targetRef": map[string]any{"kind": "MeshSubset", "tags": map[string]any{"kuma.io/service": name}},
					"default": map[string]any{"action": action}}}},
		}}
	}
	var mu sync.Mutex
	stored := []unstructured.Unstructured{mtp("s1", "1", "Allow"), mtp("s2", "1", "Deny")}
	list := func(context.Context) ([]unstructured.Unstructured, bool) {
		mu.Lock()
		defer mu.Unlock()
		return stored, true
	}
	opts := compile.Options{Form: compile.FormExpanded, MaxExpandedRules: 64}
	p := newPreview(list, opts)
	uncached := func(obj *unstructured.Unstructured) ([]string, string) {
		st, listed := list(context.Background())
		v, ok := storedSetVersion(st, obj.GetNamespace(), obj.GetName())
		return newPreview(list, opts).compute(obj, st, listed, v, ok)
	}
	in := mtp("in", "", "Allow")
	check := func(step string, obj *unstructured.Unstructured, wantEntries int) string {
		t.Helper()
		lines, ann := p.answer(context.Background(), obj.DeepCopy())
		wl, wa := uncached(obj)
		if ann != wa || !reflect.DeepEqual(lines, wl) {
			t.Errorf("%s: answer differs from the uncached one\ngot  %q %s\nwant %q %s", step, lines, ann, wl, wa)
		}
		if n, _ := p.results.len(); n != wantEntries {
			t.Errorf("%s: %d cached answers, want %d", step, n, wantEntries)
		}
		return ann
	}
	first := check("first", &in, 1)
	if again := check("again", &in, 1); again != first {
		t.Error("a hit answered differently")
	}
	mu.Lock()
	stored = []unstructured.Unstructured{mtp("s1", "1", "Allow"), mtp("s2", "2", "Allow")}
	mu.Unlock()
	if after := check("stored policy updated", &in, 2); after == first {
		t.Error("the answer did not follow the stored policy's update")
	}
	changed := in.DeepCopy()
	_ = unstructured.SetNestedField(changed.Object, "Deny", "spec", "from", "0", "default", "action")
	from := []any{map[string]any{"targetRef": map[string]any{"kind": "Mesh"}, "default": map[string]any{"action": "Deny"}}}
	_ = unstructured.SetNestedSlice(changed.Object, from, "spec", "from")
	check("object changed", changed, 3)
	check("object changed, again", changed, 3)
}
