package inspectscale

import (
	"fmt"
	"io"
	"strings"

	"github.com/meshguard/meshguard/api"
)

// Shape is the generated input's size: Proxies Dataplanes (one inbound each), a
// MeshService per ten of them, and Policies policies of mixed kinds.
type Shape struct {
	Proxies, Policies int
}

// services is how many MeshServices (and kuma.io/service values) the input has:
// ten proxies back each, as replicas of a workload do.
func (s Shape) services() int { return max(s.Proxies/10, 1) }

// teams is how many `team` tag values MeshSubset policies select by.
const teams = 20

// kinds are the policy kinds of the mix, one in turn.
func kinds() []string {
	return []string{api.KindMeshTimeout, api.KindMeshRetry, api.KindMeshCircuitBreaker, api.KindMeshHealthCheck,
		api.KindMeshTrafficPermission, api.KindMeshAccessLog, api.KindMeshHTTPRoute}
}

// Write writes the input in Kuma's Universal format (documents separated by
// `---`), which both `meshguard inspect` and Kuma's rest.YAML read: one Mesh with
// MeshServices in Exclusive mode, the Dataplanes (each reaching three MeshServices
// through transparentProxying.reachableBackends), the MeshServices, then the
// policies. The same shape always writes the same bytes.
func (s Shape) Write(w io.Writer) error {
	var b strings.Builder
	b.WriteString("type: Mesh\nname: default\nmeshServices:\n  mode: Exclusive\n")
	nsvc := s.services()
	for i := range s.Proxies {
		svc := i % nsvc
		fmt.Fprintf(&b, `---
type: Dataplane
name: dp-%d
mesh: default
labels:
  app: svc-%d
  team: team-%d
networking:
  address: 10.%d.%d.%d
  inbound:
    - port: 8080
      name: http
      tags:
        kuma.io/service: svc-%d
        kuma.io/protocol: http
        team: team-%d
  transparentProxying:
    redirectPortInbound: 15006
    redirectPortOutbound: 15001
    reachableBackends:
      refs:
        - kind: MeshService
          name: svc-%d
        - kind: MeshService
          name: svc-%d
        - kind: MeshService
          name: svc-%d
`, i, svc, svc%teams, i/65536, (i/256)%256, i%256, svc, svc%teams, (svc+1)%nsvc, (svc+2)%nsvc, (svc+7)%nsvc)
		if b.Len() > 1<<20 {
			if _, err := io.WriteString(w, b.String()); err != nil {
				return err
			}
			b.Reset()
		}
	}
	for svc := range nsvc {
		fmt.Fprintf(&b, `---
type: MeshService
name: svc-%d
mesh: default
spec:
  selector:
    dataplaneTags:
      kuma.io/service: svc-%d
  ports:
    - name: http
      port: 80
      targetPort: 8080
      appProtocol: http
`, svc, svc)
	}
	for i := range s.Policies {
		s.policy(&b, i)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// policy writes policy i: its kind in turn, its top-level targetRef (5% Mesh, 20%
// MeshSubset by team, 50% MeshService, 15% Dataplane by name, 10% Dataplane by
// labels), `to` items for the Mesh and one MeshService (routes: a MeshService
// rule by path), or, for a third of the kinds that have them, `rules` alone (Kuma
// refuses `to` or `from` beside `rules`).
func (s Shape) policy(b *strings.Builder, i int) {
	ks := kinds()
	kind := ks[i%len(ks)]
	nsvc := s.services()
	h := (i*7919 + 13) % nsvc // a service spread over the input
	var top string
	switch j := (i / len(ks)) % 20; {
	case j == 0:
		top = "kind: Mesh"
	case j <= 4:
		top = fmt.Sprintf("kind: MeshSubset\n    tags:\n      team: team-%d", i%teams)
	case j <= 14:
		top = fmt.Sprintf("kind: MeshService\n    name: svc-%d", h)
	case j <= 17:
		top = fmt.Sprintf("kind: Dataplane\n    name: dp-%d", (i*104729)%s.Proxies)
	default:
		top = fmt.Sprintf("kind: Dataplane\n    labels:\n      app: svc-%d", h)
	}
	dest := (h + 1 + i%3) % nsvc
	fmt.Fprintf(b, "---\ntype: %s\nname: p-%d\nmesh: default\nspec:\n  targetRef:\n    %s\n", kind, i, top)
	rules := i%3 == 0
	switch kind {
	case api.KindMeshTimeout:
		if rules {
			fmt.Fprintf(b, "  rules:\n    - default:\n        idleTimeout: %ds\n", i%100+10)
			return
		}
		fmt.Fprintf(b, "  to:\n    - targetRef:\n        kind: Mesh\n      default:\n        connectionTimeout: %ds\n        http:\n          requestTimeout: %ds\n", i%10+1, i%60+1)
		fmt.Fprintf(b, "    - targetRef:\n        kind: MeshService\n        name: svc-%d\n      default:\n        http:\n          requestTimeout: %ds\n", dest, i%30+1)
	case api.KindMeshRetry:
		fmt.Fprintf(b, "  to:\n    - targetRef:\n        kind: Mesh\n      default:\n        http:\n          numRetries: %d\n", i%5+1)
		fmt.Fprintf(b, "    - targetRef:\n        kind: MeshService\n        name: svc-%d\n      default:\n        tcp:\n          maxConnectAttempt: %d\n        http:\n          retryOn: [\"5xx\"]\n", dest, i%4+1)
	case api.KindMeshCircuitBreaker:
		if rules {
			fmt.Fprintf(b, "  rules:\n    - default:\n        connectionLimits:\n          maxPendingRequests: %d\n", i%20+1)
			return
		}
		fmt.Fprintf(b, "  to:\n    - targetRef:\n        kind: Mesh\n      default:\n        connectionLimits:\n          maxConnections: %d\n", 100+i%50)
		fmt.Fprintf(b, "    - targetRef:\n        kind: MeshService\n        name: svc-%d\n      default:\n        outlierDetection:\n          disabled: false\n          detectors:\n            totalFailures:\n              consecutive: %d\n", dest, i%7+3)
	case api.KindMeshHealthCheck:
		fmt.Fprintf(b, "  to:\n    - targetRef:\n        kind: Mesh\n      default:\n        interval: %ds\n        timeout: 2s\n        unhealthyThreshold: 3\n        healthyThreshold: 1\n        tcp:\n          disabled: false\n", i%20+5)
		fmt.Fprintf(b, "    - targetRef:\n        kind: MeshService\n        name: svc-%d\n      default:\n        http:\n          path: /health-%d\n", dest, i)
	case api.KindMeshTrafficPermission:
		if rules {
			fmt.Fprintf(b, "  rules:\n    - default:\n        allow:\n          - spiffeID:\n              type: Prefix\n              value: spiffe://default/svc-%d\n", dest)
			return
		}
		fmt.Fprintf(b, "  from:\n    - targetRef:\n        kind: Mesh\n      default:\n        action: Allow\n    - targetRef:\n        kind: MeshService\n        name: svc-%d\n      default:\n        action: Deny\n", dest)
	case api.KindMeshAccessLog:
		if rules {
			fmt.Fprintf(b, "  rules:\n    - default:\n        backends:\n          - type: File\n            file:\n              path: /var/log/in-%d.log\n", i)
			return
		}
		fmt.Fprintf(b, "  to:\n    - targetRef:\n        kind: Mesh\n      default:\n        backends:\n          - type: File\n            file:\n              path: /var/log/mesh-%d.log\n", i)
		fmt.Fprintf(b, "    - targetRef:\n        kind: MeshService\n        name: svc-%d\n      default:\n        backends:\n          - type: File\n            file:\n              path: /var/log/to-%d.log\n", dest, i)
	case api.KindMeshHTTPRoute:
		fmt.Fprintf(b, "  to:\n    - targetRef:\n        kind: MeshService\n        name: svc-%d\n      rules:\n        - matches:\n            - path:\n                type: PathPrefix\n                value: /api-%d\n          default:\n            backendRefs:\n              - kind: MeshService\n                name: svc-%d\n                port: 80\n", dest, i, dest)
	}
}
