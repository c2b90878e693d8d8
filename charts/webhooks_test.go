package charts_test

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/meshguard/meshguard/api"
)

const (
	mutatingKey   = "MutatingWebhookConfiguration/meshguard-mutating"
	validatingKey = "ValidatingWebhookConfiguration/meshguard-validating"
)

// webhookView is what the mutating and validating webhooks have in common.
type webhookView struct {
	clientConfig      admissionv1.WebhookClientConfig
	rules             []admissionv1.RuleWithOperations
	failurePolicy     *admissionv1.FailurePolicyType
	matchPolicy       *admissionv1.MatchPolicyType
	sideEffects       *admissionv1.SideEffectClass
	timeout           *int32
	reviewVersions    []string
	namespaceSelector *metav1.LabelSelector
	objectSelector    *metav1.LabelSelector
	annotations       map[string]string
}

// webhooks returns the policy webhook of each configuration: the only mutating one,
// and validate.meshguard.io, the first validating one (annotations.meshguard.io, the
// Linkerd annotation check, may follow it; see annotationWebhook).
func webhooks(t *testing.T, m *manifests) (mut, val webhookView) {
	t.Helper()
	mc := get[*admissionv1.MutatingWebhookConfiguration](t, m, mutatingKey)
	vc := get[*admissionv1.ValidatingWebhookConfiguration](t, m, validatingKey)
	if len(mc.Webhooks) != 1 || len(vc.Webhooks) < 1 || len(vc.Webhooks) > 2 {
		t.Fatalf("want one mutating and one or two validating webhooks, got %d and %d", len(mc.Webhooks), len(vc.Webhooks))
	}
	mw, vw := mc.Webhooks[0], vc.Webhooks[0]
	if mw.Name != "mutate.meshguard.io" || vw.Name != "validate.meshguard.io" {
		t.Errorf("webhook names %q, %q", mw.Name, vw.Name)
	}
	if mw.ReinvocationPolicy == nil || *mw.ReinvocationPolicy != admissionv1.IfNeededReinvocationPolicy {
		t.Errorf("mutating reinvocationPolicy = %v, want IfNeeded", mw.ReinvocationPolicy)
	}
	mut = webhookView{mw.ClientConfig, mw.Rules, mw.FailurePolicy, mw.MatchPolicy, mw.SideEffects, mw.TimeoutSeconds,
		mw.AdmissionReviewVersions, mw.NamespaceSelector, mw.ObjectSelector, mc.Annotations}
	val = webhookView{vw.ClientConfig, vw.Rules, vw.FailurePolicy, vw.MatchPolicy, vw.SideEffects, vw.TimeoutSeconds,
		vw.AdmissionReviewVersions, vw.NamespaceSelector, vw.ObjectSelector, vc.Annotations}
	return mut, val
}

// covered expands rules into "group/version/resource" for each operation set.
func covered(t *testing.T, rules []admissionv1.RuleWithOperations) (gvrs []string, ops []string) {
	t.Helper()
	var opSet []string
	for i, r := range rules {
		got := make([]string, 0, len(r.Operations))
		for _, o := range r.Operations {
			got = append(got, string(o))
		}
		sort.Strings(got)
		if i == 0 {
			opSet = got
		} else if !slices.Equal(opSet, got) {
			t.Errorf("rule %d operations %v differ from %v", i, got, opSet)
		}
		for _, g := range r.APIGroups {
			for _, v := range r.APIVersions {
				for _, res := range r.Resources {
					if strings.Contains(g+v+res, "*") {
						t.Errorf("wildcard in rule %d: %s/%s/%s", i, g, v, res)
					}
					gvrs = append(gvrs, g+"/"+v+"/"+res)
				}
			}
		}
	}
	sort.Strings(gvrs)
	return gvrs, opSet
}

// rulesByGVR expands rules into "group/version/resource" -> its operations, sorted
// and comma-joined, failing on wildcards and on a resource listed twice.
func rulesByGVR(t *testing.T, name string, rules []admissionv1.RuleWithOperations) map[string]string {
	t.Helper()
	out := map[string]string{}
	for i, r := range rules {
		ops := make([]string, 0, len(r.Operations))
		for _, o := range r.Operations {
			ops = append(ops, string(o))
		}
		sort.Strings(ops)
		for _, g := range r.APIGroups {
			for _, v := range r.APIVersions {
				for _, res := range r.Resources {
					if strings.Contains(g+v+res, "*") {
						t.Errorf("%s: wildcard in rule %d: %s/%s/%s", name, i, g, v, res)
					}
					k := g + "/" + v + "/" + res
					if _, dup := out[k]; dup {
						t.Errorf("%s: %s in two rules", name, k)
					}
					out[k] = strings.Join(ops, ",")
				}
			}
		}
	}
	return out
}

// wantRules is what each webhook must see of the registry in a mode: the mutating
// webhook CREATE and UPDATE of the kinds meshguard mutates, the validating webhook
// CREATE and UPDATE of every kind plus DELETE where a delete can be refused.
func wantRules(mode api.Mode) (mut, val map[string]string) {
	mut, val = map[string]string{}, map[string]string{}
	for _, k := range api.DefaultRegistry().Kinds() {
		gvr := k.Group + "/" + k.Version + "/" + k.Plural
		if k.Mutated() {
			mut[gvr] = "CREATE,UPDATE"
		}
		val[gvr] = "CREATE,UPDATE"
		if k.DeleteChecked(mode) {
			val[gvr] = "CREATE,DELETE,UPDATE"
		}
	}
	return mut, val
}

// TestRulesMatchRegistry: in every mode, each kind of the registry is guarded by the
// validating webhook, and the Kuma kinds by the mutating one, with exactly its group,
// version and plural, and nothing else is. DELETE reaches meshguard only where a
// delete can be refused: the validating webhook in mode zone, never the mutating one,
// so when meshguard is down nobody is kept from deleting a policy.
func TestRulesMatchRegistry(t *testing.T) {
	// 16 Kuma policies (issue 2), 15 Kuma resources (issue 15) and 23 Linkerd kind
	// versions (issue 6: 9; issue 16: EgressNetwork, HTTPLocalRateLimitPolicy, 4
	// HTTPRoute versions and 6 versions of the Gateway API routes Linkerd bundles;
	// issue 30: TLSRoute v1alpha3 and v1 of the Gateway API v1.4 and v1.5 bundles).
	if n := len(api.DefaultRegistry().Kinds()); n != 16+15+23 {
		t.Errorf("registry has %d kinds; want the 31 Kuma and 23 Linkerd ones", n)
	}
	for _, mode := range []api.Mode{api.ModeStandalone, api.ModeZone, api.ModeGlobal} {
		t.Run(string(mode), func(t *testing.T) {
			vals := map[string]any{"mode": string(mode)}
			if mode == api.ModeZone {
				vals["zone"] = "zone-1"
			}
			mut, val := webhooks(t, mustRender(t, vals))
			wantMut, wantVal := wantRules(mode)
			for _, c := range []struct {
				name string
				got  map[string]string
				want map[string]string
			}{{"mutating", rulesByGVR(t, "mutating", mut.rules), wantMut}, {"validating", rulesByGVR(t, "validating", val.rules), wantVal}} {
				if diff := cmp.Diff(c.want, c.got); diff != "" {
					t.Errorf("%s rules (-registry +rendered):\n%s", c.name, diff)
				}
			}
			deletes := 0
			for _, ops := range rulesByGVR(t, "validating", val.rules) {
				if strings.Contains(ops, "DELETE") {
					deletes++
				}
			}
			if (deletes > 0) != (mode == api.ModeZone) {
				t.Errorf("mode %s: %d kinds with DELETE", mode, deletes)
			}
		})
	}
}

func TestWebhookDefaults(t *testing.T) {
	m := mustRender(t, nil)
	mut, val := webhooks(t, m)
	for name, w := range map[string]webhookView{"mutating": mut, "validating": val} {
		if len(w.clientConfig.CABundle) != 0 {
			t.Errorf("%s: caBundle rendered; the rotator owns it", name)
		}
		if w.clientConfig.URL != nil {
			t.Errorf("%s: url set by default", name)
		}
		s := w.clientConfig.Service
		if s == nil || s.Name != "meshguard-webhook" || s.Namespace != namespace || s.Port == nil || *s.Port != 443 {
			t.Errorf("%s: service = %+v", name, s)
		}
		if *w.failurePolicy != admissionv1.Fail {
			t.Errorf("%s: failurePolicy = %s, want Fail", name, *w.failurePolicy)
		}
		if *w.matchPolicy != admissionv1.Equivalent {
			t.Errorf("%s: matchPolicy = %s", name, *w.matchPolicy)
		}
		if *w.sideEffects != admissionv1.SideEffectClassNone {
			t.Errorf("%s: sideEffects = %s", name, *w.sideEffects)
		}
		if *w.timeout != 5 {
			t.Errorf("%s: timeoutSeconds = %d", name, *w.timeout)
		}
		if !slices.Equal(w.reviewVersions, []string{"v1"}) {
			t.Errorf("%s: admissionReviewVersions = %v", name, w.reviewVersions)
		}
		if len(w.objectSelector.MatchLabels)+len(w.objectSelector.MatchExpressions) != 0 {
			t.Errorf("%s: objectSelector = %+v, want empty", name, w.objectSelector)
		}
		if _, ok := w.annotations["cert-manager.io/inject-ca-from"]; ok {
			t.Errorf("%s: cert-manager annotation with rotation on", name)
		}
		excluded(t, name, w.namespaceSelector, "kube-system", "kube-node-lease", namespace)
	}
	if p := mut.clientConfig.Service.Path; p == nil || *p != "/mutate" {
		t.Errorf("mutating path = %v", p)
	}
	if p := val.clientConfig.Service.Path; p == nil || *p != "/validate" {
		t.Errorf("validating path = %v", p)
	}
}

// excluded checks the selector keeps the given namespaces out (and nothing else is
// excluded by the built-in expression), with the label every namespace carries.
func excluded(t *testing.T, name string, sel *metav1.LabelSelector, namespaces ...string) {
	t.Helper()
	if sel == nil {
		t.Fatalf("%s: no namespaceSelector", name)
	}
	for _, e := range sel.MatchExpressions {
		if e.Key == "kubernetes.io/metadata.name" && e.Operator == metav1.LabelSelectorOpNotIn {
			if !slices.Equal(e.Values, namespaces) {
				t.Errorf("%s: excludes %v, want %v", name, e.Values, namespaces)
			}
			return
		}
	}
	t.Errorf("%s: no kubernetes.io/metadata.name NotIn expression in %+v", name, sel)
}

func TestWebhookValues(t *testing.T) {
	m, err := renderChart(t, map[string]any{
		"failurePolicy":  map[string]any{"mutating": "Ignore", "validating": "Fail"},
		"timeoutSeconds": 3,
		"objectSelector": map[string]any{"matchLabels": map[string]any{"meshguard.io/guard": "true"}},
		"extraNamespaceSelectorExpressions": []any{
			map[string]any{"key": "team", "operator": "Exists"},
		},
	}, "guards")
	if err != nil {
		t.Fatal(err)
	}
	mut, val := webhooks(t, m)
	if *mut.failurePolicy != admissionv1.Ignore || *val.failurePolicy != admissionv1.Fail {
		t.Errorf("failurePolicy = %s/%s, want Ignore/Fail", *mut.failurePolicy, *val.failurePolicy)
	}
	for name, w := range map[string]webhookView{"mutating": mut, "validating": val} {
		if *w.timeout != 3 {
			t.Errorf("%s: timeoutSeconds = %d", name, *w.timeout)
		}
		if w.objectSelector.MatchLabels["meshguard.io/guard"] != "true" {
			t.Errorf("%s: objectSelector = %+v", name, w.objectSelector)
		}
		excluded(t, name, w.namespaceSelector, "kube-system", "kube-node-lease", "guards")
		if n := len(w.namespaceSelector.MatchExpressions); n != 2 || w.namespaceSelector.MatchExpressions[1].Key != "team" {
			t.Errorf("%s: extra expression missing: %+v", name, w.namespaceSelector.MatchExpressions)
		}
		if s := w.clientConfig.Service; s.Namespace != "guards" {
			t.Errorf("%s: service namespace = %s", name, s.Namespace)
		}
	}
	if !strings.Contains(m.notes, "WARNING") {
		t.Error("NOTES.txt does not warn about failurePolicy Ignore")
	}
}

// TestURLMode is what the e2e suite renders: webhooks pointing at a meshguard
// process outside the cluster, and no Deployment or Service.
func TestURLMode(t *testing.T) {
	m := mustRender(t, map[string]any{
		"webhook":    map[string]any{"url": "https://127.0.0.1:9443/"},
		"deployment": map[string]any{"enabled": false},
	})
	mut, val := webhooks(t, m)
	for name, c := range map[string]struct {
		w    webhookView
		want string
	}{"mutating": {mut, "https://127.0.0.1:9443/mutate"}, "validating": {val, "https://127.0.0.1:9443/validate"}} {
		if c.w.clientConfig.Service != nil {
			t.Errorf("%s: service set in url mode", name)
		}
		if u := c.w.clientConfig.URL; u == nil || *u != c.want {
			t.Errorf("%s: url = %v, want %s", name, u, c.want)
		}
	}
	for _, k := range []string{"Deployment/meshguard", "Service/meshguard-webhook", "PodDisruptionBudget/meshguard"} {
		if m.has(k) {
			t.Errorf("%s rendered with deployment.enabled=false", k)
		}
	}
	for _, k := range []string{"Secret/meshguard-webhook-cert", "ClusterRole/meshguard", "Role/meshguard", "ServiceAccount/meshguard"} {
		if !m.has(k) {
			t.Errorf("%s missing in url mode; have %v", k, m.keys())
		}
	}
	if !strings.Contains(m.notes, "--secret-name meshguard-webhook-cert") {
		t.Errorf("NOTES.txt does not say how to run meshguard outside:\n%s", m.notes)
	}
}

func TestCertManagerMode(t *testing.T) {
	m := mustRender(t, map[string]any{"certRotation": map[string]any{
		"enabled": false, "certSecretName": "meshguard-tls",
		"certManager": map[string]any{"injectCAFrom": "meshguard-system/meshguard-serving"},
	}})
	mut, val := webhooks(t, m)
	for name, w := range map[string]webhookView{"mutating": mut, "validating": val} {
		if got := w.annotations["cert-manager.io/inject-ca-from"]; got != "meshguard-system/meshguard-serving" {
			t.Errorf("%s: inject-ca-from = %q", name, got)
		}
	}
	if m.has("Secret/meshguard-webhook-cert") {
		t.Error("secret shell rendered although cert-manager owns the certificate")
	}
	d := deployment(t, m)
	args := d.Spec.Template.Spec.Containers[0].Args
	if !slices.Contains(args, "--disable-cert-rotation") || slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--secret-name") }) {
		t.Errorf("args = %v", args)
	}
	if v := d.Spec.Template.Spec.Volumes[0]; v.Secret == nil || v.Secret.SecretName != "meshguard-tls" {
		t.Errorf("cert volume = %+v, want Secret meshguard-tls", v)
	}
	// The rotator's permissions go with the rotator.
	assertNoRotatorRBAC(t, m)
}
