package defaults

import (
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// CodeLabelReplaced is the warning for a label the user set that the mutating stage
// replaced with the value meshguard computes. It lives here because only Apply sees
// both values; rules/catalogue.yaml documents it.
const CodeLabelReplaced = "MG016"

// replaced reports each label of set (the labels as written) whose value Apply
// changed in final. On UPDATE a value equal to the stored object's was carried over
// by the client (kubectl apply, an edit of a stored object), not set by the user, so
// only a value different from the stored one is reported.
func replaced(set, final map[string]string, req api.Request) field.ErrorList {
	var stored map[string]string
	if req.Operation == api.OpUpdate && req.Old != nil {
		stored = req.Old.GetLabels()
	}
	var out field.ErrorList
	for _, k := range slices.Sorted(maps.Keys(set)) {
		was, now := set[k], final[k]
		if was == now {
			continue
		}
		if old, ok := stored[k]; ok && old == was {
			continue
		}
		out = append(out, field.Invalid(field.NewPath("metadata", "labels").Key(k), field.OmitValueType{},
			fmt.Sprintf("%q replaced by %q: %s", was, now, whyOwned(k))).WithOrigin(CodeLabelReplaced))
	}
	return out
}

// whyOwned says why meshguard writes label k, for CodeLabelReplaced; short, so the
// admission warning of a usual label fits kubectl's line (MaxWarningLen, 120).
func whyOwned(k string) string {
	switch k {
	case api.LabelPolicyRole:
		return "computed from namespace and targets"
	case api.LabelNamespace:
		return "a policy's is always its namespace"
	case api.LabelMesh:
		return "empty means the default mesh"
	}
	return "meshguard owns this label"
}
