package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/engine"
	"github.com/meshguard/meshguard/kumadiff"
	"github.com/meshguard/meshguard/kumainspect"
	"github.com/meshguard/meshguard/kumarules"
	"github.com/meshguard/meshguard/refs"
	meshschema "github.com/meshguard/meshguard/schema"
)

// ConfigChangeFunc says, for an admitted Kuma policy (MeshTrafficPermission
// aside: the rbac-diff line covers it), how many proxies' effective configuration
// it changes: warning lines, and the `config-diff` audit annotation's value ("" for
// none). obj is the incoming object, old the request's oldObject (nil on CREATE).
// It reads informer caches only.
type ConfigChangeFunc func(ctx context.Context, obj, old *unstructured.Unstructured) (lines []string, annotation string)

// MaxConfigDiffProxies bounds the proxies one admission request computes the
// configuration of, on both sides: a proxy's view costs milliseconds (every policy
// kind merged for every inbound and outbound), and an admission answer must come
// in well under the API server's timeout. Past it the warning says so;
// `meshguard diff` compares every proxy.
const MaxConfigDiffProxies = 20

// MaxConfigDiffMeshProxies bounds the Dataplanes of a mesh config-diff reads:
// each request copies the mesh's objects into a store and asks which proxies the
// policy selects, about 0.1 ms a Dataplane (docs/performance.md). A larger mesh
// gets a line saying the check did not run.
const MaxConfigDiffMeshProxies = 2000

// meshProxies counts the cached Dataplanes of mesh; known is false when the
// cache cannot say.
func (c *configChange) meshProxies(ctx context.Context, mesh string) (n int, known bool) {
	dps, known := c.src.List(ctx, schema.GroupKind{Group: api.KumaGroup, Kind: api.KindDataplane}, "")
	for _, u := range dps {
		if inMesh(u, mesh) {
			n++
		}
	}
	return n, known
}

// maxAnnotatedProxies bounds the proxies the annotation names.
const maxAnnotatedProxies = 100

// configStoreKinds are the kinds of the objects besides policies that a proxy's
// view reads: the proxies, their Mesh, and the destinations and gateways.
var configStoreKinds = []string{api.KindDataplane, api.KindMesh, api.KindMeshService, api.KindMeshExternalService,
	api.KindMeshMultiZoneService, string(api.RefMeshGateway)}

// NewConfigChange returns the ConfigChangeFunc of the validating handler: it
// reads the mesh's Dataplanes, policies and services from src (the informer
// caches), builds the store with the stored object replaced by old (or without it
// on CREATE) and by obj, and compares the proxies either version selects (Kuma's
// _resources/dataplanes), at most MaxConfigDiffProxies of them. schemas gives
// objects their CRD defaults as Kuma's store does (nil: as stored).
func NewConfigChange(src engine.Source, reg *api.Registry, schemas *meshschema.Set) ConfigChangeFunc {
	c := &configChange{src: src, reg: reg, schemas: schemas}
	return c.answer
}

// startConfigDiff starts informer caches of the Kuma kinds config-diff reads
// that objects (the reference checks' caches) does not hold yet (the Watched
// policy kinds and Dataplanes), files them in objects, and returns the
// ConfigChangeFunc over them; nil when serve runs offline (no caches).
func startConfigDiff(mgr manager.Manager, o Options, log logr.Logger, objects cacheSource) (ConfigChangeFunc, error) {
	if objects == nil {
		return nil, nil
	}
	reg := api.DefaultRegistry()
	for _, k := range reg.WatchedIn(api.KumaGroup) {
		gk := schema.GroupKind{Group: k.Group, Kind: k.Kind}
		if _, ok := objects[gk]; ok || k.Kind == api.KindMeshTrafficPermission || k.Kind == api.KindMeshIdentity {
			continue
		}
		c := &refCache{w: refs.Watch{Class: refs.ClassOf(k.Group, k.Kind), GVK: k.GVK(), Plural: k.Plural}, log: log.WithName("config-cache")}
		objects[gk] = c.list
		if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error { c.start(ctx, mgr.GetCache()); return nil })); err != nil {
			return nil, err
		}
	}
	schemas, _ := o.Settings.Schemas.(*meshschema.Set)
	return NewConfigChange(objects, reg, schemas), nil
}

type configChange struct {
	src     engine.Source
	reg     *api.Registry
	schemas *meshschema.Set
}

func (c *configChange) answer(ctx context.Context, obj, old *unstructured.Unstructured) ([]string, string) {
	kind := c.reg.Storage(api.KumaGroup, obj.GetKind())
	if obj.GroupVersionKind().Group != api.KumaGroup || kind == nil || kind.Resource || kind.Kind == api.KindMeshTrafficPermission {
		return nil, ""
	}
	mesh := obj.GetLabels()[api.LabelMesh]
	if mesh == "" {
		mesh = api.DefaultMeshName
	}
	n, known := c.meshProxies(ctx, mesh)
	if known && n == 0 {
		// A mesh without Dataplanes (a cluster without Kuma's control plane, or
		// before any workload joins): nothing to say, and nothing read.
		return nil, ""
	}
	if n > MaxConfigDiffMeshProxies {
		return []string{fmt.Sprintf("config-diff: not computed: mesh %s has %d proxies, over the %d read at admission; see `meshguard diff`",
			mesh, n, MaxConfigDiffMeshProxies)}, ""
	}
	stored, missing := c.stored(ctx, mesh, obj)
	if missing != "" {
		return []string{"config-diff: not computed: the informer cache of " + missing + " is not ready"}, ""
	}
	before, after := stored, append(stored[:len(stored):len(stored)], kumainspect.Object{Unstructured: obj.DeepCopy()})
	if old != nil {
		before = append(stored[:len(stored):len(stored)], kumainspect.Object{Unstructured: old.DeepCopy()})
	}
	oldStore, err1 := kumainspect.NewStore(before, c.reg, c.schemas)
	newStore, err2 := kumainspect.NewStore(after, c.reg, c.schemas)
	if err1 != nil || err2 != nil {
		return []string{fmt.Sprintf("config-diff: not computed: %v", firstErr(err1, err2))}, ""
	}
	storeName := obj.GetName() + "." + obj.GetNamespace()
	selected := selectedProxies(oldStore, mesh, kind.Plural, storeName, old != nil)
	for name := range selectedProxies(newStore, mesh, kind.Plural, storeName, true) {
		selected[name] = true
	}
	if len(selected) == 0 {
		// A mesh without Dataplanes (a cluster without Kuma's control plane, or
		// before any workload joins) gets no line on every apply.
		if n := proxiesOf(newStore, mesh); n > 0 {
			what := fmt.Sprintf("none of the %d proxies", n)
			if n == 1 {
				what = "not the one proxy"
			}
			return []string{fmt.Sprintf("config-diff: selects %s of mesh %s; changes no proxy's configuration", what, mesh)}, ""
		}
		return nil, ""
	}
	r := kumadiff.Compare(oldStore, newStore, kumadiff.Options{MaxProxies: MaxConfigDiffProxies,
		Select: func(p kumarules.Dataplane) bool { return selected[p.Name] }})
	return configLines(r, len(selected)), configAnnotation(r, len(selected))
}

// stored lists the mesh's objects the views read, without obj itself; missing
// names a kind whose cache cannot answer.
func (c *configChange) stored(ctx context.Context, mesh string, obj *unstructured.Unstructured) ([]kumainspect.Object, string) {
	var kinds []*api.Kind
	for _, k := range c.reg.Kinds() {
		if k.Group == api.KumaGroup && c.reg.StorageVersion(k) && k.Kind != api.KindMeshTrafficPermission &&
			(!k.Resource || slices.Contains(configStoreKinds, k.Kind)) {
			kinds = append(kinds, k)
		}
	}
	// Without the proxies, their Mesh or the stored policies of the kind, the
	// answer would be wrong rather than partial.
	for _, need := range []string{api.KindDataplane, api.KindMesh, obj.GetKind()} {
		if _, known := c.src.List(ctx, schema.GroupKind{Group: api.KumaGroup, Kind: need}, ""); !known {
			return nil, need + "s"
		}
	}
	var out []kumainspect.Object
	for _, k := range kinds {
		objs, known := c.src.List(ctx, schema.GroupKind{Group: k.Group, Kind: k.Kind}, "")
		if !known {
			continue
		}
		for _, u := range objs {
			if !inMesh(u, mesh) || (k.Kind == obj.GetKind() && u.GetNamespace() == obj.GetNamespace() && u.GetName() == obj.GetName()) {
				continue
			}
			// The store rewrites durations in place; cached objects are shared.
			out = append(out, kumainspect.Object{Unstructured: u.DeepCopy()})
		}
	}
	return out, ""
}

// inMesh reports whether a cached object belongs to mesh (a Mesh: is it).
func inMesh(u *unstructured.Unstructured, mesh string) bool {
	if u.GetKind() == api.KindMesh {
		return u.GetName() == mesh
	}
	m := u.GetLabels()[api.LabelMesh]
	return m == mesh || (m == "" && mesh == api.DefaultMeshName)
}

// selectedProxies are the Dataplanes (by store name) the policy selects in the
// store, as Kuma's _resources/dataplanes answers; none when present is false.
func selectedProxies(s *kumainspect.Store, mesh, plural, name string, present bool) map[string]bool {
	out := map[string]bool{}
	if !present {
		return out
	}
	r := s.Get("/meshes/" + mesh + "/" + plural + "/" + name + "/_resources/dataplanes")
	body, err := r.JSON()
	if err != nil || r.Status != 200 {
		return out
	}
	var list struct {
		Items []struct{ Name string } `json:"items"`
	}
	if json.Unmarshal(body, &list) == nil {
		for _, it := range list.Items {
			out[it.Name] = true
		}
	}
	return out
}

// proxiesOf counts the store's proxies of mesh.
func proxiesOf(s *kumainspect.Store, mesh string) int {
	n := 0
	for _, p := range s.Dataplanes() {
		if p.Mesh == mesh {
			n++
		}
	}
	return n
}

// configLines are the warning lines: how many proxies change, and the first
// change; the annotation names them.
func configLines(r kumadiff.Report, selected int) []string {
	evaluated := fmt.Sprintf("%d proxies it selects", selected)
	if r.Limit != "" {
		evaluated = fmt.Sprintf("the first %d of the %d proxies it selects (bound per request)", r.Compared, selected)
	}
	if len(r.NotCompared) > 0 {
		evaluated += fmt.Sprintf("; %d not computed", len(r.NotCompared))
	}
	if len(r.Changes) == 0 {
		return []string{"config-diff: changes no proxy's effective configuration among " + evaluated}
	}
	lines := []string{fmt.Sprintf("config-diff: changes the effective configuration of %d of %s", r.Changed, evaluated),
		"config-diff: " + r.Changes[0].Counted()}
	if n := len(r.Changes) - 1; n > 0 {
		lines = append(lines, fmt.Sprintf("config-diff: and %d more changes (the config-diff audit annotation lists them, `meshguard diff` too)", n))
	}
	return lines
}

// configAnnotationDoc is the config-diff audit annotation: the proxies compared
// and those whose configuration changes, by name, and each change in short.
type configAnnotationDoc struct {
	Selected  int               `json:"selected"`
	Evaluated int               `json:"evaluated"`
	Limit     string            `json:"limit,omitempty"`
	Changed   []string          `json:"changed"`
	More      int               `json:"more,omitempty"`
	Changes   []annotatedChange `json:"changes"`
}

type annotatedChange struct {
	Line    string `json:"line"`
	Proxies int    `json:"proxies"`
}

func configAnnotation(r kumadiff.Report, selected int) string {
	doc := configAnnotationDoc{Selected: selected, Evaluated: r.Compared, Limit: r.Limit, Changed: []string{}, Changes: []annotatedChange{}}
	seen := map[string]bool{}
	for _, c := range r.Changes {
		if len(doc.Changes) < maxAnnotatedProxies {
			doc.Changes = append(doc.Changes, annotatedChange{Line: c.Line(), Proxies: len(c.Proxies)})
		}
		for _, p := range c.Proxies {
			if seen[p] {
				continue
			}
			seen[p] = true
			if len(doc.Changed) < maxAnnotatedProxies {
				doc.Changed = append(doc.Changed, p)
			} else {
				doc.More++
			}
		}
	}
	b, err := json.Marshal(doc)
	if err != nil || len(b) > MaxAnnotationBytes {
		return ""
	}
	return string(b)
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
