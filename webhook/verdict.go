package webhook

import (
	"bytes"
	"context"
	"maps"
	"slices"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/internal/fastjson"
	"github.com/meshguard/meshguard/validate"
)

// Bounds of the validating handler's verdict cache. An entry is a response (a few
// warnings, for a MeshTrafficPermission a compact rbac-preview annotation of a few
// KB) and the findings to count, so the byte bound is what limits large previews.
const (
	MaxVerdicts     = 4096
	maxVerdictBytes = 32 << 20
)

// verdict is what the validating handler decides for one request, apart from what
// it takes from the request at answer time (uid, and the user and dry-run flag in
// the log line of a denial).
type verdict struct {
	resp admission.Response
	// kind, namespace and name are for the metrics and the log line.
	kind, namespace, name string
	// errors and warnings are the findings to count; denied is set when the request
	// is refused, with the errors the log line names.
	errors, warnings field.ErrorList
	denied           bool
}

// size weighs a verdict against maxVerdictBytes: what it holds in strings plus a
// fixed overhead per entry and per finding.
func (v verdict) size() int {
	n := entryOverhead + len(v.kind) + len(v.namespace) + len(v.name)
	for _, w := range v.resp.Warnings {
		n += 16 + len(w)
	}
	for k, a := range v.resp.AuditAnnotations {
		n += 32 + len(k) + len(a)
	}
	if r := v.resp.Result; r != nil {
		n += 128 + len(r.Message)
		if r.Details != nil {
			for _, c := range r.Details.Causes {
				n += 48 + len(c.Message) + len(c.Field)
			}
		}
	}
	return n + 64*(len(v.errors)+len(v.warnings))
}

// clone copies what a caller or controller-runtime may modify: the status (whose
// code admission.Response.Complete fills in), the warnings and the annotations.
// Findings are read only.
func (v verdict) clone() verdict {
	if v.resp.Result != nil {
		st := *v.resp.Result
		v.resp.Result = &st
	}
	v.resp.Warnings = slices.Clone(v.resp.Warnings)
	v.resp.AuditAnnotations = maps.Clone(v.resp.AuditAnnotations)
	v.resp.Patches = slices.Clone(v.resp.Patches)
	return v
}

// verdicts returns the engine's verdict cache, created on first use.
func (e *Engine) verdicts() *lruCache[verdict] {
	e.verdictOnce.Do(func() {
		e.verdictCache = newLRU(MaxVerdicts, maxVerdictBytes, verdict.size, verdict.clone)
	})
	return e.verdictCache
}

// serverSet are the metadata fields the API server sets on writes and no rule
// reads: a fresh uid and creationTimestamp for every object it is about to create,
// generation and resourceVersion, and managedFields stamped with the time of each
// write. The verdict key leaves their values out (see verdictKey).
var serverSet = []string{"uid", "creationTimestamp", "generation", "resourceVersion", "managedFields"}

// verdictKey identifies a validating request's verdict, or ok=false when the
// request is not cached. The verdict of a Kuma kind is a function of the request's
// kind, namespace, name, operation, object and old object, of whether the user is
// privileged, of the engine's fixed registry and settings, and — for a
// MeshTrafficPermission, through the RBAC preview — of the stored policies, whose
// version (Engine.PreviewVersion) is part of the key. Keying on the bytes costs a
// SHA-256 of the request's objects, far less than decoding them.
//
// The objects enter the key without the values of their serverSet metadata fields
// (fastjson.SplitOut), which is what lets CREATEs hit: every CREATE carries a new
// uid and timestamps, but a dry run and then the create, or a server-side diff
// (Argo CD dry-runs each manifest on every refresh) repeats everything else. An
// UPDATE that changes nothing (GitOps reconciles, re-applies) comes again as it
// was. Documents SplitOut refuses (not a valid JSON object) are not cached. Not
// cached either: Linkerd kinds (their verdicts read the Server and authorization
// caches) and unknown kinds; nor MeshTrafficPermissions when the preview has no
// version.
func (e *Engine) verdictKey(ctx context.Context, req admission.Request) (key resultKey, stored [32]byte, ok bool) {
	kind, ok := e.cachedKind(req)
	if !ok {
		return key, stored, false
	}
	if e.Preview != nil && kind.Kind == "MeshTrafficPermission" {
		if e.PreviewVersion == nil {
			return key, stored, false
		}
		if stored, ok = e.PreviewVersion(ctx); !ok {
			return key, stored, false
		}
	}
	key, ok = e.requestKey("meshguard-verdict-v2", req, stored)
	return key, stored, ok
}

// cachedKind is the registry kind of a request whose answer may be cached: a
// CREATE or UPDATE of a Kuma kind, with the caches on.
func (e *Engine) cachedKind(req admission.Request) (*api.Kind, bool) {
	if e.DisableVerdictCache || (req.Operation != admissionv1.Update && req.Operation != admissionv1.Create) {
		return nil, false
	}
	kind := e.Registry.Lookup(schema.GroupVersionKind(req.Kind))
	return kind, kind != nil && kind.Family == api.FamilyKuma
}

// requestKey hashes what a handler's answer to req is a function of (see
// verdictKey): purpose names the handler and the version of the key's form,
// stored the state of the stored policies it read (zero when none).
func (e *Engine) requestKey(purpose string, req admission.Request, stored [32]byte) (resultKey, bool) {
	k := newKeyHasher()
	for _, f := range []string{purpose, req.Kind.Group, req.Kind.Version, req.Kind.Kind,
		req.Namespace, req.Name, req.SubResource, string(req.Operation)} {
		k.str(f)
	}
	k.value(e.privileged(req))
	for i, raw := range [][]byte{req.Object.Raw, req.OldObject.Raw} {
		switch {
		case len(raw) == 0:
			k.tag(tagNil)
			continue
		case i == 1 && bytes.Equal(raw, req.Object.Raw):
			// An UPDATE that changes nothing: the old object is the object, byte
			// for byte, and is not walked and hashed again.
			k.tag(tagTrue)
			continue
		}
		// The pieces as a list that says where it ends: each one tagged and
		// length-prefixed, then a nil tag, so that no two sequences of pieces (and
		// what follows them) encode alike.
		k.tag(tagList)
		if !fastjson.SplitOut(raw, "metadata", serverSet, func(b []byte) { k.tag(tagString); k.bytes(b) }) {
			return resultKey{}, false
		}
		k.tag(tagNil)
	}
	k.bytes(stored[:])
	return k.sum(), true
}

// cacheVerdict stores v under key unless the stored policies changed while v was
// computed (then v may mix two states, and the next request computes afresh).
func (e *Engine) cacheVerdict(ctx context.Context, key resultKey, stored [32]byte, v verdict) {
	if e.Preview != nil && v.kind == "MeshTrafficPermission" {
		now, ok := e.PreviewVersion(ctx)
		if !ok || now != stored {
			return
		}
	}
	e.verdicts().put(key, v)
}

// deliver counts a verdict's findings, logs a denial and returns the response; it
// runs for fresh and cached verdicts alike, so metrics and logs do not depend on
// the cache.
func (e *Engine) deliver(req admission.Request, v verdict) admission.Response {
	if v.kind != "" {
		e.record(v.kind, validate.Result{Errors: v.errors, Warnings: v.warnings})
	}
	if v.denied {
		e.logDenied(req, v.kind, v.namespace, v.name, v.errors)
	}
	return v.resp
}
