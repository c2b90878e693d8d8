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
		{"Permit", `Unsupported value: "Permit": supported values: "ALLOW", "DENY"`},
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
