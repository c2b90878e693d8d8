package validate

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// meshProxyPatch is Kuma 2.14's meshproxypatch validator beyond the schema (which
// checks the operation names per section): at least one modification, exactly one
// section per modification, and per operation the match, value and jsonPatches it
// needs, with values that are Envoy config of the section's type.
func (v *validator) meshProxyPatch(s *api.MeshProxyPatchSpec, p *field.Path) {
	if s.Default == nil {
		return // the CRD requires default; its finding says so
	}
	const code = CodeProxyPatchConf
	mp := p.Child("default", "appendModifications")
	if s.Default.AppendModifications == nil || len(*s.Default.AppendModifications) == 0 {
		v.err(field.Required(mp, "list at least one modification (cluster, listener, networkFilter, httpFilter or virtualHost)"), code)
		return
	}
	for i, m := range *s.Default.AppendModifications {
		ip := mp.Index(i)
		set := map[string]*api.ProxyMod{}
		for name, mod := range map[string]*api.ProxyMod{"cluster": m.Cluster, "listener": m.Listener,
			"networkFilter": m.NetworkFilter, "httpFilter": m.HTTPFilter, "virtualHost": m.VirtualHost} {
			if mod != nil {
				set[name] = mod
			}
		}
		if len(set) != 1 {
			v.err(field.Invalid(ip, fmt.Sprintf("%d sections", len(set)),
				"a modification must set exactly one of cluster, listener, networkFilter, httpFilter or virtualHost; split it into one modification per section"), code)
			continue
		}
		for name, mod := range set {
			v.proxyMod(name, mod, ip.Child(name))
		}
	}
}

// matchName reports whether a modification's match names its target.
func matchName(mod *api.ProxyMod) bool {
	if mod.Match == nil {
		return false
	}
	n, ok := (*mod.Match)["name"]
	return ok && n != nil
}

// proxyMod checks one modification of section (cluster, listener, ...).
func (v *validator) proxyMod(section string, mod *api.ProxyMod, p *field.Path) {
	const code = CodeProxyPatchConf
	filter := section == "networkFilter" || section == "httpFilter"
	switch mod.Operation {
	case "Add":
		switch {
		case section == "virtualHost" && matchName(mod):
			v.err(field.Forbidden(p.Child("match", "name"), "an added virtual host has no name to match; remove match.name (match.routeConfigurationName picks where to add it)"), code)
		case section != "virtualHost" && mod.Match != nil:
			v.err(field.Forbidden(p.Child("match"), "Add creates a new "+section+"; it takes no match"), code)
		}
		v.proxyValue(section, mod, p, true)
	case "AddFirst", "AddLast":
		v.proxyValue(section, mod, p, true)
	case "AddBefore", "AddAfter":
		if !matchName(mod) {
			where := map[string]string{"AddBefore": "before", "AddAfter": "after"}[mod.Operation]
			v.err(field.Required(p.Child("match", "name"), "name the filter to add this one "+where), code)
		}
		v.proxyValue(section, mod, p, true)
	case "Patch":
		if filter && !matchName(mod) {
			v.err(field.Required(p.Child("match", "name"), "name the filter to patch"), code)
		}
		v.proxyPatch(section, mod, p)
	case "Remove":
		if mod.Value != nil {
			v.err(field.Forbidden(p.Child("value"), "Remove takes no value; select what to remove with match"), code)
		}
	}
}

// proxyValue checks the value of an operation that adds a whole Envoy resource.
func (v *validator) proxyValue(section string, mod *api.ProxyMod, p *field.Path, check bool) {
	vp := p.Child("value")
	if mod.Value == nil {
		v.err(field.Required(vp, "set the Envoy "+section+" to add, as YAML"), CodeProxyPatchConf)
		return
	}
	if err := envoyParse(*mod.Value, envoyMessage(section), check); err != nil {
		v.err(field.Invalid(vp, *mod.Value, "is not a valid Envoy "+section+": "+err.Error()), CodeProxyPatchConf)
	}
}

// proxyPatch checks a Patch: either a value (merged into the resource) or
// jsonPatches, not both.
func (v *validator) proxyPatch(section string, mod *api.ProxyMod, p *field.Path) {
	const code = CodeProxyPatchConf
	patches := mod.JSONPatches != nil && len(*mod.JSONPatches) > 0
	switch {
	case mod.Value != nil && patches:
		v.err(field.Invalid(p, section, "a Patch sets either value or jsonPatches, not both"), code)
	case mod.Value != nil:
		if err := envoyParse(*mod.Value, envoyMessage(section), false); err != nil {
			v.err(field.Invalid(p.Child("value"), *mod.Value, "is not a valid Envoy "+section+": "+err.Error()), code)
		}
	case patches:
		v.jsonPatches(*mod.JSONPatches, p.Child("jsonPatches"))
	default:
		v.err(field.Required(p, "a Patch needs either value (Envoy YAML merged into the "+section+") or jsonPatches"), code)
	}
}

// jsonPatches checks RFC 6902 operations as Kuma does: from only (and always) for
// move and copy, value only (and always) for add and replace, and no removal of
// the root.
func (v *validator) jsonPatches(ops []api.JSONPatchBlock, p *field.Path) {
	const code = CodeProxyPatchConf
	for i, op := range ops {
		ip := p.Index(i)
		switch fromOp := op.Op == "move" || op.Op == "copy"; {
		case fromOp && op.From == nil:
			v.err(field.Required(ip.Child("from"), "op "+op.Op+" needs from: the path to "+op.Op+" from"), code)
		case !fromOp && op.From != nil:
			v.err(field.Forbidden(ip.Child("from"), "from is allowed only with op move or copy"), code)
		}
		hasValue := v.jsonPatchValueSet(op.Value)
		switch valueOp := op.Op == "add" || op.Op == "replace"; {
		case valueOp && !hasValue:
			v.err(field.Required(ip.Child("value"), "op "+op.Op+" needs a value"), code)
		case !valueOp && hasValue:
			v.err(field.Forbidden(ip.Child("value"), "value is allowed only with op add or replace"), code)
		}
		if op.Op == "remove" && op.Path != nil && (*op.Path == "" || *op.Path == "/") {
			v.err(field.Invalid(ip.Child("path"), *op.Path, "the root cannot be removed; use the modification's Remove operation to drop the whole resource"), code)
		}
	}
}

// jsonPatchValueSet says whether a JSON patch operation has a value as Kuma's
// validator sees it. On Kubernetes a `value: null` never reaches Kuma: the API
// server drops a null the CRD does not allow (the schema has no `nullable`) while
// decoding the request, so Kuma's webhook finds no value (an add is refused, a
// remove accepted). Kuma's Universal REST decoding keeps the null, and its
// validator takes it for a value.
func (v *validator) jsonPatchValueSet(value []byte) bool {
	if value == nil {
		return false
	}
	return v.req.Universal || strings.TrimSpace(string(value)) != "null"
}
