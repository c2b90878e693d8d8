package lint

import (
	"encoding/json"
	"reflect"

	"github.com/meshguard/meshguard/api"
)

// internLimit bounds the distinct values an interner keeps: past it, new values
// are kept as they come. A run of many documents repeats a few namespaces,
// meshes, files and specs; a run of all-different ones must not pay for a table
// that saves nothing.
const internLimit = 1 << 16

// specLimit bounds the distinct specs a specTable keeps (their JSON keys are
// larger than a string's), so a run of all-different policies keeps at most a
// few MB for nothing.
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
// large tree are mostly a few shapes (allow the mesh, allow a namespace). Specs
// are matched by their JSON and shared only when reflect.DeepEqual agrees, so
// a policy's spec is always one equal to its own (nil and empty lists stay
// apart). The analysis only reads specs.
type specTable struct {
	specs map[string]*api.MeshTrafficPermissionSpec
}

// specKey is the key a spec is looked up by, computed while documents are
// checked in parallel; "" when it cannot be encoded (the spec is then kept as it is).
func specKey(spec *api.MeshTrafficPermissionSpec) string {
	raw, err := json.Marshal(spec)
	if err != nil {
		return ""
	}
	return string(raw)
}

// share returns a spec equal to spec that the table already holds, or spec
// itself (kept for later policies while the table is within specLimit).
func (t *specTable) share(key string, spec api.MeshTrafficPermissionSpec) *api.MeshTrafficPermissionSpec {
	if key == "" {
		return &spec
	}
	if kept, ok := t.specs[key]; ok && reflect.DeepEqual(*kept, spec) {
		return kept
	}
	if t.specs == nil {
		t.specs = map[string]*api.MeshTrafficPermissionSpec{}
	}
	if _, taken := t.specs[key]; !taken && len(t.specs) < specLimit {
		t.specs[key] = &spec
	}
	return &spec
}
