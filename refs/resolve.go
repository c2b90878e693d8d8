package refs

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshguard/meshguard/api"
)

// Source says where an inventory's objects come from, for the words of findings.
type Source int

const (
	// SourceFiles is the linter's: the linted files plus --inventory.
	SourceFiles Source = iota
	// SourceCluster is the webhook's: the API server's objects, from informer caches.
	SourceCluster
)

// Problem is a reference that resolves to nothing in the inventory.
type Problem struct {
	// Path is the reference's field path, Code its finding code.
	Path, Code string
	// Message names the missing object, the nearest existing name and what the
	// mesh does meanwhile.
	Message string
}

// Resolver checks references against an inventory.
type Resolver struct {
	Inv    *Inventory
	Opts   Options
	Source Source
}

// covers reports whether a reference to class c in ns is judged: always when
// strict, else only when the inventory holds some object of c there.
func (r Resolver) covers(c Class, ns string) bool {
	return r.Opts.Strict || r.Inv.covers(c, ns)
}

// Check returns the references of refs that resolve to nothing where the
// inventory can see; references into namespaces (or kinds) it holds nothing of
// are unknown and never reported.
func (r Resolver) Check(refs []Ref) []Problem {
	var out []Problem
	for _, ref := range refs {
		if msg, code, bad := r.check(ref); bad {
			out = append(out, Problem{Path: ref.Path, Code: code, Message: msg})
		}
	}
	return out
}

func (r Resolver) check(ref Ref) (msg, code string, bad bool) {
	if ref.GrantFrom != "" {
		return r.checkGrant(ref)
	}
	if ref.Selector != nil {
		return r.checkSelector(ref)
	}
	inv := r.Inv
	switch ref.Class {
	case ClassMesh:
		return r.checkMesh(ref)
	case ClassMeshService:
		return r.checkMeshService(ref)
	}
	if e, ok := inv.get(ref.Class, ref.Namespace, ref.Name); ok {
		if msg, bad := r.otherMesh(ref, e); bad {
			return msg, ref.Code, true
		}
		return r.checkSection(ref, e.Ports, e)
	}
	if !r.covers(ref.Class, ref.Namespace) {
		return "", "", false
	}
	return r.missing(ref, inv.names[scope{ref.Class, nsOf(ref)}]), ref.Code, true
}

func nsOf(ref Ref) string {
	if ref.Class.ClusterScoped() {
		return ""
	}
	return ref.Namespace
}

// checkMesh: the mesh of a Kuma object must be a Mesh of the inventory or the
// default mesh, which Kuma's control plane creates. Without any Mesh in the
// inventory only a near miss of the default mesh's name is reported.
func (r Resolver) checkMesh(ref Ref) (msg, code string, bad bool) {
	if ref.Name == r.Opts.DefaultMesh {
		return "", "", false
	}
	if _, ok := r.Inv.get(ClassMesh, "", ref.Name); ok {
		return "", "", false
	}
	names := append([]string{r.Opts.DefaultMesh}, r.Inv.names[scope{ClassMesh, ""}]...)
	if r.Inv.classes[ClassMesh] == 0 && !r.Opts.Strict && api.Suggest(ref.Name, names[:1]) == "" {
		return "", "", false
	}
	return fmt.Sprintf("mesh %q: not found %s%s; meshes: %s. Kuma's control plane ignores objects of a mesh that does not exist%s",
		ref.Name, r.where(), didYouMean(ref.Name, names), strings.Join(names, ", "), r.advice()), ref.Code, true
}

// checkMeshService resolves a MeshService by name: a MeshService object, the
// one Kuma generates from a Service of that name (unless the Service's mesh has
// meshServices.mode Disabled), or a kuma.io/service name <svc>_<ns>_svc_<port>
// Kuma derives from a Service.
func (r Resolver) checkMeshService(ref Ref) (msg, code string, bad bool) {
	inv := r.Inv
	if e, ok := inv.get(ClassMeshService, ref.Namespace, ref.Name); ok {
		if msg, bad := r.otherMesh(ref, e); bad {
			return msg, ref.Code, true
		}
		if len(e.Ports) == 0 {
			return "", "", false // ports not written: nothing to compare with
		}
		return r.checkSection(ref, e.Ports, e)
	}
	if svc, ns, port, ok := legacyName(ref.Name); ok {
		if e, found := inv.get(ClassService, ns, svc); found {
			if slices.ContainsFunc(e.Ports, func(p Port) bool { return p.Number == port }) || len(e.Ports) == 0 {
				return "", "", false
			}
			return fmt.Sprintf("the kuma.io/service %q names port %d of Service %s (namespace %s), which has no such port (ports: %s), so the reference resolves to nothing",
				ref.Name, port, svc, ns, portList(e.Ports)), ref.Code, true
		}
		if !r.covers(ClassService, ns) {
			return "", "", false
		}
		return fmt.Sprintf("Service %q (namespace %s) of kuma.io/service %s: not found %s%s%s",
			svc, ns, ref.Name, r.where(), didYouMean(svc, inv.names[scope{ClassService, ns}]), r.advice()), ref.Code, true
	}
	if e, ok := inv.get(ClassService, ref.Namespace, ref.Name); ok {
		if msg, bad := r.otherMesh(ref, e); bad {
			return msg, ref.Code, true
		}
		if m, disabled := r.meshServicesDisabled(e); disabled {
			return fmt.Sprintf("no MeshService %s (namespace %s): Kuma generates none from the Service of that name because the mesh %q has meshServices.mode Disabled (its default); enable meshServices on the Mesh, or name the kuma.io/service %s_%s_svc_<port>",
				ref.Name, ref.Namespace, m, ref.Name, ref.Namespace), ref.Code, true
		}
		return r.checkSection(ref, e.Ports, e)
	}
	if !r.covers(ClassMeshService, ref.Namespace) && !r.covers(ClassService, ref.Namespace) {
		return "", "", false
	}
	cands := append(slices.Clone(inv.names[scope{ClassMeshService, ref.Namespace}]), inv.names[scope{ClassService, ref.Namespace}]...)
	return r.missing(ref, cands), ref.Code, true
}

// otherMesh reports a Kuma reference that names an object of another mesh: Kuma
// resolves references among the referring object's mesh only. Objects whose mesh
// is not written (a Service without kuma.io/mesh takes its namespace's, which the
// inventory may not hold) are not compared.
func (r Resolver) otherMesh(ref Ref, e *Entry) (string, bool) {
	if ref.Mesh == "" || e.Mesh == "" || e.Mesh == ref.Mesh {
		return "", false
	}
	return fmt.Sprintf("%s %s is in mesh %q, not in this object's mesh %q: Kuma resolves references within one mesh, so this one resolves to nothing",
		e.Class.Kind(), qualified(e.Namespace, e.Name), e.Mesh, ref.Mesh), true
}

func qualified(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

// meshServicesDisabled reports whether the mesh of Service e is in the inventory
// with MeshService generation off. A mesh the inventory does not hold is assumed
// to generate them: meshguard cannot see its mode.
func (r Resolver) meshServicesDisabled(e *Entry) (string, bool) {
	mesh := e.Mesh
	if mesh == "" {
		mesh = r.Opts.DefaultMesh
	}
	m, ok := r.Inv.get(ClassMesh, "", mesh)
	if !ok {
		return mesh, false
	}
	return mesh, m.MeshServicesMode == "" || m.MeshServicesMode == "Disabled"
}

// legacyName splits a kuma.io/service name Kuma derives from a Kubernetes
// Service: <service>_<namespace>_svc_<port>.
func legacyName(name string) (svc, ns string, port int64, ok bool) {
	parts := strings.Split(name, "_")
	if len(parts) != 4 || parts[2] != "svc" {
		return "", "", 0, false
	}
	p, err := strconv.ParseInt(parts[3], 10, 32)
	if err != nil {
		return "", "", 0, false
	}
	return parts[0], parts[1], p, true
}

// checkSection: a sectionName (or port) must name a port of what was found, by
// name or by number (Kuma's FindPortByName; Linkerd's parent and backend ports
// are numbers).
func (r Resolver) checkSection(ref Ref, ports []Port, e *Entry) (msg, code string, bad bool) {
	if ref.Section == "" || len(ports) == 0 {
		return "", "", false
	}
	for _, p := range ports {
		if p.Name == ref.Section || strconv.FormatInt(p.Number, 10) == ref.Section {
			return "", "", false
		}
	}
	what := fmt.Sprintf("%s %s (namespace %s)", e.Class.Kind(), e.Name, e.Namespace)
	if e.Class == ClassService && ref.Class == ClassMeshService {
		what = fmt.Sprintf("the MeshService Kuma generates from Service %s (namespace %s)", e.Name, e.Namespace)
	}
	var names []string
	for _, p := range ports {
		if p.Name != "" {
			names = append(names, p.Name)
		}
		names = append(names, strconv.FormatInt(p.Number, 10))
	}
	field := "port"
	if ref.Class != ClassService {
		field = "sectionName"
	}
	return fmt.Sprintf("%s %q is not a port of %s (ports: %s)%s, so the reference resolves to no port",
		field, ref.Section, what, portList(ports), didYouMean(ref.Section, names)), sectionCode(ref), true
}

// sectionCode is the code of a port that is not on the object found: Kuma's has
// its own (MG402); a Linkerd parent's or backend's stays its family's.
func sectionCode(ref Ref) string {
	if ref.Code == CodeKumaRef {
		return CodeKumaSection
	}
	return ref.Code
}

func portList(ps []Port) string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteString(", ")
		}
		if p.Name != "" {
			b.WriteString(p.Name + "/")
		}
		b.WriteString(strconv.FormatInt(p.Number, 10))
	}
	return b.String()
}

// missing is the message of a reference by name that resolves to nothing.
func (r Resolver) missing(ref Ref, candidates []string) string {
	// namespace/name, as kubectl writes it: admission warnings are cut at 120
	// characters, and the suggestion must fit.
	name := ref.Name
	if ns := nsOf(ref); ns != "" {
		name = ns + "/" + name
	}
	return fmt.Sprintf("%s %s: not found %s%s%s", ref.Class.Kind(), name, r.where(),
		didYouMean(ref.Name, candidates), r.advice())
}

func didYouMean(got string, candidates []string) string {
	if s := api.Suggest(got, candidates); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}

func (r Resolver) where() string {
	if r.Source == SourceCluster {
		return "in the cluster"
	}
	return "in the inventory"
}

func (r Resolver) advice() string {
	if r.Source == SourceCluster {
		return "; until it exists the reference resolves to nothing (apply it, or fix the name)"
	}
	if r.Opts.Strict {
		return "; --strict-references takes the linted files and --inventory as the whole cluster: add it, or fix the name"
	}
	return "; the inventory is the linted files and --inventory: it may exist in the cluster only (lint it with this file, or pass it with --inventory)"
}

func (r Resolver) selectorAdvice() string {
	if r.Source == SourceCluster {
		return "; check the labels, or apply what they should select"
	}
	return "; what it should select may exist in the cluster only (lint it with this file, or pass it with --inventory)"
}

// checkSelector: a label selection must select something of its class.
func (r Resolver) checkSelector(ref Ref) (msg, code string, bad bool) {
	sel := *ref.Selector
	var cands []*Entry
	what := ref.Class.Kind() + "s"
	total := 0
	switch ref.Class {
	case ClassPod:
		var ok bool
		if cands, total, ok = r.podCandidates(ref, &sel); !ok {
			return "", "", false
		}
		what = "pod templates (workloads and Pods)"
	case ClassMeshService:
		if r.Inv.classes[ClassMeshService]+r.Inv.classes[ClassService] == 0 {
			return "", "", false
		}
		cands = r.meshServiceCandidates()
		total = len(cands)
	default:
		if r.Inv.classes[ref.Class] == 0 {
			return "", "", false
		}
		cands = r.Inv.labelled[ref.Class]
		total = len(cands)
	}
	if len(sel.MatchExpressions) == 0 {
		// The common case, matchLabels alone, without building a Selector.
		for _, e := range cands {
			if hasAll(e.Labels, sel.MatchLabels) {
				return "", "", false
			}
		}
	}
	s, err := metav1.LabelSelectorAsSelector(&sel)
	if err != nil {
		return "", "", false // validation reports a malformed selector
	}
	if len(sel.MatchExpressions) > 0 {
		for _, e := range cands {
			if s.Matches(labels.Set(e.Labels)) {
				return "", "", false
			}
		}
	}
	in := ""
	if ref.Namespace != "" {
		in = " of namespace " + ref.Namespace
	}
	return fmt.Sprintf("the selector %s matches none of the %d %s%s %s: it selects nothing%s",
		s.String(), total, what, in, r.where(), r.selectorAdvice()), ref.Code, true
}

// podCandidates are the pods a selector can match: those carrying its rarest
// matchLabels pair, or every pod in its scope; ok is false when the scope holds
// no pods. Kuma's own Dataplane labels are taken out of the selector: they are
// computed by the control plane (k8s.kuma.io/namespace narrows the scope).
func (r Resolver) podCandidates(ref Ref, sel *metav1.LabelSelector) (cands []*Entry, total int, ok bool) {
	ns := ref.Namespace
	if ref.Code == CodeSelector && len(sel.MatchLabels) > 0 {
		ml := map[string]string{}
		for k, v := range sel.MatchLabels {
			switch {
			case k == api.LabelNamespace:
				if ns != "" && ns != v {
					ml[k] = v // never matches: the policy's own namespace is another
				}
				ns = v
			case strings.HasPrefix(k, "kuma.io/") || strings.HasPrefix(k, "k8s.kuma.io/"):
			default:
				ml[k] = v
			}
		}
		sel.MatchLabels = ml
	}
	all := r.Inv.podsByLabel[scope{"", ns}]
	if len(all) == 0 {
		return nil, 0, false
	}
	best := all
	for k, v := range sel.MatchLabels {
		if l := r.Inv.podsByLabel[scope{Class(k + "=" + v), ns}]; len(l) < len(best) {
			best = l
		}
	}
	return best, len(all), true
}

// meshServiceCandidates are the MeshServices a label selector can match: the
// inventory's, with the labels Kuma computes, and those Kuma generates from
// Services (the Service's labels plus Kuma's).
func (r Resolver) meshServiceCandidates() []*Entry {
	if r.Inv.msCands != nil {
		return r.Inv.msCands
	}
	out := make([]*Entry, 0, len(r.Inv.labelled[ClassMeshService])+len(r.Inv.labelled[ClassService]))
	for _, e := range r.Inv.labelled[ClassMeshService] {
		l := mergeLabels(e.Labels, map[string]string{api.LabelNamespace: e.Namespace, api.LabelDisplayName: e.Name})
		out = append(out, &Entry{Class: e.Class, Namespace: e.Namespace, Name: e.Name, Labels: l})
	}
	for _, e := range r.Inv.labelled[ClassService] {
		if _, disabled := r.meshServicesDisabled(e); disabled {
			continue
		}
		mesh := e.Mesh
		if mesh == "" {
			mesh = r.Opts.DefaultMesh
		}
		l := mergeLabels(e.Labels, map[string]string{api.LabelMesh: mesh, api.LabelNamespace: e.Namespace,
			api.LabelDisplayName: e.Name, "k8s.kuma.io/service-name": e.Name, "kuma.io/managed-by": "k8s-controller", api.LabelEnv: api.EnvKubernetes})
		out = append(out, &Entry{Class: ClassMeshService, Namespace: e.Namespace, Name: e.Name, Labels: l})
	}
	r.Inv.msCands = out
	return out
}

// hasAll reports whether labels carry every pair of want.
func hasAll(labels, want map[string]string) bool {
	for k, v := range want {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

func mergeLabels(a, b map[string]string) map[string]string {
	out := make(map[string]string, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
