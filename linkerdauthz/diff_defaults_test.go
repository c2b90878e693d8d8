package linkerdauthz

import (
	"strings"
	"testing"
)

// The objects of TestDiffDefaultPrecedence: a namespace shop, a workload web
// with one declared port, a Server for it that admits only the gateway, and the
// annotations that change the default inbound policy.
const (
	shopNS = `apiVersion: v1
kind: Namespace
metadata: {name: shop, annotations: {config.linkerd.io/default-inbound-policy: %s}}
`
	webDeploy = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  template:
    metadata:
      labels: {app: web}
      annotations: {%s}
    spec:
      containers: [{name: web, ports: [{containerPort: 8080, name: http}]}]
`
	shopWebServer = `apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: web-http, namespace: shop}
spec:
  podSelector: {matchLabels: {app: web}}
  port: 8080
---
apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: {name: web-gateway, namespace: shop}
spec:
  targetRef: {group: policy.linkerd.io, kind: Server, name: web-http}
  requiredAuthenticationRefs:
    - {group: policy.linkerd.io, kind: MeshTLSAuthentication, name: gateway}
---
apiVersion: policy.linkerd.io/v1alpha1
kind: MeshTLSAuthentication
metadata: {name: gateway, namespace: shop}
spec:
  identities: [gateway.shop.serviceaccount.identity.linkerd.cluster.local]
`
)

func shopSet(nsMode, podAnnotations string, withServer bool) string {
	s := strings.Replace(shopNS, "%s", nsMode, 1) + "---\n" + strings.Replace(webDeploy, "%s", podAnnotations, 1)
	if withServer {
		s += "---\n" + shopWebServer
	}
	return s
}

// TestDiffDefaultPrecedence: a Server in one set only is compared with what its
// pods get without it, in Linkerd's precedence (the pod's own
// default-inbound-policy, then the Namespace's, then the cluster's, with ports
// in proxy-require-identity-inbound-ports authenticated), and a workload's
// default view that a new Server replaces is not compared with the cluster
// default.
func TestDiffDefaultPrecedence(t *testing.T) {
	allUnauth := "config.linkerd.io/default-inbound-policy: all-unauthenticated"
	for _, tt := range []struct {
		name     string
		old, new string
		o        Options
		widens   bool
		want     []string // in the rendered changes
		none     bool     // no change at all
	}{
		{"a Server replacing a workload's default view leaves the view unchanged under the namespace's deny",
			shopSet("deny", "", false), shopSet("deny", "", true), Options{}, true,
			[]string{"shop/web-http widened [service account shop/gateway]"}, false},
		{"removing a Server from a pod annotated all-unauthenticated widens",
			shopSet("deny", allUnauth, true), shopSet("deny", allUnauth, false), Options{}, true,
			[]string{"shop/web-http widened", "all-unauthenticated (annotation on Deployment/web)"}, false},
		{"removing a Server from a pod of a deny namespace narrows only",
			shopSet("deny", "", true), shopSet("deny", "", false), Options{}, false,
			[]string{"shop/web-http narrowed [service account shop/gateway]", "deny (annotation on Namespace shop)"}, false},
		{"adding a Server to a pod of a deny namespace opens it to the gateway only",
			shopSet("deny", "", false), shopSet("deny", "", true), Options{}, true,
			[]string{"shop/web-http widened", "deny (annotation on Namespace shop)"}, false},
		{"adding a Server in an all-unauthenticated namespace under a deny cluster default narrows only",
			shopSet("all-unauthenticated", "", false), shopSet("all-unauthenticated", "", true), Options{DefaultPolicy: "deny"}, false,
			[]string{"shop/web-http narrowed", "all-unauthenticated (annotation on Namespace shop)"}, false},
		{"a port that requires identity gets the authenticated default",
			shopSet("deny", allUnauth+`, config.linkerd.io/proxy-require-identity-inbound-ports: "8000-8100"`, true),
			shopSet("deny", allUnauth+`, config.linkerd.io/proxy-require-identity-inbound-ports: "8000-8100"`, false), Options{}, true,
			[]string{"all-authenticated (annotation on Deployment/web, port 8080 in config.linkerd.io/proxy-require-identity-inbound-ports"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ds := Diff(objects(t, tt.old), objects(t, tt.new), tt.o, 0)
			var b strings.Builder
			widens := false
			for _, d := range ds {
				widens = widens || d.Widens()
				for _, c := range d.Changes {
					b.WriteString(d.Ref() + " " + c.Kind + " [" + strings.Join(c.Clients, "; ") + "] " + c.Old.By + " -> " + c.New.By + "\n")
				}
			}
			got := b.String()
			if widens != tt.widens {
				t.Errorf("widens = %v, want %v\n%s", widens, tt.widens, got)
			}
			if tt.none && got != "" {
				t.Errorf("want no change, got\n%s", got)
			}
			if strings.Contains(got, "shop/Deployment/web") {
				t.Errorf("the workload's default view is compared with another default than its own:\n%s", got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("changes lack %q:\n%s", w, got)
				}
			}
		})
	}
}

// TestDecideRequireIdentityPort: check answers for a port listed in the pod's
// proxy-require-identity-inbound-ports with the authenticated form of the
// default (Linkerd's policy controller), other ports with the default itself.
func TestDecideRequireIdentityPort(t *testing.T) {
	objs := objects(t, shopSet("deny", `config.linkerd.io/default-inbound-policy: all-unauthenticated, config.linkerd.io/proxy-require-identity-inbound-ports: "8080"`, false))
	plain, err := ParseCaller("", "10.1.2.3", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		port  string
		allow bool
		words string
	}{
		{"http", false, "all-authenticated"},
		{"9090", true, "all-unauthenticated"},
	} {
		dst := Destination{Namespace: "shop", Workload: "Deployment/web", PortName: tt.port}
		if tt.port == "9090" {
			dst.PortName, dst.Port = "", 9090
		}
		d, err := Decide(objs, plain, dst, Request{}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if d.Allow != tt.allow || !strings.Contains(d.Decider.Words, tt.words) {
			t.Errorf("port %s: allow %v by %q, want %v by %s", tt.port, d.Allow, d.Decider.Words, tt.allow, tt.words)
		}
	}
}

// TestDefaultPolicyFromPodTemplateOnly: Linkerd reads the default inbound
// policy from the pod (the injector copies the Namespace's onto it); an
// annotation on the Deployment's own metadata never reaches the pod, so the
// Namespace's default decides.
func TestDefaultPolicyFromPodTemplateOnly(t *testing.T) {
	set := strings.Replace(shopSet("deny", "", false), "metadata: {name: web, namespace: shop}",
		"metadata: {name: web, namespace: shop, annotations: {config.linkerd.io/default-inbound-policy: all-unauthenticated}}", 1)
	plain, err := ParseCaller("", "10.1.2.3", "")
	if err != nil {
		t.Fatal(err)
	}
	d, err := Decide(objects(t, set), plain, Destination{Namespace: "shop", Workload: "Deployment/web", Port: 8080}, Request{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Allow || !strings.Contains(d.Decider.Words, "Namespace shop") {
		t.Errorf("allow %v by %q, want DENY by the Namespace's annotation", d.Allow, d.Decider.Words)
	}
}
