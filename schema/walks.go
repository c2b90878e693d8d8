package schema

import structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"

// The API server's embedded-resource and list-type checks (objectmeta.Validate
// without a resource root, listtype.ValidateListSetsAndMaps) walk the whole object
// and report something only at schema nodes marked x-kubernetes-embedded-resource
// or x-kubernetes-list-type. On the way they build a field path and copy a
// Structural per value: for a 2.9 MB MeshTrafficPermission, whose CRD marks no such
// node, a quarter of the schema layer's allocations for an answer known to be
// empty. A compiled version records whether its schema has such nodes, and Check
// runs each walk only when it can find something.

// anyNode reports whether pred holds for s or any schema below it (properties,
// items, additionalProperties).
func anyNode(s *structuralschema.Structural, pred func(*structuralschema.Structural) bool) bool {
	if s == nil {
		return false
	}
	if pred(s) {
		return true
	}
	for _, p := range s.Properties {
		if anyNode(&p, pred) {
			return true
		}
	}
	if s.Items != nil && anyNode(s.Items, pred) {
		return true
	}
	return s.AdditionalProperties != nil && anyNode(s.AdditionalProperties.Structural, pred)
}

// hasEmbeddedResource reports whether a node of s is x-kubernetes-embedded-resource,
// the only nodes objectmeta.Validate checks below the resource root.
func hasEmbeddedResource(s *structuralschema.Structural) bool {
	return anyNode(s, func(n *structuralschema.Structural) bool { return n.XEmbeddedResource })
}

// hasListType reports whether a node of s has an x-kubernetes-list-type, the only
// nodes listtype.ValidateListSetsAndMaps checks.
func hasListType(s *structuralschema.Structural) bool {
	return anyNode(s, func(n *structuralschema.Structural) bool { return n.XListType != nil })
}

// hasDefault reports whether a node of s has a default value, the only nodes
// defaulting.Default writes: without one it leaves every object as it was
// (it would still copy a Structural per field it walks).
func hasDefault(s *structuralschema.Structural) bool {
	return anyNode(s, func(n *structuralschema.Structural) bool { return n.Default.Object != nil })
}

// hasNull reports whether v holds a null anywhere (a map value or a list
// item), the only values defaulting.PruneNonNullableNullsWithoutDefaults
// removes: without one it changes nothing (it would still copy a Structural
// per field it walks). Nothing is allocated.
func hasNull(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case map[string]any:
		for _, x := range v {
			if hasNull(x) {
				return true
			}
		}
	case []any:
		for _, x := range v {
			if hasNull(x) {
				return true
			}
		}
	}
	return false
}
