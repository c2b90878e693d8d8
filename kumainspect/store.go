package kumainspect

import (
	"fmt"
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumarules"
	"github.com/meshguard/meshguard/schema"
)

// Object is one object for the store. Universal marks a document read in Kuma's
// Universal format (through api.FromUniversal): Kuma keeps its name and labels as
// written, and its mesh as a field. A Kubernetes manifest is stored as Kuma's
// Kubernetes store maps it: a namespaced object is named `name.namespace` and
// carries the k8s.kuma.io/namespace and kuma.io/display-name labels.
type Object struct {
	*unstructured.Unstructured
	Universal bool
}

// object is one resource of the store as Kuma's API server reads it.
type object struct {
	kumarules.Policy
	status map[string]any
	// dp is the Dataplane's networking, for Dataplanes.
	dp *kumarules.Dataplane
	// k8sName is a Kubernetes manifest's own name (Kuma's K8sNameComponent name
	// extension, which hostname templates read as .Name); "" for Universal.
	k8sName string
}

// Store is the objects of Kuma's store, read as Kuma's API server reads them, and
// the engine that computes what they give each proxy. A Store is not safe for
// concurrent use (View memoises what it looks up).
type Store struct {
	types   typeTable
	eng     *kumarules.Engine
	reg     *api.Registry
	objects []object
	// byMesh are the objects of each mesh (and the Mesh itself), in input order.
	byMesh map[string][]kumarules.Policy
	// byKey indexes objects by type, mesh and name.
	byKey map[string]int
	// origins memoises View's origins: one proxy's outbounds repeat the same
	// mesh-wide items thousands of times.
	origins map[originKey]Origin
	// originLists are viewOrigins' lists, by the engine rule they convert.
	originLists map[originsKey][]Origin
	// indexes are each mesh's objects prepared for matching (see matched).
	indexes map[string]*kumarules.Index
	// dests are each mesh's destinations by KRI (see reachable).
	dests map[string]map[kri]object
	// global answers as a global control plane (see SetGlobal).
	global bool
}

// SetGlobal makes the store answer as Kuma's global control plane rather than a
// zone one. Only _hostnames differs: a global control plane tries each service as
// of zone and of global origin, because what KDS syncs changes origin.
func (s *Store) SetGlobal(global bool) { s.global = global }

// originsKey names one engine rule's origins list by its first element's address
// (the engine shares rules, never modifies them) and length.
type originsKey struct {
	kind, section string
	first         *kumarules.Origin
	n             int
}

// originKey is an origin's memo key: its fields, not a string built from them,
// so that a lookup allocates nothing.
type originKey struct {
	kind, section, typ, mesh, name string
	index                          int
}

// NewStore reads objs into a store. schemas, when not nil, fills in each new-style
// resource's CRD defaults as Kuma's store does when it accepts one (nil: the
// objects are taken as written). A later object with the type, mesh and name of
// an earlier one replaces it, as a second `kumactl apply` updates it. An object
// that is not a Kuma resource is ignored; one Kuma cannot read (a spec that is not
// an object) is an error naming it.
func NewStore(objs []Object, reg *api.Registry, schemas *schema.Set) (*Store, error) {
	s := newEmptyStore(reg)
	if err := s.fill(objs, func(in Object) (object, error) { return s.read(in, schemas) }); err != nil {
		return nil, err
	}
	return s, nil
}

// newEmptyStore is an empty store.
func newEmptyStore(reg *api.Registry) *Store {
	return &Store{types: newTypeTable(), eng: kumarules.New(reg), reg: reg, byMesh: map[string][]kumarules.Policy{}, byKey: map[string]int{}}
}

// fill reads objs into s with read, in input order (see NewStore).
func (s *Store) fill(objs []Object, read func(Object) (object, error)) error {
	at := s.byKey
	for _, in := range objs {
		if in.Unstructured == nil || in.GroupVersionKind().Group != api.KumaGroup {
			continue
		}
		o, err := read(in)
		if err != nil {
			return err
		}
		key := storeKey(o.Type, o.Mesh, o.Name)
		if i, seen := at[key]; seen {
			s.objects[i] = o
			continue
		}
		at[key] = len(s.objects)
		s.objects = append(s.objects, o)
	}
	for _, o := range s.objects {
		mesh := o.Mesh
		if o.Type == api.KindMesh {
			mesh = o.Name
		}
		s.byMesh[mesh] = append(s.byMesh[mesh], o.Policy)
	}
	return nil
}

// read turns one input object into the store's form.
func (s *Store) read(in Object, schemas *schema.Set) (object, error) {
	u := in.Unstructured
	if schemas != nil && u.GetKind() != api.KindMesh && u.GetKind() != api.KindDataplane {
		u, _ = schemas.Default(u)
	}
	labels := map[string]string{}
	for k, v := range u.GetLabels() {
		labels[k] = v
	}
	_, mesh, name := identity(in)
	if in.Universal {
		delete(labels, api.LabelMesh)
	} else if ns := u.GetNamespace(); ns != "" {
		setDefault(labels, api.LabelNamespace, ns)
		setDefault(labels, api.LabelDisplayName, u.GetName())
	}
	spec, ok := u.Object["spec"].(map[string]any)
	if !ok && u.Object["spec"] != nil {
		return object{}, fmt.Errorf("%s %s: spec: must be an object", u.GetKind(), name)
	}
	s.canonicalDurations(u.GetKind(), spec)
	o := object{Policy: kumarules.Policy{Meta: kumarules.Meta{Type: u.GetKind(), Name: name, Mesh: mesh, Labels: labels}, Spec: spec}}
	o.status, _ = u.Object["status"].(map[string]any)
	if !in.Universal {
		o.k8sName = u.GetName()
	}
	if u.GetKind() == api.KindDataplane {
		dp, err := kumarules.DataplaneFromObject(u)
		if err != nil {
			return object{}, err
		}
		dp.Meta = o.Meta
		dp.Namespace = o.Labels[api.LabelNamespace] // a manifest's namespace, as Kuma's store labels it
		o.dp = &dp
	}
	return o, nil
}

// identity is the type, mesh and name Kuma's store keeps an input object under:
// the mesh of its kuma.io/mesh label ("default" when absent; none for a Mesh), and
// for a namespaced Kubernetes manifest the name `name.namespace`.
func identity(in Object) (typ, mesh, name string) {
	u := in.Unstructured
	mesh = api.MeshOf(u)
	if mesh == "" {
		mesh = "default"
	}
	name = u.GetName()
	if ns := u.GetNamespace(); !in.Universal && ns != "" {
		name = name + "." + ns
	}
	if u.GetKind() == api.KindMesh {
		mesh = ""
	}
	return u.GetKind(), mesh, name
}

// findKey is the object under a store key.
func (s *Store) findKey(key string) (object, bool) {
	if i, ok := s.byKey[key]; ok {
		return s.objects[i], true
	}
	return object{}, false
}

func setDefault(m map[string]string, k, v string) {
	if _, ok := m[k]; !ok {
		m[k] = v
	}
}

// canonicalDurations writes the duration fields of a policy's spec as Kuma's typed
// confs write them back (time.Duration's spelling: 60s is 1m0s, 1h is 1h0m0s).
func (s *Store) canonicalDurations(kind string, spec map[string]any) {
	keys := s.types.byKind[kind].durations
	if len(keys) == 0 || spec == nil {
		return
	}
	set := map[string]bool{}
	for _, k := range keys {
		set[k] = true
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if str, ok := e.(string); ok && set[k] {
					if d, err := time.ParseDuration(str); err == nil {
						x[k] = d.String()
					}
					continue
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	for _, section := range []string{"default", "to", "from", "rules"} {
		walk(spec[section])
	}
}

// find is the object of kind named name in mesh (any mesh for a Mesh).
func (s *Store) find(kind, mesh, name string) (object, bool) {
	if kind == api.KindMesh {
		mesh = ""
	}
	if i, ok := s.byKey[storeKey(kind, mesh, name)]; ok {
		return s.objects[i], true
	}
	return object{}, false
}

func storeKey(kind, mesh, name string) string { return kind + "/" + mesh + "/" + name }

// ofKind lists the objects of kind in mesh, in name order (Kuma's store lists by name).
func (s *Store) ofKind(kind, mesh string) []object {
	var out []object
	for _, o := range s.objects {
		if o.Type == kind && o.Mesh == mesh {
			out = append(out, o)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// matched is what the policies of kind give dp, computed over the index of dp's
// mesh, built on first use: the rules of a set of policies are shared by every
// proxy of the store that set selects, so callers must not modify them.
func (s *Store) matched(kind string, dp kumarules.Dataplane, opts kumarules.MatchOptions) (kumarules.Matched, error) {
	x := s.indexes[dp.Mesh]
	if x == nil {
		if s.indexes == nil {
			s.indexes = map[string]*kumarules.Index{}
		}
		x = s.eng.NewIndex(s.meshObjects(dp.Mesh))
		s.indexes[dp.Mesh] = x
	}
	return x.MatchedPolicies(kind, dp, opts)
}

// meshObjects are the objects the engine reads for a proxy of mesh.
func (s *Store) meshObjects(mesh string) []kumarules.Policy { return s.byMesh[mesh] }

// meshServicesExclusive reports whether the Mesh's meshServices.mode is Exclusive,
// which Kuma's _policies and _layout endpoints require.
func meshServicesExclusive(mesh object) bool {
	ms, _ := mesh.Spec["meshServices"].(map[string]any)
	mode, _ := ms["mode"].(string)
	return mode == "Exclusive"
}
