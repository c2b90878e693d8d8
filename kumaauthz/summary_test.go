package kumaauthz

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// mtpDoc is a mesh-wide MeshTrafficPermission in kuma-system with `from` items
// (tags are kuma.io/service values; "*" is kind Mesh).
func mtpDoc(name string, items ...[2]string) string {
	var b strings.Builder
	b.WriteString("apiVersion: kuma.io/v1alpha1\nkind: MeshTrafficPermission\nmetadata: {name: " + name +
		", namespace: kuma-system, labels: {kuma.io/mesh: default}}\nspec:\n  targetRef: {kind: Mesh}\n  from:\n")
	for _, it := range items {
		ref := "{kind: MeshSubset, tags: {kuma.io/service: " + it[0] + "}}"
		if it[0] == "*" {
			ref = "{kind: Mesh}"
		}
		b.WriteString("    - {targetRef: " + ref + ", default: {action: " + it[1] + "}}\n")
	}
	return b.String()
}

// matcherDoc is a mesh-wide SPIFFE-matcher MeshTrafficPermission: list -> Prefix IDs.
func matcherDoc(name string, lists map[string][]string) string {
	var b strings.Builder
	b.WriteString("apiVersion: kuma.io/v1alpha1\nkind: MeshTrafficPermission\nmetadata: {name: " + name +
		", namespace: kuma-system, labels: {kuma.io/mesh: default}}\nspec:\n  targetRef: {}\n  default:\n")
	for _, list := range []string{ListDeny, ListAllowWithShadowDeny, ListAllow} {
		if len(lists[list]) == 0 {
			continue
		}
		b.WriteString("    " + list + ":\n")
		for _, id := range lists[list] {
			b.WriteString("      - spiffeId: {type: Prefix, value: \"" + id + "\"}\n")
		}
	}
	return b.String()
}

// effectOf is what AdmissionLines says about incoming's effect: its lines that
// start with its Ref.
func effectOf(t *testing.T, incoming string, docs ...string) []string {
	t.Helper()
	previews, err := BuildPreviews(policiesFromYAML(t, strings.Join(docs, "\n---\n")), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range AdmissionLines(previews, incoming, 6) {
		if strings.HasPrefix(l, incoming+" ") {
			out = append(out, strings.TrimPrefix(l, incoming+" "))
		}
	}
	return out
}

// TestAdmissionEffect checks what the warnings say the admitted policy changes:
// clients newly allowed, clients allowed before and denied now, shadow rules, or
// no change; by merge position (kuma-system policies of one target merge by name,
// the smaller name later: "a-in" comes last, "zz-in" first) and for SPIFFE
// matchers.
func TestAdmissionEffect(t *testing.T) {
	const in = "kuma-system/a-in"
	denyAll := mtpDoc("deny-all", [2]string{"*", "Deny"})
	allowAll := mtpDoc("allow-all", [2]string{"*", "Allow"})
	allowWeb := mtpDoc("allow-web", [2]string{"web", "Allow"})
	for _, c := range []struct {
		name string
		docs []string
		want []string
	}{
		{"allows a client", []string{denyAll, mtpDoc("a-in", [2]string{"web", "Allow"})},
			[]string{"allows 1 more client: kuma.io/service=web"}},
		{"allows several, counted", []string{denyAll, mtpDoc("a-in", [2]string{"web", "Allow"}, [2]string{"api", "Allow"}, [2]string{"db", "Allow"})},
			[]string{"allows 3 more clients: kuma.io/service=web, kuma.io/service=api, kuma.io/service=db"}},
		{"allows what was allowed", []string{allowWeb, mtpDoc("a-in", [2]string{"web", "Allow"})},
			[]string{"changes no client's enforced access here"}},
		{"denies part of an allow", []string{allowAll, mtpDoc("a-in", [2]string{"web", "Deny"})},
			[]string{"denies 1 client allowed before: kuma.io/service=web"}},
		{"denies all of an allow", []string{allowWeb, mtpDoc("a-in", [2]string{"*", "Deny"})},
			[]string{"denies 1 client allowed before: kuma.io/service=web"}},
		{"a deny before the allow denies nothing", []string{allowWeb, mtpDoc("zz-in", [2]string{"*", "Deny"})}, nil},
		{"shadow", []string{denyAll, mtpDoc("a-in", [2]string{"api", "AllowWithShadowDeny"})},
			[]string{"allows 1 more client: kuma.io/service=api", "would deny, in shadow only: kuma.io/service=api"}},
		{"covered by a later item", []string{mtpDoc("a-in", [2]string{"web", "Allow"}), mtpDoc("a-deny", [2]string{"*", "Deny"})},
			[]string{"changes nothing here: later items cover every client it matches"}},
		{"matcher: allows an identity", []string{matcherDoc("a", map[string][]string{ListAllow: {"spiffe://td/ns/a"}}),
			matcherDoc("a-in", map[string][]string{ListAllow: {"spiffe://td/ns/b"}})},
			[]string{"allows 1 more client: spiffe://td/ns/b*"}},
		{"matcher: already allowed", []string{matcherDoc("a", map[string][]string{ListAllow: {"spiffe://td/ns/a"}}),
			matcherDoc("a-in", map[string][]string{ListAllow: {"spiffe://td/ns/a/sa/x"}})},
			[]string{"changes no client's enforced access here"}},
		{"matcher: denies part of an allow", []string{matcherDoc("a", map[string][]string{ListAllow: {"spiffe://td/ns/a"}}),
			matcherDoc("a-in", map[string][]string{ListDeny: {"spiffe://td/ns/a/sa/x"}})},
			[]string{"denies 1 client allowed before: spiffe://td/ns/a/sa/x*"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ref := in
			if strings.Contains(strings.Join(c.docs, ""), "name: zz-in") {
				ref = "kuma-system/zz-in"
			}
			got := effectOf(t, ref, c.docs...)
			want := c.want
			if want == nil {
				want = []string{"changes no client's enforced access here"}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("effect lines (-want +got):\n%s", diff)
			}
		})
	}
}

// BenchmarkAdmissionLinesAtBound: the warning lines of a group just under the
// webhook's bound (1,990 items of one tag, all of the admitted policy, alternating
// allow and deny), next to what compiling it costs (BuildPreviews). The summary
// compares items pairwise like the analysis does, no worse.
func BenchmarkAdmissionLinesAtBound(b *testing.B) {
	items := make([][2]string, 1990)
	for i := range items {
		items[i] = [2]string{fmt.Sprintf("svc-%d", i), []string{"Allow", "Deny", "AllowWithShadowDeny"}[i%3]}
	}
	previews, err := BuildPreviews(policiesFromYAML(b, mtpDoc("deny-all", [2]string{"*", "Deny"})+"\n---\n"+mtpDoc("a-in", items...)),
		Options{MaxGroupItems: 2000})
	if err != nil || len(previews) != 1 || previews[0].Form == FormSkipped {
		b.Fatalf("previews: %v %+v", err, previews)
	}
	for b.Loop() {
		if lines := AdmissionLines(previews, "kuma-system/a-in", 6); len(lines) == 0 {
			b.Fatal("no lines")
		}
	}
}
