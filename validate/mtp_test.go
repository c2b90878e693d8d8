package validate

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/schema"
)

const mtpDoc = "apiVersion: kuma.io/v1alpha1\nkind: MeshTrafficPermission\nmetadata: {name: p, namespace: kuma-system}\n"

// mtpCase is a MeshTrafficPermission spec and every finding (errors and warnings)
// meshguard gives on it.
type mtpCase struct {
	name, spec string
	want       []got
}

// mtpKumaCases mirror Kuma 2.14.3's MeshTrafficPermission validator: one valid and
// one invalid manifest per rule.
func mtpKumaCases() []mtpCase {
	dep := got{CodeMTPFromDeprecated, "spec.from", SeverityWarning}
	return []mtpCase{
		{"from form is valid but deprecated", `
  targetRef: {kind: Mesh}
  from:
    - targetRef: {kind: MeshSubset, tags: {env: dev}}
      default: {action: Deny}`, []got{dep}},
		{"sni-only allow", `
  targetRef: {kind: Dataplane, sectionName: ze-port}
  rules:
    - default:
        allow:
          - sni: {type: Exact, value: sni.extsvc.default.zone-1.aws-aurora.8443}`, nil},
		{"spiffeID and sni in one matcher", `
  targetRef: {kind: Dataplane, sectionName: ze-port}
  rules:
    - default:
        allow:
          - spiffeID: {type: Exact, value: "spiffe://default/ns/backend-ns/sa/backend"}
            sni: {type: Exact, value: sni.extsvc.default.zone-1.aws-aurora.8443}`, nil},
		{"bad sni values and types", `
  rules:
    - default:
        allow:
          - sni: {type: Exact, value: ""}
        deny:
          - sni: {type: Exact}
          - sni: {type: Prefix, value: a.b}
          - sni: {value: a.b}
        allowWithShadowDeny:
          - sni: {type: Exact, value: not_valid}`, []got{
			{CodeSpiffe, "spec.rules[0].default.allowWithShadowDeny[0].sni.value", SeverityError},
			{CodeSpiffe, "spec.rules[0].default.allow[0].sni.value", SeverityError},
			{CodeSpiffe, "spec.rules[0].default.deny[0].sni.value", SeverityError},
			{CodeSpiffe, "spec.rules[0].default.deny[1].sni.type", SeverityError},
			{CodeSpiffe, "spec.rules[0].default.deny[2].sni.type", SeverityError},
		}},
		{"spiffeID values must be SPIFFE IDs, Prefix too", `
  rules:
    - default:
        deny:
          - spiffeID: {type: Exact, value: some-service}
        allow:
          - spiffeID: {type: Prefix, value: wrong}
          - spiffeID: {type: Prefix, value: "spiffe://trust.domain"}
        allowWithShadowDeny:
          - spiffeID: {type: Exact, value: ""}`, []got{
			{CodeSpiffe, "spec.rules[0].default.allowWithShadowDeny[0].spiffeID", SeverityError},
			{CodeSpiffe, "spec.rules[0].default.allow[0].spiffeID", SeverityError},
			{CodeSpiffe, "spec.rules[0].default.deny[0].spiffeID", SeverityError},
			{CodeSpiffePrefix, "spec.rules[0].default.allow[1].spiffeID.value", SeverityWarning},
		}},
		{"empty from", `
  targetRef: {kind: MeshService, name: backend}
  from: []`, []got{
			{CodeSpecShape, "spec", SeverityError},
			{CodeDeprecated, "spec.targetRef.kind", SeverityWarning},
		}},
		{"empty rules", `
  rules: []`, []got{{CodeSpecShape, "spec", SeverityError}}},
		{"rule whose lists are empty", `
  rules:
    - default:
        deny: []`, []got{{CodeSpecShape, "spec.rules[0]", SeverityError}}},
		{"from item without action", `
  from:
    - targetRef: {kind: Mesh}`, []got{{CodeMTPAction, "spec.from[0].default.action", SeverityError}, dep}},
		{"from and rules together", `
  from:
    - targetRef: {kind: Mesh}
      default: {action: Allow}
  rules:
    - default:
        allow:
          - spiffeID: {type: Prefix, value: "spiffe://td"}`, []got{{CodeMTPForm, "spec.rules", SeverityError}, dep,
			{CodeSpiffePrefix, "spec.rules[0].default.allow[0].spiffeID.value", SeverityWarning}}},
		{"a matcher without spiffeID or sni matches nothing", `
  rules:
    - default:
        allow:
          - {}
          - spiffeID: {type: Prefix, value: "spiffe://td"}`, []got{{CodeMTPEmptyMatcher, "spec.rules[0].default.allow[0]", SeverityWarning},
			{CodeSpiffePrefix, "spec.rules[0].default.allow[1].spiffeID.value", SeverityWarning}}},
		{"the MADR's spiffeId, method and path are dropped, not checked", `
  rules:
    - default:
        allow:
          - spiffeId: {type: Exact, value: nonsense}
            method: GET
            path: {type: Prefix, value: /metrics}`, []got{
			{api.CodeUnknownField, "spec.rules[0].default.allow[0].method", SeverityWarning},
			{api.CodeUnknownField, "spec.rules[0].default.allow[0].path", SeverityWarning},
			{api.CodeUnknownField, "spec.rules[0].default.allow[0].spiffeId", SeverityWarning},
			{CodeMTPEmptyMatcher, "spec.rules[0].default.allow[0]", SeverityWarning},
		}},
	}
}

// TestMTPKumaRules runs the cases without the CRD layer (the rules alone).
func TestMTPKumaRules(t *testing.T) {
	for _, tc := range mtpKumaCases() {
		t.Run(tc.name, func(t *testing.T) {
			res := lintOne(t, mtpDoc+"spec:"+tc.spec, api.DefaultSettings(), api.Request{})
			if diff := cmp.Diff(tc.want, reduce(res)); diff != "" {
				t.Errorf("findings (-want +got):\n%s\nall: %v %v", diff, res.Errors, res.Warnings)
			}
		})
	}
}

// TestMTPWithCRD checks that with Kuma's CRD loaded a value the CRD refuses is
// reported once (MG002), not again by the MeshTrafficPermission rules, while the
// rules the CRD lacks still report.
func TestMTPWithCRD(t *testing.T) {
	s := api.DefaultSettings()
	if err := schema.LoadInto(&s); err != nil {
		t.Fatal(err)
	}
	cases := []mtpCase{
		{"action outside the enum", `
  from:
    - targetRef: {kind: Mesh}
      default: {action: ALLOW}`, []got{{api.CodeWrongType, "spec.from[0].default.action", SeverityError}}},
		{"action missing", `
  from:
    - targetRef: {kind: Mesh}
      default: {}`, []got{{CodeMTPAction, "spec.from[0].default.action", SeverityError}}},
		{"sni without value, with a bad type, with a bad value", `
  rules:
    - default:
        deny:
          - sni: {type: Exact}
          - sni: {type: Prefix, value: a.b}
          - sni: {type: Exact, value: A_B}`, []got{
			{api.CodeWrongType, "spec.rules[0].default.deny[0].sni.value", SeverityError},
			{api.CodeWrongType, "spec.rules[0].default.deny[1].sni.type", SeverityError},
			{CodeSpiffe, "spec.rules[0].default.deny[2].sni.value", SeverityError},
		}},
		{"spiffeId is dropped by the API server", `
  rules:
    - default:
        allow:
          - spiffeId: {type: Exact, value: nonsense}`, []got{
			{api.CodeUnknownField, "spec.rules[0].default.allow[0].spiffeId", SeverityWarning},
			{CodeMTPEmptyMatcher, "spec.rules[0].default.allow[0]", SeverityWarning},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := lintOne(t, mtpDoc+"spec:"+tc.spec, s, api.Request{})
			var gotFindings []got
			for _, g := range reduce(res) {
				if g.Code != CodeMTPFromDeprecated {
					gotFindings = append(gotFindings, g)
				}
			}
			if diff := cmp.Diff(tc.want, gotFindings); diff != "" {
				t.Errorf("findings (-want +got):\n%s\nall: %v %v", diff, res.Errors, res.Warnings)
			}
		})
	}
}

// TestMTPDropsWhatKumaDrops: the typed spec validation hands to the RBAC preview is
// the policy Kuma reads, without the fields Kuma's CRD does not have.
func TestMTPDropsWhatKumaDrops(t *testing.T) {
	res := lintOne(t, mtpDoc+`spec:
  rules:
    - default:
        allow:
          - spiffeId: {type: Exact, value: "spiffe://td/a"}
            method: GET
            sni: {type: Exact, value: a.b}`, api.DefaultSettings(), api.Request{})
	s, ok := res.Spec.(*api.MeshTrafficPermissionSpec)
	if !ok {
		t.Fatalf("spec %T", res.Spec)
	}
	want := api.SpiffeMatch{SNI: &api.StringMatch{Type: "Exact", Value: "a.b"}}
	if diff := cmp.Diff(want, (*s.Rules[0].Default.Allow)[0]); diff != "" {
		t.Errorf("matcher (-want +got):\n%s", diff)
	}
}

// TestMTPEmptyListWarnsOfEnvoy: when no matcher of a list has a condition, Kuma
// programs an empty predicate that Envoy refuses, and MG191 says so; when another
// matcher of the list has one, the empty matcher only matches nothing.
func TestMTPEmptyListWarnsOfEnvoy(t *testing.T) {
	for _, tc := range []struct {
		name, rule string
		envoy      bool
	}{
		{"deny of empty matchers only", "deny: [{}]\n        allow: [{sni: {type: Exact, value: a.b}}]", true},
		{"allow empty, allowWithShadowDeny not", "allow: [{}]\n        allowWithShadowDeny: [{sni: {type: Exact, value: a.b}}]", false},
		{"allow and allowWithShadowDeny both empty", "allow: [{}]\n        allowWithShadowDeny: [{}]", true},
		{"an empty matcher next to a real one", "allow: [{}, {sni: {type: Exact, value: a.b}}]", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := lintOne(t, mtpDoc+"spec:\n  rules:\n    - default:\n        "+tc.rule+"\n", api.DefaultSettings(), api.Request{})
			if len(res.Errors) > 0 || len(res.Warnings) == 0 {
				t.Fatalf("errors %v, warnings %v", res.Errors, res.Warnings)
			}
			for _, w := range res.Warnings {
				if w.Origin != CodeMTPEmptyMatcher {
					t.Errorf("unexpected %s %s", w.Origin, w.Field)
				}
				if got := strings.Contains(w.Detail, "Envoy refuses"); got != tc.envoy {
					t.Errorf("%s: mentions Envoy's refusal: %v, want %v (%s)", w.Field, got, tc.envoy, w.Detail)
				}
			}
		})
	}
}
