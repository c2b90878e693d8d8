// Package refs resolves the references between mesh objects — Kuma targetRefs and
// backendRefs, Linkerd targetRefs, authentication refs, route parents and backends,
// label selectors — against an inventory of what exists, and says which resolve to
// nothing (codes MG401-MG449). It is pure: the linter fills the inventory from the
// files of a run plus --inventory, the webhook from its informer caches, and both
// ask the same questions of it.
//
// A reference is only judged where the inventory can see: when it holds no object
// of the referenced kind in the referenced namespace (no MeshService or Service in
// "payments", no Pod template in "web"), the reference is unknown, not dangling, and
// nothing is reported. That keeps a lint of one file quiet about everything it
// cannot know, and a lint of a whole rendered chart strict.
package refs

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
)

// Class names what a reference points at: "group/Kind" as the API server serves
// it ("kuma.io/MeshService", "/Service" for the core group).
type Class string

// The classes the checks read.
const (
	ClassMesh            Class = api.KumaGroup + "/Mesh"
	ClassMeshService     Class = api.KumaGroup + "/MeshService"
	ClassMeshExternal    Class = api.KumaGroup + "/MeshExternalService"
	ClassMeshMultiZone   Class = api.KumaGroup + "/MeshMultiZoneService"
	ClassMeshGateway     Class = api.KumaGroup + "/MeshGateway"
	ClassMeshHTTPRoute   Class = api.KumaGroup + "/MeshHTTPRoute"
	ClassMeshOTelBackend Class = api.KumaGroup + "/MeshOpenTelemetryBackend"
	ClassService         Class = "/Service"
	ClassNamespace       Class = "/Namespace"
	ClassServiceAccount  Class = "/ServiceAccount"
	// ClassPod is every pod a workload (Deployment, StatefulSet, ..., Pod) makes:
	// its entries carry the pod template's labels.
	ClassPod Class = "/Pod"
)

// ClassOf is the class of a group and kind.
func ClassOf(group, kind string) Class {
	if group == "core" {
		group = ""
	}
	return Class(group + "/" + kind)
}

// Group is the API group part of c ("" for the core group).
func (c Class) Group() string {
	g, _, _ := strings.Cut(string(c), "/")
	return g
}

// Kind is the kind part of c.
func (c Class) Kind() string {
	_, k, _ := strings.Cut(string(c), "/")
	return k
}

// ClusterScoped reports whether objects of c have no namespace; they are
// looked up by name alone.
func (c Class) ClusterScoped() bool {
	return c == ClassMesh || c == ClassMeshGateway || c == ClassNamespace
}

// referable are the Kuma classes a reference can name; other Kuma kinds (the
// policies) are not entered.
var referable = map[Class]bool{ClassMesh: true, ClassMeshService: true, ClassMeshExternal: true, ClassMeshMultiZone: true,
	ClassMeshGateway: true, ClassMeshHTTPRoute: true, ClassMeshOTelBackend: true}

// Port is a port of a MeshService, MeshMultiZoneService or Service: a sectionName
// matches its name or its number written out (Kuma's FindPortByName).
type Port struct {
	Name   string
	Number int64
}

// Entry is what the checks need of one existing object. Kuma objects are entered
// by the name Kuma resolves references by: the kuma.io/display-name label when
// set (objects synced from another zone get a hashed name), in the namespace of
// k8s.kuma.io/namespace when set.
type Entry struct {
	Class           Class
	Namespace, Name string
	// Labels are the object's labels; for ClassPod the pod template's.
	Labels map[string]string
	// Ports are a MeshService's, MeshMultiZoneService's or Service's TCP ports.
	Ports []Port
	// Mesh is a Kuma object's kuma.io/mesh, or a Service's as Kuma reads it.
	Mesh string
	// MeshServicesMode is a Mesh's spec.meshServices.mode ("" when unset, which
	// Kuma reads as Disabled).
	MeshServicesMode string
	// Grant is what a ReferenceGrant permits; nil for other classes.
	Grant *Grant
}

// EntryOf reads what an inventory keeps of u; ok is false for objects no
// reference can name. Pods and workloads become ClassPod entries.
func EntryOf(u *unstructured.Unstructured) (Entry, bool) {
	gvk := u.GroupVersionKind()
	meta, _ := u.Object["metadata"].(map[string]any)
	e := Entry{Class: ClassOf(gvk.Group, gvk.Kind), Namespace: str(meta, "namespace"), Name: str(meta, "name")}
	labels := stringMap(meta["labels"])
	switch {
	case gvk.Group == api.KumaGroup:
		if !referable[e.Class] {
			return Entry{}, false
		}
		if d := labels[api.LabelDisplayName]; d != "" {
			e.Name = d
		}
		if ns := labels[api.LabelNamespace]; ns != "" {
			e.Namespace = ns
		}
		e.Labels, e.Mesh = labels, labels[api.LabelMesh]
		spec, _ := u.Object["spec"].(map[string]any)
		switch e.Class {
		case ClassMesh:
			e.Namespace = ""
			ms, _ := spec["meshServices"].(map[string]any)
			e.MeshServicesMode = str(ms, "mode")
		case ClassMeshGateway:
			e.Namespace = ""
		case ClassMeshService, ClassMeshMultiZone:
			e.Ports = ports(spec["ports"], false)
		}
	case gvk.Group == "" && gvk.Kind == api.KindService:
		spec, _ := u.Object["spec"].(map[string]any)
		e.Labels, e.Ports, e.Mesh = labels, ports(spec["ports"], true), labels[api.LabelMesh]
	case gvk.Group == "" && (gvk.Kind == api.KindNamespace):
		e.Namespace = ""
	case gvk.Group == "" && gvk.Kind == api.KindServiceAccount:
	default:
		path, ok := api.PodTemplatePath(gvk.Kind)
		if e.Class == ClassReferenceGrant {
			spec, _ := u.Object["spec"].(map[string]any)
			e.Grant = grantOf(spec)
		}
		if !ok {
			// Linkerd and Gateway API kinds are entered by name.
			return e, (gvk.Group == api.LinkerdGroup || gvk.Group == api.GatewayGroup) && e.Name != ""
		}
		e.Class = ClassPod
		if path == nil {
			e.Labels = labels
		} else {
			tmpl, _, _ := unstructured.NestedFieldNoCopy(u.Object, path...)
			tm, _ := tmpl.(map[string]any)
			tmeta, _ := tm["metadata"].(map[string]any)
			e.Labels = stringMap(tmeta["labels"])
		}
	}
	return e, e.Name != "" || e.Class == ClassPod
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func stringMap(v any) map[string]string {
	m, _ := v.(map[string]any)
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

// ports reads spec.ports; for a Service (tcpOnly) Kuma's MeshService generator
// keeps only TCP ports (an absent protocol is TCP) and names an unnamed port by
// its number.
func ports(v any, tcpOnly bool) []Port {
	list, _ := v.([]any)
	out := make([]Port, 0, len(list))
	for _, p := range list {
		pm, _ := p.(map[string]any)
		if proto := str(pm, "protocol"); tcpOnly && proto != "" && proto != "TCP" {
			continue
		}
		n, ok := number(pm["port"])
		if !ok {
			continue
		}
		out = append(out, Port{Name: str(pm, "name"), Number: n})
	}
	return out
}

func number(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case float64:
		return int64(n), float64(int64(n)) == n
	}
	return 0, false
}

// scope is a class in one namespace ("" for cluster-scoped classes).
type scope struct {
	class     Class
	namespace string
}

type entryKey struct {
	scope
	name string
}

// Inventory is what exists as far as a run can see: objects by class, namespace
// and name, with indexes that keep every lookup a map access. The zero value is
// not usable; NewInventory makes one. It is not safe for concurrent writes.
type Inventory struct {
	entries map[entryKey]*Entry
	// names lists the names in each scope, for "did you mean" and coverage.
	names map[scope][]string
	// classes counts entries per class across namespaces.
	classes map[Class]int
	// podsByLabel indexes pod entries by namespace and "key=value", so a
	// selector is matched against the pods that carry one of its labels.
	podsByLabel map[scope][]*Entry
	// labelled holds the entries of classes selected by labels (MeshService,
	// MeshOpenTelemetryBackend), across namespaces.
	labelled map[Class][]*Entry
	// grants are the ReferenceGrant entries by namespace.
	grants map[string][]*Entry
	// msCands caches the MeshServices a label selector can match, generated ones
	// included; Add clears it.
	msCands []*Entry
}

// NewInventory returns an empty inventory.
func NewInventory() *Inventory {
	return &Inventory{entries: map[entryKey]*Entry{}, names: map[scope][]string{}, classes: map[Class]int{},
		podsByLabel: map[scope][]*Entry{}, labelled: map[Class][]*Entry{}, grants: map[string][]*Entry{}}
}

// Add enters e. Entries of the same class, namespace and name replace each other
// (the last written wins, as in a cluster); pods never do.
func (inv *Inventory) Add(e Entry) {
	if e.Class.ClusterScoped() {
		e.Namespace = ""
	}
	p := &e
	s := scope{e.Class, e.Namespace}
	inv.msCands = nil
	if e.Class == ClassPod {
		inv.classes[e.Class]++
		inv.names[s] = append(inv.names[s], e.Name)
		// Indexed by its namespace and under "" (every namespace), so a selection
		// across namespaces is a lookup too.
		nss := []string{""}
		if e.Namespace != "" {
			nss = append(nss, e.Namespace)
		}
		for _, ns := range nss {
			for k, v := range e.Labels {
				ls := scope{Class(k + "=" + v), ns}
				inv.podsByLabel[ls] = append(inv.podsByLabel[ls], p)
			}
			inv.podsByLabel[scope{"", ns}] = append(inv.podsByLabel[scope{"", ns}], p)
		}
		return
	}
	k := entryKey{s, e.Name}
	old, dup := inv.entries[k]
	if !dup {
		inv.names[s] = append(inv.names[s], e.Name)
		inv.classes[e.Class]++
	}
	inv.entries[k] = p
	if e.Grant != nil {
		// A grant written again replaces the one before, as in a cluster.
		gs := slices.DeleteFunc(inv.grants[e.Namespace], func(g *Entry) bool { return g == old })
		inv.grants[e.Namespace] = append(gs, p)
	}
	if e.Class == ClassMeshService || e.Class == ClassMeshOTelBackend || e.Class == ClassService || e.Class == ClassMeshMultiZone {
		inv.labelled[e.Class] = append(inv.labelled[e.Class], p)
	}
}

// AddObject enters u when a reference can name it.
func (inv *Inventory) AddObject(u *unstructured.Unstructured) {
	if e, ok := EntryOf(u); ok {
		inv.Add(e)
	}
}

// get is the entry of class c named name in namespace ns.
func (inv *Inventory) get(c Class, ns, name string) (*Entry, bool) {
	if c.ClusterScoped() {
		ns = ""
	}
	e, ok := inv.entries[entryKey{scope{c, ns}, name}]
	return e, ok
}

// covers reports whether the inventory holds any object of class c in ns.
func (inv *Inventory) covers(c Class, ns string) bool {
	if c.ClusterScoped() {
		ns = ""
	}
	return len(inv.names[scope{c, ns}]) > 0
}

// Len is the number of entries, pods included.
func (inv *Inventory) Len() int {
	n := 0
	for _, c := range inv.classes {
		n += c
	}
	return n
}
