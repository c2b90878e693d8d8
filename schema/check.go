package schema

import (
	"context"
	"sort"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/common"

	"github.com/meshguard/meshguard/api"
)

// Result is what the API server would say about an object (api.SchemaResult, the
// answer of the api.SchemaSet that Set implements).
type Result = api.SchemaResult

// Check validates obj as the API server validates a create of it: a copy is pruned
// (unknown fields reported, not kept), non-nullable nulls dropped, defaulted from the
// schema, then checked against the schema, the list-type invariants and the CEL
// rules. obj is not changed. ok is false when the set has no schema for obj's kind
// and version.
func (s *Set) Check(ctx context.Context, obj *unstructured.Unstructured) (res Result, ok bool) {
	return s.CheckUpdate(ctx, obj, nil)
}

// CheckUpdate validates obj as the API server validates an update of old (the
// stored object) to obj, and as Check does when old is nil: the API server's
// ratcheting (CRDValidationRatcheting, on by default since Kubernetes 1.30) lets
// schema errors and CEL rule failures in values the update leaves as they were,
// and list-type errors the stored object had already, not count, and CEL
// transition rules (oldSelf) see old. Without it, a policy stored before its CRD
// tightened could not be edited at all through the webhook while the API server
// allows it.
func (s *Set) CheckUpdate(ctx context.Context, obj, old *unstructured.Unstructured) (res Result, ok bool) {
	c := s.lookup(obj.GroupVersionKind())
	if c == nil {
		return Result{}, false
	}
	k := c.checkers()
	if k.err != nil {
		return Result{}, false
	}
	u, res, ok := c.decode(obj)
	if !ok {
		return res, true
	}
	// The stored object, as the API server holds it, and its correlation with the
	// new one: read only when an error may ratchet or CEL rules may compare. A
	// create has none, and so has an old object the API server could not have
	// stored: both are judged as a create.
	var o map[string]any
	var correlated *common.CorrelatedObject
	stored := func() bool {
		if o == nil && old != nil {
			var err error
			if o, err = apiServerCopy(old.Object); err != nil {
				old, o = nil, nil
				return false
			}
			correlated = common.NewCorrelatedObject(u, o, &model.Structural{Structural: c.structural})
		}
		return o != nil
	}
	// Ratcheting only takes errors away: an object the create checks pass needs
	// no ratcheting validator, the slower one, and most updates are such.
	errs := apiservervalidation.ValidateCustomResource(nil, u, k.trees)
	if len(errs) > 0 && stored() {
		errs = apiservervalidation.ValidateCustomResourceUpdate(nil, u, o, k.validator, apiservervalidation.WithRatcheting(correlated))
	}
	res.Errors = append(res.Errors, errs...)
	// The two walks below find nothing in a schema without the nodes they check
	// (walks.go): they run only where they can.
	if c.embedded {
		res.Errors = append(res.Errors, schemaobjectmeta.Validate(ctx, nil, u, c.structural, false)...)
	}
	if c.listTypes {
		// List-type errors the stored object had already do not count.
		lt := listtype.ValidateListSetsAndMaps(nil, c.structural, u)
		if len(lt) > 0 && (!stored() || len(listtype.ValidateListSetsAndMaps(nil, c.structural, o)) == 0) {
			res.Errors = append(res.Errors, lt...)
		}
	}
	// The API server runs CEL rules only when the schema checks passed: a rule may
	// assume the types the schema guarantees. They see the stored object:
	// transition rules (oldSelf) judge only updates.
	if k.cel != nil && len(res.Errors) == 0 {
		var errs field.ErrorList
		if stored() {
			errs, _ = k.cel.Validate(ctx, nil, c.structural, u, o, celconfig.RuntimeCELCostBudget, cel.WithRatcheting(correlated))
		} else {
			errs, _ = k.cel.Validate(ctx, nil, c.structural, u, nil, celconfig.RuntimeCELCostBudget)
		}
		res.Errors = append(res.Errors, errs...)
	}
	return res, true
}

// decode is the API server's reading of a request body for c's kind: a copy
// decoded as it decodes JSON (whole numbers as int64: CEL rules compare them as
// ints, YAML decoders give float64), pruned (unknown fields reported in
// res.Unknown, not kept), nulls the schema does not allow dropped, defaulted; and
// the version's deprecation warning. ok is false when the copy cannot be made
// (res says why).
func (c *compiled) decode(obj *unstructured.Unstructured) (u map[string]any, res Result, ok bool) {
	u, err := apiServerCopy(obj.Object)
	if err != nil {
		res.Errors = field.ErrorList{field.Invalid(field.NewPath(""), nil, err.Error())}
		return nil, res, false
	}
	if c.deprecated != "" {
		res.Warnings = append(res.Warnings, c.deprecated)
	}
	res.Unknown = pruning.PruneWithOptions(u, c.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
	sort.Strings(res.Unknown)
	// Like the API server's decoder, drop nulls the schema does not allow and has no
	// default for (`requestHeadersToAdd:` with nothing under it): they never reach
	// validation.
	// Both walks copy a Structural per field; they run where they can change
	// something (walks.go).
	if hasNull(u) {
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u, c.structural)
	}
	if c.defaults {
		structuraldefaulting.Default(u, c.structural)
	}
	return u, res, true
}
