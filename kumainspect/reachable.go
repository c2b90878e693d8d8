package kumainspect

import (
	"fmt"
	"strconv"
	"strings"
	"text/template"

	"github.com/meshguard/meshguard/api"
)

// destinationKinds are the resources a proxy's outbounds lead to.
func destinationKinds() []string {
	return []string{api.KindMeshService, api.KindMeshExternalService, api.KindMeshMultiZoneService}
}

// reachable are the outbounds of a Dataplane by KRI (with the port as section), as
// Kuma's DestinationIndex.GetReachableBackends finds them: the backendRefs of its
// own outbounds when one resolves; else, without
// transparentProxying.reachableBackends, every port of every destination of the
// mesh; else the ports the reachable backends name.
func (s *Store) reachable(dp object) map[kri]destPort {
	dests := s.destinations(dp.Mesh)
	out := map[kri]destPort{}
	process := func(kind, name, namespace, port string, labels map[string]string) {
		s.addReachable(out, dests, kriOf(dp.Meta, api.KindDataplane), backendRef{kind, name, namespace, port, labels})
	}
	nw, _ := dp.Spec["networking"].(map[string]any)
	for _, e := range list(nw["outbound"]) {
		o, _ := e.(map[string]any)
		ref, isRef := o["backendRef"].(map[string]any)
		if !isRef {
			continue
		}
		process(str(ref["kind"]), str(ref["name"]), "", portString(ref["port"]), stringMap(ref["labels"]))
	}
	if len(out) > 0 {
		return out
	}
	tp, _ := nw["transparentProxying"].(map[string]any)
	rb, has := tp["reachableBackends"].(map[string]any)
	if !has {
		for id, o := range dests {
			for _, p := range portsOf(o) {
				pid := id
				pid.Section = p.name
				out[pid] = p
			}
		}
		return out
	}
	for _, e := range list(rb["refs"]) {
		r, _ := e.(map[string]any)
		process(str(r["kind"]), str(r["name"]), str(r["namespace"]), portString(r["port"]), stringMap(r["labels"]))
	}
	return out
}

// destinations are the destinations of mesh by KRI, gathered once per store
// (every proxy of the mesh reads the same ones). Read only.
func (s *Store) destinations(mesh string) map[kri]object {
	if d, ok := s.dests[mesh]; ok {
		return d
	}
	dests := map[kri]object{}
	for _, kind := range destinationKinds() {
		for _, o := range s.ofKind(kind, mesh) {
			dests[kriOf(o.Meta, kind)] = o
		}
	}
	if s.dests == nil {
		s.dests = map[string]map[kri]object{}
	}
	s.dests[mesh] = dests
	return dests
}

func portString(v any) string {
	if v == nil {
		return ""
	}
	return strconv.Itoa(toInt(v))
}

func labelsInclude(labels, want map[string]string) bool {
	for k, v := range want {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// spiffeID is the SPIFFE ID the Dataplane's MeshIdentity gives it (the best match
// of the identities of its mesh, most matchLabels first, then by name), when that
// identity is ready; nil otherwise. Universal's default path template is used
// unless the identity sets one.
func (s *Store) spiffeID(dp object) *string {
	var best *object
	bestCount := -1
	for _, mi := range s.ofKind(api.KindMeshIdentity, dp.Mesh) {
		sel, _ := mi.Spec["selector"].(map[string]any)
		d, isMap := sel["dataplane"].(map[string]any)
		if !isMap {
			continue
		}
		match := stringMap(d["matchLabels"])
		if !labelsInclude(dp.Labels, match) {
			continue
		}
		if len(match) > bestCount { // ofKind lists by name: the first of a count wins
			m := mi
			best, bestCount = &m, len(match)
		}
	}
	if best == nil || !ready(best.status) {
		return nil
	}
	sp, _ := best.Spec["spiffeID"].(map[string]any)
	tdTmpl, pathTmpl := "{{ .Mesh }}.{{ .Zone }}.mesh.local", "/workload/{{ .Workload }}"
	if v := str(sp["trustDomain"]); v != "" {
		tdTmpl = v
	}
	if v := str(sp["path"]); v != "" {
		pathTmpl = v
	}
	zone := best.Labels[api.LabelZone]
	// Kuma's template variables are named like the kinds they hold values of.
	td, ok1 := render(tdTmpl, best.Labels, map[string]string{api.KindMesh: best.Mesh, api.KindZone: zone})
	path, ok2 := render("spiffe://{{ .TrustDomain }}"+pathTmpl, dp.Labels, map[string]string{"TrustDomain": td,
		api.KindNamespace: dp.Labels[api.LabelNamespace], api.KindServiceAccount: dp.Labels["kuma.io/service-account"],
		api.KindWorkload: dp.Labels["kuma.io/workload"]})
	if !ok1 || !ok2 {
		return nil
	}
	return &path
}

// ready reports whether a status has a Ready condition that is True.
func ready(status map[string]any) bool {
	for _, e := range list(status["conditions"]) {
		c, _ := e.(map[string]any)
		if str(c["type"]) == "Ready" {
			return str(c["status"]) == "True"
		}
	}
	return false
}

// render executes one of MeshIdentity's templates, with its label function.
func render(tmpl string, labels map[string]string, data map[string]string) (string, bool) {
	t, err := template.New("").Option("missingkey=zero").Funcs(template.FuncMap{
		"label": func(k string) (string, error) {
			v, ok := labels[k]
			if !ok {
				return "", fmt.Errorf("label %s not found", k)
			}
			return v, nil
		},
	}).Parse(tmpl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		return "", false
	}
	return b.String(), true
}

// backendRef is a reference to a destination from a Dataplane: an outbound's
// backendRef or a reachable backend.
type backendRef struct {
	kind, name, namespace, port string
	labels                      map[string]string
}

// addReachable adds the ports ref names to out: by labels (every destination of
// the kind that has them), else by name in the Dataplane's mesh, zone and namespace;
// the port it names, else every port.
func (s *Store) addReachable(out map[kri]destPort, dests map[kri]object, self kri, ref backendRef) {
	var ids []kri
	if len(ref.labels) > 0 {
		for id, o := range dests {
			if id.Type == ref.kind && labelsInclude(o.Labels, ref.labels) {
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		ns := ref.namespace
		if ns == "" {
			ns = self.Namespace
		}
		ids = []kri{{Type: ref.kind, Mesh: self.Mesh, Zone: self.Zone, Namespace: ns, Name: ref.name}}
	}
	for _, id := range ids {
		o, found := dests[id]
		if !found {
			return // as Kuma's processRef: a missing destination ends the ref
		}
		ports := portsOf(o)
		if p, found := findPort(ports, ref.port); found && ref.port != "" {
			id.Section = p.name
			out[id] = p
			return
		}
		for _, p := range ports {
			pid := id
			pid.Section = p.name
			out[pid] = p
		}
	}
}
