package webhook

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumaauthz"
)

// previewDoc is the part of the rbac-preview annotation the naming test reads.
type previewDoc struct {
	Previews []struct {
		Scope    string          `json:"scope"`
		Policies []string        `json:"policies"`
		Hidden   int             `json:"policiesInOtherNamespaces"`
		RBAC     json.RawMessage `json:"rbac"`
		Items    []struct {
			Policy string `json:"policy"`
		} `json:"items"`
	} `json:"previews"`
}

// TestPreviewNamesOnlyVisiblePolicies admits a mesh-wide MeshTrafficPermission in
// the system namespace, which shares proxies with policies of two application
// namespaces: the warnings and the annotation name the system namespace's
// policies and count the others, while the compiled RBAC is that of every policy.
func TestPreviewNamesOnlyVisiblePolicies(t *testing.T) {
	// The clients are the policies' content, which the merged RBAC keeps; the names
	// are not.
	client := 0
	mtp := func(ns, name, target, action string) *unstructured.Unstructured {
		client++
		return mustObj(t, `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: `+name+`, namespace: `+ns+`, labels: {kuma.io/mesh: default}}
spec:
  targetRef: `+target+`
  from: [{targetRef: {kind: MeshSubset, tags: {kuma.io/service: client-`+strconv.Itoa(client)+`}}, default: {action: `+action+`}}]`)
	}
	stored := []unstructured.Unstructured{
		*mtp("kuma-system", "mesh-base", "{kind: Mesh}", "Allow"),
		*mtp("payments", "payments-secret-ledger", "{kind: Mesh}", "Deny"),
		*mtp("payments", "payments-audit", "{kind: MeshSubset, tags: {app: ledger}}", "Allow"),
		*mtp("hr", "hr-salaries", "{kind: Mesh}", "Allow"),
	}
	hidden := []string{"payments-secret-ledger", "payments-audit", "hr-salaries", "payments/", "hr/"}
	incoming := mtp("kuma-system", "mesh-incoming", "{kind: Mesh}", "Allow")

	hc, base := tlsServer(t, testEngine(stored...))
	resp, _ := post(t, hc, base+ValidatePath, review(t, admissionv1.Create, incoming, nil, "alice"))
	if !resp.Allowed {
		t.Fatalf("denied: %+v", resp.Result)
	}
	ann := resp.AuditAnnotations["rbac-preview"]
	text := strings.Join(resp.Warnings, "\n") + "\n" + ann
	for _, h := range hidden {
		if strings.Contains(text, h) {
			t.Errorf("the preview names %q of another namespace:\n%s", h, text)
		}
	}
	if !strings.Contains(text, "kuma-system/mesh-base") {
		t.Errorf("the system namespace's policy is not named:\n%s", text)
	}
	var got previewDoc
	if err := json.Unmarshal([]byte(ann), &got); err != nil {
		t.Fatalf("annotation: %v\n%s", err, ann)
	}
	// The same previews compiled and not redacted: same groups, same RBAC.
	var all []kumaauthz.Policy
	for _, u := range append([]unstructured.Unstructured{*incoming}, stored...) {
		p, err := kumaauthz.PolicyFromObject(&u)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, p)
	}
	previews, err := kumaauthz.BuildPreviews(all, kumaauthz.Options{Form: kumaauthz.FormExpanded, MaxExpandedRules: 64, SystemNamespace: api.DefaultSystemNS})
	if err != nil {
		t.Fatal(err)
	}
	var want []kumaauthz.Preview
	for _, pv := range previews {
		for _, ref := range pv.Policies {
			if ref == "kuma-system/mesh-incoming" {
				want = append(want, pv)
				break
			}
		}
	}
	if len(got.Previews) != len(want) || len(want) < 2 {
		t.Fatalf("%d previews, want %d (at least 2)", len(got.Previews), len(want))
	}
	counted := 0
	for i, pv := range want {
		g := got.Previews[i]
		plain, err := kumaauthz.MarshalJSONCompact([]kumaauthz.Preview{pv})
		if err != nil {
			t.Fatal(err)
		}
		var one previewDoc
		if err := json.Unmarshal(plain, &one); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(one.Previews[0].RBAC), string(g.RBAC)); diff != "" {
			t.Errorf("%s: RBAC differs from the unredacted one (-want +got):\n%s", pv.Scope, diff)
		}
		var visible []string
		for _, ref := range pv.Policies {
			if strings.HasPrefix(ref, "kuma-system/") {
				visible = append(visible, ref)
			}
		}
		if diff := cmp.Diff(visible, g.Policies); diff != "" || g.Hidden != len(pv.Policies)-len(visible) {
			t.Errorf("%s: policies (-want +got):\n%s\nhidden %d, want %d", pv.Scope, diff, g.Hidden, len(pv.Policies)-len(visible))
		}
		if len(g.Items) != len(pv.Items) {
			t.Errorf("%s: %d items, want %d", pv.Scope, len(g.Items), len(pv.Items))
		}
		counted += g.Hidden
	}
	if counted == 0 {
		t.Fatal("no preview merged a policy of another namespace: the test shows nothing")
	}
}

// TestPreviewSummaryCountsHiddenPolicies checks the warning line of a group whose
// policies are partly hidden: names, then the count.
func TestPreviewSummaryCountsHiddenPolicies(t *testing.T) {
	pv := kumaauthz.Preview{Scope: "all proxies in mesh default", Form: kumaauthz.FormExpanded,
		Policies: []string{"kuma-system/a", "payments/b", "kuma-system/c", "hr/d", "hr/e"}}
	red := kumaauthz.Redact([]kumaauthz.Preview{pv}, func(ns string) bool { return ns == "kuma-system" })
	lines := kumaauthz.AdmissionLines(red, "", 10)
	want := "merges 5 policies; in order, of those named here: kuma-system/a, kuma-system/c; and 3 policies in other namespaces"
	if !strings.Contains(strings.Join(lines, "\n"), want) {
		t.Errorf("lines lack %q:\n%s", want, strings.Join(lines, "\n"))
	}
	if got := kumaauthz.RedactText("payments/b: spec: bad; kuma-system/a; xpayments/b", pv.Policies, func(ns string) bool { return ns == "kuma-system" }); got != "(other namespace): spec: bad; kuma-system/a; xpayments/b" {
		t.Errorf("RedactText = %q", got)
	}
	if pv.Policies[1] != "payments/b" {
		t.Error("Redact modified its input")
	}
}

// TestLinkerdPreviewNamesOnlyVisibleObjects admits a MeshTLSAuthentication that
// AuthorizationPolicies of two other namespaces use, then policies of those
// namespaces: the Servers of other namespaces are counted, never named. (What a
// shown Server's grants name comes from its own namespace, and what a policy
// references, the user wrote.)
func TestLinkerdPreviewNamesOnlyVisibleObjects(t *testing.T) {
	obj := func(doc string) unstructured.Unstructured { return *mustObj(t, doc) }
	server := func(ns string) unstructured.Unstructured {
		return obj(`apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: ` + ns + `-ledger-http, namespace: ` + ns + `}
spec:
  podSelector: {matchLabels: {app: ledger}}
  port: 8080
  proxyProtocol: HTTP/1`)
	}
	policy := func(ns, name, authnNS, authnName string) unstructured.Unstructured {
		return obj(`apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: {name: ` + name + `, namespace: ` + ns + `}
spec:
  targetRef: {group: policy.linkerd.io, kind: Server, name: ` + ns + `-ledger-http}
  requiredAuthenticationRefs:
    - {group: policy.linkerd.io, kind: MeshTLSAuthentication, name: ` + authnName + `, namespace: ` + authnNS + `}`)
	}
	authn := obj(`apiVersion: policy.linkerd.io/v1alpha1
kind: MeshTLSAuthentication
metadata: {name: auditors, namespace: shared}
spec:
  identities: ["auditor.shared.serviceaccount.identity.linkerd.cluster.local"]`)
	vault := obj(`apiVersion: policy.linkerd.io/v1alpha1
kind: MeshTLSAuthentication
metadata: {name: secret-auditors, namespace: vault}
spec:
  identities: ["auditor.vault.serviceaccount.identity.linkerd.cluster.local"]`)
	stored := []unstructured.Unstructured{server("payments"), policy("payments", "ledger-readers", "shared", "auditors"),
		policy("payments", "vault-readers", "vault", "secret-auditors"), server("hr"), policy("hr", "ledger-readers", "shared", "auditors"),
		server("shared"), policy("shared", "ledger-readers", "shared", "auditors"), authn, vault}
	eng := testEngine()
	eng.Linkerd.Stored = func(context.Context) []unstructured.Unstructured { return stored }
	client, base := tlsServer(t, eng)
	for _, tc := range []struct {
		name   string
		in     unstructured.Unstructured
		want   string
		hidden []string
	}{
		{name: "authentication used in its namespace and two others", in: authn, want: "MeshTLSAuthentication shared/auditors also applies to 2 Servers in other namespaces",
			hidden: []string{"payments", "hr"}},
		{name: "authentication used only elsewhere", in: vault, want: "MeshTLSAuthentication vault/secret-auditors applies to 1 Server in other namespaces (not named here)",
			hidden: []string{"payments"}},
		{name: "a policy of payments", in: policy("payments", "vault-readers", "vault", "secret-auditors"), want: "Linkerd Server payments/payments-ledger-http",
			hidden: []string{"hr"}},
		{name: "a policy of hr", in: policy("hr", "ledger-readers", "shared", "auditors"),
			want: "Linkerd Server hr/hr-ledger-http", hidden: []string{"payments"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in.DeepCopy()
			resp, _ := post(t, client, base+ValidatePath, review(t, admissionv1.Create, in, nil, "alice"))
			if !resp.Allowed {
				t.Fatalf("denied: %+v", resp.Result)
			}
			joined := strings.Join(resp.Warnings, "\n")
			if !strings.Contains(joined, tc.want) {
				t.Errorf("warnings lack %q:\n%s", tc.want, joined)
			}
			for _, h := range tc.hidden {
				if strings.Contains(joined, h) {
					t.Errorf("warnings name %q of another namespace:\n%s", h, joined)
				}
			}
		})
	}
}
