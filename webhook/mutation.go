package webhook

import (
	"encoding/json"
	"slices"

	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// maxMutationBytes bounds the mutating handler's answer cache; an answer is a
// JSON patch of a few labels (and, with --sugar=expand, implied spec values).
const maxMutationBytes = 8 << 20

// mutationKey identifies a mutating request's answer, or ok=false when it is not
// cached. defaults.Apply reads the object's labels, namespace and spec, the old
// object and whether the user is privileged, with the engine's fixed settings; it
// reads and writes none of the metadata the API server stamps on every write, and
// the patch is the difference between the object and its mutation, which leaves
// those fields out. So the key is verdictKey's (without stored policies: mutation
// reads none), and a dry run then the create, or a GitOps re-apply of an
// unchanged manifest, is mutated once. Measured through the codec, a mutation
// costs ~100 µs (two encodings of the object and a JSON diff).
func (e *Engine) mutationKey(req admission.Request) (resultKey, bool) {
	if _, ok := e.cachedKind(req); !ok {
		return resultKey{}, false
	}
	return e.requestKey("meshguard-mutation-v1", req, [32]byte{})
}

// mutations returns the engine's cache of mutating answers, created on first use.
func (e *Engine) mutations() *lruCache[admission.Response] {
	e.mutationOnce.Do(func() {
		e.mutationCache = newLRU(MaxVerdicts, maxMutationBytes, mutationSize, cloneMutation)
	})
	return e.mutationCache
}

// mutationSize weighs an answer by its patch as JSON, computed when it is stored.
func mutationSize(r admission.Response) int {
	n := entryOverhead + 16*len(r.Warnings)
	for _, w := range r.Warnings {
		n += len(w)
	}
	if r.Result != nil {
		n += 128 + len(r.Result.Message)
	}
	if b, err := json.Marshal(r.Patches); err == nil {
		n += len(b)
	}
	return n + 64*len(r.Patches)
}

// cloneMutation copies what controller-runtime's Complete or a caller may change:
// the status (whose code Complete fills in) and the slices. Patch values are read
// only (Complete encodes them).
func cloneMutation(r admission.Response) admission.Response {
	if r.Result != nil {
		st := *r.Result
		r.Result = &st
	}
	r.Patches = slices.Clone(r.Patches)
	r.Warnings = slices.Clone(r.Warnings)
	r.Patch = slices.Clone(r.Patch)
	return r
}
