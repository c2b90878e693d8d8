package kumainspect

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumarules"
)

// The Envoy configuration Kuma generates is built here only for the simplest
// proxy: a Universal sidecar with inbounds and nothing else, in a mesh without
// mTLS that holds no other proxy and no destination, selected by MeshTimeouts at
// most. For such a proxy Kuma 2.14 generates, per inbound, one STATIC cluster to
// the application and one TCP-proxy listener; the MeshTimeout rules of the inbound
// set the cluster's connect timeout and the proxy's idle timeout. Any other proxy
// is refused (501): generating Envoy configuration is not meshguard's business,
// and a partial answer would mislead.

const (
	typeCluster  = "type.googleapis.com/envoy.config.cluster.v3.Cluster"
	typeListener = "type.googleapis.com/envoy.config.listener.v3.Listener"
	typeTCPProxy = "type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy"
)

// inboundTimeouts are the two MeshTimeout fields a TCP inbound reads, with Kuma's
// defaults when no MeshTimeout sets them.
type inboundTimeouts struct {
	connect, idle time.Duration
}

// proxyXDS is the Envoy configuration of dp by resource type and name; shadow
// includes the policies marked kuma.io/effect: shadow. The error says why the
// proxy is not one meshguard generates configuration for.
func (s *Store) proxyXDS(mesh object, dp object, shadow bool) (map[string]any, error) {
	if err := s.simpleProxy(mesh, dp); err != nil {
		return nil, err
	}
	objs := s.meshObjects(dp.Mesh)
	if shadow {
		objs = unshadowed(objs)
	}
	res, err := s.eng.MatchedPolicies(api.KindMeshTimeout, *dp.dp, objs)
	if err != nil {
		return nil, err
	}
	clusters, listeners := map[string]any{}, map[string]any{}
	for _, in := range dp.dp.Inbounds {
		t, err := timeoutsOf(res.FromRules[kumarules.Listener(fmt.Sprintf("%s:%d", in.Address, in.Port))].InboundRules)
		if err != nil {
			return nil, err
		}
		name, stat := "localhost:"+strconv.Itoa(in.Port), "localhost_"+strconv.Itoa(in.Port)
		clusters[name] = map[string]any{
			"name": name, "altStatName": stat, "type": "STATIC", "connectTimeout": protoDuration(t.connect),
			"loadAssignment": map[string]any{"clusterName": name, "endpoints": []any{map[string]any{
				"lbEndpoints": []any{map[string]any{"endpoint": map[string]any{"address": socketAddress("127.0.0.1", in.Port)}}},
			}}},
			"circuitBreakers": map[string]any{"thresholds": []any{map[string]any{"trackRemaining": true}}},
		}
		lname := fmt.Sprintf("inbound:%s:%d", in.Address, in.Port)
		tags := map[string]any{}
		for k, v := range in.Tags {
			tags[k] = v
		}
		listeners[lname] = map[string]any{
			"name": lname, "address": socketAddress(in.Address, in.Port),
			"filterChains": []any{map[string]any{"filters": []any{map[string]any{
				"name": "envoy.filters.network.tcp_proxy",
				"typedConfig": map[string]any{"@type": typeTCPProxy, "statPrefix": stat, "cluster": name,
					"idleTimeout": protoDuration(t.idle)},
			}}}},
			"metadata":         map[string]any{"filterMetadata": map[string]any{"io.kuma.tags": tags}},
			"trafficDirection": "INBOUND",
			"enableReusePort":  false,
		}
	}
	return map[string]any{typeCluster: clusters, typeListener: listeners}, nil
}

func socketAddress(addr string, port int) map[string]any {
	return map[string]any{"socketAddress": map[string]any{"address": addr, "portValue": port}}
}

// simpleProxy says why dp is not a proxy whose configuration meshguard builds.
func (s *Store) simpleProxy(mesh object, dp object) error {
	if _, has := mesh.Spec["mtls"]; has {
		return fmt.Errorf("mesh %s has mTLS", mesh.Name)
	}
	nw, _ := dp.Spec["networking"].(map[string]any)
	for _, k := range []string{"gateway", "listeners", "outbound", "transparentProxying", "ingress"} {
		if _, has := nw[k]; has {
			return fmt.Errorf("networking.%s is set", k)
		}
	}
	for i, e := range list(nw["inbound"]) {
		in, _ := e.(map[string]any)
		for k := range in {
			if k != "port" && k != "tags" && k != "name" && k != "address" {
				return fmt.Errorf("networking.inbound[%d].%s is set", i, k)
			}
		}
		if p := stringMap(in["tags"])["kuma.io/protocol"]; p != "" && p != "tcp" {
			return fmt.Errorf("networking.inbound[%d] is not TCP", i)
		}
	}
	for k := range dp.Spec {
		if k != "networking" {
			return fmt.Errorf("%s is set", k)
		}
	}
	for _, o := range s.meshObjects(dp.Mesh) {
		switch {
		case o.Type == api.KindMesh || o.Type == api.KindDataplaneInsight || o.Type == api.KindMeshTimeout:
		case o.Type == api.KindDataplane && o.Name == dp.Name:
		default:
			return fmt.Errorf("the mesh holds %s %s", o.Type, o.Name)
		}
	}
	return nil
}

// unshadowed is objs with the kuma.io/effect: shadow policies taking effect.
func unshadowed(objs []kumarules.Policy) []kumarules.Policy {
	out := make([]kumarules.Policy, len(objs))
	for i, o := range objs {
		if o.Labels["kuma.io/effect"] == "shadow" {
			labels := map[string]string{}
			for k, v := range o.Labels {
				if k != "kuma.io/effect" {
					labels[k] = v
				}
			}
			o.Labels = labels
		}
		out[i] = o
	}
	return out
}

// timeoutsOf merges an inbound's MeshTimeout rules (later ones win) over Kuma's
// TCP inbound defaults: connect 5s, idle 1h.
func timeoutsOf(rules []kumarules.InboundRule) (inboundTimeouts, error) {
	t := inboundTimeouts{connect: 5 * time.Second, idle: time.Hour}
	for _, r := range rules {
		if r.Match != nil {
			return t, fmt.Errorf("a MeshTimeout rule has matches")
		}
		conf, _ := r.Conf.(map[string]any)
		for k, v := range conf {
			d, err := time.ParseDuration(str(v))
			if err != nil {
				return t, fmt.Errorf("MeshTimeout %s: %s: %v", r.Origin.Name, k, err)
			}
			switch k {
			case "connectionTimeout":
				t.connect = d
			case "idleTimeout":
				t.idle = d
			default:
				return t, fmt.Errorf("MeshTimeout %s sets %s", r.Origin.Name, k)
			}
		}
	}
	return t, nil
}

// protoDuration writes d as protobuf's JSON mapping does: seconds, with 0, 3, 6
// or 9 fractional digits, and an "s".
func protoDuration(d time.Duration) string {
	secs, nanos := int64(d/time.Second), int64(d%time.Second)
	if nanos < 0 {
		nanos = -nanos
	}
	out := strconv.FormatInt(secs, 10)
	if d < 0 && secs == 0 {
		out = "-0"
	}
	switch {
	case nanos == 0:
	case nanos%1e6 == 0:
		out += fmt.Sprintf(".%03d", nanos/1e6)
	case nanos%1e3 == 0:
		out += fmt.Sprintf(".%06d", nanos/1e3)
	default:
		out += fmt.Sprintf(".%09d", nanos)
	}
	return out + "s"
}

// patchOp is one JSON Patch operation (RFC 6902) of Kuma's config diff.
type patchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// jsonDiff is the patch from before to after as Kuma writes it: a changed value is
// tested, removed and added; a new key added; a removed key tested and removed.
// Lists of one length are compared item by item; lists that differ in length are
// replaced whole.
func jsonDiff(before, after any, path string, out *[]patchOp) {
	bm, bok := before.(map[string]any)
	am, aok := after.(map[string]any)
	if bok && aok {
		for _, k := range sortedKeys(bm) {
			p := path + "/" + escapePointer(k)
			if av, has := am[k]; has {
				jsonDiff(bm[k], av, p, out)
			} else {
				*out = append(*out, patchOp{Op: "test", Path: p, Value: bm[k]}, patchOp{Op: "remove", Path: p, Value: bm[k]})
			}
		}
		for _, k := range sortedKeys(am) {
			if _, has := bm[k]; !has {
				*out = append(*out, patchOp{Op: "add", Path: path + "/" + escapePointer(k), Value: am[k]})
			}
		}
		return
	}
	bl, blist := before.([]any)
	al, alist := after.([]any)
	if blist && alist && len(bl) == len(al) {
		for i := range bl {
			jsonDiff(bl[i], al[i], path+"/"+strconv.Itoa(i), out)
		}
		return
	}
	if fmt.Sprint(before) == fmt.Sprint(after) {
		return
	}
	*out = append(*out, patchOp{Op: "test", Path: path, Value: before}, patchOp{Op: "remove", Path: path, Value: before},
		patchOp{Op: "add", Path: path, Value: after})
}

func escapePointer(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
