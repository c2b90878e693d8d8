package validate

import (
	"reflect"
	"testing"

	"github.com/meshguard/meshguard/api"
)

// TestEveryKindHasARow: every registered kind's typed spec is tied to its rules
// in rulesTable (schemaOnly says outright that the CRD checks everything); a kind
// added to the registry without rules fails here instead of passing unchecked.
// No row names a type the registry does not decode into.
func TestEveryKindHasARow(t *testing.T) {
	seen := map[reflect.Type]bool{}
	for _, k := range api.DefaultRegistry().Kinds() {
		typ := reflect.TypeOf(k.NewSpec())
		seen[typ] = true
		if _, row := rulesTable[typ]; !row {
			t.Errorf("%s %s (%s): no row in rulesTable", k.Group, k.Kind, typ)
		}
	}
	for typ := range rulesTable {
		if !seen[typ] {
			t.Errorf("rulesTable row for %s, which no registered kind decodes into", typ)
		}
	}
}
