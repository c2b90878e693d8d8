package kumaauthz

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/template"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshguard/meshguard/access"
	"github.com/meshguard/meshguard/api"
)

// This file finds the rows and columns of the access map: every destination
// proxy of the input (each inbound of a Dataplane; each workload, once per port
// of the Services that select it), built by ProxyFromObjects exactly as
// `meshguard check --to Kind/name --port P` builds it, and every client identity
// those proxies present, plus the callers no workload of the input stands for.

// MapDest is one row of the map: a destination proxy and how check names it.
type MapDest struct {
	ID string
	// Workload is check's --to for it ("Deployment/web", "Dataplane/web-1").
	Workload string
	// Port is check's --port ("" when none), Section its --section.
	Port, Section string
	Proxy         Proxy
}

// MapDestinations lists the destination proxies of objs in input order: every
// inbound of each Kuma Dataplane, and each workload (Deployment, StatefulSet,
// DaemonSet, ReplicaSet, Pod, ...) once per port of the Services of its
// namespace that select its pods (once without a port when none does). Each is
// the Proxy ProxyFromObjects gives check for that --to, --port and --section;
// objs are indexed once so that the work grows with the objects, not with
// their square.
func MapDestinations(objs []*unstructured.Unstructured, q ProxyQuery) ([]MapDest, []string) {
	byName := map[string][]*unstructured.Unstructured{}
	services := map[string][]mapService{}
	for _, o := range objs {
		byName[o.GetNamespace()+"/"+o.GetName()] = append(byName[o.GetNamespace()+"/"+o.GetName()], o)
		if o.GetKind() == "Service" && o.GroupVersionKind().Group == "" {
			services[o.GetNamespace()] = append(services[o.GetNamespace()], newMapService(o))
		}
	}
	var out []MapDest
	var notes []string
	add := func(o *unstructured.Unstructured, kind, port, section string, sub []*unstructured.Unstructured) {
		qq := q
		qq.Name, qq.Namespace, qq.Port, qq.Section = kind+"/"+o.GetName(), o.GetNamespace(), port, section
		px, err := ProxyFromObjects(sub, qq)
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s %s/%s: %v", kind, o.GetNamespace(), o.GetName(), err))
			return
		}
		id := o.GetNamespace() + "/" + qq.Name
		if s := section + port; s != "" {
			id += ":" + s
		}
		out = append(out, MapDest{ID: id, Workload: qq.Name, Port: port, Section: section, Proxy: px})
	}
	for _, o := range objs {
		key := o.GetNamespace() + "/" + o.GetName()
		k := o.GetKind()
		if k == api.KindDataplane && o.GroupVersionKind().Group == api.KumaGroup {
			for _, sec := range dataplaneSections(o) {
				add(o, k, "", sec, byName[key])
			}
			continue
		}
		path, ok := api.PodTemplatePath(k)
		if !ok {
			continue
		}
		tmpl := o.Object
		if path != nil {
			if tmpl, _, _ = unstructured.NestedMap(o.Object, path...); tmpl == nil {
				continue
			}
		}
		podLabels, _, _ := unstructured.NestedStringMap(tmpl, "metadata", "labels")
		// ProxyFromObjects reads the workload by name and, for its service
		// tag, the Services selecting it: given only those, it answers as
		// over all objects.
		sub := slices.Clip(byName[key])
		var nums []int64
		for _, svc := range services[o.GetNamespace()] {
			if svc.sel != nil && svc.sel.Matches(labels.Set(podLabels)) {
				sub = append(sub, svc.obj)
				nums = append(nums, svc.ports...)
			}
		}
		ports := portStrings(nums)
		if len(ports) == 0 {
			ports = []string{""}
		}
		for _, p := range ports {
			add(o, k, p, "", sub)
		}
	}
	return out, notes
}

// dataplaneSections are the names (else ports) of a Dataplane's inbounds.
func dataplaneSections(o *unstructured.Unstructured) []string {
	var spec api.DataplaneSpec
	if s, ok := o.Object["spec"]; ok {
		_ = api.Decode(s, &spec) // ProxyFromObjects reports a malformed one
	} else if n, ok := o.Object["networking"]; ok {
		spec.Networking = &api.DataplaneNetworking{}
		_ = api.Decode(n, spec.Networking)
	}
	if spec.Networking == nil || len(spec.Networking.Inbound) == 0 {
		return []string{""} // ProxyFromObjects says it has none
	}
	var out []string
	for _, in := range spec.Networking.Inbound {
		s := orStr(in.Name, strconv.FormatUint(uint64(in.Port), 10))
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// mapService is a Service with its selector and port numbers read once.
type mapService struct {
	obj   *unstructured.Unstructured
	sel   labels.Selector // nil: no selector, selects no pod
	ports []int64
}

func newMapService(o *unstructured.Unstructured) mapService {
	s := mapService{obj: o}
	if sel, _, _ := unstructured.NestedStringMap(o.Object, "spec", "selector"); len(sel) > 0 {
		s.sel = labels.SelectorFromSet(sel)
	}
	ports, _, _ := unstructured.NestedSlice(o.Object, "spec", "ports")
	for _, p := range ports {
		pm, _ := p.(map[string]any)
		if n, _ := strconv.ParseInt(fmt.Sprint(pm["port"]), 10, 64); n > 0 {
			s.ports = append(s.ports, n)
		}
	}
	return s
}

// portStrings are port numbers sorted, without repeats, as strings.
func portStrings(nums []int64) []string {
	slices.Sort(nums)
	nums = slices.Compact(nums)
	out := make([]string, len(nums))
	for i, n := range nums {
		out[i] = strconv.FormatInt(n, 10)
	}
	return out
}

// MapClientOf is a destination proxy as a caller: with a Ready MeshIdentity,
// the SPIFFE ID it issues (its one URI SAN); otherwise the certificate of
// Kuma's mesh CA for the proxy's tags, as check reads --from tags.
func MapClientOf(px Proxy, ids []Identity) Client {
	if id := IdentityOf(ids, px.Mesh, px.IdentityLabels()); id != nil && id.Ready() {
		if s, ok := id.SpiffeIDOf(px); ok {
			return Client{SANs: []string{s}, SpiffeID: s}
		}
	}
	return Client{SANs: ClientSANs(px.Mesh, px.Tags), Mesh: px.Mesh, Tags: px.Tags}
}

// SpiffeIDOf is the SPIFFE ID the identity issues to px, from its templates
// (Kuma's defaults when unset: trust domain {{ .Mesh }}.{{ .Zone }}.mesh.local,
// path /ns/{{ .Namespace }}/sa/{{ .ServiceAccount }} on Kubernetes and
// /workload/{{ .Workload }} in Universal); false when a template cannot be
// rendered (a label it reads is missing).
func (id Identity) SpiffeIDOf(px Proxy) (string, bool) {
	td, path := id.TrustDomain, id.Path
	if td == "" {
		td = "{{ .Mesh }}.{{ .Zone }}.mesh.local"
	}
	lbl := px.IdentityLabels()
	if path == "" {
		path = "/workload/{{ .Workload }}"
		if px.Namespace != "" && lbl["k8s.kuma.io/service-account"] != "" {
			path = "/ns/{{ .Namespace }}/sa/{{ .ServiceAccount }}"
		}
	}
	// Kuma's template variables are named like the kinds they hold values of.
	vars := map[string]string{api.KindMesh: id.Mesh, api.KindZone: px.Zone, api.KindNamespace: px.Namespace,
		api.KindServiceAccount: lbl["k8s.kuma.io/service-account"], api.KindWorkload: lbl["kuma.io/workload"]}
	t, ok1 := renderTemplate(td, lbl, vars)
	vars["TrustDomain"] = t
	p, ok2 := renderTemplate("spiffe://{{ .TrustDomain }}"+path, lbl, vars)
	return p, ok1 && ok2
}

// renderTemplate executes a MeshIdentity template with its label function.
func renderTemplate(tmpl string, lbl, vars map[string]string) (string, bool) {
	t, err := template.New("").Option("missingkey=zero").Funcs(template.FuncMap{
		"label": func(k string) (string, error) {
			if v, ok := lbl[k]; ok {
				return v, nil
			}
			return "", fmt.Errorf("label %s not found", k)
		},
	}).Parse(tmpl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	if err := t.Execute(&b, vars); err != nil {
		return "", false
	}
	return b.String(), true
}

// mapPeer is a destination as the map's row shows it.
func (d MapDest) mapPeer() access.Peer {
	px := d.Proxy
	return access.Peer{Mesh: px.Mesh, Namespace: px.Namespace, Name: px.Name, Workload: d.Workload, Section: d.Section, Port: d.Port, Tags: px.Tags}
}
