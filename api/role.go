package api

// ToRef is the part of a `to` item the policy role depends on.
type ToRef struct {
	Kind      string
	Name      string
	Namespace string
	Labels    bool
	Present   bool // the item has a targetRef object at all
}

// Shape is the tolerant view of a policy spec that role computation and sugar need.
// It is read straight from the unstructured object so that it works on objects whose
// other parts do not decode (those get their own errors from validate).
type Shape struct {
	HasTo   bool
	HasFrom bool
	To      []ToRef
}

// ShapeOf reads the role-relevant shape of spec; wrong types read as absent.
func ShapeOf(spec map[string]any) Shape {
	var s Shape
	if l, ok := spec["from"].([]any); ok && len(l) > 0 {
		s.HasFrom = true
	}
	l, ok := spec["to"].([]any)
	if !ok || len(l) == 0 {
		return s
	}
	s.HasTo = true
	for _, it := range l {
		var r ToRef
		if m, ok := it.(map[string]any); ok {
			if tr, ok := m["targetRef"].(map[string]any); ok {
				r.Present = true
				r.Kind, _ = tr["kind"].(string)
				r.Name, _ = tr["name"].(string)
				r.Namespace, _ = tr["namespace"].(string)
				_, r.Labels = tr["labels"].(map[string]any)
			}
		}
		s.To = append(s.To, r)
	}
	return s
}

// IsProducerRef is Kuma's producer test for one `to` item: a MeshService or
// MeshHTTPRoute referenced by name in the policy's own namespace (or with the
// namespace left out, which means the same thing). Everything else, including
// kind Mesh and label selectors, makes the item a consumer item.
func IsProducerRef(r ToRef, policyNamespace string) bool {
	switch RefKind(r.Kind) {
	case RefMeshService, RefMeshHTTPRoute:
		return r.Name != "" && (r.Namespace == "" || r.Namespace == policyNamespace)
	}
	return false
}

// RoleResult is the computed role, or why there is none.
type RoleResult struct {
	Role PolicyRole
	// FromAndTo is set when a namespace-scoped policy has both lists.
	FromAndTo bool
	// Producers and Consumers are the `to` indexes of each role when they are mixed.
	Producers, Consumers []int
}

// OK reports whether a role could be computed.
func (r RoleResult) OK() bool { return r.Role != "" }

// ComputeRole classifies a policy by the policy-on-namespace MADR and Kuma's rules: system in the system
// namespace; in other namespaces workload-owner without `to`, producer when every
// `to` item is a producer item, consumer when none is, and no role when mixed.
func ComputeRole(s Shape, namespace, systemNamespace string) RoleResult {
	if namespace == "" || namespace == systemNamespace {
		return RoleResult{Role: RoleSystem}
	}
	if s.HasTo && s.HasFrom {
		return RoleResult{FromAndTo: true}
	}
	if !s.HasTo {
		return RoleResult{Role: RoleWorkloadOwner}
	}
	var res RoleResult
	for i, r := range s.To {
		if IsProducerRef(r, namespace) {
			res.Producers = append(res.Producers, i)
		} else {
			res.Consumers = append(res.Consumers, i)
		}
	}
	switch {
	case len(res.Consumers) == 0:
		res.Role = RoleProducer
	case len(res.Producers) == 0:
		res.Role = RoleConsumer
	}
	return res
}
