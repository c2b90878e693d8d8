package kumainspect

import (
	"runtime"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/schema"
)

// NewStores reads the objects of two sets, a diff's old and new, into two stores
// as NewStore reads each. The sets of a review share nearly all their objects: an
// input both hold (the same *unstructured.Unstructured with the same Universal
// mark, as lint.LoadPair gives a document both sides hold alike) is read once and
// both stores hold that one reading. That is exact because reading depends on the
// input alone and no store changes what it read. The distinct inputs are read
// first, on every core (reading, the CRD schema's defaulting above all, is
// nearly all of the work), then each store takes its inputs' readings in input
// order. Each side's error is NewStore's on that side.
func NewStores(old, now []Object, reg *api.Registry, schemas *schema.Set) (oldStore, newStore *Store, oldErr, newErr error) {
	oldStore, newStore = newEmptyStore(reg), newEmptyStore(reg)
	inputs, readings := distinctInputs(old, now)
	eachOnCores(len(inputs), func(i int) {
		r := readings[readKey{inputs[i].Unstructured, inputs[i].Universal}]
		r.obj, r.err = oldStore.read(inputs[i], schemas)
	})
	take := func(in Object) (object, error) {
		r := readings[readKey{in.Unstructured, in.Universal}]
		return r.obj, r.err
	}
	if oldErr = oldStore.fill(old, take); oldErr != nil {
		oldStore = nil
	}
	if newErr = newStore.fill(now, take); newErr != nil {
		newStore = nil
	}
	return oldStore, newStore, oldErr, newErr
}

// readKey is one input object as a store reads it.
type readKey struct {
	u         *unstructured.Unstructured
	universal bool
}

// reading is what a store makes of one input.
type reading struct {
	obj object
	err error
}

// distinctInputs are the inputs of old and now that a store reads (Kuma
// objects, see fill), each once, and a place for each one's reading.
func distinctInputs(old, now []Object) ([]Object, map[readKey]*reading) {
	var inputs []Object
	readings := make(map[readKey]*reading, len(old))
	for _, objs := range [][]Object{old, now} {
		for _, in := range objs {
			if in.Unstructured == nil || in.GroupVersionKind().Group != api.KumaGroup {
				continue
			}
			k := readKey{in.Unstructured, in.Universal}
			if readings[k] == nil {
				readings[k] = &reading{}
				inputs = append(inputs, in)
			}
		}
	}
	return inputs, readings
}

// eachOnCores runs fn(0..n-1) on GOMAXPROCS goroutines and waits for them.
func eachOnCores(n int, fn func(int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		})
	}
	wg.Wait()
}
