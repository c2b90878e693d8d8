package validate

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// Kuma's tag character sets; compiled once, never changed.
var (
	tagKeyRE      = regexp.MustCompile(`^[a-zA-Z0-9.\-_:/]*$`)
	tagValueRE    = regexp.MustCompile(`^[a-zA-Z0-9.\-_:]*$`)
	selectorValRE = regexp.MustCompile(`^([a-zA-Z0-9.\-_:/]*|\*)$`)
	refNameRE     = regexp.MustCompile(`^[0-9a-z.\-_]*$`)
)

// place says where a reference sits; field rules differ between them.
type place int

const (
	placeTop place = iota
	placeTo
	placeFrom
	placeBackend
)

// need is what a kind asks of one targetRef field.
type need int

const (
	forbidden need = iota
	allowed
	required
)

// refRule is the per-kind field table of a targetRef (Kuma's ValidateTargetRef).
type refRule struct {
	name, namespace, labels, tags, sectionName need
	// nameOrLabels: exactly one of name and labels must be set.
	nameOrLabels bool
	// selector: tag values may also hold '/' or be '*' (Kuma's ValidateSelector).
	selector bool
	what     string // how to describe the kind in messages
}

func ruleFor(k api.RefKind) (refRule, bool) {
	switch k {
	case api.RefMesh:
		return refRule{what: "the whole mesh"}, true
	case api.RefMeshSubset:
		return refRule{tags: allowed, what: "proxies with the given tags"}, true
	case api.RefMeshService:
		return refRule{name: allowed, namespace: allowed, labels: allowed, sectionName: allowed, nameOrLabels: true, what: "a service"}, true
	case api.RefMeshServiceSubset:
		return refRule{name: required, tags: allowed, selector: true, what: "tagged instances of a service"}, true
	case api.RefMeshGateway:
		return refRule{name: required, tags: allowed, selector: true, what: "a MeshGateway (cluster-scoped)"}, true
	case api.RefMeshHTTPRoute:
		return refRule{name: allowed, namespace: allowed, labels: allowed, sectionName: allowed, nameOrLabels: true, what: "an HTTP route"}, true
	case api.RefMeshExternalService:
		return refRule{name: allowed, namespace: allowed, labels: allowed, nameOrLabels: true, what: "an external service"}, true
	case api.RefMeshMultiZoneService:
		return refRule{name: allowed, namespace: allowed, labels: allowed, sectionName: allowed, nameOrLabels: true, what: "a multi-zone service"}, true
	case api.RefDataplane:
		return refRule{name: allowed, namespace: allowed, labels: allowed, sectionName: allowed, what: "data plane proxies"}, true
	case api.RefMeshGatewayRoute:
		return refRule{name: required, what: "a MeshGatewayRoute"}, true
	}
	return refRule{}, false
}

func refKindStrings(l []api.RefKind) []string {
	out := make([]string, len(l))
	for i, k := range l {
		out[i] = string(k)
	}
	return out
}

// ref checks one reference: kind known and allowed here, then its fields. It returns
// false when the kind itself is wrong (callers skip kind-specific follow-ups then).
func (v *validator) ref(r api.TargetRef, p *field.Path, pl place, allowedKinds []api.RefKind, code string) bool {
	if r.Kind == "" {
		v.err(field.Required(p.Child("kind"), "set kind to one of: "+strings.Join(refKindStrings(allowedKinds), ", ")), CodeRefField)
		return false
	}
	if !api.ContainsRef(allowedKinds, r.Kind) {
		e := field.NotSupported(p.Child("kind"), string(r.Kind), refKindStrings(allowedKinds))
		e.Detail = fmt.Sprintf("%s does not support %s here (%s); supported values: %s", v.kind.Kind, r.Kind, placeName(pl), quoteJoin(refKindStrings(allowedKinds)))
		v.err(e, code)
		return false
	}
	rule, _ := ruleFor(r.Kind)
	v.refFields(r, rule, p, pl)
	return true
}

func placeName(pl place) string {
	switch pl {
	case placeTop:
		return "top-level targetRef"
	case placeTo:
		return "in 'to'"
	case placeFrom:
		return "in 'from'"
	}
	return "as a backendRef"
}

func quoteJoin(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = `"` + s + `"`
	}
	return strings.Join(q, ", ")
}

func (v *validator) refFields(r api.TargetRef, rule refRule, p *field.Path, pl place) {
	check := func(name string, set bool, n need) {
		switch {
		case set && n == forbidden:
			v.err(field.Forbidden(p.Child(name), fmt.Sprintf("must not be set when kind is %s; remove it", r.Kind)), CodeRefField)
		case !set && n == required:
			v.err(field.Required(p.Child(name), fmt.Sprintf("kind %s needs a %s", r.Kind, name)), CodeRefField)
		}
	}
	check("name", r.Name != "", rule.name)
	check("namespace", r.Namespace != "", rule.namespace)
	check("labels", r.Labels != nil, rule.labels)
	check("sectionName", r.SectionName != "", rule.sectionName)
	tagsNeed := rule.tags
	if r.Kind == api.RefMeshGateway && pl != placeTop {
		tagsNeed = forbidden // listener tags only make sense for the proxies a policy targets
	}
	check("tags", r.Tags != nil, tagsNeed)
	if len(r.ProxyTypes) > 0 {
		if pl != placeTop || (r.Kind != api.RefMesh && r.Kind != api.RefMeshSubset) {
			v.err(field.Forbidden(p.Child("proxyTypes"), "proxyTypes is only allowed on a top-level targetRef of kind Mesh or MeshSubset"), CodeRefField)
		}
		for i, t := range r.ProxyTypes {
			if t != "Sidecar" && t != "Gateway" {
				v.err(field.NotSupported(p.Child("proxyTypes").Index(i), t, []string{"Sidecar", "Gateway"}), CodeRefField)
			}
		}
	}
	if r.Name != "" && !refNameRE.MatchString(r.Name) {
		v.err(field.Invalid(p.Child("name"), r.Name, "invalid characters: a name consists of lower-case letters, digits, '-', '.' and '_'"), CodeRefField)
	}
	if rule.nameOrLabels || r.Kind == api.RefDataplane {
		switch {
		case r.Labels != nil && (r.Name != "" || r.Namespace != ""):
			v.err(field.Forbidden(p.Child("labels"), fmt.Sprintf(
				"select %s either by labels or by name and namespace, not both; with labels put k8s.kuma.io/namespace among them", rule.what)), CodeRefField)
		case rule.nameOrLabels && r.Name == "" && r.Labels == nil:
			v.err(field.Required(p.Child("name"), fmt.Sprintf("kind %s needs a name (or labels)", r.Kind)), CodeRefField)
		}
		if r.Labels != nil && r.SectionName != "" && rule.sectionName == allowed {
			v.err(field.Forbidden(p.Child("sectionName"), "sectionName cannot be combined with labels; reference the service by name"), CodeRefField)
		}
	}
	if r.Mesh != "" && !(pl == placeFrom && v.kind.Kind == api.KindMeshTrafficPermission) {
		v.err(field.Forbidden(p.Child("mesh"), "mesh is only allowed in MeshTrafficPermission 'from' items (cross-mesh permissions)"), CodeRefField)
	}
	v.tags(r.Tags, p.Child("tags"), rule.selector)
	v.tagsLike(r.Labels, p.Child("labels"))
}

// tags checks Kuma's tag syntax: non-empty keys and values from fixed character sets.
func (v *validator) tags(t map[string]string, p *field.Path, selector bool) {
	for _, k := range sortedKeys(t) {
		val := t[k]
		switch {
		case k == "":
			v.err(field.Invalid(p, k, "tag keys must not be empty"), CodeTag)
		case !tagKeyRE.MatchString(k):
			v.err(field.Invalid(p.Key(k), k, "a tag key may only contain letters, digits, '.', '-', '_', ':' and '/'"), CodeTag)
		}
		switch {
		case val == "":
			v.err(field.Invalid(p.Key(k), val, "tag values must not be empty"), CodeTag)
		case selector && !selectorValRE.MatchString(val):
			v.err(field.Invalid(p.Key(k), val, "a tag value may only contain letters, digits, '.', '-', '_', ':' and '/', or be '*'"), CodeTag)
		case !selector && !tagValueRE.MatchString(val):
			v.err(field.Invalid(p.Key(k), val, "a tag value may only contain letters, digits, '.', '-', '_' and ':'"), CodeTag)
		}
	}
}

// tagsLike checks label selectors for emptiness only; label syntax is Kubernetes'.
func (v *validator) tagsLike(t map[string]string, p *field.Path) {
	if t != nil && len(t) == 0 {
		v.err(field.Invalid(p, "{}", "an empty label selector selects nothing useful; add labels or remove the field"), CodeRefField)
	}
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// deprecatedRef warns about targetRef kinds Kuma 2.x deprecates, with the replacement.
func (v *validator) deprecatedRef(r api.TargetRef, p *field.Path, pl place) {
	var msg string
	switch {
	case pl == placeTop && (r.Kind == api.RefMeshService || r.Kind == api.RefMeshSubset || r.Kind == api.RefMeshServiceSubset):
		msg = fmt.Sprintf("%s as top-level targetRef is deprecated in Kuma 2.9+; use kind Dataplane with labels", r.Kind)
	case pl == placeTop && r.Kind == api.RefMeshHTTPRoute:
		msg = "MeshHTTPRoute as top-level targetRef is deprecated; target the proxies and put the route in spec.to[].targetRef"
	case pl == placeFrom && (r.Kind == api.RefMeshService || r.Kind == api.RefMeshServiceSubset):
		msg = fmt.Sprintf("%s in 'from' is deprecated; use MeshSubset with tag kuma.io/service", r.Kind)
	}
	if msg != "" {
		v.warn(field.Invalid(p.Child("kind"), string(r.Kind), msg), CodeDeprecated)
	}
}
