package kumainspect

import (
	"fmt"
	"sort"

	"github.com/meshguard/meshguard/kumarules"
)

// gatewayBuiltin is the networking.gateway.type of a builtin gateway Dataplane.
const gatewayBuiltin = "BUILTIN"

// GatewayListener is one listener of a builtin gateway proxy, as its MeshGateway
// declares it (port, protocol, hostname, tags), with what Kuma configures it from:
// each kind's to rules from the proxy's GatewayRules (the route kinds and
// MeshHealthCheck per listener and hostname, the other kinds per listener), and
// the inbound rules of the listener's port. A builtin gateway has no inbounds and
// reaches its services through these rules, so without them the view of a
// gateway proxy said nothing about its listeners. Kuma's gateway plugins read
// the subset rules of GatewayRules (kuma.io/service destinations, whatever the
// mesh's MeshServices mode), not its resource rules: so does the view.
type GatewayListener struct {
	Port     int
	Protocol string
	Hostname string
	Tags     map[string]string
	// Inbound are the rules on the listener's port (`rules`, and `from` as
	// inbound rules or by clients), as an inbound's entries.
	Inbound []Entry
	// To are the to rules by destination (Entry.To: "every destination" or
	// kuma.io/service tags), each kind's first.
	To []Entry
}

// gatewayListeners are the listeners of the MeshGateway that serves dp, in the
// order it declares them, with what every kind gives each; nil for a proxy no
// MeshGateway serves.
func (s *Store) gatewayListeners(dp object, matched []typedMatched) []GatewayListener {
	gw, ok := kumarules.ServingGateway(*dp.dp, s.meshObjects(dp.Mesh))
	if !ok {
		return nil
	}
	conf, _ := gw.Spec["conf"].(map[string]any)
	var out []GatewayListener
	for _, l := range list(conf["listeners"]) {
		m, _ := l.(map[string]any)
		gl := GatewayListener{Port: toInt(m["port"]), Protocol: str(m["protocol"]), Hostname: str(m["hostname"]), Tags: stringMap(m["tags"])}
		if gl.Hostname == "" {
			gl.Hostname = "*"
		}
		listener := kumarules.Listener(fmt.Sprintf("%s:%d", dp.dp.Address, gl.Port))
		host := kumarules.ListenerHostname(fmt.Sprintf("%s:%s", listener, gl.Hostname))
		for _, mt := range matched {
			if e, any := s.inboundEntry(mt, listener); any {
				gl.Inbound = append(gl.Inbound, e)
			}
			if mt.res.Gateway == nil {
				continue
			}
			tr, found := mt.res.Gateway.ByListener[listener]
			if kumarules.RulesByHostname(mt.kind) {
				tr, found = mt.res.Gateway.ByListenerAndHostname[host]
			}
			if found {
				gl.To = append(gl.To, s.gatewayToEntries(mt.kind, tr)...)
			}
		}
		sort.SliceStable(gl.To, func(i, j int) bool { return destinationLess(gl.To[i].To, gl.To[j].To) })
		out = append(out, gl)
	}
	return out
}

// gatewayToEntries are one kind's subset rules on a listener, with the
// destinations each is for.
func (s *Store) gatewayToEntries(kind string, tr kumarules.ToRules) []Entry {
	var out []Entry
	for _, r := range tr.Rules {
		to := subsetText(r.Subset)
		if len(r.Subset) == 0 {
			to = "every destination"
		}
		out = append(out, Entry{Kind: kind, To: to, Conf: r.Conf, Origins: s.viewOrigins(kind, "to", r.Origins)})
	}
	return out
}

// destinationLess puts "every destination" first, then the subsets in order.
func destinationLess(a, b string) bool {
	if (a == "every destination") != (b == "every destination") {
		return a == "every destination"
	}
	return a < b
}

// listenerJSON is a gateway listener in -o json: Kuma has no inspect shape for
// it, so it borrows those of _inbounds/{kri}/_policies (inbound) and of
// _policies (to, with the destinations each conf is for).
type listenerJSON struct {
	Port     int                 `json:"port"`
	Protocol string              `json:"protocol"`
	Hostname string              `json:"hostname"`
	Tags     map[string]string   `json:"tags,omitempty"`
	Inbound  []inboundPolicyConf `json:"inbound"`
	To       []listenerToJSON    `json:"to"`
}

type listenerToJSON struct {
	Destination string `json:"destination"`
	policyConf
}

func listenersJSON(ls []GatewayListener) []listenerJSON {
	out := make([]listenerJSON, 0, len(ls))
	for _, l := range ls {
		j := listenerJSON{Port: l.Port, Protocol: l.Protocol, Hostname: l.Hostname, Tags: l.Tags,
			Inbound: inboundJSON(l.Inbound), To: []listenerToJSON{}}
		for _, e := range l.To {
			j.To = append(j.To, listenerToJSON{Destination: e.To, policyConf: policyConf{Conf: e.Conf, Kind: e.Kind, Origins: kriOrigins(e.Origins)}})
		}
		out = append(out, j)
	}
	return out
}
