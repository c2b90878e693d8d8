package kumainspect

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/meshguard/meshguard/api"
)

// TestNewStores: the two stores NewStores reads are what NewStore reads of each
// set, and an input both sets hold is read once, the two stores holding that one
// reading (the same spec, defaulted by the CRD schema, in both), while an input
// of one set only is read for that set.
func TestNewStores(t *testing.T) {
	schemas, err := kumaSchemas()
	if err != nil {
		t.Fatal(err)
	}
	reg := api.DefaultRegistry()
	b, err := os.ReadFile("testdata/effects/mesh.yaml")
	if err != nil {
		t.Fatal(err)
	}
	decode := func(text string) []Object {
		objs, err := Decode(strings.NewReader(text), "mesh.yaml", reg)
		if err != nil {
			t.Fatal(err)
		}
		return objs
	}
	old := decode(string(b))
	edited := decode(strings.Replace(string(b), "numRetries: 3", "numRetries: 4", 1))
	now := append([]Object(nil), old...)
	changed := -1
	for i := range old {
		if !reflect.DeepEqual(old[i].Object, edited[i].Object) {
			now[i], changed = edited[i], i
		}
	}
	if changed < 0 {
		t.Fatal("the edit changed no object")
	}
	oldStore, newStore, oldErr, newErr := NewStores(old, now, reg, schemas)
	if oldErr != nil || newErr != nil {
		t.Fatal(oldErr, newErr)
	}
	for _, side := range []struct {
		name string
		objs []Object
		got  *Store
	}{{"old", old, oldStore}, {"new", now, newStore}} {
		want, err := NewStore(side.objs, reg, schemas)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(want.objects, side.got.objects) || !reflect.DeepEqual(want.byKey, side.got.byKey) ||
			!reflect.DeepEqual(want.byMesh, side.got.byMesh) {
			t.Errorf("%s store differs from NewStore's", side.name)
		}
	}
	if len(oldStore.objects) != len(old) {
		t.Fatalf("old store holds %d objects, want %d", len(oldStore.objects), len(old))
	}
	for i := range oldStore.objects {
		o, n := oldStore.objects[i], newStore.objects[i]
		same := reflect.ValueOf(o.Spec).UnsafePointer() == reflect.ValueOf(n.Spec).UnsafePointer()
		if same != (i != changed) {
			t.Errorf("object %d (%s %s): one reading shared %v, want %v", i, o.Type, o.Name, same, i != changed)
		}
	}
}

// TestNewStoresErrors: each side's error is NewStore's on that side.
func TestNewStoresErrors(t *testing.T) {
	reg := api.DefaultRegistry()
	bad := oneObject(t, "type: MeshTimeout\nname: bad\nmesh: default\nspec: 3\n")
	good := oneObject(t, "type: MeshTimeout\nname: good\nmesh: default\nspec: {}\n")
	_, wantErr := NewStore([]Object{bad}, reg, nil)
	if wantErr == nil {
		t.Fatal("NewStore read a spec that is not an object")
	}
	oldStore, newStore, oldErr, newErr := NewStores([]Object{good}, []Object{bad}, reg, nil)
	if oldErr != nil || oldStore == nil || newStore != nil || newErr == nil || newErr.Error() != wantErr.Error() {
		t.Errorf("NewStores(good, bad) = %v, %v, %v, %v; want a store, nil, nil, %v", oldStore, newStore, oldErr, newErr, wantErr)
	}
}

func oneObject(t *testing.T, text string) Object {
	t.Helper()
	objs, err := Decode(strings.NewReader(text), "one.yaml", api.DefaultRegistry())
	if err != nil || len(objs) != 1 {
		t.Fatalf("decoding %q: %v (%d objects)", text, err, len(objs))
	}
	return objs[0]
}
