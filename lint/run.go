package lint

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/defaults"
	"github.com/meshguard/meshguard/engine"
	"github.com/meshguard/meshguard/rules"
	"github.com/meshguard/meshguard/validate"
)

// Options are what the offline doors share with the webhook: the deployment settings
// and the registry, plus the namespace for documents that name none (as kubectl
// apply -n would give them).
type Options struct {
	Settings  api.Settings
	Namespace string
	Registry  *api.Registry
	// Stages builds the cross-document stages of one run (the RBAC analysis and
	// Linkerd Server conflicts, see CrossDocument); nil means none. They see every
	// defaulted, registered object, and the other parsed documents (Namespaces,
	// workloads) with a nil Kind, for checks that need pod templates. Each group of
	// documents applied together gets its own set: every kustomize build or Helm
	// render, and the documents read as they are (see renderKey).
	Stages func() []Stage
	// Ignore is the suppression file of the run (--ignore-file); nil: none.
	// Suppressions by the meshguard.io/ignore annotation apply always.
	Ignore *IgnoreFile
	// Partial says the run lints only part of a tree (the changed files a
	// pre-commit hook passes, --changed-files): --ignore-file entries that
	// match nothing are then not reported stale (MG054), since the objects
	// they are for may simply not be in the run.
	Partial bool
	// Now judges the expiry dates of suppressions; zero means the clock.
	Now time.Time
	// Privileged, when set, says which objects are judged as written by a
	// privileged writer (the mesh's own sync), as the webhook judges them:
	// meshguard audit sets it for objects a control plane synced into the
	// cluster. Nil: every object is a user's.
	Privileged func(*unstructured.Unstructured) bool
}

// privileged reports whether o judges obj as a privileged writer's.
func (o Options) privileged(obj *unstructured.Unstructured) bool {
	return o.Privileged != nil && o.Privileged(obj)
}

// Checked is a document that was defaulted and validated, for cross-document checks;
// Kind is nil for a parsed document that is not a registry kind (not defaulted).
type Checked struct {
	Doc    *Document
	Object *unstructured.Unstructured
	Kind   *api.Kind
	// Denied is true when validation found errors: the webhook would refuse the
	// object, so cross-document checks leave it out (it never exists in a cluster).
	Denied bool
	// Spec is the typed spec validation built (validate.Result.Spec), so a stage
	// reads it instead of decoding the object again; nil when there is none.
	Spec any
}

// Prepare gives a document the namespace it would get on apply and runs the mutating
// stage on it, exactly as the webhook would before validation. It returns the
// registry kind (nil for kinds meshguard does not guard) and the mutating stage's
// warnings: labels the document set that it replaced (defaults.CodeLabelReplaced).
func Prepare(d *Document, o Options) (*api.Kind, field.ErrorList) {
	kind := place(d, o)
	if kind == nil {
		return nil, nil
	}
	replaced := defaults.Apply(d.Object, kind, o.Settings, o.request(d))
	return kind, replaced
}

// place looks up a document's registry kind (nil for kinds meshguard does not
// guard) and gives it the namespace it would get on apply.
func place(d *Document, o Options) *api.Kind {
	if d.Object == nil {
		return nil
	}
	kind := o.Registry.Lookup(d.Object.GroupVersionKind())
	if kind == nil {
		return nil
	}
	if d.Object.GetNamespace() == "" && !kind.ClusterScoped && !d.Universal {
		if meta, ok := d.Object.Object["metadata"].(map[string]any); ok {
			meta["namespace"] = o.Namespace
		}
	}
	return kind
}

// request is how a document arrives, for the engine: created, by a user unless
// Privileged says otherwise.
func (o Options) request(d *Document) api.Request {
	return api.Request{Operation: api.OpCreate, Privileged: o.privileged(d.Object), Universal: d.Universal}
}

// Lint defaults and validates every document and returns findings sorted by file and
// line, plus the summary the output formats print. Run does the same for paths,
// reading and checking documents as they are read.
func Lint(docs []Document, o Options) ([]Finding, Summary) {
	// Documents are independent until the cross-document analysis, so they are
	// checked in parallel; results are kept per document to stay deterministic.
	sets := o.newStageSets()
	per := make([]docResult, len(docs))
	parallel(len(docs), func(i int) {
		per[i] = checkDoc(&docs[i], o, sets.summarizers())
	})
	for _, r := range per {
		r.add(sets)
	}
	return finish(sets, len(docs))
}

// stageSets are the cross-document stages of one run, a set per group of
// documents applied together. Objects of different renders (a base and its
// overlays, prod and staging) are alternatives, never in one cluster at once, so
// findings between them would be false; documents read as they are form one
// group, as before rendering existed.
type stageSets struct {
	newStages func() []Stage
	// proto only summarizes: Summarize reads no added state, so one set serves
	// every group, concurrently.
	proto   []Stage
	byGroup map[string][]Stage
	order   []string // groups in the order their first summary came
	// sup collects the suppressions of the run, applied by finish.
	sup *suppressor
	// kept are the documents added so far, in input order: their places (for
	// duplicates, and the render group of their summaries), the stages'
	// summaries and their findings, kept compactly until finish: finish hands
	// the stages only the copy of each object the cluster keeps, which is known
	// once every document is in. What a document keeps to the end is what the
	// collector marks at every collection of a large run (docs/performance.md).
	kept keptStore
}

func (o Options) newStageSets() *stageSets {
	sup := &suppressor{file: o.Ignore, partial: o.Partial, objects: map[objectKey]*objectSups{}}
	if o.Stages == nil {
		return &stageSets{sup: sup}
	}
	return &stageSets{newStages: o.Stages, proto: o.Stages(), byGroup: map[string][]Stage{}, sup: sup}
}

func (s *stageSets) summarizers() []Stage { return s.proto }

// of returns the stages of group key, made on first use.
func (s *stageSets) of(key string) []Stage {
	stages, ok := s.byGroup[key]
	if !ok {
		stages = s.newStages()
		s.byGroup[key] = stages
		s.order = append(s.order, key)
	}
	return stages
}

// renderKey names the group of documents applied together that d belongs to:
// its kustomize build or Helm render, or "" for documents read as they are.
func renderKey(d *Document) string {
	if d.Rendered != nil {
		return "render:" + d.Rendered.By
	}
	return ""
}

// docResult is what a run keeps of one document once its verdict is made: its
// findings and what each cross-document stage remembers of it.
type docResult struct {
	findings  []Finding
	summaries []any  // by stage; nil when no stage keeps anything
	group     string // renderKey of the document
	// sups are the object's annotation suppressions; nil when none.
	sups *objectSups
	// at is the document's identity and place, for duplicates.
	at placed
}

// checkDoc lints one document and lets the stages summarize it while its tree is
// there.
func checkDoc(d *Document, o Options, stages []Stage) docResult {
	fs, kind, spec := lintDoc(d, o)
	annFindings, sups := annotationSuppressions(d, o)
	r := docResult{findings: append(fs, annFindings...), group: renderKey(d), sups: sups}
	denied := false
	for _, f := range fs {
		denied = denied || f.Severity == validate.SeverityError
	}
	r.at = placeOf(d, o, denied)
	if len(stages) == 0 || (kind == nil && (d.Err != nil || d.Object == nil)) {
		return r
	}
	c := Checked{Doc: d, Object: d.Object, Kind: kind, Denied: denied, Spec: spec}
	for i, s := range stages {
		if v := s.Summarize(c); v != nil {
			if r.summaries == nil {
				r.summaries = make([]any, len(stages))
			}
			r.summaries[i] = v
		}
	}
	return r
}

// placeOf is d's identity (after Prepare gave it its namespace) and the place
// a duplicate finding points at: its name.
func placeOf(d *Document, o Options, denied bool) placed {
	if d.Err != nil || d.Object == nil {
		return placed{}
	}
	id, ok := IdentityOf(d.Object, o.Registry, o.Namespace)
	if !ok {
		return placed{}
	}
	file, line := d.locate("metadata.name")
	return placed{id: id, ok: true, file: file, line: line, denied: denied, group: renderKey(d)}
}

// add keeps r's findings and its summaries for the stages of its group;
// results must be added in input order.
func (r docResult) add(sets *stageSets) {
	if r.sups != nil && sets.sup != nil {
		sets.sup.objects[keyOf(&r.sups.at)] = r.sups
	}
	k := &sets.kept
	if r.summaries != nil || r.at.ok {
		doc := k.keepPlace(r.at)
		for i, v := range r.summaries {
			if v != nil {
				k.summaries.add(keptSummary{doc: doc, stage: int32(i), v: v})
			}
		}
	}
	for i := range r.findings {
		k.keepFinding(&r.findings[i])
	}
}

// feed hands the stages the summaries of the documents the cluster keeps (a
// duplicate's earlier copies are left out) and returns the duplicate findings.
func (s *stageSets) feed() []Finding {
	k := &s.kept
	places := make([]placed, k.places.len())
	for i := range places {
		places[i] = k.place(i)
	}
	k.places = chunks[keptPlace]{}
	replaced := supersededBy(places)
	for i := 0; i < k.summaries.len(); i++ {
		sum := k.summaries.at(i)
		if s.newStages != nil && replaced[sum.doc] < 0 {
			s.of(places[sum.doc].group)[sum.stage].Add(sum.v)
		}
		sum.v = nil // the stage holds what it needs of it now
		k.summaries.release(i)
	}
	k.summaries = chunks[keptSummary]{}
	return duplicateFindings(places)
}

// finish joins the documents' findings, the duplicate findings and the
// stages' findings, group by group, sorts, and counts.
func finish(sets *stageSets, docs int) ([]Finding, Summary) {
	parts := [][]Finding{sets.feed()}
	k := &sets.kept
	n := k.findings.len() + len(parts[0])
	for _, key := range sets.order {
		for _, s := range sets.byGroup[key] {
			fs := s.Findings()
			parts = append(parts, fs)
			n += len(fs)
		}
	}
	var out []Finding // nil when there are none, as before
	if n > 0 {
		out = make([]Finding, 0, n)
	}
	for i := 0; i < k.findings.len(); i++ {
		out = append(out, k.finding(i))
		k.findings.release(i) // the kept form is garbage once copied
	}
	k.findings = chunks[keptFinding]{}
	for i, p := range parts {
		out = append(out, p...)
		parts[i] = nil
	}
	if sets.sup != nil {
		out = sets.sup.apply(out)
	}
	SortFindings(out)
	sum := Summary{Documents: docs}
	for _, f := range out {
		if f.Suppression != nil {
			sum.Suppressed++
			continue
		}
		if f.Severity == validate.SeverityError {
			sum.Errors++
		} else {
			sum.Warnings++
		}
	}
	return out, sum
}

// lintDoc checks one document; it returns the registry kind when the document was
// a guarded object that went through the pipeline, and the typed spec validation
// built for it.
func lintDoc(d *Document, o Options) ([]Finding, *api.Kind, any) {
	if d.Err != nil {
		line := d.ErrLine
		if line == 0 {
			line = d.Line
		}
		return []Finding{{File: d.File, Line: max(line, 1), Severity: validate.SeverityError,
			Code: validate.CodeParse, Message: d.Err.Error()}}, nil, nil
	}
	kind := place(d, o)
	if kind == nil {
		if f, ok := unknownKind(d, o); ok {
			return []Finding{f}, nil, nil
		}
		// Namespaces and workloads are not registry kinds, but their Linkerd
		// annotation is checked (the same check the validating webhook runs).
		return FindingsFor(d, validate.DefaultInboundPolicy(d.Object), validate.SeverityError), nil, nil
	}
	// The engine runs the mutating stage and validation; the cross-object checks
	// run once the run holds every document (crossStage).
	eng := engine.Engine{Settings: o.Settings}
	v := eng.Judge(context.Background(), engine.Input{Object: d.Object, Kind: kind, Request: o.request(d), Default: true})
	out := FindingsFor(d, v.Errors, validate.SeverityError)
	out = append(out, FindingsFor(d, v.Replaced, validate.SeverityWarning)...)
	return append(out, FindingsFor(d, v.Warnings, validate.SeverityWarning)...), kind, v.Spec
}

// parallel runs fn(0..n-1) on GOMAXPROCS workers and waits for all of them.
func parallel(n int, fn func(int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// unknownKind flags a document in a guarded API group whose kind or version the
// registry does not know and that is not a known non-policy resource: most often a
// typo, which would otherwise pass the linter silently.
func unknownKind(d *Document, o Options) (Finding, bool) {
	gvk := d.Object.GroupVersionKind()
	reg := o.Registry
	if !reg.IsGroupOf(gvk.Group) || gvk.Group == api.GatewayGroup {
		// The Gateway API is not a mesh's own group: its other kinds (Gateway,
		// GatewayClass, ReferenceGrant, ...) and versions are another project's.
		return Finding{}, false
	}
	if instead, removed := api.KumaRemovedKind(o.Settings.KumaVersion, gvk.Kind); removed && gvk.Group == api.KumaGroup && reg.Lookup(gvk) == nil {
		// A legacy kind the release removed (TrafficPermission, ExternalService,
		// ZoneIngress, ...): no CRD serves it any more. Registered kinds (the
		// MeshGateway family) are refused by validate with the same words.
		return FindingFor(d, validate.SeverityError, validate.CodeUnservedKind, "kind", fmt.Sprintf(
			"Kuma %s has no kind %s, so the API server refuses the object; %s", o.Settings.KumaVersion, gvk.Kind, instead)), true
	}
	known := api.KnownKumaResources()
	if gvk.Group == api.LinkerdGroup {
		known = api.KnownLinkerdResources()
	}
	for _, k := range known {
		if k == gvk.Kind {
			return Finding{}, false
		}
	}
	var versions []string
	for _, k := range reg.Kinds() {
		if k.Kind == gvk.Kind && k.Group == gvk.Group {
			versions = append(versions, k.Group+"/"+k.Version)
		}
	}
	if gvk.Group == api.KumaGroup {
		// Kuma's CRDs are all embedded: the cluster serves no such resource either.
		msg := fmt.Sprintf("Kuma %s has no kind %s in %s, so the API server refuses the object; check the spelling of kind and apiVersion",
			o.Settings.KumaVersion, gvk.Kind, d.Object.GetAPIVersion())
		if len(versions) > 0 {
			msg = fmt.Sprintf("Kuma %s serves %s as %s, not %q, so the API server refuses the object", o.Settings.KumaVersion, gvk.Kind, strings.Join(versions, ", "), gvk.Version)
		} else if s := api.Suggest(gvk.Kind, kindNames(reg, api.KumaGroup)); s != "" {
			msg = fmt.Sprintf("Kuma %s has no kind %s; did you mean %s? The API server refuses the object", o.Settings.KumaVersion, gvk.Kind, s)
		}
		return FindingFor(d, validate.SeverityError, validate.CodeUnservedKind, "kind", msg), true
	}
	if o.Settings.Schemas != nil && o.Settings.Schemas.Knows(gvk) {
		// The release's CRDs serve it, but meshguard has no rules for it.
		msg := fmt.Sprintf("%s %s is served by Linkerd's CRDs but is not a kind meshguard knows, so it is not checked", d.Object.GetAPIVersion(), gvk.Kind)
		return FindingFor(d, validate.SeverityWarning, validate.CodeUnknownKind, "kind", msg), true
	}
	return FindingFor(d, validate.SeverityError, validate.CodeUnservedKind, "kind", unservedLinkerd(d, o, versions)), true
}

// unservedLinkerd words MG005 for a policy.linkerd.io kind or version the Linkerd
// release's CRDs (--linkerd-version) do not serve: kubectl apply fails with "no
// matches for kind", so CI should too.
func unservedLinkerd(d *Document, o Options, versions []string) string {
	gvk := d.Object.GroupVersionKind()
	lv := o.Settings.LinkerdVersion
	if lv == "" {
		lv = "(the embedded release)"
	}
	if len(versions) > 0 {
		return fmt.Sprintf("Linkerd %s serves %s as %s, not %q, so the API server refuses the object", lv, gvk.Kind, strings.Join(versions, ", "), gvk.Version)
	}
	if s := api.Suggest(gvk.Kind, kindNames(o.Registry, api.LinkerdGroup)); s != "" {
		return fmt.Sprintf("Linkerd %s has no kind %s; did you mean %s? The API server refuses the object", lv, gvk.Kind, s)
	}
	return fmt.Sprintf("Linkerd %s has no kind %s in %s, so the API server refuses the object; check the spelling of kind and apiVersion", lv, gvk.Kind, d.Object.GetAPIVersion())
}

// kindNames lists the kinds the registry has in group.
func kindNames(reg *api.Registry, group string) []string {
	var out []string
	for _, k := range reg.Kinds() {
		if k.Group == group {
			out = append(out, k.Kind)
		}
	}
	return out
}

// FindingFor builds a finding for a document, with the line of fieldPath.
func FindingFor(d *Document, severity, code, fieldPath, msg string) Finding {
	file, line := d.locate(fieldPath)
	msg += yaml11Hint(d, fieldPath)
	rf := rules.Finding{Severity: severity, Code: code, Field: fieldPath, Message: msg}
	if d.Object != nil {
		rf.APIVersion = d.Object.GetAPIVersion()
		rf.Kind = d.Object.GetKind()
		rf.Namespace = d.Object.GetNamespace()
		rf.Name = d.Object.GetName()
	}
	f := FromRule(rf, file, line)
	if d.Rendered != nil {
		f.RenderedBy, f.RenderedLine = d.Rendered.By, max(d.Rendered.LineOf(fieldPath), 1)
	}
	return f
}

// FindingsFor turns field errors about a document into findings of one severity,
// for the doors that report engine results outside Lint (meshguard default).
func FindingsFor(d *Document, errs field.ErrorList, severity string) []Finding {
	out := make([]Finding, 0, len(errs))
	for _, e := range errs {
		out = append(out, FindingFor(d, severity, e.Origin, e.Field, message(e)))
	}
	return out
}

// message is a finding's text: Kubernetes's error body ("Invalid value: "x": ..."),
// except for an Invalid finding with no value to show, whose detail is the whole
// sentence (MG001's 'unknown field "defualt"; did you mean "default"?'), as the
// webhook's admission warnings print it.
func message(e *field.Error) string {
	if e.Type == field.ErrorTypeInvalid && e.BadValue == (field.OmitValueType{}) {
		return e.Detail
	}
	return e.ErrorBody()
}
