//go:build e2e

package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/e2e/localcp"
	"github.com/meshguard/meshguard/webhook"
)

// The zone-mode meshguard of TestZoneTrust: its system namespace, zone, and the
// names of the webhook configurations and Secret it keeps, apart from the suite's.
// The system namespace is the suite meshguard's too: both webhooks see the test's
// objects, and two meshguards that disagree on the system namespace compute
// different policy roles for them (the unit tests cover another system namespace).
const (
	trustSystemNS = api.DefaultSystemNS
	trustZone     = "zone-1"
	trustPrefix   = "meshguard-trust"
)

// TestZoneTrust runs a second meshguard as a federated zone's (--mode zone) beside
// the suite's, for the system namespace only, and checks with a user who may
// edit MeshTrafficPermissions there (RBAC, impersonated) that a policy synced from
// global stays as global wrote it: the user can neither strip its
// `kuma.io/origin: global` on UPDATE nor DELETE it, while the control plane's
// account of --system-namespace (trusted by default) can do both, and the user can
// still create and delete policies of their own.
//
// The webhook configurations are registered here, not rendered from the chart: the
// chart's validating webhook gets DELETE for zone mode from the registry
// (api.Kind.DeleteChecked); this test registers that rule for
// MeshTrafficPermissions itself.
func TestZoneTrust(t *testing.T) {
	st := local(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := ensureNS(trustSystemNS); err != nil {
		t.Fatal(err)
	}
	mg, err := localcp.NewMeshguard(st.Meshguard.Bin, env.kubeconfig, t.TempDir(),
		"--mode", "zone", "--zone", trustZone, "--system-namespace", trustSystemNS,
		"--secret-name", trustPrefix+"-cert", "--mutating-webhook-name", trustPrefix+"-mutating",
		"--validating-webhook-name", trustPrefix+"-validating")
	if err != nil {
		t.Fatal(err)
	}
	registerTrustWebhooks(t, ctx, mg.URL())
	if err := mg.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mg.Stop(15 * time.Second) })
	if err := mg.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	waitForCABundle(t, ctx)

	const alice = "alice"
	controlPlane := "system:serviceaccount:" + trustSystemNS + ":" + api.ControlPlaneServiceAccount
	grantPolicyEditing(t, ctx, rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: alice},
		rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: api.ControlPlaneServiceAccount, Namespace: trustSystemNS})
	asAlice, asControlPlane := impersonating(t, alice), impersonating(t, controlPlane)

	// The control plane writes what global synced, labels as they are.
	synced := trustPolicy("synced-from-global", map[string]string{api.LabelOrigin: api.OriginGlobal, api.LabelMesh: "default"})
	if err := asControlPlane.Create(ctx, synced); err != nil {
		t.Fatalf("the control plane's sync was refused: %v", err)
	}
	if got := get(t, "MeshTrafficPermission", trustSystemNS, synced.GetName()).GetLabels()[api.LabelOrigin]; got != api.OriginGlobal {
		t.Fatalf("synced policy stored with kuma.io/origin %q", got)
	}

	t.Run("a user cannot strip kuma.io/origin on UPDATE", func(t *testing.T) {
		cur := get(t, "MeshTrafficPermission", trustSystemNS, synced.GetName())
		labels := cur.GetLabels()
		delete(labels, api.LabelOrigin)
		cur.SetLabels(labels)
		err := asAlice.Update(ctx, cur)
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "metadata.labels[kuma.io/origin]") || !strings.Contains(err.Error(), "MG013") {
			t.Fatalf("want 422 on metadata.labels[kuma.io/origin] [MG013], got %v", err)
		}
		t.Logf("refused: %v", err)
		if got := get(t, "MeshTrafficPermission", trustSystemNS, synced.GetName()).GetLabels()[api.LabelOrigin]; got != api.OriginGlobal {
			t.Errorf("stored kuma.io/origin is now %q", got)
		}
	})
	t.Run("a user cannot DELETE a synced policy", func(t *testing.T) {
		err := asAlice.Delete(ctx, synced.DeepCopy())
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "denied the request") || !strings.Contains(err.Error(), "MG013") {
			t.Fatalf("want the webhook's 403 [MG013], got %v", err)
		}
		t.Logf("refused: %v", err)
		get(t, "MeshTrafficPermission", trustSystemNS, synced.GetName()) // still there
	})
	t.Run("the same user creates and deletes a policy of the zone", func(t *testing.T) {
		own := trustPolicy("zone-own", nil)
		if err := asAlice.Create(ctx, own); err != nil {
			t.Fatalf("create: %v", err)
		}
		stored := get(t, "MeshTrafficPermission", trustSystemNS, own.GetName())
		if l := stored.GetLabels(); l[api.LabelOrigin] != api.OriginZone || l[api.LabelZone] != trustZone {
			t.Errorf("labels %v: want the zone's origin and name", l)
		}
		if err := asAlice.Delete(ctx, stored); err != nil {
			t.Fatalf("delete of the zone's own policy: %v", err)
		}
	})
	t.Run("the control plane's account of --system-namespace may", func(t *testing.T) {
		cur := get(t, "MeshTrafficPermission", trustSystemNS, synced.GetName())
		cur.SetLabels(map[string]string{api.LabelMesh: "default"})
		if err := asControlPlane.Update(ctx, cur); err != nil {
			t.Fatalf("update: %v", err)
		}
		if err := asControlPlane.Delete(ctx, cur); err != nil {
			t.Fatalf("delete: %v", err)
		}
	})
}

// trustPolicy is a MeshTrafficPermission in the system namespace with the given labels.
func trustPolicy(name string, labels map[string]string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kuma.io/v1alpha1", "kind": "MeshTrafficPermission",
		"metadata": map[string]any{"name": name, "namespace": trustSystemNS},
		"spec": map[string]any{"targetRef": map[string]any{"kind": "Mesh"},
			"from": []any{map[string]any{"targetRef": map[string]any{"kind": "Mesh"}, "default": map[string]any{"action": "Allow"}}}},
	}}
	u.SetLabels(labels)
	return u
}

// registerTrustWebhooks creates the zone meshguard's certificate Secret and webhook
// configurations, for the system namespace only: MeshTrafficPermissions, with DELETE on the
// validating one.
// They are removed when the test ends, before the process stops answering.
func registerTrustWebhooks(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	none := admissionregistrationv1.SideEffectClassNone
	fail := admissionregistrationv1.Fail
	timeout := int32(10)
	mtp := api.DefaultRegistry().MeshTrafficPermission()
	rule := func(ops ...admissionregistrationv1.OperationType) []admissionregistrationv1.RuleWithOperations {
		return []admissionregistrationv1.RuleWithOperations{{Operations: ops, Rule: admissionregistrationv1.Rule{
			APIGroups: []string{mtp.Group}, APIVersions: []string{mtp.Version}, Resources: []string{mtp.Plural}}}}
	}
	ops := []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}
	if !mtp.DeleteChecked(api.ModeZone) {
		t.Fatal("the registry no longer routes DELETE of MeshTrafficPermissions on a zone")
	}
	selector := &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": trustSystemNS}}
	cfg := func(path string) admissionregistrationv1.WebhookClientConfig {
		u := url + path
		return admissionregistrationv1.WebhookClientConfig{URL: &u}
	}
	mutating := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: trustPrefix + "-mutating"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{Name: "mutate.trust.meshguard.io", ClientConfig: cfg(webhook.MutatePath),
			Rules: rule(ops...), FailurePolicy: &fail, SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
			NamespaceSelector: selector, TimeoutSeconds: &timeout}},
	}
	validating := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: trustPrefix + "-validating"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: "validate.trust.meshguard.io", ClientConfig: cfg(webhook.ValidatePath),
			Rules: rule(append(ops, admissionregistrationv1.Delete)...), FailurePolicy: &fail, SideEffects: &none,
			AdmissionReviewVersions: []string{"v1"}, NamespaceSelector: selector, TimeoutSeconds: &timeout}},
	}
	// The Secret the rotator fills (cert-controller updates one, never creates it),
	// as the chart renders it.
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: trustPrefix + "-cert", Namespace: localcp.ReleaseNamespace},
		Type: corev1.SecretTypeTLS, Data: map[string][]byte{"tls.crt": nil, "tls.key": nil, "ca.crt": nil}}
	for _, o := range []client.Object{secret, mutating, validating} {
		if err := env.client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
		obj := o
		t.Cleanup(func() { _ = env.client.Delete(context.Background(), obj) })
	}
}

// waitForCABundle waits until the zone meshguard's rotator has put its CA into
// both configurations, so that the API server trusts it.
func waitForCABundle(t *testing.T, ctx context.Context) {
	t.Helper()
	err := localcp.WaitFor(ctx, 200*time.Millisecond, func() (bool, error) {
		m := &admissionregistrationv1.MutatingWebhookConfiguration{}
		v := &admissionregistrationv1.ValidatingWebhookConfiguration{}
		if err := env.client.Get(ctx, client.ObjectKey{Name: trustPrefix + "-mutating"}, m); err != nil {
			return false, err
		}
		if err := env.client.Get(ctx, client.ObjectKey{Name: trustPrefix + "-validating"}, v); err != nil {
			return false, err
		}
		return len(m.Webhooks[0].ClientConfig.CABundle) > 0 && len(v.Webhooks[0].ClientConfig.CABundle) > 0, nil
	})
	if err != nil {
		t.Fatalf("caBundle not injected: %v", err)
	}
}

// grantPolicyEditing lets the subjects do everything with MeshTrafficPermissions in
// the system namespace, and nothing else: what an "edit" role gives a namespace's
// users. The grant is removed when the test ends.
func grantPolicyEditing(t *testing.T, ctx context.Context, subjects ...rbacv1.Subject) {
	t.Helper()
	mtp := api.DefaultRegistry().MeshTrafficPermission()
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "trust-test-mtp-editor", Namespace: trustSystemNS},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{mtp.Group}, Resources: []string{mtp.Plural},
			Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}}}}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "trust-test-mtp-editors", Namespace: trustSystemNS},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name}, Subjects: subjects}
	for _, o := range []client.Object{role, binding} {
		if err := env.client.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
		obj := o
		t.Cleanup(func() { _ = env.client.Delete(context.Background(), obj) })
	}
}

// impersonating is a client of the suite's cluster acting as user (the admin may
// impersonate anyone).
func impersonating(t *testing.T, user string) client.Client {
	t.Helper()
	cfg := rest.CopyConfig(local(t).CP.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	c, err := client.New(cfg, client.Options{Scheme: env.client.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
