package lint

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/engine"
	"github.com/meshguard/meshguard/linkerd"
	"github.com/meshguard/meshguard/refs"
	"github.com/meshguard/meshguard/validate"
)

// refStage reports references that resolve to nothing (MG401-MG449, package
// refs): every object of the group is entered in an inventory, together with the
// --inventory objects, and every reference of a guarded object is resolved
// against it once all are in, so an object may come before or after what it
// names. Objects the webhook would deny are left out of both sides: they never
// exist in a cluster.
type refStage struct {
	opts      refs.Options
	namespace string // of documents that name none
	inv       *refs.Inventory
	users     []refUser
}

// refUser is one object's references and where they are written.
type refUser struct {
	refs   []refs.Ref
	anchor Anchor
}

// refSummary is what the stage keeps of a document: an inventory entry, the
// object's references, or both.
type refSummary struct {
	entry *refs.Entry
	user  *refUser
}

// newRefStage starts a stage whose inventory holds base (the --inventory
// objects) before any document of the run.
func newRefStage(opts refs.Options, ns string, base []refs.Entry) *refStage {
	inv := refs.NewInventory()
	for _, e := range base {
		inv.Add(e)
	}
	return &refStage{opts: opts, namespace: ns, inv: inv}
}

func (s *refStage) Summarize(c Checked) any {
	if c.Denied || c.Object == nil {
		return nil
	}
	var sum refSummary
	if e, ok := refs.EntryOf(c.Object); ok {
		if e.Namespace == "" && !e.Class.ClusterScoped() {
			e.Namespace = s.namespace
		}
		sum.entry = &e
	}
	if c.Kind != nil {
		if rs := refs.Extract(c.Object, s.opts); len(rs) > 0 {
			paths := make([]string, len(rs))
			for i, r := range rs {
				paths[i] = r.Path
			}
			sum.user = &refUser{refs: rs, anchor: NewAnchor(c.Doc, paths...)}
		}
	}
	if sum.entry == nil && sum.user == nil {
		return nil
	}
	return &sum
}

func (s *refStage) Add(v any) {
	sum := v.(*refSummary)
	if sum.entry != nil {
		s.inv.Add(*sum.entry)
	}
	if sum.user != nil {
		s.users = append(s.users, *sum.user)
	}
}

func (s *refStage) Findings() []Finding {
	r := refs.Resolver{Inv: s.inv, Opts: s.opts, Source: refs.SourceFiles}
	var out []Finding
	severity := validate.SeverityWarning
	if s.opts.Strict {
		severity = validate.SeverityError
	}
	for _, u := range s.users {
		for _, p := range r.Check(u.refs) {
			out = append(out, u.anchor.Finding(severity, p.Code, p.Path, p.Message))
		}
	}
	return out
}

// Inventory is what --inventory adds to every group of a run: the objects
// references may name that are not linted themselves (a rendered chart's
// workloads and Services, a cluster's dump). Off (nil in Options) turns the
// reference checks off (--no-inventory).
type Inventory struct {
	Entries []refs.Entry
	// Objects are the inventory's objects of the kinds the engine's checks
	// across objects read (engine.CrossKinds), and Workloads what its workloads
	// say of their pods: the other side of those checks, as the run's own
	// documents are.
	Objects   []*unstructured.Unstructured
	Workloads []linkerd.Workload
	// Cluster says the run's documents are a cluster's objects (meshguard
	// audit): the checks across objects then know every kind everywhere and
	// say what is missing from the cluster, as warnings, as the webhook does.
	Cluster bool
	// Complete says that the linted objects plus Entries are every object a
	// reference may name (--strict-references): a reference that resolves to
	// nothing is an error, whatever kinds and namespaces the set holds.
	Complete bool
}

// InventoryOf is the inventory of objects already in hand (a cluster's, listed by
// `meshguard audit`): those a reference can name are entered, namespaced objects
// without a namespace in ns.
func InventoryOf(objs []*unstructured.Unstructured, ns string) *Inventory {
	inv := &Inventory{}
	kinds := engine.CrossKinds(engine.CrossChecks())
	for _, u := range objs {
		inv.add(u, ns, kinds)
	}
	return inv
}

// add enters u, whose namespace is ns when it names none: for the reference
// checks, and for the checks across objects when kinds (engine.CrossKinds) holds
// its kind.
func (inv *Inventory) add(u *unstructured.Unstructured, ns string, kinds map[schema.GroupKind]bool) {
	if e, ok := refs.EntryOf(u); ok {
		if e.Namespace == "" && !e.Class.ClusterScoped() {
			e.Namespace = ns
		}
		inv.Entries = append(inv.Entries, e)
	}
	gk := u.GroupVersionKind().GroupKind()
	if kinds[gk] {
		if u.GetNamespace() == "" && gk != namespaceGK {
			u = u.DeepCopy()
			u.SetNamespace(ns)
		}
		inv.Objects = append(inv.Objects, u)
	}
	if !kinds[engine.PodsGK] {
		return
	}
	if w, ok := linkerd.WorkloadFromObject(u); ok {
		if w.Namespace == "" {
			w.Namespace = ns
		}
		inv.Workloads = append(inv.Workloads, w)
	}
}

// LoadInventory reads the inventory documents of paths (files or directories, as
// lint reads them, kustomizations and charts rendered per lo) into entries;
// documents that cannot be read or parsed are returned as findings (MG000), so a
// broken inventory is not silently empty.
func LoadInventory(paths []string, lo LoadOptions, o Options) (*Inventory, []Finding) {
	inv := &Inventory{}
	if len(paths) == 0 {
		return inv, nil
	}
	loaded := LoadAll(paths, nil, lo)
	kinds := engine.CrossKinds(engine.CrossChecks())
	var bad []Finding
	for i := range loaded.Docs {
		d := &loaded.Docs[i]
		if d.Err != nil {
			fs, _, _ := lintDoc(d, o)
			bad = append(bad, fs...)
			continue
		}
		if d.Object == nil {
			continue
		}
		// Registry kinds get the namespace and labels the webhook would give them.
		Prepare(d, o)
		inv.add(d.Object, o.Namespace, kinds)
	}
	return inv, bad
}

// CrossDocumentInventory is CrossDocument with the reference checks resolving
// against the run's objects plus inv; a nil inv turns them off (--no-inventory).
func CrossDocumentInventory(s api.Settings, ns string, inv *Inventory) func() []Stage {
	return func() []Stage {
		complete := inv != nil && inv.Complete
		cross := newCrossStage(s, ns, complete)
		if inv != nil && inv.Cluster {
			cross = newClusterStage(s, ns)
		}
		if inv != nil {
			cross.base(inv)
		}
		stages := []Stage{&rbacStage{systemNamespace: s.SystemNamespace}, cross}
		if inv != nil {
			opts := refs.OptionsFrom(s)
			opts.Strict = complete
			// A cluster's objects (meshguard audit) are read without its
			// ReferenceGrants: their absence says nothing.
			opts.GrantsUnlisted = inv.Cluster
			stages = append(stages, newRefStage(opts, ns, inv.Entries))
		}
		return stages
	}
}
