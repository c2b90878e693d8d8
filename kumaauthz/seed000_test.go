package kumaauthz

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	rbacv3 "github.com/envoyproxy/go-control-plane/envoy/config/rbac/v3"
	netrbac "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/rbac/v3"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protojson"
	"sigs.k8s.io/yaml"

	"github.com/meshguard/meshguard/api"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./compile -update to create it)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s differs from golden (-want +got):\n%s", name, d)
	}
}

func item(policy string, idx int, ref api.TargetRef, action string) MergedItem {
	r := ref
	return MergedItem{Policy: policy, Index: idx, From: api.MTPFrom{TargetRef: &r, Default: api.MTPConf{Action: action}}}
}

func subset(tags ...string) api.TargetRef {
	m := map[string]string{}
	for i := 0; i+1 < len(tags); i += 2 {
		m[tags[i]] = tags[i+1]
	}
	return api.TargetRef{Kind: api.RefMeshSubset, Tags: m}
}

// seedList is the MeshTrafficPermission MADR's concatenated "from" array, stated outright by the seed.
func seedList() []MergedItem {
	return []MergedItem{
		item("kuma-system/global", 0, api.TargetRef{Kind: api.RefMesh}, "DENY"),
		item("kuma-system/global-2", 0, subset("kuma.io/zone", "us-east"), "DENY_WITH_SHADOW_ALLOW"),
		item("kuma-system/backend", 0, subset("env", "dev"), "ALLOW"),
		item("kuma-system/backend", 1, api.TargetRef{Kind: api.RefMeshService, Name: "web"}, "ALLOW_WITH_SHADOW_DENY"),
	}
}

// seedRulesPrincipals is the MeshTrafficPermission MADR step 3's principal list, verbatim except that
// the seed writes kuma.io/service=web as kuma://kuma.io/service/web while its own
// URI list (and Kuma) give a service the SPIFFE ID spiffe://<mesh>/web.
const seedRulesPrincipals = `
principals:
  - and_ids: {ids: [{authenticated: {principal_name: {exact: "kuma://kuma.io/zone/us-east"}}}, {authenticated: {principal_name: {exact: "kuma://env/dev"}}}, {not_id: {authenticated: {principal_name: {exact: "spiffe://default/web"}}}}]}
  - and_ids: {ids: [{not_id: {authenticated: {principal_name: {exact: "kuma://kuma.io/zone/us-east"}}}}, {authenticated: {principal_name: {exact: "kuma://env/dev"}}}, {not_id: {authenticated: {principal_name: {exact: "spiffe://default/web"}}}}]}
  - and_ids: {ids: [{authenticated: {principal_name: {exact: "kuma://kuma.io/zone/us-east"}}}, {authenticated: {principal_name: {exact: "kuma://env/dev"}}}, {authenticated: {principal_name: {exact: "spiffe://default/web"}}}]}
  - and_ids: {ids: [{authenticated: {principal_name: {exact: "kuma://kuma.io/zone/us-east"}}}, {not_id: {authenticated: {principal_name: {exact: "kuma://env/dev"}}}}, {authenticated: {principal_name: {exact: "spiffe://default/web"}}}]}
  - and_ids: {ids: [{not_id: {authenticated: {principal_name: {exact: "kuma://kuma.io/zone/us-east"}}}}, {authenticated: {principal_name: {exact: "kuma://env/dev"}}}, {authenticated: {principal_name: {exact: "spiffe://default/web"}}}]}
  - and_ids: {ids: [{not_id: {authenticated: {principal_name: {exact: "kuma://kuma.io/zone/us-east"}}}}, {not_id: {authenticated: {principal_name: {exact: "kuma://env/dev"}}}}, {authenticated: {principal_name: {exact: "spiffe://default/web"}}}]}
permissions: [{any: true}]
`

// seedShadowPrincipal is the MeshTrafficPermission MADR step 4's only shadow principal (same substitution).
const seedShadowPrincipals = `
principals:
  - and_ids: {ids: [{authenticated: {principal_name: {exact: "kuma://kuma.io/zone/us-east"}}}, {not_id: {authenticated: {principal_name: {exact: "kuma://env/dev"}}}}, {not_id: {authenticated: {principal_name: {exact: "spiffe://default/web"}}}}]}
permissions: [{any: true}]
`

func parsePolicy(t *testing.T, y string) *rbacv3.Policy {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	var p rbacv3.Policy
	if err := protojson.Unmarshal(j, &p); err != nil {
		t.Fatal(err)
	}
	return &p
}

func sortedPrincipals(p *rbacv3.Policy) []string {
	r := &rbacv3.RBAC{Policies: map[string]*rbacv3.Policy{"p": p}}
	return policyPrincipals(r, "p")
}

func TestSeed000RuleView(t *testing.T) {
	view, ok, err := ExpandRules("default", seedList(), 0)
	if err != nil || !ok {
		t.Fatalf("ExpandRules: ok=%v err=%v", ok, err)
	}
	// The MeshTrafficPermission MADR step 2, the full rule-based view with negations.
	want := []string{
		"ALLOW kuma.io/zone=us-east env=dev kuma.io/service!=web",
		"DENY_WITH_SHADOW_ALLOW kuma.io/zone=us-east env!=dev kuma.io/service!=web",
		"ALLOW kuma.io/zone!=us-east env=dev kuma.io/service!=web",
		"DENY kuma.io/zone!=us-east env!=dev kuma.io/service!=web",
		"ALLOW_WITH_SHADOW_DENY kuma.io/zone=us-east env=dev kuma.io/service=web",
		"ALLOW_WITH_SHADOW_DENY kuma.io/zone=us-east env!=dev kuma.io/service=web",
		"ALLOW_WITH_SHADOW_DENY kuma.io/zone!=us-east env=dev kuma.io/service=web",
		"ALLOW_WITH_SHADOW_DENY kuma.io/zone!=us-east env!=dev kuma.io/service=web",
	}
	if d := cmp.Diff(sortStrings(want), viewStrings(view)); d != "" {
		t.Errorf("rule view (-seed +got):\n%s", d)
	}
}

func TestSeed000ZoneEnvRuleView(t *testing.T) {
	list := []MergedItem{
		item("p", 0, api.TargetRef{Kind: api.RefMesh}, "ALLOW"),
		item("p", 1, subset("zone", "us-east"), "DENY"),
		item("p", 2, subset("env", "dev"), "ALLOW"),
		item("p", 3, subset("env", "prod"), "ALLOW"),
	}
	view, ok, err := ExpandRules("default", list, 0)
	if err != nil || !ok {
		t.Fatalf("ExpandRules: ok=%v err=%v", ok, err)
	}
	// The MeshTrafficPermission MADR "How to generate", step 3: the two impossible combinations (env=dev
	// and env=prod at once) are skipped and only number 5 is DENY.
	want := []string{
		"ALLOW zone=us-east env=dev",
		"ALLOW zone=us-east env=prod",
		"ALLOW zone!=us-east env=dev",
		"ALLOW zone!=us-east env=prod",
		"DENY zone=us-east env!=prod env!=dev",
		"ALLOW zone!=us-east env!=prod env!=dev",
	}
	if d := cmp.Diff(sortStrings(want), viewStrings(view)); d != "" {
		t.Errorf("rule view (-seed +got):\n%s", d)
	}
	res, err := CompileFrom("default", list, Options{Form: FormExpanded})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(res.Config.GetRules().GetPolicies()[PolicyName].GetPrincipals()); got != 5 {
		t.Errorf("expanded rules have %d principals, want the 5 ALLOW combinations", got)
	}
	golden(t, "seed000_zone_env_expanded.json", protoBytes(t, res.Config))
}

func TestSeed000Principals(t *testing.T) {
	res, err := CompileFrom("default", seedList(), Options{Form: FormExpanded})
	if err != nil {
		t.Fatal(err)
	}
	if res.Form != FormExpanded || len(res.Warnings) > 0 {
		t.Fatalf("form %s, warnings %v", res.Form, res.Warnings)
	}
	if d := cmp.Diff(sortedPrincipals(parsePolicy(t, seedRulesPrincipals)), policyPrincipals(res.Config.GetRules(), PolicyName)); d != "" {
		t.Errorf("rules principals (-seed step 3 +got):\n%s", d)
	}
	// Our shadow_rules hold every client whose shadow action allows: the seed's step 4
	// principal (DENY_WITH_SHADOW_ALLOW) plus the two ALLOW combinations, which the
	// seed's step 4 leaves out although shadow mode does not deny them (docs/rbac.md).
	wantShadow := sortedPrincipals(parsePolicy(t, seedShadowPrincipals))
	wantShadow = append(wantShadow,
		"and(!kuma://kuma.io/zone/us-east !spiffe://default/web kuma://env/dev)",
		"and(!spiffe://default/web kuma://env/dev kuma://kuma.io/zone/us-east)")
	sort.Strings(wantShadow)
	if d := cmp.Diff(wantShadow, policyPrincipals(res.Config.GetShadowRules(), ShadowPolicyName)); d != "" {
		t.Errorf("shadow principals (-want +got):\n%s", d)
	}
	golden(t, "seed000_expanded.json", protoBytes(t, res.Config))
	compact, err := CompileFrom("default", seedList(), Options{Form: FormCompact})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "seed000_compact.json", protoBytes(t, compact.Config))
}

func viewStrings(view []ViewRule) []string {
	out := make([]string, len(view))
	for i, r := range view {
		act := "NO_MATCH"
		if r.Matched {
			act = r.Action.String()
		}
		tags := append([]string{}, r.Tags...)
		sort.Strings(tags)
		out[i] = act + " " + strings.Join(tags, " ")
	}
	sort.Strings(out)
	return out
}

func sortStrings(in []string) []string {
	out := make([]string, len(in))
	for i, s := range in {
		f := strings.Fields(s)
		tags := f[1:]
		sort.Strings(tags)
		out[i] = f[0] + " " + strings.Join(tags, " ")
	}
	sort.Strings(out)
	return out
}

// protoBytes is the stable, indented protojson of m, for golden files.
func protoBytes(t *testing.T, m *netrbac.RBAC) []byte {
	t.Helper()
	raw, err := envoyJSON(m)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		t.Fatal(err)
	}
	return append(buf.Bytes(), '\n')
}

func TestExpandedFallsBackPastBound(t *testing.T) {
	res, err := CompileFrom("default", seedList(), Options{Form: FormExpanded, MaxExpandedRules: 4})
	if err != nil {
		t.Fatal(err)
	}
	if res.Form != FormCompact || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "more than the bound 4") {
		t.Fatalf("form %s warnings %q", res.Form, res.Warnings)
	}
	if _, ok, _ := ExpandRules("default", seedList(), 4); ok {
		t.Error("ExpandRules ignored its bound")
	}
}

// seed000CrossMeshYAML is the MeshTrafficPermission MADR's cross-mesh permission to a MeshGatewayRoute.
const seed000CrossMeshYAML = `
kind: MeshTrafficPermission
metadata: {name: cross-mesh-permission, namespace: kuma-system, labels: {kuma.io/mesh: expose}}
spec:
  targetRef: {kind: MeshGatewayRoute, name: cross-mesh-route}
  from:
    - targetRef: {kind: MeshService, name: backend, mesh: consume}
      default: {action: ALLOW}
    - targetRef: {kind: MeshServiceSubset, name: backend, mesh: consume, tags: {version: v1}}
      default: {action: DENY}
    - targetRef: {kind: MeshSubset, mesh: consume, tags: {team: a}}
      default: {action: ALLOW}
`

// The MeshTrafficPermission MADR's cross-mesh example: clients of mesh "consume" reach a
// MeshGatewayRoute of mesh "expose"; the principals use the client's mesh.
func TestSeed000CrossMesh(t *testing.T) {
	ps := policiesFromYAML(t, seed000CrossMeshYAML)
	pvs, err := BuildPreviews(ps, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pvs) != 1 || pvs[0].Scope != "requests routed by MeshGatewayRoute cross-mesh-route in mesh expose" {
		t.Fatalf("previews %+v", pvs)
	}
	want := []string{
		"and(!and(kuma://version/v1 spiffe://consume/backend) spiffe://consume/backend)",
		"and(kuma://team/a spiffe://consume/*)",
	}
	if d := cmp.Diff(want, policyPrincipals(pvs[0].RBAC.GetRules(), PolicyName)); d != "" {
		t.Errorf("principals (-want +got):\n%s", d)
	}
	var b bytes.Buffer
	if err := RenderYAML(&b, pvs); err != nil {
		t.Fatal(err)
	}
	golden(t, "preview_seed000_cross_mesh.yaml", b.Bytes())
}
