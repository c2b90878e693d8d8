// Package webhook puts the engine behind the Kubernetes API server: a mutating and a
// validating admission handler that decode the request, call defaults/validate/compile
// and turn the results into JSON patches, 422 denials with causes, warnings and audit
// annotations. It holds no policy logic of its own.
package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/defaults"
	"github.com/meshguard/meshguard/engine"
	"github.com/meshguard/meshguard/validate"
)

// Limits of what goes back to the API server in warnings: kubectl prints each one on
// a line, and the API server drops warnings past about 4 KiB in total.
const (
	MaxWarningLen    = 120
	MaxWarningsTotal = 3000
)

// PreviewFunc computes the RBAC preview of an admitted MeshTrafficPermission: a few
// warning lines and the JSON for the `rbac-preview` audit annotation. spec is obj's
// spec as validation decoded it (validate.Result.Spec), so that the object is
// decoded once per request; nil makes the preview decode obj itself. It must not
// call the API server (it reads an informer cache).
type PreviewFunc func(ctx context.Context, obj *unstructured.Unstructured, spec *api.MeshTrafficPermissionSpec) (lines []string, annotation string)

// FindingsRecorder counts findings for metrics; nil records nothing.
type FindingsRecorder func(kind, code, severity string)

// Handlers are the mutating and validating admission handlers (Mutate, Validate)
// with what they share: the registry and settings (the same ones the linter uses),
// who is trusted, and the informer-backed listers of stored objects. They hold no
// policy logic; that is the engine's (defaults, validate, compile).
type Handlers struct {
	Registry         *api.Registry
	Settings         api.Settings
	PrivilegedUsers  map[string]bool
	PrivilegedGroups map[string]bool
	Preview          PreviewFunc
	Record           FindingsRecorder
	Log              logr.Logger
	// Objects is where the cross-object checks (Linkerd Server conflicts MG350,
	// missing EgressNetworks MG369, rate-limit policies sharing a Server MG370)
	// and the reference checks (MG401-MG449) read the stored objects: the
	// informer caches. Nil checks none of them.
	Objects engine.Source
	// DenyServerConflicts turns Server conflicts from warnings into denials.
	DenyServerConflicts bool
	// Linkerd is where the authorization preview reads the cached Linkerd policy
	// objects (Servers and what authorizes them; Stored nil shows none) and the
	// installation's facts they are read with.
	Linkerd LinkerdSource
	// Now is the clock suppressions' expiry dates are judged by; nil: time.Now.
	Now func() time.Time
	// Widening says in one line whom an admitted authorization object newly lets
	// in (NewWidening); nil says nothing.
	Widening WideningFunc
	// ConfigChange says how many proxies' effective configuration an admitted
	// Kuma policy changes, and names them in the config-diff audit annotation
	// (NewConfigChange); nil says nothing.
	ConfigChange ConfigChangeFunc
	// SchemaRedundant reports whether the API server checked objects of a kind
	// against the schema the schema layer would (InstalledSchemas.Redundant), which
	// the layer then skips; nil runs it always.
	SchemaRedundant func(schema.GroupVersionKind) bool
}

// privileged reports whether the request comes from the mesh's own sync (or another
// configured trusted writer), whose objects are stored as sent.
func (e *Handlers) privileged(req admission.Request) bool {
	if e.PrivilegedUsers[req.UserInfo.Username] {
		return true
	}
	for _, g := range req.UserInfo.Groups {
		if e.PrivilegedGroups[g] {
			return true
		}
	}
	return false
}

// decoded is the request's object (and old object) with its registry kind.
type decoded struct {
	kind *api.Kind
	obj  *unstructured.Unstructured
	old  *unstructured.Unstructured
	op   api.Operation
	// namespaceAdded is set when the object came without metadata.namespace and
	// decode filled in the request's (the mutating patch then adds it too).
	namespaceAdded bool
}

// decode reads the request; ok=false with a response means "answer this now".
func (e *Handlers) decode(req admission.Request) (decoded, *admission.Response) {
	var d decoded
	d.op = api.Operation(req.Operation)
	if req.Operation == admissionv1.Delete || req.Operation == admissionv1.Connect {
		r := admission.Allowed("")
		return d, &r
	}
	d.kind = e.Registry.Lookup(schema.GroupVersionKind(req.Kind))
	if d.kind == nil {
		r := admission.Allowed("kind not guarded by meshguard")
		return d, &r
	}
	obj, err := toUnstructured(req.Object.Raw)
	if err != nil {
		r := admission.Errored(http.StatusBadRequest, fmt.Errorf("object is not valid JSON: %w", err))
		return d, &r
	}
	if obj.GetNamespace() == "" && req.Namespace != "" {
		if meta, ok := obj.Object["metadata"].(map[string]any); ok {
			meta["namespace"] = req.Namespace
			d.namespaceAdded = true
		}
	}
	d.obj = obj
	if req.Operation == admissionv1.Update {
		old, refused := decodeOld(req)
		if refused != nil {
			return d, refused
		}
		d.old = old
	}
	return d, nil
}

// decodeOld reads the stored object of an UPDATE or DELETE. The API server always
// sends it (since Kubernetes 1.15), and the checks that compare with it (the mesh
// may not change, MG011; who may touch synced objects, MG013/MG014) would be
// skipped without it: a request without a decodable oldObject is refused, not
// judged as if it were a CREATE.
func decodeOld(req admission.Request) (*unstructured.Unstructured, *admission.Response) {
	old, err := toUnstructured(req.OldObject.Raw)
	if err != nil {
		r := admission.Errored(http.StatusBadRequest, fmt.Errorf(
			"%s of %s %q refused: the request's oldObject cannot be decoded (%v); the API server always sends the stored object, and the checks that compare with it cannot run without it",
			req.Operation, req.Kind.Kind, req.Name, err))
		return nil, &r
	}
	return old, nil
}

// callerGone is the answer to a request whose caller has stopped waiting (its
// timeout passed, or it closed the connection; BodyLimiter.Wrap sets the
// deadline): the work still ahead is skipped, since no one will read the answer.
func callerGone(ctx context.Context) *admission.Response {
	if err := ctx.Err(); err != nil {
		r := admission.Errored(http.StatusServiceUnavailable, fmt.Errorf("the caller stopped waiting before the request was answered: %w", err))
		return &r
	}
	return nil
}

func toUnstructured(raw []byte) (*unstructured.Unstructured, error) {
	if len(raw) == 0 {
		return nil, fmt.Errorf("empty object")
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, fmt.Errorf("object is null")
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// Mutate is the mutating handler: the labels and syntactic sugar of defaults, as a
// JSON patch of exactly the members Apply wrote (none for an already-mutated
// object). The patch is built from defaults.ApplyChanges, not by diffing the object
// before and after, so its cost is that of what was written, whatever the size or
// depth of the rest of the object.
func (e *Handlers) Mutate(ctx context.Context, req admission.Request) admission.Response {
	if gone := callerGone(ctx); gone != nil {
		return *gone
	}
	d, early := e.decode(req)
	if early != nil {
		return *early
	}
	replaced, changes := defaults.ApplyChanges(d.obj, d.kind, e.Settings, api.Request{Operation: d.op, Old: d.old, Privileged: e.privileged(req)})
	if len(changes) == 0 {
		return admission.Allowed("")
	}
	resp := admission.Allowed("")
	resp.Patches = patchOps(changes, d.namespaceAdded, d.obj.GetNamespace())
	// A label the user set and Apply replaced (MG016) is said, not reverted silently.
	resp.Warnings = Warnings(replaced)
	return resp
}

// Validate is the validating handler: all of validate, as a 422 Invalid with one
// cause per field on errors, admission warnings otherwise, plus the RBAC preview for
// MeshTrafficPermission. A DELETE is checked against the stored object
// (validateDelete). Namespaces, Pods and workloads get only the Linkerd
// default-inbound-policy annotation check (validateAnnotations).
func (e *Handlers) Validate(ctx context.Context, req admission.Request) admission.Response {
	if resp, ok := e.validateAnnotations(req); ok {
		return resp
	}
	if req.Operation == admissionv1.Delete {
		return e.validateDelete(req)
	}
	if gone := callerGone(ctx); gone != nil {
		return *gone
	}
	d, early := e.decode(req)
	if early != nil {
		return *early
	}
	kind, name := d.kind.Kind, d.obj.GetName()
	checked := e.SchemaRedundant != nil && e.SchemaRedundant(d.obj.GroupVersionKind())
	v := e.engine().Judge(ctx, engine.Input{Object: d.obj, Kind: d.kind, Suppress: true, Source: e.Objects,
		Request: api.Request{Operation: d.op, Old: d.old, Privileged: e.privileged(req), SchemaChecked: checked}})
	res := validate.Result{Errors: v.Errors, Warnings: v.Warnings, Spec: v.Spec}
	if len(res.Errors) > 0 {
		e.record(kind, res)
		e.logDenied(req, kind, d.obj.GetNamespace(), name, res.Errors)
		return Denied(d.kind, name, res.Errors, Warnings(res.Warnings))
	}
	warnings := Warnings(res.Warnings)
	e.record(kind, res)
	if gone := callerGone(ctx); gone != nil {
		return *gone // the preview and the widening check are for nobody now
	}
	resp := admission.Allowed("")
	// The widening check and the preview find the incoming policy's related
	// stored policies once for both.
	ctx = WithRequestScope(ctx)
	if e.Widening != nil {
		spec, _ := res.Spec.(*api.MeshTrafficPermissionSpec)
		warnings = appendBounded(warnings, e.Widening(ctx, d.obj, d.old, spec)...)
	}
	if e.Preview != nil && kind == api.KindMeshTrafficPermission {
		spec, _ := res.Spec.(*api.MeshTrafficPermissionSpec)
		lines, ann := e.Preview(ctx, d.obj, spec)
		warnings = appendBounded(warnings, lines...)
		if ann != "" {
			resp.AuditAnnotations = map[string]string{"rbac-preview": ann}
		}
	}
	if d.kind.Family == api.FamilyLinkerd {
		warnings = appendBounded(warnings, e.linkerdPreview(ctx, d.obj)...)
	}
	if e.ConfigChange != nil && d.kind.Family == api.FamilyKuma && !d.kind.Resource {
		lines, ann := e.ConfigChange(ctx, d.obj, d.old)
		warnings = appendBounded(warnings, lines...)
		if ann != "" {
			if resp.AuditAnnotations == nil {
				resp.AuditAnnotations = map[string]string{}
			}
			resp.AuditAnnotations["config-diff"] = ann
		}
	}
	resp.Warnings = warnings
	return resp
}

// engine is the engine the validating handler judges with: the deployment's
// settings, every cross-object check, and Server conflicts as errors when serve
// was told to deny them.
func (e *Handlers) engine() *engine.Engine {
	eng := engine.New(e.Settings)
	eng.Now = e.Now
	if e.DenyServerConflicts {
		eng.Deny = map[string]bool{validate.CodeLinkerdServerConflict: true}
	}
	return eng
}

// logDenied writes the one log line per denied request: kind, namespace/name, user
// and the rule codes.
func (e *Handlers) logDenied(req admission.Request, kind, namespace, name string, errs field.ErrorList) {
	e.Log.Info("denied", "kind", kind, "namespace", namespace, "name", name,
		"user", req.UserInfo.Username, "operation", req.Operation, "codes", codes(errs), "dryRun", req.DryRun != nil && *req.DryRun)
}

func (e *Handlers) record(kind string, res validate.Result) {
	if e.Record == nil {
		return
	}
	for _, f := range res.Errors {
		e.Record(kind, f.Origin, validate.SeverityError)
	}
	for _, f := range res.Warnings {
		e.Record(kind, f.Origin, validate.SeverityWarning)
	}
}

// Denied builds the 422 Invalid response: apierrors.NewInvalid keeps one cause per
// field path (ToAggregate would turn it into a 403 without paths). Each cause message
// ends with its rule code so users can look it up in docs/rules.md.
func Denied(kind *api.Kind, name string, errs field.ErrorList, warnings []string) admission.Response {
	return deniedGK(schema.GroupKind{Group: kind.Group, Kind: kind.Kind}, name, errs, warnings)
}

// MaxCauses bounds the causes of one denial: the first MaxCauses findings, then
// one cause saying how many more there are (`meshguard lint` lists them all). An
// object with thousands of errors otherwise makes an answer of megabytes, which
// the API server copies into its response and kubectl prints.
const MaxCauses = 100

// deniedGK is Denied for any group and kind (also the core kinds of the annotation check).
// Building it is linear in the number of findings.
func deniedGK(gk schema.GroupKind, name string, errs field.ErrorList, warnings []string) admission.Response {
	shown := errs[:min(len(errs), MaxCauses)]
	coded := make(field.ErrorList, 0, len(shown)+1)
	for _, e := range shown {
		c := *e
		if c.Origin != "" {
			c.Detail = strings.TrimSpace(c.Detail + " [" + c.Origin + "]")
		}
		coded = append(coded, &c)
	}
	if more := len(errs) - len(shown); more > 0 {
		coded = append(coded, field.Forbidden(field.NewPath("spec"),
			fmt.Sprintf("and %d more errors; run `meshguard lint` on the object to see them all", more)))
	}
	status := apierrors.NewInvalid(gk, name, coded).ErrStatus
	return admission.Response{AdmissionResponse: admissionv1.AdmissionResponse{Allowed: false, Result: &status, Warnings: warnings}}
}

// Warnings renders findings as admission warnings: "CODE field: message", one line
// each, at most MaxWarningLen characters, MaxWarningsTotal in all. It stops at the
// first line that does not fit, so its cost does not grow with the findings past
// the budget.
func Warnings(ws field.ErrorList) []string {
	var out []string
	total := 0
	for _, w := range ws {
		line := w.Origin + " " + w.Field + ": " + w.Detail
		if w.Field == "" {
			line = w.Origin + " " + w.Detail
		}
		line = Shorten(flatten(line), MaxWarningLen)
		if total+len(line) > MaxWarningsTotal {
			break
		}
		total += len(line)
		out = append(out, line)
	}
	return out
}

// appendBounded adds lines, flattened and shortened, while the total stays in budget.
func appendBounded(out []string, lines ...string) []string {
	total := 0
	for _, l := range out {
		total += len(l)
	}
	for _, l := range lines {
		l = Shorten(flatten(l), MaxWarningLen)
		if total+len(l) > MaxWarningsTotal {
			return out
		}
		total += len(l)
		out = append(out, l)
	}
	return out
}

// flatten is strings.Join(strings.Fields(l), " "): one line, single spaces. Lines
// that already are (no space but single ' ' between other characters), as the
// preview's are, come back without allocating.
func flatten(l string) string {
	prevSpace := true // a leading space needs the slow path
	for _, r := range l {
		if unicode.IsSpace(r) {
			if r != ' ' || prevSpace {
				return strings.Join(strings.Fields(l), " ")
			}
			prevSpace = true
			continue
		}
		prevSpace = false
	}
	if prevSpace && l != "" { // a trailing space
		return strings.Join(strings.Fields(l), " ")
	}
	return l
}

// Shorten cuts s to at most n bytes on a rune boundary, marking the cut with "...".
func Shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - 3
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + "..."
}

func codes(errs field.ErrorList) string {
	seen := map[string]bool{}
	var out []string
	for _, e := range errs {
		if !seen[e.Origin] {
			seen[e.Origin] = true
			out = append(out, e.Origin)
		}
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}
