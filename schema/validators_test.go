package schema

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/meshguard/meshguard/internal/benchcorpus"
)

// TestTreeValidatorIsTheAPIServers: the validator trees Check uses (sub-validators
// kept between objects) say exactly what the API server's validator, built by
// apiextensions-apiserver for every object, says — same errors, same fields, same
// messages — on every manifest of the conformance suites, the benchmark's
// documents, and each of those with one value at a time replaced by a value of
// another type. The trees are reused from object to object, as in a lint run.
func TestTreeValidatorIsTheAPIServers(t *testing.T) {
	s, err := Load("kuma-2.14", "linkerd-edge-26.8.3")
	if err != nil {
		t.Fatal(err)
	}
	objs := conformanceObjects(t)
	for _, d := range benchcorpus.Documents(benchcorpus.Kuma(40)) {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(d), &m); err != nil {
			t.Fatal(err)
		}
		objs = append(objs, m)
	}
	type checked struct {
		c    *compiled
		u    map[string]any
		want []string
		what string
	}
	var all []checked
	failing := 0
	for _, obj := range objs {
		c := s.lookup(gvkOf(obj))
		if c == nil {
			continue
		}
		for _, v := range append([]map[string]any{obj}, mutations(obj)...) {
			u, err := apiServerCopy(v)
			if err != nil {
				continue
			}
			pruning.PruneWithOptions(u, c.structural, true, structuralschema.UnknownFieldPathOptions{})
			structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u, c.structural)
			structuraldefaulting.Default(u, c.structural)
			want := errorTexts(apiservervalidation.ValidateCustomResource(nil, u, c.checkers().validator))
			all = append(all, checked{c: c, u: u, want: want, what: fmt.Sprintf("%s %v", gvkOf(v), v["metadata"])})
			if len(want) > 0 {
				failing++
			}
		}
	}
	// One goroutine (each object on the trees the previous ones left), then four at
	// once over every fourth object (each needs a tree of its own from the pool).
	for _, x := range all {
		if got := errorTexts(apiservervalidation.ValidateCustomResource(nil, x.u, x.c.checkers().trees)); !slices.Equal(got, x.want) {
			t.Errorf("%s:\n got %q\nwant %q", x.what, got, x.want)
		}
	}
	var wg sync.WaitGroup
	var mismatches atomic.Int64
	for g := range 4 {
		wg.Go(func() {
			for i := g; i < len(all); i += 4 {
				x := all[i]
				if got := errorTexts(apiservervalidation.ValidateCustomResource(nil, x.u, x.c.checkers().trees)); !slices.Equal(got, x.want) {
					mismatches.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if n := mismatches.Load(); n > 0 {
		t.Errorf("%d objects checked concurrently got other errors than the API server's validator", n)
	}
	compared := len(all)
	t.Logf("compared %d objects, %d with errors", compared, failing)
	if compared < 1000 || failing < 500 {
		t.Fatalf("compared %d objects, %d with errors: the suites were not found", compared, failing)
	}
}

func gvkOf(obj map[string]any) schema.GroupVersionKind {
	av, _ := obj["apiVersion"].(string)
	k, _ := obj["kind"].(string)
	return schema.FromAPIVersionAndKind(av, k)
}

func errorTexts[E error](errs []E) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, e.Error())
	}
	slices.Sort(out)
	return out
}

// conformanceObjects reads every YAML document of the conformance suites.
func conformanceObjects(t *testing.T) []map[string]any {
	var out []map[string]any
	root := "../validate/testdata/conformance"
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") {
			return err
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, doc := range strings.Split(string(raw), "\n---") {
			var m map[string]any
			if yaml.Unmarshal([]byte(doc), &m) == nil && m != nil {
				out = append(out, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// mutations returns copies of obj's spec-bearing object with one value each
// replaced by a value of another type (a string by a number, anything else by a
// string), and one list item added where lists are.
func mutations(obj map[string]any) []map[string]any {
	var out []map[string]any
	var walk func(v any, set func(any))
	walk = func(v any, set func(any)) {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				old := x[k]
				walk(old, func(nv any) {
					x[k] = nv
					defer func() { x[k] = old }()
					set(x)
				})
			}
		case []any:
			for i := range x {
				old := x[i]
				walk(old, func(nv any) {
					x[i] = nv
					defer func() { x[i] = old }()
					set(x)
				})
			}
			if len(x) > 0 {
				set(append(slices.Clone(x), x[0]))
			}
		}
		if _, isString := v.(string); isString {
			set(int64(7))
		} else {
			set("wrong")
		}
	}
	spec, ok := obj["spec"]
	if !ok {
		return nil
	}
	walk(spec, func(nv any) {
		c := deepCopy(obj).(map[string]any)
		c["spec"] = deepCopy(nv)
		out = append(out, c)
	})
	return out
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

// TestTreeValidatorCopiesNoPropertySchemas: validating an object allocates
// nothing per property its schema declares. kube-openapi's object validator
// copies each property schema (528 bytes, escaping) on every object it visits,
// present or not; a small MeshTrafficPermission visits ~27 of them (14 KB, a
// quarter of what a lint run allocated per document). The trees hand present
// properties to their validators themselves (treeNode.Validate).
func TestTreeValidatorCopiesNoPropertySchemas(t *testing.T) {
	s, err := Load("kuma-2.14")
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(`apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: mtp-1, namespace: team-002}
spec:
  targetRef: {kind: Mesh}
  from:
    - targetRef: {kind: Mesh}
      default: {action: Allow}
`), &obj); err != nil {
		t.Fatal(err)
	}
	c := s.lookup(gvkOf(obj))
	u, err := apiServerCopy(obj)
	if err != nil {
		t.Fatal(err)
	}
	trees := c.checkers().trees
	if errs := apiservervalidation.ValidateCustomResource(nil, u, trees); len(errs) > 0 {
		t.Fatalf("valid policy refused: %v", errs)
	}
	const n = 200
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range n {
		apiservervalidation.ValidateCustomResource(nil, u, trees)
	}
	runtime.ReadMemStats(&after)
	perObject := (after.TotalAlloc - before.TotalAlloc) / n
	t.Logf("%d bytes allocated per object", perObject)
	// ~27 property schemas of 528 bytes would be 14 KB alone.
	if perObject > 8<<10 {
		t.Errorf("validating a small MeshTrafficPermission allocated %d bytes; want at most 8 KiB (no copy of each property schema)", perObject)
	}
}
