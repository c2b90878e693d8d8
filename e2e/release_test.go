//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/meshguard/meshguard/e2e/localcp"
	meshschema "github.com/meshguard/meshguard/schema"
)

// lbWithoutTo is a MeshLoadBalancingStrategy without `to`: Kuma 2.13's validator
// refuses it ("needs at least one item", MG020), Kuma 2.14's accepts it (a policy
// without effect, MG126 warning).
const lbWithoutTo = `apiVersion: kuma.io/v1alpha1
kind: MeshLoadBalancingStrategy
metadata:
  name: lb-without-to
  namespace: kuma-system
spec:
  targetRef: {kind: Mesh}
`

// TestKuma213ThroughTheAPIServer: a control plane with Kuma 2.13.10's own CRDs
// installed (no MeshOpenTelemetryBackend, no MeshZoneAddress) and meshguard serving
// with --kuma-version 2.13. Through the real API server, the verdict on a
// MeshLoadBalancingStrategy without `to` is 2.13's (denied, MG020) where the
// suite's 2.14 stack admits it; the five entries of Kuma 2.13's validator suite that
// Kuma's validator accepts and meshguard refuses are refused by the API server too,
// before any webhook; and serve and audit say which release the cluster runs: the
// CRDs of kuma-2.13 and the kuma-control-plane image 2.13.10, with a warning when
// --kuma-version says 2.14. The stack also installs Gateway API v1.2.1's route
// CRDs (not the default bundle of the Linkerd release, v1.5.1): serve and audit
// read the bundle from their annotations and check against it, and a
// --gateway-api-version that differs is a warning.
func TestKuma213ThroughTheAPIServer(t *testing.T) {
	local(t)
	installed, err := meshschema.CRDs("kuma-2.13", "linkerd-edge-26.8.3", "gateway-api-v1.2.1")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(env.dir, "kuma-2.13")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	args := append(append([]string{}, serveArgs...), "--kuma-version", "2.13")
	st, err := localcp.Up(ctx, localcp.StackOptions{Dir: dir, CRDs: installed, ServeArgs: args, Log: os.Stderr, Bin: env.stack.Meshguard.Bin})
	if err != nil {
		t.Fatalf("Kuma 2.13 stack: %v (files in %s)", err, dir)
	}
	t.Cleanup(st.Down)
	if err := localcp.EnsureNamespace(ctx, st.Client, "kuma-system"); err != nil {
		t.Fatal(err)
	}
	kc := st.CP.Kubeconfig

	t.Run("VerdictDiffersFrom2.14", func(t *testing.T) {
		if err := localcp.EnsureNamespace(ctx, env.client, "kuma-system"); err != nil {
			t.Fatal(err)
		}
		_, stderr, err := kubectlAt(t, kc, lbWithoutTo, "apply", "--dry-run=server", "-f", "-")
		if err == nil || !strings.Contains(stderr, "MG020") || !strings.Contains(stderr, "spec.to") {
			t.Errorf("Kuma 2.13: want a denial with MG020 on spec.to, got err %v: %s", err, stderr)
		}
		out, stderr, err := kubectl(t, lbWithoutTo, "apply", "--dry-run=server", "-f", "-")
		if err != nil || !strings.Contains(out, "lb-without-to") {
			t.Errorf("Kuma 2.14 (the suite's stack): want it admitted, got err %v: %s", err, stderr)
		}
	})

	t.Run("2.14KindsNotServed", func(t *testing.T) {
		_, stderr, err := kubectlAt(t, kc, "", "get", "meshopentelemetrybackends.kuma.io")
		if err == nil || !strings.Contains(stderr, "the server doesn't have a resource type") {
			t.Errorf("MeshOpenTelemetryBackend served under Kuma 2.13's CRDs: %v %s", err, stderr)
		}
	})

	// Kuma's test accepts these five entries; Kuma 2.13's CRDs do not (integer
	// retryOn items and listener tags, MeshTCPRoute to[].rules required): the API server refuses them before
	// the validating webhook, as meshguard does (docs/conformance.md).
	t.Run("SuiteDifferencesAreTheAPIServers", func(t *testing.T) {
		suite := repo("validate/testdata/conformance/kuma-validators-2.13")
		for file, want := range map[string]string{
			"150-meshretry-full-example.yaml":                               "must be of type string",
			"156-meshretry-http-retryon-with-status-codes.yaml":             "retryOn[0]: Invalid value: \"integer\"",
			"157-meshretry-target-meshhttproute.yaml":                       "retryOn[0]: Invalid value: \"integer\"",
			"183-meshtcproute-accepts-meshgateway-with-listener-tags.yaml":  "spec.targetRef.tags.port: Invalid value: \"integer\"",
			"182-meshtcproute-accepts-valid-resource-without-to-rules.yaml": "spec.to[0].rules: Required value",
		} {
			_, stderr, err := kubectlAt(t, kc, "", "apply", "--dry-run=server", "-f", filepath.Join(suite, file))
			if err == nil || !strings.Contains(stderr, want) {
				t.Errorf("%s: want the API server's %q, got err %v: %s", file, want, err, stderr)
			}
		}
	})

	t.Run("ServeSaysWhatItFound", func(t *testing.T) {
		raw, err := os.ReadFile(st.Meshguard.LogPath)
		if err != nil {
			t.Fatal(err)
		}
		log := string(raw)
		if !strings.Contains(log, "the 29 CRDs of kuma-2.13, schema for schema; checking against kuma 2.13 (as given)") {
			t.Errorf("serve's log lacks the detected Kuma release:\n%s", grepLines(log, "mesh release"))
		}
		if !strings.Contains(log, "gateway-api: CRDs: 4 route CRDs installed, bundle v1.2.1, experimental channel; checking against Gateway API v1.2.1 (detected)") {
			t.Errorf("serve's log lacks the detected Gateway API bundle:\n%s", grepLines(log, "mesh release"))
		}
	})

	t.Run("AuditDetects", func(t *testing.T) {
		controlPlane(t, ctx, st, "kumahq/kuma-cp:2.13.10")
		stderr := auditAt(t, st, kc)
		for _, want := range []string{
			"kuma: control plane 2.13.10 (Deployment kuma-system/kuma-control-plane, image kumahq/kuma-cp:2.13.10)",
			"the 29 CRDs of kuma-2.13, schema for schema; checking against kuma 2.13 (detected)",
			"linkerd: control plane not read (no ConfigMap linkerd/linkerd-config with linkerdVersion; no Deployment linkerd/linkerd-destination)",
		} {
			if !strings.Contains(stderr, want) {
				t.Errorf("audit's notes lack %q:\n%s", want, stderr)
			}
		}
		stderr = auditAt(t, st, kc, "--kuma-version", "2.14")
		for _, want := range []string{
			"checking against kuma 2.14 (as given)",
			"warning: --kuma-version 2.14 was given, but the cluster runs kuma 2.13 (control plane 2.13.10, CRDs of kuma-2.13): checking against 2.14 as told",
			"warning: the cluster's kuma CRDs are not 2.14's",
		} {
			if !strings.Contains(stderr, want) {
				t.Errorf("audit --kuma-version 2.14 lacks %q:\n%s", want, stderr)
			}
		}
	})

	t.Run("AuditDetectsGatewayAPIBundle", func(t *testing.T) {
		stderr := auditAt(t, st, kc)
		if want := "gateway-api: CRDs: 4 route CRDs installed, bundle v1.2.1, experimental channel; checking against Gateway API v1.2.1 (detected)"; !strings.Contains(stderr, want) {
			t.Errorf("audit's notes lack %q:\n%s", want, stderr)
		}
		stderr = auditAt(t, st, kc, "--gateway-api-version", "v1.5.1")
		for _, want := range []string{
			"checking against Gateway API v1.5.1 (as given)",
			"warning: --gateway-api-version v1.5.1 was given, but the cluster serves Gateway API v1.2.1 (4 route CRDs annotated gateway.networking.k8s.io/bundle-version, experimental channel): checking against v1.5.1 as told",
		} {
			if !strings.Contains(stderr, want) {
				t.Errorf("audit --gateway-api-version v1.5.1 lacks %q:\n%s", want, stderr)
			}
		}
	})
}

// TestServeDetects2_14: the suite's own stack (Kuma 2.14.3's and Linkerd
// edge-26.8.3's CRDs, serve without --kuma-version) says so in serve's log, and
// serve may read where Kuma's control plane would be (the chart's Role).
// Linkerd version-2.20 and edge-26.8.3 have the same policy CRDs, so for Linkerd
// the CRDs narrow the release to those two and, the control plane not being
// readable, the default stands.
func TestServeDetects2_14(t *testing.T) {
	st := local(t)
	raw, err := os.ReadFile(st.Meshguard.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	log := string(raw)
	for _, want := range []string{
		"the 31 CRDs of kuma-2.14, schema for schema; checking against kuma 2.14 (detected)",
		"the same schemas as each of linkerd-version-2.20, linkerd-edge-26.8.3; checking against linkerd edge-26.8.3 (the default)",
		"gateway-api: CRDs: 4 route CRDs installed, bundle v1.5.1, experimental channel; checking against Gateway API v1.5.1 (detected)",
		// The chart's detection Role (releaseDetection.kuma: auto, rendered as helm
		// install renders it: lookup finds kuma-system on this API server) lets
		// serve, running as the chart's ServiceAccount, read the kuma-control-plane
		// Deployment: it is not there, which is not "forbidden".
		"kuma: control plane not read (no Deployment kuma-system/kuma-control-plane)",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("serve's log lacks %q:\n%s", want, grepLines(log, "mesh release"))
		}
	}
}

// controlPlane creates a kuma-control-plane Deployment with image in kuma-system,
// as Kuma's chart names it (nothing runs it: the API server stores it).
func controlPlane(t *testing.T, ctx context.Context, st *localcp.Stack, image string) {
	t.Helper()
	labels := map[string]string{"app": "kuma-control-plane"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "kuma-control-plane", Namespace: "kuma-system"},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "control-plane", Image: image}}},
			},
		},
	}
	if err := st.Client.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
}

// auditAt runs the stack's meshguard audit against kubeconfig and returns its
// standard error (the notes).
func auditAt(t *testing.T, st *localcp.Stack, kubeconfig string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, st.Meshguard.Bin, append([]string{"audit", "--kubeconfig", kubeconfig, "-o", "json"}, args...)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	t.Logf("$ meshguard audit %s -> %v\n%s", strings.Join(args, " "), err, errOut.String())
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return errOut.String()
}

// kubectlAt is kubectl against another cluster than the suite's.
func kubectlAt(t *testing.T, kubeconfig, stdin string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig", kubeconfig}, args...)...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	err = cmd.Run()
	t.Logf("$ kubectl %s\n%s%s", strings.Join(args, " "), o.String(), e.String())
	return o.String(), e.String(), err
}

// grepLines keeps the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
