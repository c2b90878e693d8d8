package kumarules

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshguard/meshguard/api"
)

// matcherCase computes one matchers case: the Dataplane, the objects, the golden.
type matcherCase func(t *testing.T, dp Dataplane, objects []Policy, golden map[string]any) (got, want any)

func TestKumaMatchersConformance(t *testing.T) {
	e := New(api.DefaultRegistry())
	for folder, run := range map[string]matcherCase{
		"matchers/dataplanepolicies": e.dataplanePoliciesCase,
		"matchers/fromrules":         e.matcherFromCase,
		"matchers/torules":           e.matcherToCase,
		"matchers/meshgateways":      e.matcherGatewayCase,
	} {
		t.Run(folder, func(t *testing.T) { runMatcherFolder(t, folder, run) })
	}
}

func runMatcherFolder(t *testing.T, folder string, run matcherCase) {
	dps, _ := filepath.Glob(filepath.Join(conformanceDir, folder, "*.dataplane.yaml"))
	if len(dps) == 0 {
		t.Fatalf("no cases under %s/%s", conformanceDir, folder)
	}
	agree, allowed := 0, notAgreeing(t)
	for _, dpFile := range dps {
		base := strings.TrimSuffix(dpFile, ".dataplane.yaml")
		name := folder + "/" + filepath.Base(base)
		dp, err := readDataplane(dpFile)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		objects, err := readPolicies(base + ".policies.yaml")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, want := run(t, dp, objects, readGolden(t, base+".golden.yaml"))
		if agrees(t, name, got, want, allowed) {
			agree++
		}
	}
	t.Logf("%s: %d/%d cases agree with Kuma 2.14.3", folder, agree, len(dps))
}

func readDataplane(path string) (Dataplane, error) {
	ps, err := readPolicies(path)
	if err != nil {
		return Dataplane{}, err
	}
	if len(ps) != 1 {
		return Dataplane{}, fmt.Errorf("%s: want one Dataplane, got %d documents", path, len(ps))
	}
	u, ferr := api.FromUniversal(map[string]any{"type": ps[0].Type, "name": ps[0].Name, "mesh": ps[0].Mesh,
		"labels": labelsAny(ps[0].Labels), "spec": ps[0].Spec}, api.DefaultRegistry())
	if ferr != nil {
		return Dataplane{}, ferr
	}
	return DataplaneFromObject(u)
}

func labelsAny(l map[string]string) map[string]any {
	out := map[string]any{}
	for k, v := range l {
		if k != api.LabelMesh {
			out[k] = v
		}
	}
	return out
}

// policyType is the kind a case is about: the one that is not MeshHTTPRoute.
func policyType(objects []Policy) string {
	for _, p := range objects {
		if p.Type != refMeshHTTPRoute {
			return p.Type
		}
	}
	return refMeshHTTPRoute
}

func (e *Engine) dataplanePoliciesCase(t *testing.T, dp Dataplane, objects []Policy, golden map[string]any) (got, want any) {
	m, err := e.MatchedPolicies(policyType(objects), dp, objects)
	if err != nil {
		return err.Error(), golden
	}
	names := []string{}
	for _, p := range m.Policies {
		names = append(names, p.Type+"/"+p.Mesh+"/"+p.Name)
	}
	items, _ := golden["items"].([]any)
	wantNames := []string{}
	for _, it := range items {
		wantNames = append(wantNames, originString(it))
	}
	return names, wantNames
}

func (e *Engine) matcherFromCase(t *testing.T, dp Dataplane, objects []Policy, golden map[string]any) (got, want any) {
	m, err := e.MatchedPolicies(api.KindMeshTrafficPermission, dp, objects)
	if err != nil {
		return err.Error(), golden
	}
	g := map[string]any{}
	for l, fr := range m.FromRules {
		g[string(l)] = map[string]any{"rules": rulesView(fr.Rules), "inbound": inboundView(fr.InboundRules)}
	}
	w := map[string]any{}
	gr, _ := golden["Rules"].(map[string]any)
	gi, _ := golden["InboundRules"].(map[string]any)
	keys := map[string]bool{}
	for k := range gr {
		keys[k] = true
	}
	for k := range gi {
		keys[k] = true
	}
	for k := range keys {
		w[k] = map[string]any{"rules": goldenRules(gr[k]), "inbound": goldenInbound(gi[k])}
	}
	return g, w
}

func (e *Engine) matcherToCase(t *testing.T, dp Dataplane, objects []Policy, golden map[string]any) (got, want any) {
	m, err := e.MatchedPolicies(policyType(objects), dp, objects)
	if err != nil {
		return err.Error(), golden
	}
	rr, _ := golden["ResourceRules"].(map[string]any)
	return map[string]any{"rules": rulesView(m.ToRules.Rules), "resources": resourceRulesView(m.ToRules.ResourceRules)},
		map[string]any{"rules": goldenRules(golden["Rules"]), "resources": goldenResourceRules(rr)}
}

// matcherGatewayCase compares Kuma's GatewayRules of a builtin gateway for
// MeshAccessLog (Kuma's test passes that kind): the from and inbound rules per
// listener and the to rules per listener and per listener and hostname.
func (e *Engine) matcherGatewayCase(t *testing.T, dp Dataplane, objects []Policy, golden map[string]any) (got, want any) {
	m, err := e.MatchedPolicies(api.KindMeshAccessLog, dp, objects)
	if err != nil || m.Gateway == nil {
		return fmt.Sprint("no gateway rules: ", err), golden
	}
	from, inbound := map[string]any{}, map[string]any{}
	for l, fr := range m.FromRules {
		from[string(l)], inbound[string(l)] = rulesView(fr.Rules), inboundView(fr.InboundRules)
	}
	byListener, byHost := map[string]any{}, map[string]any{}
	for l, tr := range m.Gateway.ByListener {
		byListener[string(l)] = toView(tr)
	}
	for h, tr := range m.Gateway.ByListenerAndHostname {
		byHost[string(h)] = toView(tr)
	}
	got = map[string]any{"from": from, "inbound": inbound, "byListener": byListener, "byHost": byHost}
	wFrom, wInbound, wListener, wHost := map[string]any{}, map[string]any{}, map[string]any{}, map[string]any{}
	gf, _ := golden["FromRules"].(map[string]any)
	for l, v := range gf {
		wFrom[l] = goldenRules(v)
	}
	gi, _ := golden["InboundRules"].(map[string]any)
	for l, v := range gi {
		wInbound[l] = goldenInbound(v)
	}
	gt, _ := golden["ToRules"].(map[string]any)
	gl, _ := gt["ByListener"].(map[string]any)
	for l, v := range gl {
		wListener[l] = goldenToView(v)
	}
	gh, _ := gt["ByListenerAndHostname"].(map[string]any)
	for h, v := range gh {
		wHost[h] = goldenToView(v)
	}
	return got, map[string]any{"from": wFrom, "inbound": wInbound, "byListener": wListener, "byHost": wHost}
}

func toView(tr ToRules) any {
	return map[string]any{"rules": rulesView(tr.Rules), "resources": resourceRulesView(tr.ResourceRules)}
}

func goldenToView(v any) any {
	m, _ := v.(map[string]any)
	rr, _ := m["ResourceRules"].(map[string]any)
	return map[string]any{"rules": goldenRules(m["Rules"]), "resources": goldenResourceRules(rr)}
}
