package kumaauthz

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshguard/meshguard/api"
)

// Client is the caller of a Kuma check, as its certificate presents it.
type Client struct {
	// SANs are the URI SANs of the client certificate.
	SANs []string
	// SpiffeID is set when the client was given as a SPIFFE ID.
	SpiffeID string
	// Mesh and Tags are set when the client was given as tags.
	Mesh string
	Tags map[string]string
}

// ParseClient reads a Kuma client: a SPIFFE ID (spiffe://<trust domain>/<path>:
// spiffe://<mesh>/<service> for a mesh CA certificate, or a MeshIdentity's
// spiffe://<mesh>.<zone>.mesh.local/ns/<namespace>/sa/<serviceaccount>), whose
// certificate then carries that one URI SAN; or data plane tags
// "k=v[,k=v...]" (kuma.io/service among them), the certificate of a mesh CA of
// mesh carrying spiffe://<mesh>/<service> and kuma://<tag>/<value> for each tag.
func ParseClient(from, mesh string) (Client, error) {
	from = strings.TrimSpace(from)
	if from == "" {
		return Client{}, fmt.Errorf("no client: give --from (tags such as kuma.io/service=web_demo_svc_80,version=v2, or a SPIFFE ID such as spiffe://default/web)")
	}
	if strings.HasPrefix(from, "spiffe://") {
		u, err := url.Parse(from)
		if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Port() != "" {
			return Client{}, fmt.Errorf("--from %q is not a SPIFFE ID (want spiffe://<trust domain>/<path>)", from)
		}
		return Client{SANs: []string{from}, SpiffeID: from}, nil
	}
	if !strings.Contains(from, "=") {
		return Client{}, fmt.Errorf("--from %q: unknown identity syntax (want tags k=v[,k=v...] or a SPIFFE ID spiffe://...)", from)
	}
	tags, err := ParseTags(from)
	if err != nil {
		return Client{}, fmt.Errorf("--from: %v", err)
	}
	return Client{SANs: ClientSANs(mesh, tags), Mesh: mesh, Tags: tags}, nil
}

// ParseTags reads "k=v[,k=v...]"; keys must be unique and non-empty.
func ParseTags(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%q is not key=value", kv)
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("%s is given twice", k)
		}
		out[k] = v
	}
	return out, nil
}

// ProxyQuery names a destination proxy in a set of objects: a Dataplane by name,
// or a workload ("Kind/name", or a bare name of a Deployment) of a namespace.
type ProxyQuery struct {
	Name, Namespace string
	// Port picks a Dataplane inbound (its port) or a Service port; Section an
	// inbound by name.
	Port, Section string
	// Mesh is used when the object names none; DefaultMesh when that is empty.
	Mesh, DefaultMesh, Zone string
}

// ProxyFromObjects builds the Proxy that q names from objs: a Dataplane's inbound
// (its tags, the Dataplane's labels and name), or a workload's pod template (its
// labels, k8s.kuma.io/namespace, and kuma.io/service <service>_<namespace>_svc_<port>
// from a Service of objs that selects the pods, as Kuma derives it).
func ProxyFromObjects(objs []*unstructured.Unstructured, q ProxyQuery) (Proxy, error) {
	kind, name, hasKind := strings.Cut(q.Name, "/")
	if !hasKind {
		kind, name = "", q.Name
	}
	for _, o := range objs {
		if o.GetName() != name || o.GetNamespace() != q.Namespace {
			continue
		}
		k := o.GetKind()
		if kind != "" && !strings.EqualFold(kind, k) {
			continue
		}
		if k == api.KindDataplane && o.GroupVersionKind().Group == api.KumaGroup {
			return dataplaneProxy(o, q)
		}
		if _, ok := api.PodTemplatePath(k); ok && (kind != "" || k == api.KindDeployment) {
			return workloadProxy(objs, o, q)
		}
	}
	what := q.Name
	if !hasKind {
		what = "Dataplane or Deployment " + q.Name
	}
	return Proxy{}, fmt.Errorf("no %s in namespace %q in the input (give --to as labels k=v,... instead, or check --to-namespace)", what, q.Namespace)
}

func meshOf(o *unstructured.Unstructured, q ProxyQuery) string {
	if m := api.MeshOf(o); m != "" {
		return m
	}
	if q.Mesh != "" {
		return q.Mesh
	}
	return q.DefaultMesh
}

// dataplaneProxy picks the inbound of a Dataplane that q's section or port names
// (or its only one).
func dataplaneProxy(o *unstructured.Unstructured, q ProxyQuery) (Proxy, error) {
	var spec api.DataplaneSpec
	if s, ok := o.Object["spec"]; ok {
		if err := api.Decode(s, &spec); err != nil {
			return Proxy{}, fmt.Errorf("Dataplane %s: %v", o.GetName(), err)
		}
	} else if n, ok := o.Object["networking"]; ok { // Universal form, no spec
		spec.Networking = &api.DataplaneNetworking{}
		if err := api.Decode(n, spec.Networking); err != nil {
			return Proxy{}, fmt.Errorf("Dataplane %s: %v", o.GetName(), err)
		}
	}
	var inbounds []api.DataplaneInbound
	if spec.Networking != nil {
		inbounds = spec.Networking.Inbound
	}
	var picked *api.DataplaneInbound
	var names []string
	for i := range inbounds {
		in := &inbounds[i]
		port := strconv.FormatUint(uint64(in.Port), 10)
		names = append(names, orStr(in.Name, port))
		if (q.Section != "" && (in.Name == q.Section || port == q.Section)) || (q.Section == "" && q.Port != "" && port == q.Port) {
			picked = in
		}
	}
	if picked == nil && len(inbounds) == 1 && q.Section == "" && q.Port == "" {
		picked = &inbounds[0]
	}
	if picked == nil {
		return Proxy{}, fmt.Errorf("Dataplane %s has inbounds [%s]: give --section (inbound name) or --port to pick one", o.GetName(), strings.Join(names, ", "))
	}
	tags := map[string]string{}
	for k, v := range o.GetLabels() {
		tags[k] = v
	}
	for k, v := range picked.Tags {
		tags[k] = v
	}
	section := q.Section
	if section == "" {
		section = orStr(picked.Name, strconv.FormatUint(uint64(picked.Port), 10))
	}
	mesh := meshOf(o, q)
	labels := map[string]string{}
	for k, v := range o.GetLabels() {
		labels[k] = v
	}
	setIfAbsent(labels, api.LabelMesh, mesh)
	return Proxy{Mesh: mesh, Namespace: o.GetNamespace(), Zone: q.Zone, Name: o.GetName(), Section: section, Tags: tags, Labels: labels}, nil
}

func orStr(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// workloadProxy is the proxy of a workload's pods.
func workloadProxy(objs []*unstructured.Unstructured, o *unstructured.Unstructured, q ProxyQuery) (Proxy, error) {
	path, _ := api.PodTemplatePath(o.GetKind())
	tmpl := o.Object
	if path != nil {
		m, found, _ := unstructured.NestedMap(o.Object, path...)
		if !found {
			return Proxy{}, fmt.Errorf("%s/%s has no pod template", o.GetKind(), o.GetName())
		}
		tmpl = m
	}
	podLabels, _, _ := unstructured.NestedStringMap(tmpl, "metadata", "labels")
	tags := map[string]string{}
	for k, v := range podLabels {
		tags[k] = v
	}
	tags[api.LabelNamespace] = o.GetNamespace()
	if _, ok := tags[api.ServiceTag]; !ok {
		if svc := serviceTag(objs, o.GetNamespace(), podLabels, q.Port); svc != "" {
			tags[api.ServiceTag] = svc
		}
	}
	mesh := meshOf(o, q)
	if m := podLabels[api.LabelMesh]; m != "" {
		mesh = m
	}
	return Proxy{Mesh: mesh, Namespace: o.GetNamespace(), Zone: q.Zone, Section: q.Section, Tags: tags,
		Labels: dataplaneLabels(tmpl, podLabels, o.GetNamespace(), mesh, q.Zone)}, nil
}

// dataplaneLabels are the labels Kuma's pod converter gives the Dataplane of a
// pod (pod labels, then its computed ones), which MeshIdentity selects by:
// kuma.io/mesh, k8s.kuma.io/namespace, the zone labels when the zone is known,
// kuma.io/proxy-type, k8s.kuma.io/service-account and kuma.io/workload (the
// ServiceAccount, with Kuma's default empty runtime.kubernetes.workloadLabels).
func dataplaneLabels(tmpl map[string]any, podLabels map[string]string, ns, mesh, zone string) map[string]string {
	out := make(map[string]string, len(podLabels)+8)
	for k, v := range podLabels {
		out[k] = v
	}
	sa, _, _ := unstructured.NestedString(tmpl, "spec", "serviceAccountName")
	if sa == "" {
		sa, _, _ = unstructured.NestedString(tmpl, "spec", "serviceAccount")
	}
	if sa == "" {
		sa = "default"
	}
	setIfAbsent(out, api.LabelMesh, mesh)
	setIfAbsent(out, api.LabelNamespace, ns)
	if zone != "" {
		setIfAbsent(out, api.LabelOrigin, api.OriginZone)
		setIfAbsent(out, api.ZoneTag, zone)
		setIfAbsent(out, "kuma.io/env", "kubernetes")
	}
	out["kuma.io/proxy-type"] = "sidecar"
	out["k8s.kuma.io/service-account"] = sa
	out["kuma.io/workload"] = sa
	return out
}

// serviceTag is kuma.io/service as Kuma writes it for a pod on Kubernetes,
// <service>_<namespace>_svc_<port>, from the first Service (by name) of the
// namespace whose selector matches the pod and that has the port (or any port).
func serviceTag(objs []*unstructured.Unstructured, ns string, podLabels map[string]string, port string) string {
	type cand struct{ name, tag string }
	var cands []cand
	for _, o := range objs {
		if o.GetKind() != "Service" || o.GroupVersionKind().Group != "" || o.GetNamespace() != ns {
			continue
		}
		sel, _, _ := unstructured.NestedStringMap(o.Object, "spec", "selector")
		if len(sel) == 0 || !labels.SelectorFromSet(sel).Matches(labels.Set(podLabels)) {
			continue
		}
		ports, _, _ := unstructured.NestedSlice(o.Object, "spec", "ports")
		for _, p := range ports {
			pm, _ := p.(map[string]any)
			n, _, _ := unstructured.NestedFieldNoCopy(pm, "port")
			pname, _ := pm["name"].(string)
			num := fmt.Sprint(n)
			if port == "" || port == num || port == pname {
				cands = append(cands, cand{o.GetName(), o.GetName() + "_" + ns + "_svc_" + num})
				break
			}
		}
	}
	if len(cands) == 0 {
		return ""
	}
	sort.Slice(cands, func(a, b int) bool { return cands[a].name < cands[b].name })
	return cands[0].tag
}

// PolicyHeader reads what selecting a policy needs, and nothing more: the
// metadata and the top-level targetRef. `meshguard check` uses it to find, among
// thousands of policies, the few worth decoding and validating in full; it is
// not a substitute for PolicyFromObject.
func PolicyHeader(u *unstructured.Unstructured) (Policy, error) {
	p, err := policyMeta(u)
	if err != nil {
		return Policy{}, err
	}
	ref, found, err := unstructured.NestedFieldNoCopy(u.Object, "spec", "targetRef")
	if err != nil || !found || ref == nil {
		return p, err
	}
	var t api.TargetRef
	if err := api.Decode(ref, &t); err != nil {
		return Policy{}, fmt.Errorf("%s: spec.targetRef: %v", p.Ref(), err)
	}
	p.Spec.TargetRef = &t
	return p, nil
}
