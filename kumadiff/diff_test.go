package kumadiff

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumainspect"
	"github.com/meshguard/meshguard/kumarules"
)

// base is a mesh in Exclusive mode with web-1..web-3 and backend-1 and their
// MeshServices, in Universal format.
func base(extra ...string) string {
	docs := []string{`type: Mesh
name: default
meshServices:
  mode: Exclusive`}
	for i, app := range []string{"web", "web", "web", "backend"} {
		n := i + 1
		if app == "backend" {
			n = 1
		}
		docs = append(docs, fmt.Sprintf(`type: Dataplane
name: %s-%d
mesh: default
labels:
  app: %s
networking:
  address: 10.0.0.%d
  inbound:
    - port: 8080
      name: http
      tags:
        kuma.io/service: %s
        kuma.io/protocol: http`, app, n, app, i+10, app))
	}
	for _, svc := range []string{"web", "backend"} {
		docs = append(docs, fmt.Sprintf(`type: MeshService
name: %s
mesh: default
spec:
  selector:
    dataplaneTags:
      kuma.io/service: %s
  ports:
    - name: http
      port: 80
      targetPort: 8080
      appProtocol: http`, svc, svc))
	}
	return strings.Join(append(docs, extra...), "\n---\n")
}

func store(t *testing.T, text string) *kumainspect.Store {
	t.Helper()
	reg := api.DefaultRegistry()
	objs, err := kumainspect.Decode(strings.NewReader(text), "test", reg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := kumainspect.NewStore(objs, reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func timeout(name, target, to, conf string) string {
	return fmt.Sprintf(`type: MeshTimeout
name: %s
mesh: default
spec:
  targetRef:
    %s
  to:
    - targetRef:
        %s
      default:
        %s`, name, target, to, conf)
}

func TestCompareGroupsProxiesThatChangeAlike(t *testing.T) {
	old := store(t, base(timeout("defaults", "kind: Mesh", "kind: Mesh", "connectionTimeout: 5s")))
	now := store(t, base(timeout("defaults", "kind: Mesh", "kind: Mesh", "connectionTimeout: 5s"),
		timeout("web-backend", "{kind: Dataplane, labels: {app: web}}", "{kind: MeshService, name: backend}", "connectionTimeout: 2s")))
	r := Compare(old, now, Options{})
	if r.Compared != 4 || r.Changed != 3 || len(r.Changes) != 1 {
		t.Fatalf("report: %+v", r)
	}
	c := r.Changes[0]
	if c.Kind != "MeshTimeout" || c.Scope != ScopeOutbound || c.Field != "connectionTimeout" || c.Change != Changed ||
		c.Old != "5s" || c.New != "2s" || strings.Join(c.Proxies, ",") != "web-1,web-2,web-3" {
		t.Errorf("change: %+v", c)
	}
	if c.Before == nil || c.Before.Policy != "defaults" || c.Before.Path != "spec.to[0]" || c.After == nil || c.After.Policy != "web-backend" {
		t.Errorf("deciders: before %+v after %+v", c.Before, c.After)
	}
	if c.Where != "the outbound to MeshService backend port http" {
		t.Errorf("where: %q", c.Where)
	}
	want := "MeshTimeout connectionTimeout: 5s → 2s on the outbound to MeshService backend port http of 3 proxies: web-1, web-2, web-3"
	if c.Line() != want {
		t.Errorf("line:\n %s\nwant\n %s", c.Line(), want)
	}
}

func TestCompareEveryScope(t *testing.T) {
	trace := `type: MeshTrace
name: trace
mesh: default
spec:
  targetRef:
    kind: Mesh
  default:
    sampling:
      overall: 50`
	inbound := `type: MeshTimeout
name: inbound
mesh: default
spec:
  targetRef:
    kind: Mesh
  rules:
    - default:
        idleTimeout: %s`
	old := store(t, base(fmt.Sprintf(inbound, "1h"), timeout("retry-less", "kind: Mesh", "kind: Mesh", "http: {requestTimeout: 15s}")))
	now := store(t, base(trace, fmt.Sprintf(inbound, "2h")))
	r := Compare(old, now, Options{})
	got := map[string]Change{}
	for _, c := range r.Changes {
		got[c.Kind+" "+c.Scope+" "+c.Field+" "+c.Change] = c
	}
	for _, k := range []string{
		"MeshTrace proxy sampling.overall added",
		"MeshTimeout inbound idleTimeout changed",
		"MeshTimeout outbound http.requestTimeout removed",
	} {
		c, ok := got[k]
		if !ok {
			t.Errorf("no change %q among %v", k, keys(got))
			continue
		}
		if len(c.Proxies) != 4 {
			t.Errorf("%s: proxies %v", k, c.Proxies)
		}
	}
	if c := got["MeshTimeout inbound idleTimeout changed"]; c.Where != "the inbound http (port 8080)" || c.Target != "http" {
		t.Errorf("inbound change: %+v", c)
	}
	if c := got["MeshTimeout outbound http.requestTimeout removed"]; c.New != nil || c.Old != "15s" || c.After != nil || c.Before == nil {
		t.Errorf("removed change: %+v", c)
	}
}

func keys(m map[string]Change) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestCompareListsProxiesOfOneSetAndBoundsTheWork(t *testing.T) {
	extra := `type: Dataplane
name: extra-1
mesh: default
networking:
  address: 10.0.0.99
  inbound:
    - port: 9090
      tags:
        kuma.io/service: extra`
	old := store(t, base(extra))
	now := store(t, base(timeout("t", "kind: Mesh", "kind: Mesh", "connectionTimeout: 1s")))
	r := Compare(old, now, Options{MaxProxies: 2})
	if strings.Join(r.RemovedProxies, ",") != "extra-1" || len(r.AddedProxies) != 0 {
		t.Errorf("added %v removed %v", r.AddedProxies, r.RemovedProxies)
	}
	if r.Compared != 2 || r.Limit == "" || !strings.Contains(r.Summary(), "not every proxy compared") {
		t.Errorf("limit: compared %d, %q, %q", r.Compared, r.Limit, r.Summary())
	}
}

func TestCompareSaysWhichProxiesItCouldNotCompare(t *testing.T) {
	text := base()
	withoutMesh := text[strings.Index(text, "---")+4:]
	r := Compare(store(t, text), store(t, withoutMesh), Options{})
	if len(r.NotCompared) != 4 || !strings.Contains(r.NotCompared[0], `mesh "default" is not in the input`) {
		t.Errorf("not compared: %v", r.NotCompared)
	}
}

func TestCompareSkipsKinds(t *testing.T) {
	mtp := `type: MeshTrafficPermission
name: allow
mesh: default
spec:
  targetRef:
    kind: Mesh
  from:
    - targetRef:
        kind: Mesh
      default:
        action: Allow`
	old, now := store(t, base()), store(t, base(mtp))
	if r := Compare(old, now, Options{SkipKinds: []string{"MeshTrafficPermission"}}); len(r.Changes) != 0 {
		t.Errorf("skipped kind reported: %+v", r.Changes)
	}
	if r := Compare(old, now, Options{}); len(r.Changes) == 0 {
		t.Error("MeshTrafficPermission not compared when not skipped")
	}
}

func TestProxiesTextAbbreviates(t *testing.T) {
	c := Change{Proxies: []string{"shop/a", "shop/b", "web/c", "web/d", "web/e"}, Namespaces: []string{"shop", "web"}}
	if got, want := c.ProxiesText(), "5 proxies in shop, web: shop/a, shop/b, web/c and 2 more"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestCompareSelectsProxies(t *testing.T) {
	old := store(t, base(timeout("t", "kind: Mesh", "kind: Mesh", "connectionTimeout: 5s")))
	now := store(t, base(timeout("t", "kind: Mesh", "kind: Mesh", "connectionTimeout: 1s")))
	r := Compare(old, now, Options{Select: func(p kumarules.Dataplane) bool { return p.Name == "backend-1" }})
	if r.Compared != 1 || r.Changed != 1 || len(r.Changes) != 2 || strings.Join(r.Changes[0].Proxies, ",") != "backend-1" {
		t.Errorf("report: %+v", r)
	}
}

// TestCompareRoutes: a policy that targets a MeshHTTPRoute changes the route's
// conf, told with the route's scope and words, not as an outbound change.
func TestCompareRoutes(t *testing.T) {
	route := `type: MeshHTTPRoute
name: to-backend
mesh: default
spec:
  targetRef:
    kind: Mesh
  to:
    - targetRef:
        kind: MeshService
        name: backend
      rules:
        - matches: [{path: {type: PathPrefix, value: /api}}]
          default:
            backendRefs: [{kind: MeshService, name: backend, port: 80}]`
	onRoute := `type: MeshTimeout
name: on-route
mesh: default
spec:
  targetRef:
    kind: Mesh
  to:
    - targetRef:
        kind: MeshHTTPRoute
        name: to-backend
      default:
        http: {requestTimeout: %s}`
	r := Compare(store(t, base(route, fmt.Sprintf(onRoute, "10s"))), store(t, base(route, fmt.Sprintf(onRoute, "20s"))), Options{})
	if len(r.Changes) != 1 {
		t.Fatalf("changes %+v, want the route's requestTimeout alone", r.Changes)
	}
	c := r.Changes[0]
	if c.Scope != ScopeRoute || c.Kind != "MeshTimeout" || c.Field != "http.requestTimeout" || c.Old != "10s" || c.New != "20s" ||
		c.Target != "kri_mhttpr_default___to-backend_" || c.Where != "the route to-backend of the outbound to MeshService backend port http" {
		t.Errorf("change %+v", c)
	}
}

// TestCompareGatewayListeners: a builtin gateway proxy's listeners are compared
// rule by rule: a MeshTimeout that changes on the TCP listener only is one change
// on that listener's to rules, named by port, hostname and destination.
func TestCompareGatewayListeners(t *testing.T) {
	example, err := os.ReadFile("../examples/inspect/gateway/gateway.yaml")
	if err != nil {
		t.Fatal(err)
	}
	old := string(example)
	now := strings.Replace(old, "idleTimeout: 5m", "idleTimeout: 2m", 1)
	if now == old {
		t.Fatal("the example no longer sets the TCP listener's idleTimeout to 5m")
	}
	r := Compare(store(t, old), store(t, now), Options{})
	if len(r.Changes) != 1 {
		t.Fatalf("changes %+v, want the TCP listener's idleTimeout alone", r.Changes)
	}
	c := r.Changes[0]
	if c.Scope != ScopeListener || c.Kind != "MeshTimeout" || c.Field != "idleTimeout" || c.Old != "5m0s" || c.New != "2m0s" ||
		c.Target != "9000 *" || c.Rule != "to every destination" || c.Where != "the gateway listener on port 9000 (TCP, hostname *)" ||
		strings.Join(c.Proxies, ",") != "edge-1" || c.After == nil || c.After.Policy != "tcp-listener" {
		t.Errorf("change %+v (after %+v)", c, c.After)
	}
}
