package lint

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/api"
)

// TestPreviewSelects: admissible MeshTrafficPermissions are compiled, denied ones and
// unreadable documents are notes, and the Linkerd preview gets Linkerd objects plus
// the routes, Namespaces and workloads around them, never unrelated kinds.
func TestPreviewSelects(t *testing.T) {
	const src = `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: ok, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  from: [{targetRef: {kind: Mesh}, default: {action: Allow}}]
---
apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: denied, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  from: [{targetRef: {kind: Mesh}, default: {action: Maybe}}]
---
apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: t, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  to: [{targetRef: {kind: Mesh}, default: {idleTimeout: 1s}}]
---
kind: [unclosed
---
apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: web}
spec: {podSelector: {matchLabels: {app: web}}, port: 8080}
---
apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: bad}
spec: {port: 8080}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r}
---
apiVersion: v1
kind: Namespace
metadata: {name: web-ns}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c}
`
	docs := LoadBytes("in.yaml", []byte(src))
	in := Preview(docs, Options{Settings: api.DefaultSettings(), Namespace: "apps", Registry: api.DefaultRegistry()})

	var names []string
	for _, p := range in.Policies {
		names = append(names, p.Name)
	}
	if diff := cmp.Diff([]string{"ok"}, names); diff != "" {
		t.Errorf("policies: %s", diff)
	}
	var linkerd []string
	for _, o := range in.Linkerd {
		linkerd = append(linkerd, o.GetKind()+" "+o.GetNamespace()+"/"+o.GetName())
	}
	want := []string{"Server apps/web", "HTTPRoute apps/r", "Namespace /web-ns", "Deployment apps/web"}
	if diff := cmp.Diff(want, linkerd); diff != "" {
		t.Errorf("linkerd objects: %s", diff)
	}
	if !in.Unreadable {
		t.Error("Unreadable = false with an unparsable document")
	}
	texts := func(ns []Note) (out []string) {
		for _, n := range ns {
			out = append(out, fmt.Sprintf("%s:%d: %s", n.File, n.Line, n.Text[:min(len(n.Text), 30)]))
		}
		return out
	}
	if diff := cmp.Diff([]string{"in.yaml:8: skipped kuma-system/denied: th", "in.yaml:22: error MG000: invalid YAML: did"}, texts(in.Notes)); diff != "" {
		t.Errorf("notes: %s", diff)
	}
	if diff := cmp.Diff([]string{"in.yaml:29: skipped apps/bad: the webhook "}, texts(in.LinkerdNotes)); diff != "" {
		t.Errorf("linkerd notes: %s", diff)
	}
}
