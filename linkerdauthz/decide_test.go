package linkerdauthz

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// linkerdShop is a realistic set: a Server for the web pods' HTTP port with two
// HTTPRoutes, a route-level AuthorizationPolicy requiring a MeshTLSAuthentication,
// a Server-level one requiring a NetworkAuthentication, a ServerAuthorization for
// the metrics port, and a namespace whose default policy is all-authenticated.
const linkerdShop = `apiVersion: v1
kind: Namespace
metadata: {name: shop, annotations: {config.linkerd.io/default-inbound-policy: all-authenticated}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: web:1
          ports: [{name: http, containerPort: 8080}, {name: admin, containerPort: 9990}, {name: metrics, containerPort: 9100}]
---
apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: web-http, namespace: shop}
spec: {podSelector: {matchLabels: {app: web}}, port: http, proxyProtocol: HTTP/1}
---
apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: web-metrics, namespace: shop, labels: {metrics: "true"}}
spec: {podSelector: {matchLabels: {app: web}}, port: 9100}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web-api, namespace: shop}
spec:
  parentRefs: [{group: policy.linkerd.io, kind: Server, name: web-http}]
  rules:
    - matches: [{path: {type: PathPrefix, value: /api}}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web-public, namespace: shop}
spec:
  parentRefs: [{group: policy.linkerd.io, kind: Server, name: web-http}]
  rules:
    - matches: [{path: {type: Exact, value: /}, method: GET}]
---
apiVersion: policy.linkerd.io/v1alpha1
kind: MeshTLSAuthentication
metadata: {name: frontends, namespace: shop}
spec:
  identityRefs: [{kind: ServiceAccount, name: gateway}, {kind: Namespace, name: edge}]
---
apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: {name: api-frontends, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: web-api}
  requiredAuthenticationRefs: [{group: policy.linkerd.io, kind: MeshTLSAuthentication, name: frontends}]
---
apiVersion: policy.linkerd.io/v1alpha1
kind: NetworkAuthentication
metadata: {name: office, namespace: shop}
spec:
  networks: [{cidr: 192.168.0.0/16, except: [192.168.9.0/24]}]
---
apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: {name: office-users, namespace: shop}
spec:
  targetRef: {group: policy.linkerd.io, kind: Server, name: web-http}
  requiredAuthenticationRefs: [{group: policy.linkerd.io, kind: NetworkAuthentication, name: office}]
---
apiVersion: policy.linkerd.io/v1beta1
kind: ServerAuthorization
metadata: {name: prometheus, namespace: shop}
spec:
  server: {selector: {matchLabels: {metrics: "true"}}}
  client:
    meshTLS:
      serviceAccounts: [{name: prometheus, namespace: monitoring}]
`

// TestDecideLinkerd checks calls against the realistic set: route-level and
// Server-level authorizations, a route miss, a ServerAuthorization by selector,
// the namespace default for a port no Server takes, and network exceptions.
func TestDecideLinkerd(t *testing.T) {
	objs := objects(t, linkerdShop)
	web := Destination{Namespace: "shop", Workload: "Deployment/web"}
	type want struct {
		allow              bool
		kind, name, path   string
		authKind, authPath string
		server, route      string
		defaultPolicy      bool
	}
	for _, tt := range []struct {
		name     string
		from, ip string
		port     int64
		portName string
		req      Request
		want     want
	}{
		{"edge identity on /api", "ui.edge.serviceaccount.identity.linkerd.cluster.local", "", 0, "http", Request{"POST", "/api/orders"},
			want{true, "AuthorizationPolicy", "api-frontends", "spec.requiredAuthenticationRefs[0]", "MeshTLSAuthentication", "spec.identityRefs[1]", "shop/web-http", "HTTPRoute shop/web-api", false}},
		{"gateway service account on /api", "shop/gateway", "", 8080, "", Request{"GET", "/api"},
			want{true, "AuthorizationPolicy", "api-frontends", "spec.requiredAuthenticationRefs[0]", "MeshTLSAuthentication", "spec.identityRefs[0]", "shop/web-http", "HTTPRoute shop/web-api", false}},
		{"other identity on /api is denied", "shop/billing", "", 8080, "", Request{"GET", "/api"},
			want{false, "Server", "web-http", "", "", "", "shop/web-http", "HTTPRoute shop/web-api", false}},
		{"office network on /api via the Server-level policy", "", "192.168.1.7", 8080, "", Request{"GET", "/api/x"},
			want{true, "AuthorizationPolicy", "office-users", "spec.requiredAuthenticationRefs[0]", "NetworkAuthentication", "spec.networks", "shop/web-http", "HTTPRoute shop/web-api", false}},
		{"the office exception is denied", "", "192.168.9.7", 8080, "", Request{"GET", "/"},
			want{false, "Server", "web-http", "", "", "", "shop/web-http", "HTTPRoute shop/web-public", false}},
		{"no route matches: 404", "shop/gateway", "", 8080, "", Request{"DELETE", "/admin"},
			want{false, "Server", "web-http", "", "", "", "shop/web-http", "", false}},
		{"prometheus on metrics, from a pod address", "monitoring/prometheus", "10.244.1.7", 9100, "", Request{},
			want{true, "ServerAuthorization", "prometheus", "spec.client.meshTLS.serviceAccounts[0]", "", "", "shop/web-metrics", "", false}},
		{"prometheus on metrics from outside the cluster networks: a ServerAuthorization without networks has the cluster's", "monitoring/prometheus", "203.0.113.9", 9100, "", Request{},
			want{false, "Server", "web-metrics", "", "", "", "shop/web-metrics", "", false}},
		{"prometheus on metrics, address unknown: not decided as allowed", "monitoring/prometheus", "", 9100, "", Request{},
			want{false, "Server", "web-metrics", "", "", "", "shop/web-metrics", "", false}},
		{"meshed client on the admin port: namespace default", "shop/billing", "", 9990, "", Request{},
			want{true, "Namespace", "shop", "metadata.annotations[config.linkerd.io/default-inbound-policy]", "", "", "", "", true}},
		{"unauthenticated client on the admin port", "", "10.1.2.3", 9990, "", Request{},
			want{false, "Namespace", "shop", "metadata.annotations[config.linkerd.io/default-inbound-policy]", "", "", "", "", true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseCaller(tt.from, tt.ip, "")
			if err != nil {
				t.Fatal(err)
			}
			dst := web
			dst.Port, dst.PortName = tt.port, tt.portName
			d, err := Decide(objs, c, dst, tt.req, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := want{allow: d.Allow, kind: d.Decider.Kind, name: d.Decider.Name, path: d.Decider.Path, server: d.Server, route: d.Route, defaultPolicy: d.Default}
			if a := d.Decider.Authentication; a != nil {
				got.authKind, got.authPath = a.Kind, a.Path
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("(-want +got):\n%s\n%s\nconsidered %q notes %q", diff, d.Decider.Words, d.Considered, d.Notes)
			}
		})
	}
}

// TestDecideLinkerdDefaults checks the default inbound policy chain (workload
// annotation, namespace, cluster), accessPolicy union, and an unknown source IP
// against a network-restricted authorization.
func TestDecideLinkerdDefaults(t *testing.T) {
	objs := objects(t, `apiVersion: apps/v1
kind: Deployment
metadata: {name: db, namespace: data}
spec:
  template:
    metadata: {labels: {app: db}, annotations: {config.linkerd.io/default-inbound-policy: deny}}
    spec: {containers: [{name: db, ports: [{containerPort: 5432}]}]}
---
apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: cache, namespace: data}
spec: {podSelector: {matchLabels: {app: cache}}, port: 6379, accessPolicy: all-authenticated}
---
apiVersion: policy.linkerd.io/v1beta1
kind: ServerAuthorization
metadata: {name: lan, namespace: data}
spec:
  server: {name: cache}
  client: {unauthenticated: true, networks: [{cidr: 10.0.0.0/8}]}
`)
	sa, _ := ParseCaller("data/app", "", "")
	anon, _ := ParseCaller("", "10.3.3.3", "")
	outside, _ := ParseCaller("", "172.16.0.1", "")
	d, err := Decide(objs, sa, Destination{Namespace: "data", Workload: "Deployment/db"}, Request{}, Options{})
	if err != nil || d.Allow || d.Decider.Kind != "Deployment" || !strings.Contains(d.Decider.Words, "default is deny") {
		t.Errorf("workload annotation: %+v %v", d, err)
	}
	d, _ = Decide(objs, sa, Destination{Namespace: "other", Labels: map[string]string{"app": "x"}, Port: 80}, Request{}, Options{DefaultPolicy: "cluster-authenticated"})
	if d.Allow || !d.Default {
		t.Errorf("cluster-authenticated without an IP should not admit: %+v", d)
	}
	cache := Destination{Namespace: "data", Labels: map[string]string{"app": "cache"}, Port: 6379}
	if d, _ = Decide(objs, sa, cache, Request{}, Options{}); !d.Allow || d.Decider.Path != "spec.accessPolicy" {
		t.Errorf("accessPolicy all-authenticated admits a meshed client: %+v", d)
	}
	if d, _ = Decide(objs, anon, cache, Request{}, Options{}); !d.Allow || d.Decider.Kind != "ServerAuthorization" {
		t.Errorf("LAN client: %+v", d)
	}
	if d, _ = Decide(objs, outside, cache, Request{}, Options{}); d.Allow {
		t.Errorf("outside client: %+v", d)
	}
	noIP := Caller{Unauthenticated: true}
	if d, _ = Decide(objs, noIP, cache, Request{}, Options{}); d.Allow || len(d.Notes) == 0 || !strings.Contains(d.Notes[0], "give --from-ip") {
		t.Errorf("unknown IP: %+v", d)
	}
}

// TestParseCaller checks the client syntaxes and their errors.
func TestParseCaller(t *testing.T) {
	for _, tt := range []struct{ from, ip, want, err string }{
		{"shop/web", "", "web.shop.serviceaccount.identity.linkerd.cluster.local", ""},
		{"web.shop.serviceaccount.identity.linkerd.cluster.local", "", "web.shop.serviceaccount.identity.linkerd.cluster.local", ""},
		{"", "10.0.0.1", "", ""},
		{"", "", "", "no client"},
		{"spiffe://x/y", "", "", "neither a ServiceAccount"},
		{"web.shop.serviceaccount.identity.linkerd.example.org", "", "", "not a mesh TLS identity of trust domain cluster.local"},
		{"", "10.0.0", "", "not an IP address"},
		{"/web", "", "", "namespace/name"},
	} {
		c, err := ParseCaller(tt.from, tt.ip, "")
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q %q: err %v, want %q", tt.from, tt.ip, err, tt.err)
			}
			continue
		}
		if err != nil || c.Identity != tt.want {
			t.Errorf("%q: got %+v %v", tt.from, c, err)
		}
	}
}

// FuzzParseCaller: any --from and --from-ip is a caller or a clear error, never a
// panic; a caller is either identified or unauthenticated, not both.
func FuzzParseCaller(f *testing.F) {
	for _, s := range [][2]string{{"shop/web", ""}, {"", "10.0.0.1"}, {"a.b.serviceaccount.identity.linkerd.cluster.local", "::1"}, {"x/y/z", "1.2.3"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, from, ip string) {
		c, err := ParseCaller(from, ip, "")
		if err == nil && (c.Identity == "") == !c.Unauthenticated {
			t.Fatalf("%q %q: %+v", from, ip, c)
		}
	})
}
