package lint

import (
	"reflect"

	"github.com/meshguard/meshguard/api"
)

// internLimit bounds the distinct values an interner keeps: past it, new values
// are kept as they come. A run of many documents repeats a few namespaces,
// meshes, files and specs; a run of all-different ones must not pay for a table
// that saves nothing.
const internLimit = 1 << 16

// specLimit bounds the distinct specs a specTable keeps, so a run of
// all-different policies keeps at most a few MB for nothing.
const specLimit = 1 << 12

// interner shares equal strings among the summaries a run keeps to its end: the
// namespace, mesh and file of each of 294,000 documents were each their own
// allocation (the YAML parser's), kept alive by the summary. Not safe for
// concurrent use: the run interns as it adds documents, on one goroutine, and
// the RBAC stage under its lock (sharedParts).
type interner struct {
	strs map[string]string
}

// of returns the kept string equal to s, keeping s when there is none.
func (in *interner) of(s string) string {
	if s == "" {
		return ""
	}
	if kept, ok := in.strs[s]; ok {
		return kept
	}
	if in.strs == nil {
		in.strs = map[string]string{}
	}
	if len(in.strs) < internLimit {
		in.strs[s] = s
	}
	return s
}

// specTable shares equal MeshTrafficPermission specs among the policies the RBAC
// stage keeps: the typed spec was ~280 bytes a document, and the policies of a
// large tree are mostly a few shapes (allow the mesh, allow a namespace). A
// spec is shared only with one reflect.DeepEqual to it, so a policy's spec is
// always equal to its own (nil and empty lists stay apart); the shape only
// narrows the candidates. The analysis only reads specs.
type specTable struct {
	specs map[specShape][]*api.MeshTrafficPermissionSpec
	n     int
}

// specShape narrows the specs that may equal one: its lists' lengths and the
// kinds and names of its target and first item, and that item's action.
type specShape struct {
	from, rules int
	deflt       bool
	target      refShape
	first       refShape
	firstAction string
}

// refShape is the comparable part of a targetRef ("" kind: none).
type refShape struct {
	kind                         api.RefKind
	name, namespace, mesh, label string
}

// shapeOf is spec's shape. Maps and lists of the targetRefs are left out,
// but whether they are set: DeepEqual decides.
func shapeOf(spec *api.MeshTrafficPermissionSpec) specShape {
	flat := func(t *api.TargetRef) refShape {
		if t == nil {
			return refShape{label: "-"}
		}
		r := refShape{kind: t.Kind, name: t.Name, namespace: t.Namespace, mesh: t.Mesh}
		if len(t.Labels)+len(t.Tags)+len(t.ProxyTypes) > 0 || t.SectionName != "" {
			r.label = "+"
		}
		return r
	}
	sh := specShape{from: len(spec.From), rules: len(spec.Rules), deflt: spec.Default != nil, target: flat(spec.TargetRef)}
	if len(spec.From) > 0 {
		sh.first, sh.firstAction = flat(spec.From[0].TargetRef), spec.From[0].Default.Action
	}
	return sh
}

// specCandidates bounds the different specs of one shape a table compares with.
const specCandidates = 8

// share returns a spec equal to spec that the table already holds, or spec
// itself (kept for later policies while the table is within specLimit).
func (t *specTable) share(spec api.MeshTrafficPermissionSpec) *api.MeshTrafficPermissionSpec {
	sh := shapeOf(&spec)
	cands := t.specs[sh]
	for _, kept := range cands {
		if reflect.DeepEqual(*kept, spec) {
			return kept
		}
	}
	if t.n < specLimit && len(cands) < specCandidates {
		if t.specs == nil {
			t.specs = map[specShape][]*api.MeshTrafficPermissionSpec{}
		}
		t.specs[sh] = append(cands, &spec)
		t.n++
	}
	return &spec
}
