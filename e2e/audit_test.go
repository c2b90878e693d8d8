//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/audit"
	"github.com/meshguard/meshguard/e2e/localcp"
	"github.com/meshguard/meshguard/lint"
	"github.com/meshguard/meshguard/live"
	meshschema "github.com/meshguard/meshguard/schema"
	"github.com/meshguard/meshguard/webhook/serving/servingtest"
)

// reportCRDs are the chart's copies of the OpenReports and wg-policy CRDs.
func reportCRDs(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	files, err := filepath.Glob(repo("charts/meshguard/files/report-crds/*.yaml"))
	if err != nil || len(files) != 4 {
		t.Fatalf("report CRDs: %v %v", files, err)
	}
	var out []*unstructured.Unstructured
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := sigsyaml.UnmarshalStrict(raw, crd); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		u := &unstructured.Unstructured{}
		if err := sigsyaml.Unmarshal(raw, &u.Object); err != nil {
			t.Fatal(err)
		}
		out = append(out, u)
	}
	return out
}

// Stored before meshguard: a MeshTimeout Kuma's own rules refuse (MG102, both
// 'from' and 'to' outside the system namespace), a mesh-wide allow (MG203, and
// MG190 for the deprecated 'from') whose annotation accepts MG203, and a clean
// policy in a third namespace.
const storedBefore = `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: frontend-everything
  namespace: audit-frontend
spec:
  to:
    - targetRef: {kind: MeshService, name: backend, namespace: audit-backend}
      default: {idleTimeout: 1h}
  from:
    - targetRef: {kind: Mesh}
      default: {idleTimeout: 1h}
---
apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata:
  name: open
  namespace: kuma-system
  annotations:
    meshguard.io/ignore: "MG203: the audit test mesh is open on purpose"
spec:
  targetRef: {kind: Mesh}
  from:
    - targetRef: {kind: Mesh}
      default: {action: Allow}
---
apiVersion: kuma.io/v1alpha1
kind: MeshRetry
metadata:
  name: clean
  namespace: audit-clean
spec:
  targetRef: {kind: Mesh}
  to:
    - targetRef: {kind: Mesh}
      default:
        http: {numRetries: 3}
`

type auditReport struct {
	Findings []struct {
		Kind, Namespace, Name, Code, Severity string
		Suppression                           *struct{ Kind, Justification string }
	}
	Summary struct{ Documents, Errors, Warnings, Suppressed int }
}

// runAudit runs the real binary's audit against kubeconfig.
func runAudit(t *testing.T, kubeconfig string, args ...string) (auditReport, string, int) {
	t.Helper()
	st := local(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, st.Meshguard.Bin, append([]string{"audit", "--kubeconfig", kubeconfig, "-o", "json"}, args...)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	var rep auditReport
	if jerr := json.Unmarshal(out.Bytes(), &rep); jerr != nil {
		t.Fatalf("audit %v: exit %d, no JSON (%v)\nstdout: %s\nstderr: %s", args, code, jerr, out.String(), errOut.String())
	}
	t.Logf("$ meshguard audit %s -> exit %d\n%s", strings.Join(args, " "), code, errOut.String())
	return rep, errOut.String(), code
}

// findingsOf lists "namespace/name code [suppressed kind]" of a report.
func findingsOf(rep auditReport) map[string]bool {
	out := map[string]bool{}
	for _, f := range rep.Findings {
		k := f.Namespace + "/" + f.Name + " " + f.Code
		if f.Suppression != nil {
			k += " suppressed " + f.Suppression.Kind
		}
		out[k] = true
	}
	return out
}

func getReport(t *testing.T, c client.Client, apiVersion, kind, ns string) (*unstructured.Unstructured, bool) {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "meshguard"}, u)
	if err != nil {
		if client.IgnoreNotFound(err) == nil {
			return nil, false
		}
		t.Fatal(err)
	}
	return u, true
}

// resultsOf lists "policy result" of a report's results.
func resultsOf(u *unstructured.Unstructured) map[string]bool {
	out := map[string]bool{}
	rs, _, _ := unstructured.NestedSlice(u.Object, "results")
	for _, r := range rs {
		m := r.(map[string]any)
		out[m["policy"].(string)+" "+m["result"].(string)] = true
	}
	return out
}

func summaryOf(u *unstructured.Unstructured, key string) int64 {
	v, _, _ := unstructured.NestedInt64(u.Object, "summary", key)
	return v
}

// TestAuditStoredBeforeInstall stores policies in a cluster without meshguard,
// then audits it: the findings admission never saw are reported, suppressions
// hold, reports are written, updated when an object changes and deleted when a
// namespace has nothing left.
func TestAuditStoredBeforeInstall(t *testing.T) {
	cp, c := bareCluster(t, nil)
	ctx := context.Background()
	for _, crd := range reportCRDs(t) {
		if err := c.Create(ctx, crd); err != nil {
			t.Fatal(err)
		}
	}
	create(t, c, storedBefore)
	waitServed(t, c, "openreports.io/v1alpha1", "Report")

	rep, _, code := runAudit(t, cp.Kubeconfig, "--write-reports")
	got := findingsOf(rep)
	for _, w := range []string{
		"audit-frontend/frontend-everything MG102",
		"kuma-system/open MG190",
		"kuma-system/open MG203 suppressed inSource",
	} {
		if !got[w] {
			t.Errorf("audit lacks %q; got %v", w, got)
		}
	}
	if code != 1 || rep.Summary.Errors == 0 || rep.Summary.Suppressed != 1 || rep.Summary.Documents != 3 {
		t.Errorf("exit %d, summary %+v", code, rep.Summary)
	}
	front, ok := getReport(t, c, "openreports.io/v1alpha1", "Report", "audit-frontend")
	if !ok || !resultsOf(front)["MG102 fail"] || summaryOf(front, "fail") == 0 {
		t.Fatalf("audit-frontend report: %v", front)
	}
	sys, ok := getReport(t, c, "openreports.io/v1alpha1", "Report", "kuma-system")
	if !ok || !resultsOf(sys)["MG203 skip"] || !resultsOf(sys)["MG190 warn"] || summaryOf(sys, "skip") != 1 {
		t.Fatalf("kuma-system report: %v", sys)
	}
	clean, ok := getReport(t, c, "openreports.io/v1alpha1", "Report", "audit-clean")
	if !ok || summaryOf(clean, "pass") != 1 || len(resultsOf(clean)) != 0 {
		t.Fatalf("audit-clean report: %v", clean)
	}
	if src, _, _ := unstructured.NestedString(front.Object, "source"); src != "meshguard" {
		t.Errorf("report source %q", src)
	}

	// Fix the frontend policy, delete the clean one: the report loses MG102, the
	// clean namespace's report goes. An ignore file accepts MG190.
	mt := &unstructured.Unstructured{}
	mt.SetAPIVersion("kuma.io/v1alpha1")
	mt.SetKind("MeshTimeout")
	if err := c.Get(ctx, client.ObjectKey{Namespace: "audit-frontend", Name: "frontend-everything"}, mt); err != nil {
		t.Fatal(err)
	}
	unstructured.RemoveNestedField(mt.Object, "spec", "from")
	if err := c.Update(ctx, mt); err != nil {
		t.Fatal(err)
	}
	mr := &unstructured.Unstructured{}
	mr.SetAPIVersion("kuma.io/v1alpha1")
	mr.SetKind("MeshRetry")
	mr.SetNamespace("audit-clean")
	mr.SetName("clean")
	if err := c.Delete(ctx, mr); err != nil {
		t.Fatal(err)
	}
	ignore := filepath.Join(t.TempDir(), "ignore.yaml")
	if err := os.WriteFile(ignore, []byte("suppressions:\n  - code: MG190\n    namespace: kuma-system\n    reason: migrating to rules\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, stderr, code := runAudit(t, cp.Kubeconfig, "--write-reports", "--ignore-file", ignore)
	got = findingsOf(rep)
	if got["audit-frontend/frontend-everything MG102"] || !got["kuma-system/open MG190 suppressed external"] || code != 0 {
		t.Errorf("after the fix: exit %d, %v", code, got)
	}
	front, _ = getReport(t, c, "openreports.io/v1alpha1", "Report", "audit-frontend")
	if resultsOf(front)["MG102 fail"] || summaryOf(front, "fail") != 0 {
		t.Errorf("audit-frontend report not updated: %v", front.Object["results"])
	}
	if _, ok := getReport(t, c, "openreports.io/v1alpha1", "Report", "audit-clean"); ok {
		t.Errorf("stale report of audit-clean kept (%s)", stderr)
	}
	sys, _ = getReport(t, c, "openreports.io/v1alpha1", "Report", "kuma-system")
	if !resultsOf(sys)["MG190 skip"] {
		t.Errorf("kuma-system report: %v", sys.Object["results"])
	}

	// The wg-policy API, for dashboards that read it.
	rep, _, _ = runAudit(t, cp.Kubeconfig, "--write-reports", "--report-format", "wgpolicy", "-n", "audit-frontend")
	if pr, ok := getReport(t, c, "wgpolicyk8s.io/v1alpha2", "PolicyReport", "audit-frontend"); !ok || summaryOf(pr, "pass") != 1 {
		t.Errorf("PolicyReport: %v", pr)
	}
	if _, ok := getReport(t, c, "wgpolicyk8s.io/v1alpha2", "PolicyReport", "kuma-system"); ok {
		t.Error("-n audit-frontend wrote a report in kuma-system")
	}

	// --interval: the gauge on /metrics follows the stored objects.
	sa := checkAuditRBAC(t, cp, c)
	checkAuditMetrics(t, cp, c, sa)
}

// checkAuditMetrics runs `meshguard audit --interval` as the chart's audit
// ServiceAccount sa (a kubeconfig impersonating it, so the chart's ClusterRole
// must allow the token and access reviews) with its default secure metrics, and
// scrapes its gauge, as a Prometheus bound to the chart's metrics-reader role
// would, until it shows the stored MeshTrafficPermission's MG190; a scrape
// without a token is refused (401); /healthz answers the kubelet. Then it stops
// the audit with SIGTERM, as the kubelet does.
func checkAuditMetrics(t *testing.T, cp *localcp.ControlPlane, c client.Client, sa string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const ns = "audit-metrics-e2e"
	if err := localcp.EnsureNamespace(ctx, c, ns); err != nil {
		t.Fatal(err)
	}
	objs, err := localcp.RenderChart(map[string]any{"audit": map[string]any{"enabled": true}})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if o.GetKind() == "ClusterRole" && o.GetName() == localcp.ReleaseName+"-metrics-reader" {
			if err := c.Create(ctx, o); err != nil {
				t.Fatal(err)
			}
		}
	}
	defer bindMetricsReader(ctx, t, c, "audit-metrics-e2e-scraper", ns, "scraper")()
	token := serviceAccountToken(ctx, t, c, ns, "scraper")
	kc, err := clientcmd.LoadFromFile(cp.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, ai := range kc.AuthInfos {
		ai.Impersonate, ai.ImpersonateGroups = sa, []string{"system:serviceaccounts", "system:authenticated"}
	}
	kubeconfig := filepath.Join(t.TempDir(), "audit.kubeconfig")
	if err := clientcmd.WriteToFile(*kc, kubeconfig); err != nil {
		t.Fatal(err)
	}
	ports := make([]int, 2)
	for i := range ports {
		p, err := servingtest.FreeLoopbackPort()
		if err != nil {
			t.Fatal(err)
		}
		ports[i] = p
	}
	addr, health := fmt.Sprintf("127.0.0.1:%d", ports[0]), fmt.Sprintf("127.0.0.1:%d", ports[1])
	var logs bytes.Buffer
	cmd := exec.Command(local(t).Meshguard.Bin, "audit", "--kubeconfig", kubeconfig, "--interval", "2s",
		"--metrics-bind-address", addr, "--health-probe-bind-address", health)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // self-signed per process
	scrape := func(tok string) (int, string, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+addr+"/metrics", nil)
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := hc.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), err
	}
	var body string
	var code int
	// RBAC bindings reach the authorizer's cache within a moment: 403 is retried.
	err = localcp.WaitFor(ctx, 500*time.Millisecond, func() (bool, error) {
		var err error
		code, body, err = scrape(token)
		return code == http.StatusOK && strings.Contains(body, `meshguard_audit_findings{code="MG190",severity="warning"} 1`) &&
			strings.Contains(body, "meshguard_audit_policies 2"), err
	})
	anonymous, _, aerr := scrape("")
	hresp, herr := http.Get("http://" + health + "/healthz")
	if herr == nil {
		hresp.Body.Close()
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	werr := cmd.Wait()
	if err != nil {
		t.Fatalf("gauge not seen: %v (last answer %d)\n%s\nlogs:\n%s", err, code, body, logs.String())
	}
	if aerr != nil || anonymous != http.StatusUnauthorized {
		t.Errorf("a scrape without a token: %d %v, want 401", anonymous, aerr)
	}
	if herr != nil || hresp.StatusCode != http.StatusOK {
		t.Errorf("/healthz: %v %v", hresp, herr)
	}
	if werr != nil {
		t.Errorf("audit --interval did not exit cleanly on SIGTERM: %v\n%s", werr, logs.String())
	}
}

// waitServed waits until the API server serves kind (a new CRD takes a moment).
func waitServed(t *testing.T, c client.Client, apiVersion, kind string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := localcp.WaitFor(ctx, 200*time.Millisecond, func() (bool, error) {
		l := &unstructured.UnstructuredList{}
		l.SetAPIVersion(apiVersion)
		l.SetKind(kind + "List")
		return c.List(ctx, l) == nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSuppressionAtAdmission: through the API server and kubectl, a warning the
// object's annotation accepts is not returned, and an annotation naming a code
// that cannot be suppressed is warned about; the error it names still denies.
func TestSuppressionAtAdmission(t *testing.T) {
	local(t)
	mtp := func(ignore, action string) string {
		return `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata:
  name: suppressed
  namespace: audit-admission
  annotations:
    meshguard.io/ignore: "` + ignore + `"
spec:
  targetRef: {kind: Mesh}
  from:
    - targetRef:
        kind: MeshSubset
        tags: {kuma.io/service: frontend}
      default: {action: ` + action + `}
`
	}
	if err := localcp.EnsureNamespace(context.Background(), env.client, "audit-admission"); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := kubectl(t, mtp("MG190: migrating to rules", "Allow"), "apply", "--dry-run=server", "-f", "-")
	if err != nil || strings.Contains(stderr, "MG190") {
		t.Errorf("suppressed MG190 returned (err %v):\n%s", err, stderr)
	}
	_, stderr, err = kubectl(t, mtp("MG190", "Allow"), "apply", "--dry-run=server", "-f", "-")
	if err != nil || !strings.Contains(stderr, "MG051") || !strings.Contains(stderr, "MG190") {
		t.Errorf("an annotation without a reason: want MG051 and MG190 (err %v):\n%s", err, stderr)
	}
	_, stderr, err = kubectl(t, mtp("MG002: the CRD is wrong; MG190: migrating", "Permit"), "apply", "--dry-run=server", "-f", "-")
	// The CRD refuses it before any webhook: no annotation can change that.
	if err == nil || !strings.Contains(stderr, "Unsupported value") {
		t.Errorf("an object the CRD refuses was stored (err %v):\n%s", err, stderr)
	}
	_, stderr, err = kubectl(t, mtp("MG120: no action on purpose", "Allow"), "apply", "--dry-run=server", "-f", "-")
	if err != nil || !strings.Contains(stderr, "MG052") {
		t.Errorf("an unsuppressible code named: want MG052 (err %v):\n%s", err, stderr)
	}
}

// checkAuditRBAC audits as the chart's audit ServiceAccount (impersonated), with
// the ClusterRole the chart renders for it: nothing may be skipped as forbidden,
// and the reports must be written. The generated RBAC is tested against a real
// authorizer, not only rendered. It returns the ServiceAccount's user name.
func checkAuditRBAC(t *testing.T, cp *localcp.ControlPlane, c client.Client) string {
	t.Helper()
	ctx := context.Background()
	objs, err := localcp.RenderChart(map[string]any{"audit": map[string]any{"enabled": true, "reports": map[string]any{"installCRDs": false}}})
	if err != nil {
		t.Fatal(err)
	}
	sa := ""
	for _, o := range objs {
		if !strings.HasSuffix(o.GetName(), "-audit") || (o.GetKind() != "ClusterRole" && o.GetKind() != "ClusterRoleBinding") {
			continue
		}
		if err := c.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
		if o.GetKind() == "ClusterRoleBinding" {
			subjects, _, _ := unstructured.NestedSlice(o.Object, "subjects")
			s := subjects[0].(map[string]any)
			sa = fmt.Sprintf("system:serviceaccount:%s:%s", s["namespace"], s["name"])
		}
	}
	if sa == "" {
		t.Fatal("the chart rendered no audit ClusterRoleBinding")
	}
	cfg := rest.CopyConfig(cp.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: sa, Groups: []string{"system:serviceaccounts", "system:authenticated"}}
	reader, err := live.NewReader(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := api.DefaultSettings()
	if err := meshschema.LoadInto(&s); err != nil {
		t.Fatal(err)
	}
	r, err := audit.Run(ctx, reader, audit.Options{Lint: lint.Options{Settings: s, Namespace: "default", Registry: api.DefaultRegistry(), Stages: lint.CrossDocument(s, "default")}})
	if err != nil {
		t.Fatalf("audit as %s: %v", sa, err)
	}
	for _, sk := range r.Skipped {
		if strings.HasPrefix(sk.Reason, "forbidden") {
			t.Errorf("as %s: %s %s", sa, sk.Resource, sk.Reason)
		}
	}
	if r.Policies == 0 || r.Inventory == 0 {
		t.Errorf("as %s: read %d policies, %d inventory objects", sa, r.Policies, r.Inventory)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ro := audit.ReportOptions{Format: audit.FormatOpenReports, Now: time.Now()}
	built := audit.Build(r, ro)
	if _, err := audit.Write(ctx, dyn, built, ro); err != nil {
		t.Errorf("writing reports as %s: %v", sa, err)
	}
	checkForeignReportsOutOfReach(t, c, dyn, built, sa)
	// The role writes only its own report kind.
	wg := audit.ReportOptions{Format: audit.FormatWGPolicy, Now: time.Now()}
	if _, err := audit.Write(ctx, dyn, audit.Build(r, wg), wg); err == nil || !strings.Contains(err.Error(), "forbidden") {
		t.Errorf("wgpolicy reports with the openreports role: %v, want forbidden", err)
	}
	return sa
}

// checkForeignReportsOutOfReach: another engine's report in the same API, beside
// meshguard's, cannot be read, changed or deleted with the audit's role (it names
// its reports in every request; the role allows the name meshguard only).
func checkForeignReportsOutOfReach(t *testing.T, c client.Client, dyn dynamic.Interface, built map[string]*unstructured.Unstructured, sa string) {
	t.Helper()
	ctx := context.Background()
	var foreign *unstructured.Unstructured
	for ns, rep := range built {
		if ns != "" {
			foreign = rep.DeepCopy()
			foreign.SetNamespace(ns)
			break
		}
	}
	if foreign == nil {
		t.Fatal("no namespaced report built")
	}
	foreign.SetName("kyverno-foreign")
	foreign.SetLabels(map[string]string{"app.kubernetes.io/managed-by": "kyverno"})
	if err := c.Create(ctx, foreign); err != nil {
		t.Fatal(err)
	}
	defer c.Delete(context.Background(), foreign)
	res := dyn.Resource(schema.GroupVersionResource{Group: "openreports.io", Version: "v1alpha1", Resource: "reports"}).Namespace(foreign.GetNamespace())
	if _, err := res.Get(ctx, foreign.GetName(), metav1.GetOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("as %s: reading another engine's report: %v, want forbidden", sa, err)
	}
	if _, err := res.Patch(ctx, foreign.GetName(), types.MergePatchType, []byte(`{"metadata":{"labels":{"x":"y"}}}`), metav1.PatchOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("as %s: changing another engine's report: %v, want forbidden", sa, err)
	}
	if err := res.Delete(ctx, foreign.GetName(), metav1.DeleteOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("as %s: deleting another engine's report: %v, want forbidden", sa, err)
	}
	if err := res.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("as %s: deleting reports in bulk: %v, want forbidden", sa, err)
	}
}
