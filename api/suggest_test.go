package api

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestSuggest(t *testing.T) {
	actions := []string{"ALLOW", "DENY", "ALLOW_WITH_SHADOW_DENY", "DENY_WITH_SHADOW_ALLOW", "Allow", "Deny", "AllowWithShadowDeny"}
	fields := []string{"connectionTimeout", "default", "http", "idleTimeout", "targetRef"}
	cases := []struct {
		got        string
		candidates []string
		want       string
	}{
		{"allow", actions, "Allow"},                                   // case slip: the spelling closest with case counted
		{"deny", actions, "Deny"},                                     //
		{"allow_with_shadow_deny", actions, "ALLOW_WITH_SHADOW_DENY"}, //
		{"Alow", actions, "Allow"},                                    // one deletion
		{"Permit", actions, ""},                                       // nothing close
		{"defualt", fields, "default"},                                // transposition is one edit
		{"Default", fields, "default"},                                //
		{"idleTimout", fields, "idleTimeout"},                         //
		{"connectTimeout", fields, "connectionTimeout"},               // 3 edits in a long word
		{"htp", fields, "http"},                                       //
		{"to", fields, ""},                                            // short words need a near match
		{"bogus", fields, ""},                                         //
		{"", fields, ""},                                              //
		{strings.Repeat("a", 100000), fields, ""},                     // long input: no quadratic work
		{strings.Repeat("dEfAuLt", 20), fields, ""},                   //
	}
	for _, tc := range cases {
		if got := Suggest(tc.got, tc.candidates); got != tc.want {
			t.Errorf("Suggest(%.20q) = %q, want %q", tc.got, got, tc.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "ab", 2}, {"default", "defualt", 1}, {"kitten", "sitting", 3},
		{"ca", "ac", 1}, {"héllo", "hello", 1},
	} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestUnknownFieldMessage checks MG001's text: the key, the likely intended field,
// and no "Unsupported value: null" from an unfitting error type.
func TestUnknownFieldMessage(t *testing.T) {
	in := map[string]any{"to": []any{map[string]any{"targetRef": map[string]any{"kind": "Mesh"}, "defualt": map[string]any{}}}, "TargetRef": map[string]any{}, "bogus": 1}
	r := Check(reflect.TypeOf(PolicySpec{}), in, field.NewPath("spec"))
	got := map[string]string{}
	for _, w := range r.Warnings {
		if w.Origin != CodeUnknownField || w.Type != field.ErrorTypeInvalid {
			t.Errorf("%s: origin %q type %q", w.Field, w.Origin, w.Type)
		}
		got[w.Field] = w.Detail
		if body := w.ErrorBody(); strings.Contains(body, "null") || strings.Contains(body, "Unsupported") {
			t.Errorf("%s: error body %q", w.Field, body)
		}
	}
	want := map[string]string{
		"spec.to[0].defualt": `did you mean "default"?`,
		"spec.TargetRef":     `did you mean "targetRef"? Keys are case-sensitive`,
		"spec.bogus":         `known fields: default, from, rules, targetRef, to`,
	}
	for f, w := range want {
		if got[f] != w {
			t.Errorf("%s:\n got %q\nwant %q", f, got[f], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("warnings %v", got)
	}
}
