package engine

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/refs"
)

// references are the findings of references that resolve to nothing in src
// (MG401-MG449), always warnings: the order of applies varies. Only the kinds and
// namespaces a reference needs (refs.Needs) are listed, so the cost follows the
// object, not the cluster. A reference is skipped when src cannot say what exists
// of a kind it needs, and when it needs every namespace's Pods or Services (a
// system-wide Dataplane selector, a MeshService label selection): listing those on
// every request would cost what the cluster holds. A lint run resolves references
// over the whole run at once instead (lint's reference stage, the same resolver).
func references(ctx context.Context, obj *unstructured.Unstructured, src Source, s api.Settings) field.ErrorList {
	opts := refs.OptionsFrom(s)
	all := refs.Extract(obj, opts)
	if len(all) == 0 {
		return nil
	}
	inv := refs.NewInventory()
	listed := map[refs.Need]bool{} // false: not known
	var kept []refs.Ref
	for _, r := range all {
		ok := true
		for _, n := range refs.Needs(r) {
			if n.Namespace == "" && (n.Class == refs.ClassPod || n.Class == refs.ClassService) {
				ok = false
				break
			}
			known, seen := listed[n]
			if !seen {
				var items []*unstructured.Unstructured
				items, known = src.List(ctx, schema.GroupKind{Group: n.Class.Group(), Kind: n.Class.Kind()}, n.Namespace)
				listed[n] = known
				for _, u := range items {
					inv.AddObject(u)
				}
			}
			ok = ok && known
		}
		if ok {
			kept = append(kept, r)
		}
	}
	where := refs.SourceFiles
	if src.Scope() == ScopeCluster {
		where = refs.SourceCluster
	}
	var out field.ErrorList
	for _, p := range (refs.Resolver{Inv: inv, Opts: opts, Source: where}).Check(kept) {
		out = append(out, &field.Error{Type: field.ErrorTypeInvalid, Field: p.Path, BadValue: field.OmitValueType{}, Detail: p.Message, Origin: p.Code})
	}
	return out
}
