package linkerdauthz

import (
	"slices"
	"strings"
)

// fallbacks are what the pods of view k get in the set ix, which lacks the
// view, as Linkerd decides it: other is the set that has it, m ix's views.
//
//   - A Server: each pod it selects (the workloads of ix its pod selector
//     matches, grouped by the policy they get) gets its default inbound policy
//     on the Server's port: its own annotation, else its Namespace's, else the
//     cluster's (resolveMode). With no workload of ix selected, the namespace's
//     default, else the cluster's.
//   - A workload's default view: the workload's default policy in ix when ix
//     has it; ports that a Server of ix now takes are that Server's view.
//   - A namespace's view: the cluster default.
func (ix *index) fallbacks(other *index, k viewKey, o Options, m map[viewKey]Preview) []Preview {
	cluster := o.ClusterNetworks
	if len(cluster) == 0 {
		cluster = strings.Split(DefaultClusterNetworks, ",")
	}
	nsView := func(ns string) Preview {
		mode, src := ix.resolveMode(o, ns, nil, nil)
		return defaultView(ns, "", "ports no Server covers", "pods of namespace "+ns+" without their own annotation", mode, src, cluster)
	}
	switch {
	case k.def && k.name == "":
		return []Preview{m[viewKey{true, "", ""}]}
	case k.def:
		for _, w := range ix.loads {
			if w.ns == k.ns && w.ref == k.name {
				mode, src := ix.resolveMode(o, w.ns, &w, nil)
				return []Preview{defaultView(w.ns, w.ref, "ports no Server covers", "pods of "+w.ref, mode, src, cluster)}
			}
		}
		return []Preview{nsView(k.ns)}
	}
	i := slices.IndexFunc(other.servers, func(s *server) bool { return s.ns == k.ns && s.name == k.name })
	if i < 0 {
		return []Preview{nsView(k.ns)}
	}
	s := other.servers[i]
	var out []Preview
	for _, w := range ix.loads {
		if w.ns != s.ns || !s.selects(w.labels) {
			continue
		}
		p := serverPort(s, w)
		mode, src := ix.resolveMode(o, w.ns, &w, &p)
		j := slices.IndexFunc(out, func(v Preview) bool { return v.Policy == mode+" ("+src+")" })
		if j >= 0 {
			out[j].Pods += ", " + w.ref
			continue
		}
		v := defaultView(w.ns, s.name, portOf(s), "pods of "+w.ref, mode, src, cluster)
		out = append(out, v)
	}
	if len(out) == 0 {
		return []Preview{nsView(k.ns)}
	}
	return out
}

// serverPort is the port of workload w a Server takes: its number, or the
// container port its name names.
func serverPort(s *server, w workload) port {
	switch v := s.spec.Port.(type) {
	case string:
		for _, p := range w.ports {
			if p.name == v {
				return p
			}
		}
		return port{name: v}
	default:
		return port{number: toInt(v)}
	}
}

// portOf is a Server's port in words.
func portOf(s *server) string {
	if v, ok := s.spec.Port.(string); ok {
		return v
	}
	return portWords(port{number: toInt(s.spec.Port)})
}
