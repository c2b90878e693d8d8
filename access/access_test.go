package access

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDiffSectionText: each part of a section in the text form `meshguard diff`
// prints, whichever mesh wrote it.
func TestDiffSectionText(t *testing.T) {
	tests := []struct {
		name string
		sec  DiffSection
		want string
	}{
		{"linkerd server", DiffSection{Mesh: "Linkerd", Title: "Server shop/web", About: "port 8080; pods app=web", Classes: 3,
			Changes: []DiffChange{{Kind: ChangeWidened, Clients: []string{"identity a", "from 10.0.0.0/8"}, Old: "denied: no grant", New: "allowed by AuthorizationPolicy shop/x"}}},
			"\nServer shop/web (port 8080; pods app=web; 3 client classes compared)\n" +
				"  + widened   identity a; from 10.0.0.0/8\n              was denied: no grant\n              now allowed by AuthorizationPolicy shop/x\n"},
		{"kuma group with identity, not compared", DiffSection{Mesh: "Kuma", Title: "proxies app=web", About: "compact", Note: "MeshIdentity m gives them identities",
			Classes: 900, Incomplete: "too many classes"},
			"\nproxies app=web (compact; 900 client classes compared)\n  identity: MeshIdentity m gives them identities\n  ! not compared: too many classes\n"},
		{"every client narrowed", DiffSection{Title: "t", About: "a", Classes: 1, Changes: []DiffChange{{Kind: ChangeNarrowed, Old: "ALLOW by x", New: "DENY by y"}}},
			"\nt (a; 1 client classes compared)\n  - narrowed  every client\n              was ALLOW by x\n              now DENY by y\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			tt.sec.WriteText(&b)
			if diff := cmp.Diff(tt.want, b.String()); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDiffSectionMarkdown: a heading per section, its sentence, and a table whose
// cells are escaped; a section not compared has no table.
func TestDiffSectionMarkdown(t *testing.T) {
	var b strings.Builder
	DiffSection{Mesh: "Linkerd", Title: "Server shop/web", Sentence: "Port 8080, pods a|b; 2 client classes compared.",
		Changes: []DiffChange{{Kind: ChangeWidened, Clients: []string{"id `x`"}, Old: "denied: a|b", New: "allowed by y"}}}.WriteMarkdown(&b)
	DiffSection{Mesh: "Kuma", Title: "g", Sentence: "9 client classes compared (compact).", Note: "identity note", Incomplete: "too many"}.WriteMarkdown(&b)
	want := "\n#### Linkerd: Server shop/web\n\nPort 8080, pods a\\|b; 2 client classes compared.\n" +
		"\n| change | clients | before | after |\n| --- | --- | --- | --- |\n" +
		"| **widened** | `id 'x'` | denied: a\\|b | allowed by y |\n" +
		"\n#### Kuma: g\n\n9 client classes compared (compact).\n\nidentity note.\n\nNot compared: too many.\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("markdown (-want +got):\n%s", diff)
	}
}

// TestAnswerText: the default's words, the shadow by the same item, and where a
// deciding item is written.
func TestAnswerText(t *testing.T) {
	item := Item{Kind: "MeshTrafficPermission", Policy: "shop/allow", Path: "spec.from[0]", Action: "Allow", Match: "kuma.io/service=web", File: "p.yaml", Line: 7}
	r := Answer{Mesh: "kuma", Decision: "ALLOW", ShadowDecision: "ALLOW", ShadowDecidedBy: &item, DecidedBy: item,
		Client:      Peer{Tags: map[string]string{"kuma.io/service": "web", "app": "w"}, Mesh: "default"},
		Destination: Peer{Workload: "Deployment/api", Namespace: "shop", Mesh: "default"}, Filter: "network", Form: "compact",
		Merged: []Item{{Policy: "shop/allow", File: "p.yaml"}}}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := "ALLOW  app=w,kuma.io/service=web of mesh default -> Deployment/api in namespace shop of mesh default\n" +
		"  decided by: MeshTrafficPermission shop/allow spec.from[0] (Allow kuma.io/service=web)  (p.yaml:7)\n" +
		"  shadow: ALLOW, by the same item\n  filter: Envoy network RBAC (compact form)\n" +
		"  merged policies (least specific first): 1\n    1. shop/allow  (p.yaml)\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
	if got := (Item{Policy: DefaultPolicy, Match: "no policy selects the proxy"}).Words(); got != "default: no policy selects the proxy" {
		t.Errorf("default item: %q", got)
	}
}
