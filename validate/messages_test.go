package validate

import (
	"strings"
	"testing"

	"github.com/meshguard/meshguard/api"
)

// TestMTPActionSuggestion checks MG120's "did you mean" among the accepted spellings.
func TestMTPActionSuggestion(t *testing.T) {
	for _, tc := range []struct{ action, want string }{
		{"allow", `Unsupported value: "allow": did you mean "Allow"?`},
		{"deny", `did you mean "Deny"?`},
		{"Alow", `did you mean "Allow"?`},
		{"allowWithShadowDeny", `did you mean "AllowWithShadowDeny"?`},
		{"Permit", `Unsupported value: "Permit": supported values: "Allow", "Deny", "AllowWithShadowDeny"`},
		{"ALLOW", `did you mean "Allow"?`},
	} {
		doc := strings.Replace(mtpGood, "action: Allow", "action: "+tc.action, 1)
		res := lintOne(t, doc, api.DefaultSettings(), api.Request{})
		if len(res.Errors) != 1 || res.Errors[0].Origin != CodeMTPAction {
			t.Fatalf("%s: want one %s, got %v", tc.action, CodeMTPAction, res.Errors)
		}
		if body := res.Errors[0].ErrorBody(); !strings.Contains(body, tc.want) {
			t.Errorf("%s: message %q lacks %q", tc.action, body, tc.want)
		}
	}
}

// TestGatewayRouteAdviceAgrees checks that MG103 and MG105, which fire together on a
// MeshGateway route outside the system namespace with a backend elsewhere, give one
// piece of advice (move the route to the system namespace, keep the backend), and
// that following it lints clean. MG103 once said "route to a service in payments-ns",
// which still left MG105.
func TestGatewayRouteAdviceAgrees(t *testing.T) {
	s := api.DefaultSettings()
	res := lintOne(t, gatewayRoute("payments-ns", "internal-ns"), s, api.Request{})
	codes := map[string]string{}
	for _, e := range res.Errors {
		codes[e.Origin] = e.Detail
	}
	if len(codes) != 2 || codes[CodeCrossNamespace] == "" || codes[CodeGatewayRoute] == "" {
		t.Fatalf("want %s and %s, got %v", CodeCrossNamespace, CodeGatewayRoute, res.Errors)
	}
	for code, msg := range codes {
		if !strings.Contains(msg, "move") || !strings.Contains(msg, `"`+s.SystemNamespace+`"`) {
			t.Errorf("%s does not advise moving the route to %q: %s", code, s.SystemNamespace, msg)
		}
	}
	if msg := codes[CodeCrossNamespace]; !strings.Contains(msg, "keep this backend") || strings.Contains(msg, `service in "payments-ns"`) {
		t.Errorf("%s advises changing the backend, which leaves %s: %s", CodeCrossNamespace, CodeGatewayRoute, msg)
	}
	// The advice applied: the route in the system namespace, the backend unchanged.
	fixed := lintOne(t, gatewayRoute(s.SystemNamespace, "internal-ns"), s, api.Request{})
	if len(fixed.Errors)+len(fixed.Warnings) != 0 {
		t.Errorf("the advised fix does not lint clean: %v %v", fixed.Errors, fixed.Warnings)
	}
}
