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
	// proxyTypes: the kind may carry proxyTypes (Mesh and MeshSubset).
	proxyTypes bool
	// nameOrLabels: name or labels must be set, labels exclude name and namespace.
	nameOrLabels bool
	// checkName: the name must use Kuma's name characters.
	checkName bool
	// selector: tag values may also hold '/' or be '*' (Kuma's ValidateSelector).
	selector bool
	what     string // how to describe the kind in messages
}

func ruleFor(k api.RefKind) (refRule, bool) {
	switch k {
	case api.RefMesh:
		return refRule{proxyTypes: true, what: "the whole mesh"}, true
	case api.RefMeshSubset:
		return refRule{tags: allowed, proxyTypes: true, what: "proxies with the given tags"}, true
	case api.RefMeshService:
		return refRule{name: allowed, namespace: allowed, labels: allowed, sectionName: allowed, nameOrLabels: true, checkName: true, what: "a service"}, true
	case api.RefMeshServiceSubset:
		return refRule{name: required, tags: allowed, selector: true, checkName: true, what: "tagged instances of a service"}, true
	case api.RefMeshGateway:
		return refRule{name: required, tags: allowed, selector: true, checkName: true, what: "a MeshGateway (cluster-scoped)"}, true
	case api.RefMeshHTTPRoute:
		return refRule{name: allowed, namespace: allowed, labels: allowed, nameOrLabels: true, checkName: true, what: "an HTTP route"}, true
	case api.RefMeshExternalService:
		return refRule{name: allowed, namespace: allowed, labels: allowed, nameOrLabels: true, checkName: true, what: "an external service"}, true
	case api.RefMeshMultiZoneService:
		// Kuma checks no field of a MeshMultiZoneService reference.
		return refRule{name: allowed, namespace: allowed, labels: allowed, tags: allowed, sectionName: allowed, proxyTypes: true, what: "a multi-zone service"}, true
	case api.RefDataplane:
		return refRule{name: allowed, namespace: allowed, labels: allowed, sectionName: allowed, what: "data plane proxies"}, true
	case api.RefMeshGatewayRoute:
		return refRule{name: required, checkName: true, what: "a MeshGatewayRoute"}, true
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
	if !api.KumaBefore(v.s.KumaVersion, api.Kuma30) && v.schemaSaid(p.Child("kind")) {
		// Kuma 3.0's CRD refused a kind it removed (MeshServiceSubset,
		// MeshSubset, a top-level MeshService), saying what to write instead:
		// neither the kind lists nor the fields that kind wanted in 2.14 are the
		// question any more.
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
	if api.KumaLabelsOnly(v.s.KumaVersion) {
		v.labelsOnlyRef(r, rule, p, pl)
		return
	}
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
	check("labels", len(r.Labels) > 0, rule.labels)
	tagsNeed := rule.tags
	if r.Kind == api.RefMeshGateway && (pl != placeTop || !v.kind.Shared.ListenerTags) {
		tagsNeed = forbidden // listener tags only where the kind's validator allows them
	}
	check("tags", len(r.Tags) > 0, tagsNeed)
	v.sectionName(r, rule, p, pl)
	v.proxyTypes(r, rule, p)
	if rule.checkName && r.Name != "" && !refNameRE.MatchString(r.Name) && !(pl == placeBackend && r.Name == unresolvedBackend) {
		v.err(field.Invalid(p.Child("name"), r.Name, "invalid characters: a name consists of lower-case letters, digits, '-', '.' and '_'"), CodeRefField)
	}
	if rule.nameOrLabels || r.Kind == api.RefDataplane {
		switch {
		case len(r.Labels) > 0 && (r.Name != "" || r.Namespace != ""):
			v.err(field.Forbidden(p.Child("labels"), fmt.Sprintf(
				"select %s either by labels or by name and namespace, not both; with labels put k8s.kuma.io/namespace among them", rule.what)), CodeRefField)
		case rule.nameOrLabels && r.Name == "" && len(r.Labels) == 0:
			v.err(field.Required(p.Child("name"), fmt.Sprintf("kind %s needs a name (or labels)", r.Kind)), CodeRefField)
		}
	}
	if r.Mesh != "" && r.Kind != api.RefMeshMultiZoneService && !(pl == placeFrom && v.kind.Kind == api.KindMeshTrafficPermission) {
		v.err(field.Forbidden(p.Child("mesh"), "mesh is only allowed in MeshTrafficPermission 'from' items (cross-mesh permissions)"), CodeRefField)
	}
	if rule.tags == forbidden || r.Kind == api.RefMeshMultiZoneService {
		return
	}
	v.tags(r.Tags, p.Child("tags"), rule.selector)
}

// labelsOnlyRef checks a targetRef or backendRef in a Kuma release that selects by
// labels only (api.KumaLabelsOnly): its CRD has no name, namespace, tags, mesh or
// proxyTypes (the schema layer reported and pruned them, MG001, saying what to
// write), so what remains is that a real resource is selected by labels, and
// sectionName.
func (v *validator) labelsOnlyRef(r api.TargetRef, rule refRule, p *field.Path, pl place) {
	if rule.nameOrLabels && len(r.Labels) == 0 {
		v.err(field.Required(p.Child("labels"), fmt.Sprintf(
			"must be set when kind is %s: Kuma %s selects it by labels (e.g. kuma.io/display-name: NAME, k8s.kuma.io/namespace: NAMESPACE)",
			r.Kind, v.s.KumaVersion)), CodeRefField)
	}
	v.sectionName(r, rule, p, pl)
}

// unresolvedBackend is the name Kuma's Gateway API converter gives a backend it
// could not resolve; Kuma's route validator accepts it despite the '/'.
const unresolvedBackend = "kuma.io/unresolved-backend"

// sectionName applies Kuma's sectionName rules: allowed on MeshService and
// MeshMultiZoneService references, and on a top-level Dataplane only when the
// policy configures inbound traffic (non-empty from or rules): a port name means
// nothing to an outbound policy.
func (v *validator) sectionName(r api.TargetRef, rule refRule, p *field.Path, pl place) {
	if r.SectionName == "" {
		return
	}
	sp := p.Child("sectionName")
	switch {
	case rule.sectionName == forbidden:
		v.err(field.Forbidden(sp, fmt.Sprintf("must not be set when kind is %s; remove it", r.Kind)), CodeRefField)
	case r.Kind == api.RefDataplane && (pl != placeTop || !v.affectsInbounds()):
		v.err(field.Forbidden(sp, fmt.Sprintf(
			"sectionName selects an inbound port of the data plane proxies, so it only works in a policy with non-empty 'from' or 'rules'; %s here configures outbound traffic. Remove sectionName",
			v.kind.Kind)), CodeRefField)
	}
}

// affectsInbounds reports whether the policy configures inbound traffic: a non-empty
// from or rules section (Kuma's AffectsInbounds).
func (v *validator) affectsInbounds() bool {
	for _, sec := range []struct {
		s api.Section
		k string
	}{{api.SecFrom, "from"}, {api.SecRules, "rules"}} {
		if l, ok := v.spec[sec.k].([]any); ok && len(l) > 0 && v.kind.Sections.Has(sec.s) {
			return true
		}
	}
	return false
}

// proxyTypes checks proxyTypes: only Mesh and MeshSubset (and the unchecked
// MeshMultiZoneService) take it, and an empty list is refused.
func (v *validator) proxyTypes(r api.TargetRef, rule refRule, p *field.Path) {
	if r.ProxyTypes == nil {
		return
	}
	pp := p.Child("proxyTypes")
	switch {
	case !rule.proxyTypes && len(r.ProxyTypes) > 0:
		v.err(field.Forbidden(pp, fmt.Sprintf("proxyTypes only applies to kinds Mesh and MeshSubset, not %s; remove it", r.Kind)), CodeRefField)
		return
	case rule.proxyTypes && len(r.ProxyTypes) == 0 && r.Kind != api.RefMeshMultiZoneService:
		v.err(field.Invalid(pp, "[]", "an empty proxyTypes list is refused; remove it to select every proxy type, or list Sidecar and/or Gateway"), CodeRefField)
	}
	for i, t := range r.ProxyTypes {
		if t != "Sidecar" && t != "Gateway" {
			v.err(field.NotSupported(pp.Index(i), t, []string{"Sidecar", "Gateway"}), CodeRefField)
		}
	}
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
	// A release whose CRD refuses the kind (Kuma 3.0's top-level Mesh or Dataplane)
	// has said so as MG002, with what to write instead: no second finding.
	if msg != "" && !v.schemaSaid(p.Child("kind")) {
		v.warn(field.Invalid(p.Child("kind"), string(r.Kind), msg), CodeDeprecated)
	}
}
