//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meshguard/meshguard/e2e/localcp"
)

// TestChartObjectsAccepted: the chart as a user installs it (Deployment, PDB,
// NetworkPolicy, RBAC, webhook configurations with their matchConditions), in every
// mode, is accepted by the real API server's validation: a server-side dry run of
// each object, under another release name so nothing collides with the suite's
// release. kube-apiserver compiles the CEL matchConditions and checks the pod
// template (preStop sleep, topology spread) here.
func TestChartObjectsAccepted(t *testing.T) {
	local(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, vals := range []map[string]any{
		{"mode": "standalone"},
		{"mode": "zone", "zone": "zone-1", "privilegedGroups": []any{"mesh-admins"}},
		{"mode": "global", "nodeSpread": "preferred", "networkPolicy": map[string]any{"enabled": true,
			"apiServerCIDRs": []any{"10.0.0.0/8"}}},
	} {
		vals["fullnameOverride"] = "mg-dryrun"
		t.Run(vals["mode"].(string), func(t *testing.T) {
			objs, err := localcp.RenderChart(vals)
			if err != nil {
				t.Fatal(err)
			}
			kinds := map[string]bool{}
			for _, o := range objs {
				kinds[o.GetKind()] = true
				if o.GetNamespace() == "" && o.GetKind() != "ClusterRole" && o.GetKind() != "ClusterRoleBinding" &&
					!strings.HasSuffix(o.GetKind(), "WebhookConfiguration") {
					o.SetNamespace(localcp.ReleaseNamespace)
				}
				if err := env.client.Create(ctx, o.DeepCopy(), client.DryRunAll); err != nil {
					t.Errorf("%s %s refused by the API server: %v", o.GetKind(), o.GetName(), err)
				}
			}
			for _, k := range []string{"Deployment", "NetworkPolicy", "PodDisruptionBudget", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration", "Role", "ClusterRole"} {
				if !kinds[k] {
					t.Errorf("no %s rendered", k)
				}
			}
		})
	}
}

// TestChartDeleteWhileDown: with meshguard down and failurePolicy Fail, a policy
// can still be deleted (the chart routes no DELETE outside mode zone: meshguard
// would allow it anyway), while a create is refused, and writes outside meshguard's
// kinds go on. Then meshguard comes back.
func TestChartDeleteWhileDown(t *testing.T) {
	st := local(t)
	const ns = "down-ns"
	if err := ensureNS(ns); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	policy := func(name string) *unstructured.Unstructured {
		u := streamPolicy(0)
		u.SetName(name)
		u.SetNamespace(ns)
		return u
	}
	if err := env.client.Create(ctx, policy("kept-deletable")); err != nil {
		t.Fatalf("create while up: %v", err)
	}
	st.Meshguard.Kill()
	defer func() {
		if err := st.Meshguard.Start(); err != nil {
			t.Fatal(err)
		}
		if err := st.Meshguard.WaitReady(ctx); err != nil {
			t.Fatal(err)
		}
	}()
	err := env.client.Create(ctx, policy("refused-while-down"))
	if err == nil || !strings.Contains(err.Error(), "failed calling webhook") {
		t.Fatalf("create while down: %v, want the API server's failed-webhook refusal", err)
	}
	t.Logf("create while down refused: %v", err)
	if err := env.client.Delete(ctx, policy("kept-deletable")); err != nil {
		t.Errorf("delete while down: %v; DELETE must not depend on meshguard outside mode zone", err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("down-%d", time.Now().UnixNano()), Namespace: ns}}
	if err := env.client.Create(ctx, cm); err != nil {
		t.Errorf("a ConfigMap write while meshguard is down: %v", err)
	}
}
