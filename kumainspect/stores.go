package kumainspect

import (
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/schema"
)

// NewStores reads the objects of two sets, a diff's old and new, into two stores
// as NewStore reads each, the two at once (a goroutine each). The sets of a
// review share nearly all their objects: an input both hold (the same
// *unstructured.Unstructured with the same Universal mark, as lint.LoadPair
// gives a document both sides hold alike) is read once, by whichever store gets
// there first, and both stores hold that one reading. That is exact because
// reading depends on the input alone, and no store changes what it read; it
// halves the defaulting of the CRD schemas, the dearest part of reading. Each
// side's error is NewStore's on that side.
func NewStores(old, now []Object, reg *api.Registry, schemas *schema.Set) (oldStore, newStore *Store, oldErr, newErr error) {
	shared := sharedReads(old, now)
	read := func(objs []Object) (*Store, error) {
		s := newEmptyStore(reg)
		err := s.fill(objs, func(in Object) (object, error) {
			r := shared[readKey{in.Unstructured, in.Universal}]
			if r == nil {
				return s.read(in, schemas)
			}
			r.once.Do(func() { r.obj, r.err = s.read(in, schemas) })
			return r.obj, r.err
		})
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	var wg sync.WaitGroup
	wg.Go(func() { oldStore, oldErr = read(old) })
	newStore, newErr = read(now)
	wg.Wait()
	return oldStore, newStore, oldErr, newErr
}

// readKey is one input object as a store reads it.
type readKey struct {
	u         *unstructured.Unstructured
	universal bool
}

// sharedRead is the one reading of an input both sets hold.
type sharedRead struct {
	once sync.Once
	obj  object
	err  error
}

// sharedReads are the inputs both old and now hold, each with a place for its
// one reading. The map is complete before either store reads, so the two read
// it without a lock.
func sharedReads(old, now []Object) map[readKey]*sharedRead {
	inOld := make(map[readKey]bool, len(old))
	for _, in := range old {
		if in.Unstructured != nil {
			inOld[readKey{in.Unstructured, in.Universal}] = true
		}
	}
	out := map[readKey]*sharedRead{}
	for _, in := range now {
		if k := (readKey{in.Unstructured, in.Universal}); inOld[k] {
			out[k] = &sharedRead{}
		}
	}
	return out
}
