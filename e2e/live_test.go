//go:build e2e

package e2e

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/e2e/crds"
	"github.com/meshguard/meshguard/e2e/localcp"
	"github.com/meshguard/meshguard/live"
)

// bareCluster starts a second control plane with the given CRDs and no meshguard
// at all: no webhook configuration, so whatever is created there is stored as it
// is, as in a cluster where meshguard was installed later. It is stopped when the
// test ends.
func bareCluster(t *testing.T, keep func(*apiextensionsv1.CustomResourceDefinition) bool) (*localcp.ControlPlane, client.Client) {
	t.Helper()
	if env.stack == nil {
		t.Skip("needs the local control plane binaries")
	}
	all, err := crds.Installed(api.DefaultRegistry())
	if err != nil {
		t.Fatal(err)
	}
	var installed []*apiextensionsv1.CustomResourceDefinition
	for _, c := range all {
		if keep == nil || keep(c) {
			installed = append(installed, c)
		}
	}
	cp, err := localcp.Start(localcp.Options{Dir: filepath.Join(t.TempDir(), "bare"), CRDs: installed})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cp.Stop() })
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cp.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return cp, c
}

// create stores every object of a YAML stream, creating their namespaces.
func create(t *testing.T, c client.Client, manifests string) {
	t.Helper()
	ctx := context.Background()
	for _, doc := range strings.Split(manifests, "\n---\n") {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		u := &unstructured.Unstructured{}
		if err := sigsyaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			t.Fatalf("%v\n%s", err, doc)
		}
		if ns := u.GetNamespace(); ns != "" {
			if err := localcp.EnsureNamespace(ctx, c, ns); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.Create(ctx, u); err != nil {
			t.Fatalf("create %s %s/%s: %v", u.GetKind(), u.GetNamespace(), u.GetName(), err)
		}
	}
}

const liveObjects = `apiVersion: kuma.io/v1alpha1
kind: Mesh
metadata:
  name: default
---
apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: t1
  namespace: live-a
spec:
  targetRef: {kind: Mesh}
  to:
    - targetRef: {kind: Mesh}
      default: {idleTimeout: 1h}
---
apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: t2
  namespace: live-a
spec:
  targetRef: {kind: Mesh}
  to:
    - targetRef: {kind: Mesh}
      default: {idleTimeout: 2h}
---
apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: t3
  namespace: live-a
spec:
  targetRef: {kind: Mesh}
  to:
    - targetRef: {kind: Mesh}
      default: {idleTimeout: 3h}
---
apiVersion: kuma.io/v1alpha1
kind: MeshRetry
metadata:
  name: r1
  namespace: live-b
spec:
  targetRef: {kind: Mesh}
  to:
    - targetRef: {kind: Mesh}
      default:
        http: {numRetries: 3}
---
apiVersion: v1
kind: Service
metadata:
  name: backend
  namespace: live-b
spec:
  ports: [{port: 80}]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: backend
  namespace: live-b
spec:
  selector: {matchLabels: {app: backend}}
  template:
    metadata: {labels: {app: backend}}
    spec:
      containers: [{name: c, image: busybox}]
`

// TestLiveReader reads a cluster that never had meshguard: every registry kind
// the cluster serves, page by page, with the kinds it does not serve (Linkerd's
// and the Gateway API's CRDs are not installed) reported as skipped.
func TestLiveReader(t *testing.T) {
	cp, c := bareCluster(t, func(crd *apiextensionsv1.CustomResourceDefinition) bool {
		return crd.Spec.Group == api.KumaGroup
	})
	create(t, c, liveObjects)
	// KUBECONFIG is honoured when no file is named, as kubectl does.
	t.Setenv("KUBECONFIG", cp.Kubeconfig)
	cfg, err := live.Config("", "")
	if err != nil {
		t.Fatal(err)
	}
	r, err := live.NewReader(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pages := 0
	res, err := r.Read(ctx, live.Options{PageSize: 1, Inventory: true, Progress: func(int) { pages++ }})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range res.Docs {
		if d.Object == nil || d.Err != nil {
			t.Fatalf("%s: no object (%v)", d.File, d.Err)
		}
		if len(d.Object.GetManagedFields()) > 0 {
			t.Errorf("%s: managed fields kept", d.File)
		}
		got = append(got, d.File)
	}
	want := []string{"cluster:live-a/MeshTimeout/t1", "cluster:live-a/MeshTimeout/t2", "cluster:live-a/MeshTimeout/t3",
		"cluster:live-b/MeshRetry/r1", "cluster:Mesh/default"}
	if !slices.Equal(got, want) {
		t.Errorf("docs:\n got %q\nwant %q", got, want)
	}
	// Limit 1: one page per object at least (plus the empty lists of the other kinds).
	if pages < len(want) {
		t.Errorf("progress called %d times, want at least one per page (%d)", pages, len(want))
	}
	var inv []string
	for _, d := range res.Inventory {
		if d.Object.GetNamespace() == "live-b" {
			inv = append(inv, d.File)
		}
		if _, ok := d.Object.Object["status"]; ok {
			t.Errorf("%s: inventory status kept", d.File)
		}
	}
	if wantInv := []string{"cluster:live-b/Service/backend", "cluster:live-b/Deployment/backend"}; !slices.Equal(inv, wantInv) {
		t.Errorf("inventory in live-b:\n got %q\nwant %q", inv, wantInv)
	}
	var unserved []string
	for _, s := range res.Skipped {
		unserved = append(unserved, s.Resource)
	}
	for _, w := range []string{"servers.policy.linkerd.io/v1beta3", "httproutes.gateway.networking.k8s.io/v1"} {
		if !slices.Contains(unserved, w) {
			t.Errorf("skipped %q lacks %s", unserved, w)
		}
	}
	// One namespace: namespaced kinds of other namespaces are left out, the
	// cluster-scoped Mesh stays.
	res, err = live.ReadCluster(ctx, cp.Kubeconfig, "", live.Options{Namespaces: []string{"live-b"}})
	if err != nil {
		t.Fatal(err)
	}
	got = got[:0]
	for _, d := range res.Docs {
		got = append(got, d.File)
	}
	if want := []string{"cluster:live-b/MeshRetry/r1", "cluster:Mesh/default"}; !slices.Equal(got, want) {
		t.Errorf("-n live-b:\n got %q\nwant %q", got, want)
	}
	// A context that the kubeconfig does not have is a clear error.
	if _, err := live.Config(cp.Kubeconfig, "no-such-context"); err == nil || !strings.Contains(err.Error(), "no-such-context") {
		t.Errorf("unknown context: err = %v", err)
	}
}
