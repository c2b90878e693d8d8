package webhook

import (
	"strings"

	"gomodules.xyz/jsonpatch/v2"

	"github.com/meshguard/meshguard/defaults"
)

// patchOps turns what defaults.ApplyChanges wrote into JSON-patch operations:
// one "add" per change (which replaces a member that exists), preceded by the
// namespace decode filled in from the request when the object had none. The cost
// is linear in the changes and the lengths of their paths, whatever the object.
func patchOps(changes []defaults.Change, namespaceAdded bool, namespace string) []jsonpatch.JsonPatchOperation {
	ops := make([]jsonpatch.JsonPatchOperation, 0, len(changes)+1)
	if namespaceAdded {
		ops = append(ops, jsonpatch.NewOperation("add", "/metadata/namespace", namespace))
	}
	for _, c := range changes {
		ops = append(ops, jsonpatch.NewOperation("add", pointer(c.Path), c.Value))
	}
	return ops
}

// pointer is the JSON pointer (RFC 6901) of path: "~" escaped as "~0", "/" as "~1".
func pointer(path []string) string {
	var b strings.Builder
	for _, p := range path {
		b.WriteByte('/')
		if strings.ContainsAny(p, "~/") {
			p = strings.ReplaceAll(strings.ReplaceAll(p, "~", "~0"), "/", "~1")
		}
		b.WriteString(p)
	}
	return b.String()
}
