package validate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/schema"
)

// TestSchemaLayerRatchetsUpdates: the webhook judges an UPDATE as the API server
// does. A MeshHTTPRoute stored with 17 headers to add (its CRD allows 16: stored
// before the CRD said so) can still be relabelled; an update that adds an 18th is
// refused, and a create of the same object is refused too.
func TestSchemaLayerRatchetsUpdates(t *testing.T) {
	s := api.DefaultSettings()
	if err := schema.LoadInto(&s); err != nil {
		t.Fatal(err)
	}
	route := func(headers int, labels string) string {
		var adds []string
		for i := range headers {
			adds = append(adds, fmt.Sprintf("{name: x-h%d, value: v}", i))
		}
		return `apiVersion: kuma.io/v1alpha1
kind: MeshHTTPRoute
metadata: {name: r, namespace: kuma-system, labels: {kuma.io/mesh: default` + labels + `}}
spec:
  targetRef: {kind: Mesh}
  to:
  - targetRef: {kind: MeshService, name: backend}
    rules:
    - matches: [{path: {type: PathPrefix, value: /}}]
      default:
        filters:
        - type: RequestHeaderModifier
          requestHeaderModifier:
            add: [` + strings.Join(adds, ", ") + `]
`
	}
	stored := mustObj(t, route(17, ""))
	schemaErrors := func(r Result) []string {
		var out []string
		for _, e := range r.Errors {
			if e.Origin == api.CodeWrongType {
				out = append(out, e.Field+": "+e.Detail)
			}
		}
		return out
	}
	if got := schemaErrors(lintOne(t, route(17, ", team: a"), s, api.Request{Operation: api.OpUpdate, Old: stored})); len(got) > 0 {
		t.Errorf("an update that leaves the 17 headers alone is refused: %v", got)
	}
	if got := schemaErrors(lintOne(t, route(18, ""), s, api.Request{Operation: api.OpUpdate, Old: stored})); len(got) == 0 {
		t.Error("an update to 18 headers is admitted")
	}
	if got := schemaErrors(lintOne(t, route(17, ""), s, api.Request{Operation: api.OpCreate})); len(got) == 0 {
		t.Error("a create with 17 headers is admitted")
	}
}
