//go:build e2e

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/lint"
	"github.com/meshguard/meshguard/schema"
)

// TestValidPoliciesStoredWithDefaults applies examples/valid with kubectl and reads
// back, with client-go, the labels and syntactic-sugar defaults the cluster stored;
// applying again changes nothing (idempotent mutation).
func TestValidPoliciesStoredWithDefaults(t *testing.T) {
	namespaces(t, load(t, repo("examples/valid")))
	out, _, err := kubectl(t, "", "apply", "-f", repo("examples/valid"))
	if err != nil {
		t.Fatalf("kubectl apply examples/valid: %v", err)
	}
	if strings.Count(out, "created")+strings.Count(out, "configured")+strings.Count(out, "unchanged") != 12 {
		t.Errorf("expected 12 objects applied, got:\n%s", out)
	}
	cases := []struct {
		kind, ns, name string
		role           api.PolicyRole
		fields         map[string]string // dotted path → stored value
	}{
		{"MeshTimeout", "backend-ns", "backend-timeouts", api.RoleProducer, map[string]string{
			"spec.targetRef.kind": "Mesh", "spec.to.0.targetRef.namespace": "backend-ns"}},
		{"MeshHTTPRoute", "backend-ns", "backend-v2", api.RoleProducer, map[string]string{
			"spec.to.0.rules.0.default.backendRefs.0.namespace": "backend-ns"}},
		{"MeshTimeout", "frontend-ns", "frontend-to-backend", api.RoleConsumer, map[string]string{
			"spec.to.0.targetRef.namespace": "backend-ns"}},
		{"MeshTimeout", "backend-ns", "backend-inbound", api.RoleWorkloadOwner, map[string]string{
			"spec.targetRef.kind": "Mesh", "spec.from.0.targetRef.kind": "Mesh"}},
		{"MeshTrafficPermission", "kuma-system", "by-mesh-operator", api.RoleSystem, map[string]string{
			"spec.targetRef.kind": "Mesh", "metadata.labels.kuma\\.io/mesh": "secure"}},
	}
	for _, c := range cases {
		u := get(t, c.kind, c.ns, c.name)
		l := u.GetLabels()
		if l[api.LabelPolicyRole] != string(c.role) || l[api.LabelNamespace] != c.ns || l[api.LabelMesh] == "" {
			t.Errorf("%s/%s: labels %v, want role %s and namespace %s", c.ns, c.name, l, c.role, c.ns)
		}
		for path, want := range c.fields {
			if got := dig(u.Object, path); got != want {
				t.Errorf("%s/%s: %s = %q, want %q", c.ns, c.name, path, got, want)
			}
		}
	}
	// Re-applying must not change what is stored. kubectl may still say
	// "configured" for objects whose lists the sugar expanded (a JSON merge patch
	// replaces whole lists), but the mutation brings them back to the stored
	// value, so the API server keeps the same resourceVersion.
	before := resourceVersions(t, load(t, repo("examples/valid")))
	out, _, err = kubectl(t, "", "apply", "-f", repo("examples/valid"))
	if err != nil {
		t.Fatal(err)
	}
	after := resourceVersions(t, load(t, repo("examples/valid")))
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("re-applying unchanged objects changed stored objects (-before +after):\n%s", diff)
	}
	t.Logf("re-apply: %d of 12 reported unchanged by kubectl, all 12 resourceVersions unchanged", strings.Count(out, "unchanged"))
}

// resourceVersions maps "Kind ns/name" to the stored resourceVersion.
func resourceVersions(t *testing.T, objs []*unstructured.Unstructured) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, o := range objs {
		ns := o.GetNamespace()
		if ns == "" {
			ns = "default"
		}
		out[o.GetKind()+" "+ns+"/"+o.GetName()] = get(t, o.GetKind(), ns, o.GetName()).GetResourceVersion()
	}
	return out
}

// dig reads a dotted path ("spec.to.0.targetRef.kind"; "\." escapes a dot).
func dig(obj map[string]any, path string) string {
	parts := strings.Split(strings.ReplaceAll(path, `\.`, "\x00"), ".")
	var cur any = obj
	for _, p := range parts {
		p = strings.ReplaceAll(p, "\x00", ".")
		switch v := cur.(type) {
		case map[string]any:
			cur = v[p]
		case []any:
			i := 0
			for _, c := range p {
				i = i*10 + int(c-'0')
			}
			if i >= len(v) {
				return ""
			}
			cur = v[i]
		default:
			return ""
		}
	}
	s, _ := cur.(string)
	return s
}

// TestDeniedWithFieldPaths applies each invalid example with kubectl: it must be
// refused with the field paths and rule codes its "# expect:" lines name, as users
// see them in kubectl's output. An object Kuma's CRD refuses (a wrong type, a value
// outside an enum) is denied by the API server's schema validation before any
// validating webhook runs: kubectl then names the field without a meshguard code,
// and the linter must give the codes the file expects.
func TestDeniedWithFieldPaths(t *testing.T) {
	files, _ := filepath.Glob(repo("examples/invalid/*.yaml"))
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			stderr := applyDenied(t, f)
			expects := expectations(t, f)
			if !strings.Contains(stderr, "[MG") {
				deniedBySchema(t, f, stderr, expects)
				return
			}
			for _, e := range expects {
				if !strings.Contains(stderr, e.path) {
					t.Errorf("kubectl output does not name %s", e.path)
				}
				if !strings.Contains(stderr, "["+e.code+"]") {
					t.Errorf("kubectl output does not carry [%s]", e.code)
				}
			}
		})
	}
}

// deniedBySchema checks a denial that came from the CRD schema: kubectl names at
// least one expected field, and meshguard lint reports every expectation.
func deniedBySchema(t *testing.T, file, stderr string, expects []expectation) {
	t.Helper()
	named := false
	for _, e := range expects {
		named = named || strings.Contains(stderr, e.path)
	}
	if !named {
		t.Errorf("denied without a meshguard code, and kubectl names none of the expected fields:\n%s", stderr)
	}
	lintReports(t, file, expects)
}

// schemaDenial reports whether kubectl's output has a denial by the API server
// itself (its CRD schema), not by an admission webhook.
func schemaDenial(stderr string) bool {
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, "is invalid") && !strings.Contains(l, "admission webhook") {
			return true
		}
	}
	return false
}

// lintReports checks that meshguard lint reports every expectation on file.
func lintReports(t *testing.T, file string, expects []expectation) {
	t.Helper()
	if len(expects) == 0 {
		return
	}
	s := api.DefaultSettings()
	if err := schema.LoadInto(&s); err != nil { // as `meshguard lint` does
		t.Fatal(err)
	}
	findings, _, _ := lint.Run([]string{file}, nil, lint.LoadOptions{}, lint.Options{Settings: s, Namespace: "default", Registry: api.DefaultRegistry()}, nil)
	for _, e := range expects {
		found := false
		for _, f := range findings {
			found = found || (f.Code == e.code && f.Field == e.path)
		}
		if !found {
			t.Errorf("meshguard lint does not report %s at %s: %+v", e.code, e.path, findings)
		}
	}
}

// expectation is one "# expect: CODE path" line of an example file.
type expectation struct{ code, path string }

// expectations reads the "# expect:" lines of an example file.
func expectations(t *testing.T, file string) []expectation {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []expectation
	for _, m := range regexp.MustCompile(`(?m)^# expect: (MG\d+) (\S+)$`).FindAllStringSubmatch(string(raw), -1) {
		out = append(out, expectation{m[1], m[2]})
	}
	if len(out) == 0 {
		t.Fatalf("%s has no # expect: lines", file)
	}
	return out
}

// applyDenied applies an example file with kubectl, which must refuse it, and
// returns what kubectl printed on standard error.
func applyDenied(t *testing.T, file string) string {
	t.Helper()
	namespaces(t, load(t, file))
	_, stderr, err := kubectl(t, "", "apply", "-f", file)
	if err == nil {
		t.Fatal("kubectl apply succeeded; want a denial")
	}
	return stderr
}

// TestClientGoSeesInvalidWithCauses checks the denial through client-go: 422 Invalid
// with one cause per field, not a 403 or a 500 (Kuma answers 500 here).
func TestClientGoSeesInvalidWithCauses(t *testing.T) {
	objs := load(t, repo("examples/invalid/mixed-producer-consumer.yaml"))
	namespaces(t, objs)
	err := env.client.Create(context.Background(), objs[0])
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		t.Fatalf("want a StatusError, got %v", err)
	}
	st := se.ErrStatus
	if st.Code != http.StatusUnprocessableEntity || !apierrors.IsInvalid(err) || st.Details == nil || len(st.Details.Causes) == 0 {
		t.Fatalf("want 422 Invalid with causes, got %d %s %+v", st.Code, st.Reason, st.Details)
	}
	if st.Details.Causes[0].Field != "spec.to[1].targetRef.namespace" {
		t.Errorf("cause field %q", st.Details.Causes[0].Field)
	}
}

// TestDryRunPreviewAndAudit shows the RBAC preview in `kubectl apply
// --dry-run=server` warnings and finds the rbac-preview annotation in the API
// server's audit log.
func TestDryRunPreviewAndAudit(t *testing.T) {
	mtp := `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata:
  name: e2e-allow-web
  namespace: kuma-system
spec:
  targetRef:
    kind: Mesh
  from:
    - targetRef:
        kind: Mesh
      default:
        action: Deny
    - targetRef:
        kind: MeshSubset
        tags:
          kuma.io/service: web
      default:
        action: Allow
`
	if err := ensureNS("kuma-system"); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := kubectl(t, mtp, "apply", "--dry-run=server", "-f", "-")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "Warning: RBAC") || !strings.Contains(stderr, "kuma-system/e2e-allow-web") || !strings.Contains(stderr, "allowed:") {
		t.Errorf("dry-run output lacks the RBAC preview warnings:\n%s", stderr)
	}
	if _, _, err := kubectl(t, "", "get", "meshtrafficpermission", "-n", "kuma-system", "e2e-allow-web"); err == nil {
		t.Error("dry-run created the object")
	}
	st := local(t)
	ann := auditAnnotation(t, st.CP.AuditLog, "e2e-allow-web", "rbac-preview")
	var pv struct {
		Previews []struct {
			Policies []string        `json:"policies"`
			RBAC     json.RawMessage `json:"rbac"`
		} `json:"previews"`
	}
	if err := json.Unmarshal([]byte(ann), &pv); err != nil || len(pv.Previews) == 0 || len(pv.Previews[0].RBAC) == 0 {
		t.Fatalf("rbac-preview annotation is not the preview JSON (%v): %.300s", err, ann)
	}
	t.Logf("audit annotation rbac-preview: %d previews, policies %v", len(pv.Previews), pv.Previews[0].Policies)
}

func ensureNS(ns string) error {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("v1")
	u.SetKind("Namespace")
	u.SetName(ns)
	err := env.client.Create(context.Background(), u)
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// auditAnnotation finds the value of an annotation ending in "/key" on an audit event
// about the named object.
func auditAnnotation(t *testing.T, path, name, key string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev struct {
			ObjectRef   struct{ Name string } `json:"objectRef"`
			Annotations map[string]string     `json:"annotations"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.ObjectRef.Name != name {
			continue
		}
		for k, v := range ev.Annotations {
			if strings.HasSuffix(k, "/"+key) {
				t.Logf("audit event annotation %s found", k)
				return v
			}
		}
	}
	t.Fatalf("no audit event for %s with annotation */%s in %s", name, key, path)
	return ""
}

// TestUpdateAndDelete updates a policy (configured), refuses moving it to another
// mesh on UPDATE, and deletes it.
func TestUpdateAndDelete(t *testing.T) {
	if err := ensureNS("app-ns"); err != nil {
		t.Fatal(err)
	}
	policy := func(timeout, meshLabel string) string {
		return `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: e2e-update
  namespace: app-ns
` + meshLabel + `spec:
  to:
    - targetRef:
        kind: MeshService
        name: app
      default:
        idleTimeout: ` + timeout + "\n"
	}
	if _, _, err := kubectl(t, policy("1h", ""), "apply", "-f", "-"); err != nil {
		t.Fatal(err)
	}
	out, _, err := kubectl(t, policy("2h", ""), "apply", "-f", "-")
	if err != nil || !strings.Contains(out, "configured") {
		t.Fatalf("update: %v %s", err, out)
	}
	u := get(t, "MeshTimeout", "app-ns", "e2e-update")
	if dig(u.Object, "spec.to.0.default.idleTimeout") != "2h" || u.GetLabels()[api.LabelPolicyRole] != "producer" {
		t.Errorf("stored after update: %v", u.Object)
	}
	_, stderr, err := kubectl(t, policy("2h", "  labels:\n    kuma.io/mesh: other\n"), "apply", "-f", "-")
	if err == nil || !strings.Contains(stderr, "metadata.labels[kuma.io/mesh]") || !strings.Contains(stderr, "[MG011]") {
		t.Errorf("moving to another mesh must be denied with MG011: %v\n%s", err, stderr)
	}
	if _, _, err := kubectl(t, "", "delete", "meshtimeout", "-n", "app-ns", "e2e-update"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := kubectl(t, "", "get", "meshtimeout", "-n", "app-ns", "e2e-update"); err == nil {
		t.Error("object still there after delete")
	}
}
