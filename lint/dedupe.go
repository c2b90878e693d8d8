package lint

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/validate"
)

// ObjectID is the identity the API server stores an object under: two
// documents with the same one are one object, and `kubectl apply` of both
// leaves the cluster with the last one it admitted. Every door that looks
// across documents (lint's cross-document stages, check, diff, preview) keeps
// only that one (see supersededBy), and lint reports the duplicate (MG006).
type ObjectID struct {
	Group, Kind, Namespace, Name string
}

func (id ObjectID) String() string {
	kind := id.Kind
	if id.Group != "" {
		kind += "." + id.Group
	}
	if id.Namespace == "" {
		return kind + " " + id.Name
	}
	return kind + " " + id.Namespace + "/" + id.Name
}

// IdentityOf is obj's identity after defaulting: a namespaced object without a
// namespace gets ns, as kubectl apply -n gives it. Scope comes from the registry
// for the kinds meshguard guards, and from the Kubernetes built-ins otherwise
// (an unknown kind counts as namespaced, as CRDs mostly are). An object without
// a name (generateName) has no identity.
func IdentityOf(obj *unstructured.Unstructured, reg *api.Registry, ns string) (ObjectID, bool) {
	if obj == nil || obj.GetName() == "" {
		return ObjectID{}, false
	}
	gvk := obj.GroupVersionKind()
	id := ObjectID{Group: gvk.Group, Kind: gvk.Kind, Namespace: obj.GetNamespace(), Name: obj.GetName()}
	clusterScoped := builtinClusterScoped[gvk.GroupKind().String()]
	if reg != nil {
		if k := reg.Lookup(gvk); k != nil {
			clusterScoped = k.ClusterScoped
		}
	}
	switch {
	case clusterScoped:
		id.Namespace = ""
	case id.Namespace == "":
		id.Namespace = ns
	}
	return id, true
}

// builtinClusterScoped are the cluster-scoped kinds of Kubernetes itself (and
// the CRD kind), by GroupKind.String(), that manifests commonly hold.
var builtinClusterScoped = map[string]bool{
	api.KindNamespace: true, "Node": true, "PersistentVolume": true,
	"ClusterRole.rbac.authorization.k8s.io": true, "ClusterRoleBinding.rbac.authorization.k8s.io": true,
	"CustomResourceDefinition.apiextensions.k8s.io": true, "StorageClass.storage.k8s.io": true,
	"PriorityClass.scheduling.k8s.io": true, "IngressClass.networking.k8s.io": true,
	"MutatingWebhookConfiguration.admissionregistration.k8s.io":   true,
	"ValidatingWebhookConfiguration.admissionregistration.k8s.io": true,
	"GatewayClass.gateway.networking.k8s.io":                      true,
}

// placed is one document of an identity: where it is and whether the
// validating webhook would admit it.
type placed struct {
	id     ObjectID
	ok     bool // id is set
	file   string
	line   int
	denied bool
	group  string // renderKey: documents of different renders never meet
}

// supersededBy returns, for each of docs, the index of the document that
// replaces it in a cluster, or -1 when none does: among documents of one
// identity (and one render group), the last one the webhook admits is kept
// and replaces every other. When none is admitted, none replaces another.
func supersededBy(docs []placed) []int {
	type key struct {
		group string
		id    ObjectID
	}
	last := map[key]int{}
	for i, d := range docs {
		if d.ok && !d.denied {
			last[key{d.group, d.id}] = i
		}
	}
	out := make([]int, len(docs))
	for i, d := range docs {
		out[i] = -1
		if !d.ok {
			continue
		}
		if j, found := last[key{d.group, d.id}]; found && j != i {
			out[i] = j
		}
	}
	return out
}

// duplicateFindings are the MG006 errors of docs: one on every document of an
// identity but the last (in input order), naming its own place and the next
// copy's. The findings carry the object so suppressions and output key on it.
func duplicateFindings(docs []placed) []Finding {
	type key struct {
		group string
		id    ObjectID
	}
	next := map[key]int{}
	var out []Finding
	for i := len(docs) - 1; i >= 0; i-- {
		d := docs[i]
		if !d.ok {
			continue
		}
		k := key{d.group, d.id}
		if j, found := next[k]; found {
			later := docs[j]
			out = append(out, Finding{File: d.file, Line: max(d.line, 1), Severity: validate.SeverityError,
				Code: validate.CodeDuplicate, Field: "metadata.name",
				Kind: d.id.Kind, Namespace: d.id.Namespace, Name: d.id.Name,
				Message: duplicateMessage(d, later)})
		}
		next[k] = i
	}
	return out
}

func duplicateMessage(d, later placed) string {
	return fmt.Sprintf("%s is defined twice, at %s:%d and again at %s:%d: applied together, the cluster keeps only one "+
		"(the last one the webhook admits) and cross-document checks look at that one; remove one copy or rename it", d.id, d.file, max(d.line, 1), later.file, max(later.line, 1))
}
