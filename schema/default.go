package schema

import (
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Default returns a copy of obj with its CRD's defaults filled in, as a store that
// applies the schema's defaults holds it: Kuma's Universal store runs the same
// structural defaulting on every new-style resource it accepts, and the API server
// on every object it stores, so what the control plane computes from a policy
// includes them (a MeshHTTPRoute backendRef's `weight: 1`, a MeshAccessLog
// format's `omitEmptyValues: false`). Nothing is pruned or validated. obj is not
// changed; ok is false (and obj returned) when the set has no schema for its kind
// and version or the copy cannot be made.
func (s *Set) Default(obj *unstructured.Unstructured) (out *unstructured.Unstructured, ok bool) {
	c := s.lookup(obj.GroupVersionKind())
	if c == nil {
		return obj, false
	}
	u, err := apiServerCopy(obj.Object)
	if err != nil {
		return obj, false
	}
	structuraldefaulting.Default(u, c.structural)
	return &unstructured.Unstructured{Object: u}, true
}
