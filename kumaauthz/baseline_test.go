package kumaauthz

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const meshDeny = `kind: MeshTrafficPermission
metadata: {name: deny-all, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  from:
    - {targetRef: {kind: Mesh}, default: {action: Deny}}
`

// nsAllow opens namespace shop's proxies to its own clients: user story 1 of
// the SPIFFE-matches MADR in `from` form.
const nsAllow = `---
kind: MeshTrafficPermission
metadata: {name: shop-clients, namespace: shop}
spec:
  targetRef: {kind: Mesh}
  from:
    - {targetRef: {kind: MeshSubset, tags: {k8s.kuma.io/namespace: shop}}, default: {action: Allow}}
`

// webDeny denies every client of app=web; webV2 opens its version v2 (a smaller name: merged later).
const webDeny = `kind: MeshTrafficPermission
metadata: {name: web-deny, namespace: kuma-system}
spec:
  targetRef: {kind: MeshSubset, tags: {app: web}}
  from:
    - {targetRef: {kind: Mesh}, default: {action: Deny}}
`

const webV2 = `---
kind: MeshTrafficPermission
metadata: {name: a-web-v2, namespace: kuma-system}
spec:
  targetRef: {kind: MeshSubset, tags: {app: web, version: v2}}
  from:
    - {targetRef: {kind: MeshService, name: api}, default: {action: Allow}}
`

// TestDenyAllBaseline: MG202 is not a finding for a mesh- or namespace-wide
// deny that more specific policies of the set open (the recommended
// deny-by-default setup, and examples/check/kuma); it names the proxies it
// holds for otherwise (a narrower deny-all, except the groups that open); and
// it never states as a fact what the set cannot see (other policies may open
// the proxies), for AnalyzePolicies (lint) and previews alike.
func TestDenyAllBaseline(t *testing.T) {
	example, err := os.ReadFile(filepath.Join("..", "examples", "check", "kuma", "policies.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, policies string
		want           []string // MG202 messages, in order
	}{
		{"mesh-wide deny with namespace allows", meshDeny + nsAllow, nil},
		{"examples/check/kuma", string(example), nil},
		{"mesh-wide deny alone", meshDeny, []string{
			"all proxies in mesh default deny every client, unless policies outside this set open them: no ALLOW item of policy kuma-system/deny-all is left once later DENY items are applied"}},
		{"a narrower deny-all names its exceptions", webDeny + webV2, []string{
			"proxies with tags app=web in mesh default, except proxies with tags app=web,version=v2 in mesh default, deny every client, unless policies outside this set open them: no ALLOW item of policy kuma-system/web-deny is left once later DENY items are applied"}},
		{"a narrower deny-all alone", webDeny, []string{
			"proxies with tags app=web in mesh default deny every client, unless policies outside this set open them: no ALLOW item of policy kuma-system/web-deny is left once later DENY items are applied"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ps := policiesFromYAML(t, tt.policies)
			var got []string
			for _, e := range AnalyzePolicies(ps, "kuma-system") {
				if e.Origin == CodeDenyAll {
					got = append(got, e.Detail)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("MG202 from AnalyzePolicies:\n got %q\nwant %q", got, tt.want)
			}
			pvs, err := BuildPreviews(ps, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var fromPreview []string
			for _, pv := range pvs {
				for _, e := range pv.Findings {
					if e.Origin == CodeDenyAll {
						fromPreview = append(fromPreview, e.Detail)
					}
				}
			}
			if strings.Join(fromPreview, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("MG202 in previews:\n got %q\nwant %q", fromPreview, tt.want)
			}
		})
	}
}
