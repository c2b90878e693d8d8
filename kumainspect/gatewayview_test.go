package kumainspect

import (
	"bytes"
	"strings"
	"testing"
)

const gatewayExample = "../examples/inspect/gateway/gateway.yaml"

// TestGatewayViewListenerByListener: a builtin gateway proxy is shown listener by
// listener as Kuma configures it: routes per listener and hostname (the
// api.example.com listener gets the vhost route and the one for every listener,
// the wildcard one only the latter), the other kinds per listener with the
// listener-tagged MeshTimeout last in merge order (so it decides on the TCP
// listener), and each listener's inbound rules.
func TestGatewayViewListenerByListener(t *testing.T) {
	e, _ := effectsOf(t, gatewayExample)
	v, err := e.store.View("default", "edge-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Listeners) != 3 {
		t.Fatalf("listeners %+v, want 3", v.Listeners)
	}
	routes := func(l GatewayListener) string {
		for _, en := range l.To {
			if en.Kind == "MeshHTTPRoute" {
				return jsonOf(en.Conf)
			}
		}
		return ""
	}
	wild, api, tcp := v.Listeners[0], v.Listeners[1], v.Listeners[2]
	if wild.Hostname != "*" || api.Hostname != "api.example.com" || tcp.Port != 9000 || tcp.Protocol != "TCP" {
		t.Errorf("listeners %+v %+v %+v", wild, api, tcp)
	}
	if r := routes(wild); !strings.Contains(r, "/api") || strings.Contains(r, "/v2") {
		t.Errorf("wildcard listener routes %s, want /api only", r)
	}
	if r := routes(api); !strings.Contains(r, "/api") || !strings.Contains(r, "/v2") {
		t.Errorf("api.example.com listener routes %s, want /v2 and /api", r)
	}
	j := jsonOf(v.KumaJSON()["gatewayListeners"])
	if !strings.Contains(j, `"port":9000,"protocol":"TCP","hostname":"*","tags":{"port":"tcp"}`) ||
		!strings.Contains(j, `{"destination":"every destination","conf":{"http":{"requestTimeout":"15s"},"idleTimeout":"5m0s"},"kind":"MeshTimeout"`) {
		t.Errorf("-o json gatewayListeners: %s", j)
	}
	var b bytes.Buffer
	if err := v.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"gateway listener port 9000 TCP hostname * (port=tcp) to every destination\n",
		"    idleTimeout: 5m0s  ← tcp-listener spec.to[0], over gateway-timeouts spec.to[0]\n",
		"gateway listener port 8080 HTTP hostname api.example.com (port=http,vhost=api) inbound\n",
		"    1. ← gateway-logs spec.rules[0]\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}

// TestGatewayListenerPoliciesDecide: a policy that decides only on a gateway
// listener (tcp-listener's idleTimeout, overridden on the outbound's resource
// rule) decides, so MG451 does not call it useless.
func TestGatewayListenerPoliciesDecide(t *testing.T) {
	e, objs := effectsOf(t, gatewayExample)
	if p := e.Of(objs["tcp-listener"]); p == nil || !p.Decides {
		t.Errorf("tcp-listener: %+v, want it to decide", p)
	}
}
