package linkerdauthz

import (
	"slices"
	"strings"
	"testing"
)

const webServer = `apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: web-http, namespace: shop, labels: {tier: front}}
spec:
  podSelector: {matchLabels: {app: web}}
  port: http
  proxyProtocol: HTTP/1
`

// clusterWords is how a client row shows Linkerd's default clusterNetworks: what
// a ServerAuthorization without networks admits from.
const clusterWords = "10.0.0.0/8; 100.64.0.0/10; 172.16.0.0/12; 192.168.0.0/16; fd00::/8"

// TestServerPreview covers the seed's cases, one Server each, by the client lines
// the preview gives.
func TestServerPreview(t *testing.T) {
	cases := []struct {
		name  string
		extra string
		ref   string
		want  []string
		note  string
	}{
		{name: "no authorization denies", ref: "shop/web-http",
			want: []string{"no one | Server accessPolicy default deny"}},
		{name: "accessPolicy fallback", ref: "shop/api",
			extra: `apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: api, namespace: shop}
spec: {podSelector: {matchLabels: {app: api}}, port: 8080, accessPolicy: cluster-authenticated}`,
			want: []string{"any meshed (mTLS) client from 10.0.0.0/8; 100.64.0.0/10; 172.16.0.0/12; 192.168.0.0/16; fd00::/8 | Server accessPolicy cluster-authenticated"}},
		{name: "accessPolicy adds its clients to the authorizations, as Linkerd's policy controller does", ref: "shop/api",
			extra: `apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: api, namespace: shop}
spec: {podSelector: {matchLabels: {app: api}}, port: 8080, accessPolicy: all-authenticated}
---
apiVersion: policy.linkerd.io/v1beta1
kind: ServerAuthorization
metadata: {name: api-lan, namespace: shop}
spec: {server: {name: api}, client: {unauthenticated: true, networks: [{cidr: 10.0.0.0/8}]}}`,
			want: []string{
				"anyone, meshed or not from 10.0.0.0/8 | ServerAuthorization shop/api-lan",
				"any meshed (mTLS) client from any network | Server accessPolicy all-authenticated"}},
		{name: "accessPolicy deny beside authorizations adds no one", ref: "shop/api",
			extra: `apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: api, namespace: shop}
spec: {podSelector: {matchLabels: {app: api}}, port: 8080, accessPolicy: deny}
---
apiVersion: policy.linkerd.io/v1beta1
kind: ServerAuthorization
metadata: {name: api-lan, namespace: shop}
spec: {server: {name: api}, client: {unauthenticated: true, networks: [{cidr: 10.0.0.0/8}]}}`,
			want: []string{"anyone, meshed or not from 10.0.0.0/8 | ServerAuthorization shop/api-lan"}},
		{name: "v1beta1 Server has no accessPolicy", ref: "shop/old",
			extra: `apiVersion: policy.linkerd.io/v1beta1
kind: Server
metadata: {name: old, namespace: shop}
spec: {podSelector: {matchLabels: {app: old}}, port: 80}`,
			want: []string{"no one | Server v1beta1 Server (no accessPolicy) deny"}},
		{name: "ServerAuthorization by name, meshTLS identities and service accounts", ref: "shop/web-http",
			extra: `apiVersion: policy.linkerd.io/v1beta1
kind: ServerAuthorization
metadata: {name: web-mtls, namespace: shop}
spec:
  server: {name: web-http}
  client:
    meshTLS:
      identities: ["*.ops.serviceaccount.identity.linkerd.cluster.local", "*"]
      serviceAccounts: [{name: gateway}, {name: prom, namespace: monitoring}]`,
			want: []string{
				"identity *.ops.serviceaccount.identity.linkerd.cluster.local from " + clusterWords + " | ServerAuthorization shop/web-mtls",
				"any meshed (mTLS) client from " + clusterWords + " | ServerAuthorization shop/web-mtls",
				"service account shop/gateway from " + clusterWords + " | ServerAuthorization shop/web-mtls",
				"service account monitoring/prom from " + clusterWords + " | ServerAuthorization shop/web-mtls"}},
		{name: "ServerAuthorization by selector, unauthenticated from networks with except", ref: "shop/web-http",
			extra: `apiVersion: policy.linkerd.io/v1beta1
kind: ServerAuthorization
metadata: {name: lan, namespace: shop}
spec:
  server: {selector: {matchLabels: {tier: front}}}
  client:
    unauthenticated: true
    networks: [{cidr: 10.0.0.0/8, except: [10.1.0.0/16]}, {cidr: "192.168.1.1"}]`,
			want: []string{"anyone, meshed or not from 10.0.0.0/8 minus 10.1.0.0/16; 192.168.1.1 | ServerAuthorization shop/lan"}},
		{name: "selector that does not match leaves the Server denied", ref: "shop/web-http",
			extra: `apiVersion: policy.linkerd.io/v1beta1
kind: ServerAuthorization
metadata: {name: back, namespace: shop}
spec: {server: {selector: {matchLabels: {tier: back}}}, client: {unauthenticated: true}}`,
			want: []string{"no one | Server accessPolicy default deny"}},
		{name: "AuthorizationPolicy with MeshTLSAuthentication and NetworkAuthentication", ref: "shop/web-http",
			extra: `apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: {name: web-ap, namespace: shop}
spec:
  targetRef: {group: policy.linkerd.io, kind: Server, name: web-http}
  requiredAuthenticationRefs:
    - {group: policy.linkerd.io, kind: MeshTLSAuthentication, name: clients}
    - {group: policy.linkerd.io, kind: NetworkAuthentication, name: office}
---
apiVersion: policy.linkerd.io/v1alpha1
kind: MeshTLSAuthentication
metadata: {name: clients, namespace: shop}
spec:
  identityRefs: [{kind: ServiceAccount, name: cart}, {kind: Namespace, name: ops}]
---
apiVersion: policy.linkerd.io/v1alpha1
kind: NetworkAuthentication
metadata: {name: office, namespace: shop}
spec: {networks: [{cidr: 172.16.0.0/12, except: [172.16.5.0/24]}]}`,
			want: []string{
				"service account shop/cart from 172.16.0.0/12 minus 172.16.5.0/24 | AuthorizationPolicy shop/web-ap (MeshTLSAuthentication shop/clients, NetworkAuthentication shop/office)",
				"service accounts of namespace ops from 172.16.0.0/12 minus 172.16.5.0/24 | AuthorizationPolicy shop/web-ap (MeshTLSAuthentication shop/clients, NetworkAuthentication shop/office)"}},
		{name: "AuthorizationPolicy with a ServiceAccount ref", ref: "shop/web-http",
			extra: `apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: {name: sa, namespace: shop}
spec:
  targetRef: {group: policy.linkerd.io, kind: Server, name: web-http}
  requiredAuthenticationRefs: [{kind: ServiceAccount, name: cart, namespace: checkout}]`,
			want: []string{"service account checkout/cart from any network | AuthorizationPolicy shop/sa (ServiceAccount checkout/cart)"}},
		{name: "NetworkAuthentication only admits unauthenticated clients", ref: "shop/web-http",
			extra: `apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: {name: net, namespace: shop}
spec:
  targetRef: {group: policy.linkerd.io, kind: Server, name: web-http}
  requiredAuthenticationRefs: [{group: policy.linkerd.io, kind: NetworkAuthentication, name: lan-net}]
---
apiVersion: policy.linkerd.io/v1alpha1
kind: NetworkAuthentication
metadata: {name: lan-net, namespace: shop}
spec: {networks: [{cidr: 10.0.0.0/8}]}`,
			want: []string{"anyone, meshed or not from 10.0.0.0/8 | AuthorizationPolicy shop/net (NetworkAuthentication shop/lan-net)"}},
		{name: "missing MeshTLSAuthentication: policy ignored", ref: "shop/web-http",
			extra: `apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: {name: ghost, namespace: shop}
spec:
  targetRef: {group: policy.linkerd.io, kind: Server, name: web-http}
  requiredAuthenticationRefs: [{group: policy.linkerd.io, kind: MeshTLSAuthentication, name: nope}]`,
			want: []string{"no one | AuthorizationPolicy shop/ghost (MeshTLSAuthentication shop/nope)", "no one | Server accessPolicy default deny"},
			note: "not in the linted set"},
		{name: "namespace-wide policy", ref: "shop/web-http",
			extra: `apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: {name: ns-wide, namespace: shop}
spec:
  targetRef: {kind: Namespace, name: shop}
  requiredAuthenticationRefs: [{group: policy.linkerd.io, kind: MeshTLSAuthentication, name: all}]
---
apiVersion: policy.linkerd.io/v1alpha1
kind: MeshTLSAuthentication
metadata: {name: all, namespace: shop}
spec: {identities: ["*"]}`,
			want: []string{"any meshed (mTLS) client from any network | AuthorizationPolicy shop/ns-wide (MeshTLSAuthentication shop/all)"}},
		{name: "route-level policy attributed to the parent Server", ref: "shop/web-http",
			extra: `apiVersion: policy.linkerd.io/v1beta3
kind: HTTPRoute
metadata: {name: probes, namespace: shop}
spec: {parentRefs: [{group: policy.linkerd.io, kind: Server, name: web-http}]}
---
apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: {name: probe-ap, namespace: shop}
spec:
  targetRef: {group: policy.linkerd.io, kind: HTTPRoute, name: probes}
  requiredAuthenticationRefs: []`,
			want: []string{"anyone, meshed or not from any network on HTTPRoute shop/probes only | AuthorizationPolicy shop/probe-ap",
				"no one | Server accessPolicy default deny"},
			note: "probe paths need a route"},
		{name: "a route without a policy still closes the probe paths", ref: "shop/web-http",
			extra: `apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: rpc, namespace: shop}
spec: {parentRefs: [{group: policy.linkerd.io, kind: Server, name: web-http}]}`,
			want: []string{"no one | Server accessPolicy default deny"},
			note: "probe paths need a route"},
		{name: "a policy on a GRPCRoute of policy.linkerd.io (no such kind) authorizes nothing", ref: "shop/web-http",
			extra: `apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: rpc, namespace: shop}
spec: {parentRefs: [{group: policy.linkerd.io, kind: Server, name: web-http}]}
---
apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: {name: rpc-ap, namespace: shop}
spec:
  targetRef: {group: policy.linkerd.io, kind: GRPCRoute, name: rpc}
  requiredAuthenticationRefs: []`,
			want: []string{"no one | Server accessPolicy default deny"}},
		{name: "a Gateway API route naming a Server without a group has a Gateway parent, not the Server", ref: "shop/web-http",
			extra: `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: probes, namespace: shop}
spec: {parentRefs: [{kind: Server, name: web-http}]}
---
apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: {name: probe-ap, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: probes}
  requiredAuthenticationRefs: []`,
			want: []string{"no one | Server accessPolicy default deny"}},
		{name: "route not in the set", ref: "shop/HTTPRoute/elsewhere",
			extra: `apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: {name: r, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: elsewhere}
  requiredAuthenticationRefs: []`,
			want: []string{"anyone, meshed or not from any network | AuthorizationPolicy shop/r"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ps := Build(objects(t, webServer+"---\n"+c.extra), Options{})
			p := find(t, ps, c.ref)
			if got := words(p); !slices.Equal(got, c.want) {
				t.Errorf("clients:\n got %q\nwant %q", got, c.want)
			}
			if c.note != "" && !strings.Contains(strings.Join(p.Notes, "\n"), c.note) {
				t.Errorf("notes %q lack %q", p.Notes, c.note)
			}
		})
	}
}

// TestDefaults checks where the default policy comes from: the pod template's
// annotation, else the namespace's, else the cluster default, and that ports a
// Server covers (by name or number) are left out.
func TestDefaults(t *testing.T) {
	in := webServer + `---
apiVersion: v1
kind: Namespace
metadata: {name: shop, annotations: {config.linkerd.io/default-inbound-policy: cluster-authenticated}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, ports: [{name: http, containerPort: 8080}, {name: admin, containerPort: 9990}]}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: db, namespace: shop}
spec:
  template:
    metadata: {labels: {app: db}, annotations: {config.linkerd.io/default-inbound-policy: deny}}
    spec: {containers: [{name: c, ports: [{containerPort: 5432}]}]}
`
	for _, mode := range []string{"", "all-authenticated"} {
		ps := Build(objects(t, in), Options{DefaultPolicy: mode})
		got := map[string]string{}
		for _, p := range ps {
			if p.Default {
				got[p.Ref()+" "+p.Port] = p.Policy + " | " + ClientWords(p.Clients[0])
			}
		}
		cluster := "all-unauthenticated (cluster default) | anyone, meshed or not from any network"
		if mode != "" {
			cluster = "all-authenticated (cluster default) | any meshed (mTLS) client from any network"
		}
		want := map[string]string{
			"shop ports no Server covers":      "cluster-authenticated (annotation on Namespace shop) | any meshed (mTLS) client from 10.0.0.0/8; 100.64.0.0/10; 172.16.0.0/12; 192.168.0.0/16; fd00::/8",
			"shop/Deployment/web 9990 (admin)": "cluster-authenticated (annotation on Namespace shop) | any meshed (mTLS) client from 10.0.0.0/8; 100.64.0.0/10; 172.16.0.0/12; 192.168.0.0/16; fd00::/8",
			"shop/Deployment/db 5432":          "deny (annotation on Deployment/db) | no one",
			"(cluster) ports no Server covers": cluster,
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("mode %q: %s:\n got %q\nwant %q", mode, k, got[k], v)
			}
		}
		if len(got) != len(want) {
			t.Errorf("mode %q: defaults %v", mode, got)
		}
	}
}
