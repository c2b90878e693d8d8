package validate

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// schemaLayer is validation's first layer: the object against its kind's CRD, as the
// API server checks it before any webhook sees the object (pruning, types, enums,
// patterns, required fields, CEL rules). Schema errors are MG002 errors, fields the
// API server would drop MG001 warnings. It reports whether the schema answered, in
// which case the hand-written structural check stays silent (it still cleans the spec
// so that the later layers can read what is well-typed).
func (v *validator) schemaLayer(obj *unstructured.Unstructured) bool {
	set := v.s.Schemas
	if set == nil {
		return false
	}
	if v.req.SchemaChecked && set.Knows(obj.GroupVersionKind()) {
		// The API server ran this very schema before the webhook was called: it
		// found no error and left nothing to prune. Only its deprecation notice,
		// which costs nothing, is repeated, as the layer would.
		v.deprecation(obj, set.Deprecation(obj.GroupVersionKind()))
		return true
	}
	// An UPDATE is judged as the API server judges it: errors in what the update
	// leaves as it was stored do not count (ratcheting).
	var stored *unstructured.Unstructured
	if v.req.Operation == api.OpUpdate {
		stored = v.req.Old
	}
	res, ok := set.CheckUpdate(context.Background(), obj, stored)
	if !ok {
		return false
	}
	gvk := obj.GroupVersionKind()
	for _, u := range res.Unknown {
		parent, key := splitLast(u)
		hint := v.kumaAdvice(u)
		if hint == "" {
			hint = api.UnknownFieldHint(key, set.FieldsAt(gvk, parent))
		}
		v.unknown(pathOf(u), hint)
	}
	for _, e := range res.Errors {
		placeUnplaced(e)
		// The library words details for a whole request body; the path is already
		// the finding's field.
		e.Detail = strings.TrimPrefix(e.Detail, e.Field+" in body ")
		if e.Detail == "" {
			e.Detail = v.crdName() + "'s CRD refuses it"
		}
		if advice := v.kumaAdvice(e.Field); advice != "" {
			e.Detail += "; " + advice
		}
		v.err(e, api.CodeWrongType)
	}
	for _, w := range res.Warnings {
		v.deprecation(obj, w)
	}
	return true
}

// unservedKuma refuses, as MG005, a kind meshguard knows that the Kuma release of
// the settings (--kuma-version) has no CRD for (MeshOpenTelemetryBackend or
// MeshZoneAddress under Kuma 2.13): the API server of such a cluster answers "no
// matches for kind", so no later layer's verdict would mean anything. The doors
// always load the release's CRDs (schema.LoadInto); without them (settings built
// by hand) nothing is said.
func (v *validator) unservedKuma(obj *unstructured.Unstructured) bool {
	set := v.s.Schemas
	if set == nil || set.Knows(obj.GroupVersionKind()) {
		return false
	}
	what := "set --kuma-version to the release the cluster runs"
	if instead, removed := api.KumaRemovedKind(v.s.KumaVersion, obj.GetKind()); removed {
		what = instead
	}
	v.res.Errors = append(v.res.Errors, field.Invalid(field.NewPath("kind"), obj.GetKind(),
		fmt.Sprintf("%s does not serve %s %s (its CRDs have no such kind), so the API server refuses the object; %s",
			v.crdName(), obj.GetAPIVersion(), obj.GetKind(), what)).WithOrigin(CodeUnservedKind))
	return true
}

// kumaAdvice is what the Kuma release's upgrade notes say to write instead of the
// field at path, which its CRD refuses (api.KumaFieldAdvice); "" for other
// families and releases.
func (v *validator) kumaAdvice(path string) string {
	if v.kind.Family != api.FamilyKuma {
		return ""
	}
	return api.KumaFieldAdvice(v.s.KumaVersion, v.kind.Kind, path)
}

// deprecation warns that obj's version is deprecated (w, the CRD's notice; ""
// when it is not).
func (v *validator) deprecation(obj *unstructured.Unstructured, w string) {
	if w == "" || v.kind.Family == api.FamilyLinkerd {
		// linkerdSpec warns about deprecated versions itself, naming the replacement.
		return
	}
	v.warn(field.Invalid(field.NewPath("apiVersion"), obj.GetAPIVersion(), w), CodeDeprecated)
}

// unplacedDetail matches the two ways kube-openapi's validator words an error it
// made without a field path (a oneOf or anyOf on an object, a type check inside
// one): the path quoted at the start, or after a final "in".
var unplacedDetail = regexp.MustCompile(`^"([^"]+)" (.+)$|^(.+) in ([A-Za-z0-9_.\[\]/-]+)$`)

// placeUnplaced gives an error the library left without a field ("<nil>" once
// printed) the field its detail names, and drops the empty value it shows, so the
// finding points at the field like every other.
func placeUnplaced(e *field.Error) {
	if e.Field != "" && e.Field != "<nil>" {
		return
	}
	m := unplacedDetail.FindStringSubmatch(e.Detail)
	switch {
	case m == nil:
		e.Field = "spec"
	case m[1] != "":
		e.Field, e.Detail = m[1], m[2]
	default:
		e.Field, e.Detail = m[4], m[3]
	}
	if e.Type == field.ErrorTypeInvalid && e.BadValue == "" {
		e.BadValue = field.OmitValueType{}
	}
}

// crdName names the release whose CRD checked the object, for messages.
func (v *validator) crdName() string {
	if v.kind.Family == api.FamilyLinkerd {
		lv := v.s.LinkerdVersion
		if lv == "" {
			lv = "the embedded release"
		}
		return "Linkerd " + lv
	}
	return "Kuma " + v.s.KumaVersion
}

// splitLast splits "spec.to[0].default.x" into "spec.to[0].default" and "x".
func splitLast(p string) (parent, key string) {
	i := strings.LastIndexAny(p, ".[")
	if i < 0 {
		return "", p
	}
	if p[i] == '[' {
		return p[:i], strings.Trim(p[i:], "[]")
	}
	return p[:i], p[i+1:]
}

// pathOf turns a path string of the API server's library back into a field.Path, so
// findings of every layer print the same way.
func pathOf(p string) *field.Path {
	var out *field.Path
	for p != "" {
		i := strings.IndexAny(p, ".[")
		name := p
		if i >= 0 {
			name = p[:i]
		}
		if name != "" {
			if out == nil {
				out = field.NewPath(name)
			} else {
				out = out.Child(name)
			}
		}
		if i < 0 {
			break
		}
		if p[i] == '.' {
			p = p[i+1:]
			continue
		}
		end := strings.IndexByte(p[i:], ']')
		if end < 0 {
			break
		}
		key := p[i+1 : i+end]
		if idx, err := strconv.Atoi(key); err == nil && idx >= 0 {
			out = out.Index(idx)
		} else {
			out = out.Key(key)
		}
		p = strings.TrimPrefix(p[i+end+1:], ".")
	}
	if out == nil {
		return field.NewPath("")
	}
	return out
}
