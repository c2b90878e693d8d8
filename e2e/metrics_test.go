//go:build e2e

package e2e

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meshguard/meshguard/e2e/localcp"
	"github.com/meshguard/meshguard/schema"
)

// TestMetricsNeedATokenAndTheReaderRole: `meshguard serve` with its default
// --metrics-secure, running as the chart's ServiceAccount with the chart's RBAC,
// answers /metrics over HTTPS with 401 without a token (not 200 with a malformed
// one), 403 to a ServiceAccount
// without a binding, and 200 to one bound to the chart's meshguard-metrics-reader
// ClusterRole: the API server reviews the token and the access.
func TestMetricsNeedATokenAndTheReaderRole(t *testing.T) {
	st := local(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const ns = "metrics-e2e"
	if err := localcp.EnsureNamespace(ctx, env.client, ns); err != nil {
		t.Fatal(err)
	}
	token := func(name string) string { return serviceAccountToken(ctx, t, env.client, ns, name) }
	reader, nobody := token("scraper"), token("nobody")
	defer bindMetricsReader(ctx, t, env.client, "metrics-e2e-scraper", ns, "scraper")()

	// A second meshguard with secure metrics (the suite's own serves plain HTTP
	// for the other tests), as the chart's ServiceAccount, on the suite's
	// certificate without rotating it.
	certs := filepath.Join(t.TempDir(), "certs")
	if err := os.CopyFS(certs, os.DirFS(st.Meshguard.CertDir)); err != nil {
		t.Fatal(err)
	}
	m, err := localcp.NewMeshguard(st.Meshguard.Bin, st.Meshguard.Kubeconfig, t.TempDir(),
		"--disable-cert-rotation", "--cert-dir", certs, "--metrics-secure=true")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	defer m.Stop(10 * time.Second)
	if err := m.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // self-signed per process
	get := func(tok string) (int, string) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("https://127.0.0.1:%d/metrics", m.MetricsPort), nil)
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		// The metrics server starts beside the webhook's readiness, with a
		// certificate it generates first: a refused connection is retried.
		resp, err := hc.Do(req)
		for deadline := time.Now().Add(30 * time.Second); err != nil && time.Now().Before(deadline); {
			time.Sleep(200 * time.Millisecond)
			resp, err = hc.Do(req)
		}
		if err != nil {
			t.Fatalf("GET /metrics: %v (log %s)", err, m.LogPath)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if code, _ := get(""); code != http.StatusUnauthorized {
		t.Errorf("no token: %d, want 401", code)
	}
	// A token the API server cannot read: its TokenReview carries an error, which
	// controller-runtime's filter answers with 500 "Authentication failed".
	if code, _ := get("not-a-token"); code != http.StatusUnauthorized && code != http.StatusInternalServerError {
		t.Errorf("a bad token: %d, want 401 or 500", code)
	}
	if code, _ := get(nobody); code != http.StatusForbidden {
		t.Errorf("a ServiceAccount without the reader role: %d, want 403", code)
	}
	// RBAC bindings reach the authorizer's cache within a moment.
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, body := get(reader)
		if code == http.StatusOK && strings.Contains(body, "controller_runtime_webhook_requests_total") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the reader: %d %.200s, want 200 with the metrics", code, body)
		}
		time.Sleep(500 * time.Millisecond)
	}
	if resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", m.MetricsPort)); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Error("plain HTTP answered 200")
		}
	}
}

func ptrTo[T any](v T) *T { return &v }

// serviceAccountToken creates ServiceAccount ns/name if needed and returns a
// ten-minute token of it, as a scraper's pod would carry.
func serviceAccountToken(ctx context.Context, t *testing.T, c client.Client, ns, name string) string {
	t.Helper()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
	if err := c.Create(ctx, sa); err != nil && !strings.Contains(err.Error(), "already exists") {
		t.Fatal(err)
	}
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptrTo(int64(600))}}
	if err := c.SubResource("token").Create(ctx, sa, tr); err != nil {
		t.Fatal(err)
	}
	return tr.Status.Token
}

// bindMetricsReader binds ServiceAccount ns/sa to the chart's metrics-reader
// ClusterRole in c's cluster and returns the function that removes the binding.
func bindMetricsReader(ctx context.Context, t *testing.T, c client.Client, name, ns, sa string) func() {
	t.Helper()
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: localcp.ReleaseName + "-metrics-reader"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: sa, Namespace: ns}}}
	if err := c.Create(ctx, binding); err != nil {
		t.Fatal(err)
	}
	return func() { _ = c.Delete(context.Background(), binding) }
}

// TestInstalledCRDsHaveTheEmbeddedSchemaHash: the meshes' CRDs as the real API
// server stores and serves them (defaulted, re-encoded) hash like the embedded
// files, so --schema-check auto recognises an unchanged installation and skips the
// schema layer (TestInstalledSchemasSkipOnlyTheSameSchema: not for a changed one).
func TestInstalledCRDsHaveTheEmbeddedSchemaHash(t *testing.T) {
	local(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	set, err := schema.Load(schema.KumaRelease(schema.DefaultKumaVersion), schema.LinkerdRelease(schema.DefaultLinkerdVersion),
		schema.GatewayAPIRelease(schema.GatewayAPIFor(schema.DefaultLinkerdVersion)))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range set.EmbeddedCRDs() {
		var crd unstructured.Unstructured
		crd.SetAPIVersion("apiextensions.k8s.io/v1")
		crd.SetKind("CustomResourceDefinition")
		if err := env.client.Get(ctx, client.ObjectKey{Name: name}, &crd); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		var typed apiextensionsv1.CustomResourceDefinition
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(crd.Object, &typed); err != nil {
			t.Fatal(err)
		}
		if got, err := schema.SchemaHash(&typed); err != nil || got != want.Hash {
			t.Errorf("%s: installed hash %s, embedded %s (%v)", name, got, want.Hash, err)
		}
	}
}
