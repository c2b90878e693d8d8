package webhook

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionregv1 "k8s.io/api/admissionregistration/v1"

	"github.com/go-logr/logr"

	"github.com/meshguard/meshguard/webhook/serving"
	"github.com/meshguard/meshguard/webhook/serving/servingtest"
)

// TestSelfCheckPolicies sends --fail-open-until-ready's self-check through the
// product's server and handlers, trusting only the caBundle: the good MeshTimeout
// is mutated, the bad one denied with MG102; without a caBundle or with another
// CA the check fails.
func TestSelfCheckPolicies(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	servingtest.WriteCert(t, dir)
	servingtest.WriteCert(t, other)
	port := servingtest.FreePort(t)
	srv := &serving.Server{Host: "127.0.0.1", Port: port, CertDir: dir, ShutdownTimeout: 5 * time.Second, TLSOpts: serving.TLSOptions(false), Log: logr.Discard()}
	for path, h := range Routes(testEngine(), serving.NewBodyLimiter(serving.BodyLimits{})) {
		srv.Register(path, h)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = srv.Start(ctx) }()
	for check, deadline := srv.StartedChecker(), time.Now().Add(10*time.Second); check(nil) != nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("server not started")
		}
	}
	ca, err := os.ReadFile(filepath.Join(dir, "tls.crt"))
	if err != nil {
		t.Fatal(err)
	}
	otherCA, err := os.ReadFile(filepath.Join(other, "tls.crt"))
	if err != nil {
		t.Fatal(err)
	}
	f := &failOpen{client: selfCheckClient}
	cc := func(path string, ca []byte) admissionregv1.WebhookClientConfig {
		url := fmt.Sprintf("https://localhost:%d%s", port, path)
		return admissionregv1.WebhookClientConfig{URL: &url, CABundle: ca}
	}
	resp, err := f.review(ctx, cc(MutatePath, ca), selfCheckPolicy(false))
	if err != nil || !resp.Allowed || len(resp.Patch) == 0 {
		t.Fatalf("good policy on %s: %+v, %v; want allowed with a patch", MutatePath, resp, err)
	}
	resp, err = f.review(ctx, cc(ValidatePath, ca), selfCheckPolicy(true))
	if err != nil || resp.Allowed || !strings.Contains(resp.Result.Message, "MG102") {
		t.Fatalf("bad policy on %s: %+v, %v; want denied with MG102", ValidatePath, resp, err)
	}
	for _, tc := range []struct {
		name string
		ca   []byte
		want string
	}{
		{"no caBundle", nil, "no caBundle"},
		{"another CA", otherCA, "certificate"},
	} {
		_, err := f.review(ctx, cc(MutatePath, tc.ca), selfCheckPolicy(false))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}

// TestEndpoint: where the self-check sends a clientConfig's requests.
func TestEndpoint(t *testing.T) {
	url, port, path := "https://localhost:9443/validate", int32(8443), "/mutate"
	for _, tc := range []struct {
		cc   admissionregv1.WebhookClientConfig
		want string
	}{
		{admissionregv1.WebhookClientConfig{URL: &url}, url},
		{admissionregv1.WebhookClientConfig{Service: &admissionregv1.ServiceReference{Namespace: "ns", Name: "svc"}}, "https://svc.ns.svc:443"},
		{admissionregv1.WebhookClientConfig{Service: &admissionregv1.ServiceReference{Namespace: "ns", Name: "svc", Port: &port, Path: &path}}, "https://svc.ns.svc:8443/mutate"},
	} {
		if got, err := endpoint(tc.cc); err != nil || got != tc.want {
			t.Errorf("endpoint(%+v) = %q, %v; want %q", tc.cc, got, err, tc.want)
		}
	}
	if _, err := endpoint(admissionregv1.WebhookClientConfig{}); err == nil {
		t.Error("a clientConfig without url or service gave no error")
	}
}
