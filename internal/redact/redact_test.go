package redact

import "testing"

func TestReplace(t *testing.T) {
	order := Hidden([]string{"kuma-system/a", "pay/b", "pay/b", "hr/c"}, func(ns string) bool { return ns == "kuma-system" })
	if len(order) != 2 || order[0] != "pay/b" || order[1] != "hr/c" {
		t.Fatalf("Hidden = %q", order)
	}
	alias := func(ref string) string { return "<" + ref[:1] + ">" }
	for in, want := range map[string]string{
		"pay/b":                        "<p>",
		"pay/b: spec: x; hr/c, pay/b.": "<p>: spec: x; <h>, <p>.",
		"xpay/b pay/bc pay/b/d":        "xpay/b pay/bc pay/b/d",
		"(pay/b)pay/b":                 "(<p>)<p>",
		"pay/b.c pay/b.":               "pay/b.c <p>.",
		"kuma-system/a":                "kuma-system/a",
		"":                             "",
	} {
		if got := Replace(in, order, alias); got != want {
			t.Errorf("Replace(%q) = %q, want %q", in, got, want)
		}
	}
}
