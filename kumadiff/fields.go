package kumadiff

import (
	"strings"

	"github.com/meshguard/meshguard/access"
	"github.com/meshguard/meshguard/kumainspect"
)

// field is one leaf of a merged conf, as inspect names it (a dotted path; lists
// and scalars are values), with the policy item that sets it last.
type field struct {
	value any
	by    *access.Item
}

// confFields lists a conf's fields by dotted path, each with the last of origins
// that sets it (the item that decides it).
func confFields(kind string, conf any, origins []kumainspect.Origin, into map[string]field, prefix string) {
	if l, isList := conf.([]any); isList && len(l) == 1 {
		conf = l[0]
	}
	for _, lf := range kumainspect.Leaves(conf, "") {
		into[prefix+lf.Path] = field{value: lf.Value, by: decider(kind, lf.Path, origins)}
	}
}

// decider is the last origin whose own conf sets path, nil when none says so.
func decider(kind, path string, origins []kumainspect.Origin) *access.Item {
	for i := len(origins) - 1; i >= 0; i-- {
		if has(origins[i].Conf, path) {
			return item(kind, origins[i])
		}
	}
	if len(origins) == 1 {
		return item(kind, origins[0])
	}
	return nil
}

// item names a policy item as the authorization diff names its deciding items:
// kind, "namespace/name" (the name alone outside Kubernetes) and the item's path.
func item(kind string, o kumainspect.Origin) *access.Item {
	return &access.Item{Kind: kind, Policy: policyName(o), Path: o.Item}
}

// policyName reads namespace and name from the origin's KRI
// (kri_<type>_<mesh>_<zone>_<namespace>_<name>_<section>), falling back to the
// name as Kuma stores it when the KRI does not split so.
func policyName(o kumainspect.Origin) string {
	parts := strings.Split(o.KRI, "_")
	if len(parts) != 7 || parts[0] != "kri" {
		return o.Policy
	}
	if parts[4] == "" {
		return parts[5]
	}
	return parts[4] + "/" + parts[5]
}

// has reports whether conf sets the dotted path, inspect's Has where a conf
// that is not an object (the one leaf "(conf)") is set when present.
func has(conf any, path string) bool {
	if path == "(conf)" {
		return conf != nil
	}
	return kumainspect.Has(conf, path)
}

// same reports whether two field values are equal, as JSON.
func same(a, b any) bool { return kumainspect.Inline(a) == kumainspect.Inline(b) }
