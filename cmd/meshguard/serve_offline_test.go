package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/defaults"
	"github.com/meshguard/meshguard/internal/gcstart"
	"github.com/meshguard/meshguard/internal/render/rendertest"
	"github.com/meshguard/meshguard/lint"
	"github.com/meshguard/meshguard/webhook/serving/servingtest"
)

// TestMain lets the test binary act as the meshguard binary (MESHGUARD_AS_CLI=1),
// so that serve runs as a real process the test can stop. Otherwise it builds
// the real meshguard-render once and points $MESHGUARD_RENDERER at it, for the
// commands that render charts and kustomizations, and makes the directory where
// buildBinary builds meshguard once for every test that runs the binary.
func TestMain(m *testing.M) {
	if os.Getenv("MESHGUARD_AS_CLI") == "1" { // run releases the collector, as main's does
		os.Exit(run(os.Args[1:], streams{in: os.Stdin, out: os.Stdout, err: os.Stderr, stdout: os.Stdout}))
	}
	// package main holds the collector off during initialisation; tests that
	// call the package's functions without run must not inherit that.
	gcstart.Release()
	os.Exit(rendertest.Main(func() int { return withBinDir(m.Run) }))
}

// admissionExamples are the AdmissionReview bodies in examples/admission, built from
// the policy examples as the API server sends them: for /validate after mutation.
var admissionExamples = []struct {
	file, source, path string
}{
	{"validate-mtp-create.json", "../../examples/valid/05-system-permissions.yaml", "/validate"},
	{"validate-mixed-to-create.json", "../../examples/invalid/mixed-producer-consumer.yaml", "/validate"},
	{"mutate-mtp-create.json", "../../examples/valid/05-system-permissions.yaml", "/mutate"},
}

// admissionReview encodes the CREATE of the first document of file by alice.
func admissionReview(t *testing.T, file string, mutated bool) []byte {
	t.Helper()
	docs := lint.Load([]string{file}, nil)
	if len(docs) == 0 || docs[0].Err != nil {
		t.Fatalf("%s: %+v", file, docs)
	}
	obj := docs[0].Object
	if obj.GetNamespace() == "" {
		obj.SetNamespace("default")
	}
	kind := api.DefaultRegistry().Lookup(obj.GroupVersionKind())
	if kind == nil {
		t.Fatalf("%s: %s is not in the registry", file, obj.GroupVersionKind())
	}
	if mutated {
		defaults.Apply(obj, kind, api.DefaultSettings(), api.Request{Operation: api.Operation(admissionv1.Create)})
	}
	raw, err := json.Marshal(obj.Object)
	if err != nil {
		t.Fatal(err)
	}
	gvk := obj.GroupVersionKind()
	rev := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID:       "6ca7a4a2-0000-4000-8000-000000000001",
			Kind:      metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind},
			Resource:  metav1.GroupVersionResource{Group: gvk.Group, Version: gvk.Version, Resource: strings.ToLower(gvk.Kind) + "s"},
			Name:      obj.GetName(),
			Namespace: obj.GetNamespace(),
			Operation: admissionv1.Create,
			UserInfo:  authnv1.UserInfo{Username: "alice@example.com", Groups: []string{"system:authenticated"}},
			Object:    runtime.RawExtension{Raw: raw},
		},
	}
	b, err := json.MarshalIndent(rev, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// TestAdmissionExamples keeps examples/admission (the bodies docs/webhook.md sends
// with curl) equal to what the examples produce; -update rewrites them.
func TestAdmissionExamples(t *testing.T) {
	for _, ex := range admissionExamples {
		want := admissionReview(t, ex.source, ex.path == "/validate")
		path := filepath.Join("../../examples/admission", ex.file)
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is stale (%v): rerun go test ./cmd/meshguard -update", path, err)
		}
	}
}

// TestServeOffline runs `meshguard serve --offline` as a process with a generated
// certificate and sends it the example AdmissionReviews over TLS, with Go's client
// and with curl: the MeshTrafficPermission is admitted with its RBAC preview, the
// mixed producer/consumer list is refused with 422 and its rule code, mutation
// returns a patch.
func TestServeOffline(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	dir := t.TempDir()
	roots := servingtest.WriteCert(t, dir)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	curl, _ := exec.LookPath("curl")
	// Every client gets the same bytes.
	codecs := map[string]string{"server": serveOffline(t, dir)}
	for _, ex := range admissionExamples {
		body, err := os.ReadFile(filepath.Join("../../examples/admission", ex.file))
		if err != nil {
			t.Fatal(err)
		}
		answers := map[string][]byte{}
		for codec, base := range codecs {
			resp, err := client.Post(base+ex.path, "application/json", bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			_, _ = buf.ReadFrom(resp.Body)
			resp.Body.Close()
			answers["go, "+codec] = buf.Bytes()
			if curl == "" {
				continue
			}
			out, err := exec.Command(curl, "-sS", "--fail", "--cacert", filepath.Join(dir, "tls.crt"),
				"-H", "Content-Type: application/json", "--data-binary", "@"+filepath.Join("../../examples/admission", ex.file),
				base+ex.path).Output()
			if err != nil {
				t.Fatalf("curl %s (%s): %v", ex.file, codec, err)
			}
			answers["curl, "+codec] = out
		}
		if curl == "" {
			t.Log("curl not installed; checked with Go's client only")
		}
		var first []byte
		for client, answer := range answers {
			if first == nil {
				first = answer
			} else if !bytes.Equal(first, answer) {
				t.Errorf("%s: the answers differ between clients:\n%s\n%s", ex.file, first, answer)
			}
			var rev admissionv1.AdmissionReview
			if err := json.Unmarshal(answer, &rev); err != nil || rev.Response == nil {
				t.Fatalf("%s via %s: not an AdmissionReview (%v): %s", ex.file, client, err, answer)
			}
			r := rev.Response
			if r.UID != "6ca7a4a2-0000-4000-8000-000000000001" {
				t.Errorf("%s via %s: uid %q", ex.file, client, r.UID)
			}
			switch ex.file {
			case "validate-mtp-create.json":
				if !r.Allowed || !strings.Contains(strings.Join(r.Warnings, "\n"), "RBAC") || r.AuditAnnotations["rbac-preview"] == "" {
					t.Errorf("%s via %s: want allowed with the RBAC preview, got %s", ex.file, client, answer)
				}
			case "validate-mixed-to-create.json":
				if r.Allowed || r.Result == nil || r.Result.Code != http.StatusUnprocessableEntity || r.Result.Details == nil ||
					len(r.Result.Details.Causes) == 0 || !strings.Contains(r.Result.Details.Causes[0].Message, "[MG101]") {
					t.Errorf("%s via %s: want 422 with an [MG101] cause, got %s", ex.file, client, answer)
				}
			case "mutate-mtp-create.json":
				if !r.Allowed || len(r.Patch) == 0 || !strings.Contains(string(r.Patch), "kuma.io/mesh") {
					t.Errorf("%s via %s: want a patch adding the mesh label, got %s", ex.file, client, answer)
				}
			}
		}
	}
}

// serveOffline starts `meshguard serve --offline` with the certificate in dir and
// args, waits until it is ready and returns its base URL; it is stopped (SIGINT)
// when the test ends.
func serveOffline(t *testing.T, dir string, args ...string) string {
	t.Helper()
	port, probes := servingtest.FreePort(t), servingtest.FreePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, os.Args[0], append([]string{"serve", "--offline", "--cert-dir", dir, "--host", "127.0.0.1",
		"--port", fmt.Sprint(port), "--metrics-bind-address", "0", "--health-probe-bind-address", fmt.Sprintf("127.0.0.1:%d", probes)}, args...)...)
	cmd.Env = append(os.Environ(), "MESHGUARD_AS_CLI=1", "KUBECONFIG=/nonexistent")
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		if err := cmd.Wait(); err != nil && ctx.Err() == nil {
			t.Errorf("serve %v exited: %v", args, err)
		}
		if t.Failed() {
			t.Logf("serve %v logs:\n%s", args, logs.String())
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/readyz", probes))
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return fmt.Sprintf("https://localhost:%d", port)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve --offline %v not ready after 20 s:\n%s", args, logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}
