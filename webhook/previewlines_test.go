package webhook

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/lint"
	"github.com/meshguard/meshguard/validate"
)

// shape is one generated admission: stored objects, the incoming one and every
// name they carry.
type shape struct {
	desc     string
	stored   []unstructured.Unstructured
	incoming *unstructured.Unstructured
	names    nameSet
}

// gen draws the parts of shapes from a seeded source.
type gen struct {
	r *rand.Rand
	n int
}

func (g *gen) pick(l ...int) int { return l[g.r.Intn(len(l))] }

// name is a DNS-like name of exactly n bytes (n ≥ 8) with a distinct end, so an
// elision that keeps its start and end still points to this name.
func (g *gen) name(prefix string, n int) string {
	g.n++
	tail := fmt.Sprintf("-e%d", g.n)
	if len(prefix)+len(tail) >= n {
		return (prefix + tail)[:n]
	}
	return prefix + "-" + strings.Repeat("abcdefghij", n/10+1)[:n-len(prefix)-1-len(tail)] + tail
}

func mtpObject(ns, name, mesh string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kuma.io/v1alpha1", "kind": "MeshTrafficPermission",
		"metadata": map[string]any{"name": name, "namespace": ns, "labels": map[string]any{"kuma.io/mesh": mesh},
			"uid": "uid-" + ns + "-" + name, "resourceVersion": "1"},
		"spec": spec,
	}}
}

// tags draws k tags with values of about vlen bytes and records them.
func (g *gen) tags(names nameSet, k, vlen int) map[string]any {
	m := map[string]any{}
	for i := range k {
		key := "kuma.io/service"
		if i > 0 {
			key = g.name("team.example.com/k", g.pick(12, 40))
		}
		v := g.name("svc", vlen)
		m[key] = v
		names.add(key+"="+v, v)
	}
	return m
}

// target draws the incoming policy's targetRef.
func (g *gen) target(names nameSet) map[string]any {
	switch g.r.Intn(4) {
	case 0:
		return map[string]any{"kind": "Mesh"}
	case 1:
		n := g.name("backend", g.pick(10, 63, 253))
		names.add(n)
		return map[string]any{"kind": "MeshService", "name": n}
	case 2:
		return map[string]any{"kind": "MeshSubset", "tags": g.tags(names, g.pick(1, 3), g.pick(10, 63))}
	}
	labels := map[string]any{}
	for range g.pick(1, 4, 9) {
		k, v := g.name("app", g.pick(3, 30)), g.name("v", g.pick(8, 63))
		labels[k] = v
		names.add(k+"="+v, v)
	}
	return map[string]any{"kind": "Dataplane", "labels": labels}
}

// from draws n `from` items.
func (g *gen) from(names nameSet, n int) []any {
	actions := []string{"Allow", "Deny", "AllowWithShadowDeny", "Deny", "Allow"}
	var out []any
	for range n {
		var ref map[string]any
		switch g.r.Intn(6) {
		case 0:
			ref = map[string]any{"kind": "Mesh"}
		case 1:
			s := g.name("client", g.pick(10, 63))
			names.add("kuma.io/service=" + s)
			ref = map[string]any{"kind": "MeshService", "name": s}
		default:
			ref = map[string]any{"kind": "MeshSubset", "tags": g.tags(names, g.pick(1, 1, 2, 4), g.pick(10, 40, 63, 150, 300))}
		}
		out = append(out, map[string]any{"targetRef": ref, "default": map[string]any{"action": actions[g.r.Intn(len(actions))]}})
	}
	return out
}

// matchers draws the spiffeID/sni matcher lists of one rule.
func (g *gen) matchers(names nameSet) map[string]any {
	lists := map[string]any{}
	for _, list := range []string{"deny", "allow", "allowWithShadowDeny"} {
		var l []any
		for range g.pick(0, 1, 3, 8) {
			id := "spiffe://" + g.name("trust-domain.mesh", g.pick(20, 40)) + "/ns/" + g.name("ns", g.pick(8, 63)) + "/sa/" + g.name("sa", g.pick(8, 100, 253))
			typ := []string{"Exact", "Prefix"}[g.r.Intn(2)]
			names.add(id)
			m := map[string]any{"spiffeID": map[string]any{"type": typ, "value": id}}
			if g.r.Intn(4) == 0 {
				sni := g.name("sni", g.pick(8, 90)) + ".svc"
				names.add(sni)
				m["sni"] = map[string]any{"type": "Exact", "value": sni}
			}
			l = append(l, m)
		}
		if len(l) > 0 {
			lists[list] = l
		}
	}
	return lists
}

// kumaShape draws a stored set and an incoming MeshTrafficPermission: long names,
// many clients, long tag values, SPIFFE IDs, long chains, several groups.
func (g *gen) kumaShape(i int) shape {
	names := nameSet{}
	mesh := "default"
	names.add(mesh)
	sys := "kuma-system"
	denyAll := mtpObject(sys, "mesh-deny-default", mesh, map[string]any{"targetRef": map[string]any{"kind": "Mesh"},
		"from": []any{map[string]any{"targetRef": map[string]any{"kind": "Mesh"}, "default": map[string]any{"action": "Deny"}}}})
	stored := []unstructured.Unstructured{*denyAll}
	names.add(sys+"/mesh-deny-default", sys)
	matcher := i%4 == 3
	for range g.pick(0, 1, 3, 6) {
		name := g.name("stored", g.pick(10, 63, 253))
		spec := map[string]any{"targetRef": g.target(names)}
		if matcher {
			spec["rules"] = []any{map[string]any{"default": g.matchers(names)}}
		} else {
			spec["from"] = g.from(names, g.pick(1, 2, 5))
		}
		stored = append(stored, *mtpObject(sys, name, mesh, spec))
		names.add(sys+"/"+name, name)
	}
	ns := sys
	if g.r.Intn(3) == 0 {
		ns = g.name("team", g.pick(20, 63))
	}
	name := g.name("incoming", g.pick(8, 63, 120, 253))
	names.add(ns+"/"+name, ns, name)
	spec := map[string]any{"targetRef": g.target(names)}
	if ns != sys {
		spec["targetRef"] = map[string]any{"kind": "Dataplane", "labels": map[string]any{"app": "backend"}}
		names.add("app=backend")
	}
	if matcher {
		spec["rules"] = []any{map[string]any{"default": g.matchers(names)}}
	} else {
		spec["from"] = g.from(names, g.pick(1, 3, 12, 40))
	}
	desc := fmt.Sprintf("kuma %d (%d stored, matcher=%v)", i, len(stored), matcher)
	return shape{desc: desc, stored: stored, incoming: mtpObject(ns, name, mesh, spec), names: names}
}

// checkPreviewLines checks every line and that the webhook passes them on as they are.
func checkPreviewLines(t *testing.T, desc string, lines, sent []string, names nameSet) {
	t.Helper()
	total := 0
	for _, l := range lines {
		total += len(l)
		if p := lineProblem(l, names); p != "" {
			t.Errorf("%s: line %q: %s", desc, l, p)
		}
	}
	if total > MaxWarningsTotal {
		t.Errorf("%s: %d bytes of preview lines, over %d", desc, total, MaxWarningsTotal)
	}
	if sent == nil {
		return
	}
	for _, l := range lines {
		found := false
		for _, s := range sent {
			found = found || s == l
		}
		if !found {
			t.Errorf("%s: the webhook changed or dropped preview line %q; sent %q", desc, l, sent)
		}
	}
}

// TestPreviewLinesKeepNames generates MeshTrafficPermission previews over many
// shapes through the webhook's preview and validating handler and checks that no
// line cuts a name, and that every line and the total are within the limits.
func TestPreviewLinesKeepNames(t *testing.T) {
	g := &gen{r: rand.New(rand.NewSource(13))}
	admitted := 0
	const shapes = 300
	for i := range shapes {
		s := g.kumaShape(i)
		eng := testEngine(s.stored...)
		lines, ann := eng.Preview(context.Background(), s.incoming, nil)
		// The handler hands the preview the spec validation decoded; the answer
		// must be the one of decoding the object again.
		res := validate.Validate(s.incoming, eng.Registry.Lookup(s.incoming.GroupVersionKind()), eng.Settings, api.Request{Operation: api.OpCreate})
		if spec, ok := res.Spec.(*api.MeshTrafficPermissionSpec); ok {
			l2, a2 := eng.Preview(context.Background(), s.incoming, spec)
			if diff := cmp.Diff([]any{lines, ann}, []any{l2, a2}); diff != "" {
				t.Errorf("%s: preview from validation's spec differs from decoding the object (-decoded +shared):\n%s", s.desc, diff)
			}
		}
		if len(lines) == 0 || len(lines) > maxPreviewLines {
			t.Errorf("%s: %d preview lines", s.desc, len(lines))
		}
		resp := eng.Validate(context.Background(), admissionRequest(t, "u", admissionv1.Create, s.incoming, nil, "alice"))
		var sent []string
		if resp.Allowed {
			admitted++
			sent = resp.Warnings
		}
		checkPreviewLines(t, s.desc, lines, sent, s.names)
	}
	if admitted < shapes/2 {
		t.Errorf("only %d of %d shapes were admitted: the validating handler's path is barely tested", admitted, shapes)
	}
}

// harvest adds every name obj carries: its namespace/name and each string value,
// also as key=value.
func harvest(names nameSet, obj map[string]any) {
	names.add(fmt.Sprint(obj["metadata"].(map[string]any)["namespace"]) + "/" + fmt.Sprint(obj["metadata"].(map[string]any)["name"]))
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok {
					names.add(s, k+"="+s)
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				if s, ok := x.(string); ok {
					names.add(s)
				}
				walk(x)
			}
		}
	}
	walk(obj)
}

// demoPreviewPolicy is the MeshTrafficPermission the demo dry-runs, read from the
// demo's source so that this test follows it.
func demoPreviewPolicy(t *testing.T) *unstructured.Unstructured {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "hack", "demo", "sections.go"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(src), "const previewPolicy = `")
	doc, _, ok2 := strings.Cut(rest, "`")
	if !ok || !ok2 {
		t.Fatal("hack/demo/sections.go has no previewPolicy constant")
	}
	return mustObj(t, doc)
}

// TestDemoPreviewNamesNewClient dry-runs the demo's MeshTrafficPermission against
// the MeshTrafficPermissions of examples/valid (what the demo applies first): a
// warning line must name the client it newly allows in full.
func TestDemoPreviewNamesNewClient(t *testing.T) {
	names := nameSet{}
	var stored []unstructured.Unstructured
	files, err := filepath.Glob(filepath.Join("..", "examples", "valid", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("examples/valid: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range lint.LoadBytes(f, b) {
			if d.Err == nil && d.Object.GetKind() == "MeshTrafficPermission" {
				stored = append(stored, *d.Object)
				harvest(names, d.Object.Object)
			}
		}
	}
	in := demoPreviewPolicy(t)
	harvest(names, in.Object)
	client := "kuma.io/service=ops-console_ops-ns_svc_8080"
	if !names[client] {
		t.Fatalf("the demo's policy no longer allows %s; update this test", client)
	}
	resp := testEngine(stored...).Validate(context.Background(), admissionRequest(t, "demo", admissionv1.Create, in, nil, "alice"))
	if !resp.Allowed {
		t.Fatalf("denied: %+v", resp.Result)
	}
	want := in.GetNamespace() + "/" + in.GetName() + " allows 1 more client: " + client
	found := false
	for _, l := range resp.Warnings {
		found = found || l == want
		if p := lineProblem(l, names); p != "" {
			t.Errorf("line %q: %s", l, p)
		}
	}
	if !found {
		t.Errorf("no warning line %q in:\n%s", want, strings.Join(resp.Warnings, "\n"))
	}
}
