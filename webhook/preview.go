package webhook

import (
	"context"
	"crypto/sha256"
	"encoding/binary"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/meshguard/meshguard/compile"
	"github.com/meshguard/meshguard/internal/warnline"
)

// MTPGVK is the kind the preview keeps in its informer cache.
var MTPGVK = schema.GroupVersionKind{Group: "kuma.io", Version: "v1alpha1", Kind: "MeshTrafficPermission"}

// PolicyLister lists the MeshTrafficPermissions the cluster already has. The server
// backs it with a controller-runtime informer cache, so the request path never calls
// the API server; ok=false means the cache is not available (no CRD, not synced).
type PolicyLister func(ctx context.Context) (items []unstructured.Unstructured, ok bool)

// maxPreviewLines bounds the preview part of the warnings (compile.AdmissionLines
// chooses what goes in them).
const maxPreviewLines = 6

// preview is the state behind NewPreview's PreviewFunc: the stored policies read
// and compiled so far, and the answers already given.
type preview struct {
	list    PolicyLister
	stored  *previewCache
	results *resultCache
}

func newPreview(list PolicyLister, opts compile.Options) *preview {
	return &preview{list: list, stored: newPreviewCache(opts), results: newResultCache(MaxPreviewResults, maxResultBytes)}
}

// NewPreview returns the PreviewFunc of the validating handler: the incoming policy is
// merged with the stored ones that select the same proxies (the effective RBAC, not
// the policy in isolation), and the groups it takes part in are summarised. The
// `rbac-preview` annotation is compact JSON (compile.MarshalJSONCompact). Answers are
// cached by content (see resultCache), so an object sent again while the stored
// policies are unchanged costs a hash and a lookup.
func NewPreview(list PolicyLister, opts compile.Options) PreviewFunc {
	return newPreview(list, opts).answer
}

// Previewer is NewPreview's preview together with the version of the stored state it
// reads, so that the validating handler can cache whole verdicts for
// MeshTrafficPermissions (Engine.PreviewVersion) and still follow every stored write.
type Previewer struct {
	p   *preview
	gen GenerationFunc
}

// GenerationFunc versions what a PolicyLister returns in O(1): gen changes with every
// write of a listed object (an informer's event count), listed is whether the list is
// available. ok=false when it cannot tell (then the list's content is hashed).
type GenerationFunc func() (gen uint64, listed, ok bool)

// WithGeneration makes StoredVersion read gen instead of hashing every stored
// object's uid and resourceVersion, so that a cached verdict costs the same with
// thousands of stored policies as with none. gen must change whenever the list's
// content may have.
func (p *Previewer) WithGeneration(gen GenerationFunc) *Previewer {
	p.gen = gen
	return p
}

// NewPreviewer returns the preview of NewPreview with its StoredVersion.
func NewPreviewer(list PolicyLister, opts compile.Options) *Previewer {
	return &Previewer{p: newPreview(list, opts)}
}

// Answer is the PreviewFunc.
func (p *Previewer) Answer(ctx context.Context, obj *unstructured.Unstructured) ([]string, string) {
	return p.p.answer(ctx, obj)
}

// StoredVersion identifies the stored policies the preview would read now: a hash
// of every stored object's uid and resourceVersion (see storedSetVersion) and of
// whether the list was available, or with WithGeneration the generation. Any write
// of a stored MeshTrafficPermission changes it. ok=false when some stored object has
// no uid or resourceVersion.
func (p *Previewer) StoredVersion(ctx context.Context) (version [32]byte, ok bool) {
	if p.gen != nil {
		if gen, listed, ok := p.gen(); ok {
			var b [10]byte
			binary.LittleEndian.PutUint64(b[:], gen)
			b[8], b[9] = 'g', boolByte(listed)
			return sha256.Sum256(b[:]), true
		}
	}
	stored, listed := p.p.list(ctx)
	v, ok := storedSetVersion(stored, "", "")
	// An unavailable list (nil) and an empty one read differently.
	return sha256.Sum256(append(v[:], boolByte(listed))), ok
}

// answer is the PreviewFunc: a cached answer when there is one for the object and
// the stored set, otherwise a computed one, which is then cached.
func (p *preview) answer(ctx context.Context, obj *unstructured.Unstructured) ([]string, string) {
	stored, listed := p.list(ctx)
	version, versioned := storedSetVersion(stored, obj.GetNamespace(), obj.GetName())
	var key resultKey
	cacheable := versioned
	if cacheable {
		key, cacheable = previewKey(obj, version, listed)
	}
	if cacheable {
		if r, ok := p.results.get(key); ok {
			return r.lines, r.annotation
		}
	}
	lines, ann := p.compute(obj, stored, listed, version, versioned)
	if cacheable {
		p.results.put(key, previewResult{lines: lines, annotation: ann})
	}
	return lines, ann
}

// previewKey hashes everything the answer depends on besides the compile options:
// what compile.PolicyFromObject and the merge read of obj (kind, metadata.namespace,
// metadata.name, metadata.labels, spec; an absent field reads like null), the stored
// set's version and whether the list was available. ok=false when obj holds a value
// the key encoding does not know.
func previewKey(obj *unstructured.Unstructured, version setVersion, listed bool) (resultKey, bool) {
	k := newKeyHasher()
	meta, _ := obj.Object["metadata"].(map[string]any)
	for _, v := range []any{obj.Object["kind"], meta["namespace"], meta["name"], meta["labels"], obj.Object["spec"], listed} {
		if !k.value(v) {
			return resultKey{}, false
		}
	}
	k.buf = append(k.buf, version[:]...)
	return k.sum(), true
}

// compute builds the answer from scratch (apart from previewCache's reuse of stored
// policies).
func (p *preview) compute(obj *unstructured.Unstructured, stored []unstructured.Unstructured, listed bool, version setVersion, versioned bool) ([]string, string) {
	incoming, err := compile.PolicyFromObject(obj)
	if err != nil {
		return errorLine(err), ""
	}
	// The incoming object replaces its stored version (UPDATE).
	policies, targets := p.stored.policies(incoming, stored, obj.GetNamespace(), obj.GetName())
	previews, err := p.stored.build(policies, targets, version, versioned)
	if err != nil {
		return errorLine(err), ""
	}
	mine := previews[:0]
	incomingRef := incoming.Ref()
	for _, pv := range previews {
		for _, ref := range pv.Policies {
			if ref == incomingRef {
				mine = append(mine, pv)
				break
			}
		}
	}
	full, err := compile.MarshalJSONCompact(mine)
	if err != nil {
		full = nil
	}
	ann, bounded := boundAnnotation(mine, full)
	var lines []string
	if !listed {
		lines = append(lines, "rbac-preview: stored MeshTrafficPermissions unavailable; showing this policy alone")
	}
	if bounded != "" {
		lines = append(lines, bounded)
	}
	return append(lines, compile.AdmissionLines(mine, incomingRef, maxPreviewLines-len(lines))...), ann
}

// errorLine is the warning for a preview that could not be built: the error's
// names are kept whole (or visibly elided) like the preview's.
func errorLine(err error) []string {
	return []string{warnline.Text("rbac-preview: "+err.Error(), MaxWarningLen, "(see `meshguard preview`)")}
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}
