package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/validate"
)

var rateLimitGK = schema.GroupKind{Group: api.LinkerdGroup, Kind: api.KindHTTPLocalRateLimitPolicy}

// rateLimitConflicts is MG370: HTTPLocalRateLimitPolicies that target the same
// Server. Linkerd accepts one per Server (the oldest, by name when created together)
// and marks the others not accepted, so their limits never apply. Every policy
// involved is told, naming all of them.
func rateLimitConflicts() CrossCheck {
	return CrossCheck{
		Codes:    []string{validate.CodeLinkerdRateLimitConflict},
		Subjects: []schema.GroupKind{rateLimitGK},
		Inputs:   []schema.GroupKind{rateLimitGK},
		Fields:   func(Subject) []string { return []string{"spec.targetRef"} },
		Run:      runRateLimitConflicts,
	}
}

func runRateLimitConflicts(ctx context.Context, s Subject, src Source) field.ErrorList {
	spec, ok := s.Spec.(*api.HTTPLocalRateLimitPolicySpec)
	if !ok || spec.TargetRef == nil {
		return nil
	}
	server := spec.TargetRef.Name
	names := []string{s.Object.GetName()}
	others, _ := src.List(ctx, rateLimitGK, s.Namespace())
	for _, o := range others {
		if o.GetName() != s.Object.GetName() && rateLimitTarget(o) == server {
			names = append(names, o.GetName())
		}
	}
	if len(names) < 2 {
		return nil
	}
	sort.Strings(names)
	msg := fmt.Sprintf("HTTPLocalRateLimitPolicies %s all target Server %s; Linkerd applies only one per Server (the oldest, by name when created together) and ignores the others: merge them into one",
		strings.Join(names, ", "), server)
	return field.ErrorList{field.Invalid(field.NewPath("spec", "targetRef"), field.OmitValueType{}, msg).
		WithOrigin(validate.CodeLinkerdRateLimitConflict)}
}

// rateLimitTarget is the Server an HTTPLocalRateLimitPolicy names, "" when none.
func rateLimitTarget(u *unstructured.Unstructured) string {
	name, _, _ := unstructured.NestedString(u.Object, "spec", "targetRef", "name")
	return name
}
