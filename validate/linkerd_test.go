package validate

import (
	"reflect"
	"testing"

	"github.com/meshguard/meshguard/api"
)

// TestLinkerdIdentities uses the vectors of Linkerd's own validation.rs tests.
func TestLinkerdIdentities(t *testing.T) {
	ok := []string{"system.local", "*.system.local", "*", "spiffe://trustdomain", "spiffe://trustdomain/path/element",
		"default.default.serviceaccount.identity.linkerd.cluster.local"}
	bad := []string{"system.local.*", "system.local.", ".system.local", "system..local", "http://domain.test/path/element",
		"spiffe:/path/element", "spiffe:///path/element", "spiffe:path/element", "spiffe://domain.test/path/element?query=",
		"spiffe://domain.test/path/element#fragment-1", "spiffe://domain.test:8080/path/element",
		"spiffe://user:password@test.org/path/element", "spiffe://test.org/", "spiffe://test.org//",
		"spiffe://test.org/path/other/", "spiffe://test.org/./other", "spiffe://test.org/../other", "Web.prod"}
	for _, id := range ok {
		if msg := linkerdIdentityError(id); msg != "" {
			t.Errorf("%q: %s", id, msg)
		}
	}
	for _, id := range bad {
		if linkerdIdentityError(id) == "" {
			t.Errorf("%q accepted", id)
		}
	}
}

func TestLinkerdRules(t *testing.T) {
	const head = "metadata:\n  name: x\n  namespace: web\nspec:\n"
	srv := "apiVersion: policy.linkerd.io/v1beta3\nkind: Server\n" + head + "  podSelector: {}\n"
	cases := []struct {
		name string
		doc  string
		want []got
	}{
		{"port name", srv + "  port: admin-http\n", nil},
		{"port name too long", srv + "  port: a-very-long-port-name\n", []got{{CodeLinkerdPort, "spec.port", SeverityError}}},
		{"port fraction", srv + "  port: 80.5\n", []got{{CodeLinkerdPort, "spec.port", SeverityError}}},
		{"port list", srv + "  port: [80]\n", []got{{api.CodeWrongType, "spec.port", SeverityError}}},
		{"port missing", srv, []got{{CodeLinkerdPort, "spec.port", SeverityError}}},
		{"no selector", "apiVersion: policy.linkerd.io/v1beta3\nkind: Server\n" + head + "  port: 80\n",
			[]got{{CodeLinkerdServerSelector, "spec.podSelector", SeverityError}}},
		{"v1beta1 has no externalWorkloadSelector",
			"apiVersion: policy.linkerd.io/v1beta1\nkind: Server\n" + head + "  externalWorkloadSelector: {}\n  port: 80\n",
			[]got{{api.CodeUnknownField, "spec.externalWorkloadSelector", SeverityWarning}, {CodeLinkerdServerSelector, "spec.podSelector", SeverityError},
				{CodeLinkerdDeprecated, "apiVersion", SeverityWarning}}},
		{"v1beta2 has no accessPolicy", "apiVersion: policy.linkerd.io/v1beta2\nkind: Server\n" + head + "  podSelector: {}\n  port: 80\n  accessPolicy: deny\n",
			[]got{{api.CodeUnknownField, "spec.accessPolicy", SeverityWarning}}},
		{"saz v1alpha1 deprecated", "apiVersion: policy.linkerd.io/v1alpha1\nkind: ServerAuthorization\n" + head +
			"  server:\n    name: s\n  client:\n    unauthenticated: true\n", []got{{CodeLinkerdDeprecated, "apiVersion", SeverityWarning}}},
		{"saz admits no one", "apiVersion: policy.linkerd.io/v1beta1\nkind: ServerAuthorization\n" + head +
			"  server:\n    name: s\n  client:\n    networks:\n      - cidr: 10.0.0.1\n", []got{{CodeLinkerdClient, "spec.client.meshTLS", SeverityError}}},
		{"cidr garbage and family mix", "apiVersion: policy.linkerd.io/v1alpha1\nkind: NetworkAuthentication\n" + head +
			"  networks:\n    - cidr: 10.0.0.0/33\n    - cidr: 10.0.0.0/8\n      except: [\"fd00::/64\", 10.0.0.0/8]\n",
			[]got{{CodeLinkerdNetwork, "spec.networks[0].cidr", SeverityError}, {CodeLinkerdNetwork, "spec.networks[1].except[0]", SeverityError},
				{CodeLinkerdNetwork, "spec.networks[1].except[1]", SeverityError}}},
		{"ap core group and gateway route", "apiVersion: policy.linkerd.io/v1alpha1\nkind: AuthorizationPolicy\n" + head +
			"  targetRef:\n    group: gateway.networking.k8s.io\n    kind: GRPCRoute\n    name: r\n  requiredAuthenticationRefs:\n    - group: core\n      kind: serviceaccount\n      name: a\n", nil},
		{"ap targets a GRPCRoute policy.linkerd.io does not have", "apiVersion: policy.linkerd.io/v1alpha1\nkind: AuthorizationPolicy\n" + head +
			"  targetRef:\n    group: policy.linkerd.io\n    kind: GRPCRoute\n    name: r\n  requiredAuthenticationRefs: []\n", []got{{CodeLinkerdPolicyTarget, "spec.targetRef.group", SeverityError}}},
		{"ap targets a kind Linkerd never accepts", "apiVersion: policy.linkerd.io/v1alpha1\nkind: AuthorizationPolicy\n" + head +
			"  targetRef:\n    group: apps\n    kind: Deployment\n    name: r\n  requiredAuthenticationRefs: []\n", []got{{CodeLinkerdPolicyTarget, "spec.targetRef.kind", SeverityError}}},
		{"ap group missing: MG320 points at group", "apiVersion: policy.linkerd.io/v1alpha1\nkind: AuthorizationPolicy\n" + head +
			"  targetRef:\n    kind: Server\n    name: s\n  requiredAuthenticationRefs: []\n", []got{{CodeLinkerdPolicyTarget, "spec.targetRef.group", SeverityError}}},
		{"ap refs missing", "apiVersion: policy.linkerd.io/v1alpha1\nkind: AuthorizationPolicy\n" + head +
			"  targetRef:\n    kind: Namespace\n    name: web\n", []got{{CodeLinkerdAuthnRefs, "spec.requiredAuthenticationRefs", SeverityError}}},
		{"two networks", "apiVersion: policy.linkerd.io/v1alpha1\nkind: AuthorizationPolicy\n" + head +
			"  targetRef:\n    kind: Namespace\n    name: web\n  requiredAuthenticationRefs:\n    - {group: policy.linkerd.io, kind: NetworkAuthentication, name: a}\n    - {group: policy.linkerd.io, kind: NetworkAuthentication, name: b}\n",
			[]got{{CodeLinkerdAuthnRefs, "spec.requiredAuthenticationRefs[1]", SeverityError}}},
		{"mtls both", "apiVersion: policy.linkerd.io/v1alpha1\nkind: MeshTLSAuthentication\n" + head +
			"  identities: [\"*\"]\n  identityRefs:\n    - kind: Secret\n      name: s\n",
			[]got{{CodeLinkerdMeshTLSAuthn, "spec.identityRefs", SeverityError}, {CodeLinkerdMeshTLSAuthn, "spec.identityRefs[0].kind", SeverityError}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := mustObj(t, tc.doc)
			before := o.DeepCopy()
			r := lintOne(t, tc.doc, api.Settings{}, api.Request{})
			if g := reduce(r); !reflect.DeepEqual(g, tc.want) {
				t.Errorf("got %+v\nwant %+v", g, tc.want)
			}
			// Linkerd objects are never mutated.
			kind := api.DefaultRegistry().Lookup(o.GroupVersionKind())
			pipeline(o, kind, api.Settings{}, api.Request{Operation: api.OpCreate})
			if !reflect.DeepEqual(o.Object, before.Object) {
				t.Errorf("object mutated: %v", o.Object)
			}
		})
	}
}
