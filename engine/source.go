package engine

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/meshguard/meshguard/linkerd"
)

// Scope says what a Source holds, for the words of findings: a missing object means
// something else in a set of files than in a cluster.
type Scope int

const (
	// ScopeFiles is a lint run's: the linted documents (and --inventory). An object
	// missing from them may exist in the cluster only.
	ScopeFiles Scope = iota
	// ScopeCluster is the webhook's and a live reader's: the API server's objects.
	ScopeCluster
)

// Source is where a cross-object check finds the other objects it reads. Doors
// implement it: the webhook over its informer caches, a lint run over its documents
// plus --inventory (Objects), a live reader over what it listed. A check asks only
// for the kinds it declares (CrossCheck.Inputs), so a door keeps only those.
type Source interface {
	// List returns the objects of kind gk in namespace ns ("" for every
	// namespace, and for cluster-scoped kinds). known is false when the source
	// cannot say what exists (its cache is not synced, it does not hold the kind,
	// or a lint run holds nothing of the kind in ns and is not complete): a check
	// then reports nothing that rests on an object being absent. Callers only read
	// the objects.
	List(ctx context.Context, gk schema.GroupKind, ns string) (objs []*unstructured.Unstructured, known bool)
	// Workloads returns what the workloads of namespace ns say of their pods
	// (labels and named ports), the input PodsGK names; known is false when the
	// source holds no pod templates (the webhook).
	Workloads(ctx context.Context, ns string) (ws []linkerd.Workload, known bool)
	// Scope says what the source holds.
	Scope() Scope
}

// Objects is a Source over objects in hand: a lint run's documents, a live
// reader's lists, a test's fixtures. It is filled before it is read and is not
// safe for concurrent Add.
type Objects struct {
	// Complete says the objects are everything there is (lint's
	// --strict-references, a cluster's full lists): every kind is known in every
	// namespace. Otherwise a kind is known in a namespace only where the set
	// holds one of that kind, since the rest may exist elsewhere.
	Complete bool
	// In is the scope reported; the zero value is ScopeFiles.
	In        Scope
	index     map[objectsKey][]*unstructured.Unstructured
	at        map[namedKey][2]int // where an object is in its namespace's list and in its kind's
	workloads map[string][]linkerd.Workload
}

type objectsKey struct {
	gk schema.GroupKind
	ns string
}

type namedKey struct {
	objectsKey
	name string
}

// Add files u under its kind and namespace. An object with the kind, namespace
// and name of one added before replaces it, as the later apply does in a cluster
// (a linted file over the --inventory copy of the same object).
func (o *Objects) Add(u *unstructured.Unstructured) {
	gk := u.GroupVersionKind().GroupKind()
	if o.index == nil {
		o.index = map[objectsKey][]*unstructured.Unstructured{}
		o.at = map[namedKey][2]int{}
	}
	k := objectsKey{gk, u.GetNamespace()}
	all := objectsKey{gk, ""}
	id := namedKey{k, u.GetName()}
	if at, ok := o.at[id]; ok {
		o.index[k][at[0]] = u
		if k.ns != "" {
			o.index[all][at[1]] = u
		}
		return
	}
	at := [2]int{len(o.index[k]), len(o.index[all])}
	o.at[id] = at
	o.index[k] = append(o.index[k], u)
	if k.ns != "" {
		o.index[all] = append(o.index[all], u)
	}
}

// AddWorkload files what a workload says of its pods under its namespace: a
// lint run keeps this much of each workload (not the object) for the checks
// that read PodsGK.
func (o *Objects) AddWorkload(w linkerd.Workload) {
	if o.workloads == nil {
		o.workloads = map[string][]linkerd.Workload{}
	}
	o.workloads[w.Namespace] = append(o.workloads[w.Namespace], w)
}

// Workloads implements Source.
func (o *Objects) Workloads(_ context.Context, ns string) ([]linkerd.Workload, bool) {
	ws := o.workloads[ns]
	return ws, o.Complete || len(ws) > 0
}

// List implements Source.
func (o *Objects) List(_ context.Context, gk schema.GroupKind, ns string) ([]*unstructured.Unstructured, bool) {
	objs := o.index[objectsKey{gk, ns}]
	return objs, o.Complete || len(objs) > 0
}

// Scope implements Source.
func (o *Objects) Scope() Scope { return o.In }

// hasName reports whether objs holds an object named name.
func hasName(objs []*unstructured.Unstructured, name string) bool {
	for _, u := range objs {
		if u.GetName() == name {
			return true
		}
	}
	return false
}
