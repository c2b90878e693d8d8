package kumarules

import (
	"fmt"

	"github.com/meshguard/meshguard/api"
)

// Engine computes rules for the kinds of one registry: which sections a kind has
// decides whether its policies take part in `from`, `to` or single-item rules.
type Engine struct {
	reg *api.Registry
}

// New returns an engine over reg (api.DefaultRegistry() for Kuma's kinds).
func New(reg *api.Registry) *Engine { return &Engine{reg: reg} }

// has reports whether the kind of policyType has section s.
func (e *Engine) has(policyType string, s api.Section) bool {
	k := e.reg.Storage(api.KumaGroup, policyType)
	return k != nil && k.Sections.Has(s)
}

// listItems reads spec[section] as items of p; confOf extracts each item's conf.
func listItems(p Policy, section string, confOf func(map[string]any) any) ([]Item, error) {
	v, ok := p.Spec[section]
	if !ok || v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s %s: spec.%s: must be a list", p.Type, p.Name, section)
	}
	top := p.TopRef()
	out := make([]Item, 0, len(list))
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s %s: spec.%s[%d]: must be an object", p.Type, p.Name, section, i)
		}
		out = append(out, Item{Policy: p.Meta, TopLevel: top, Ref: parseTargetRef(m["targetRef"]), Conf: cleanConf(confOf(m)), Index: i})
	}
	return out, nil
}

func defaultOf(m map[string]any) any { return m["default"] }

// toConf is the conf a `to` item contributes, by kind: MeshHTTPRoute's is its rules
// (reversed, so that merging lets the first written rule win) and hostnames,
// MeshTCPRoute's its first rule (or, without rules, a backendRef to the target),
// every other kind's its `default`.
func toConf(policyType string) func(map[string]any) any {
	switch policyType {
	case refMeshHTTPRoute:
		return func(m map[string]any) any {
			rules, _ := m["rules"].([]any)
			rev := make([]any, len(rules))
			for i, r := range rules {
				rev[len(rules)-1-i] = r
			}
			conf := map[string]any{}
			if len(rev) > 0 {
				conf["rules"] = rev
			}
			if h, ok := m["hostnames"].([]any); ok && len(h) > 0 {
				conf["hostnames"] = h
			}
			return conf
		}
	case api.KindMeshTCPRoute:
		return func(m map[string]any) any {
			if rules, ok := m["rules"].([]any); ok && len(rules) > 0 {
				return rules[0]
			}
			ref, _ := m["targetRef"].(map[string]any)
			backend := map[string]any{"weight": int64(1)}
			for k, v := range ref {
				backend[k] = v
			}
			return map[string]any{"default": map[string]any{"backendRefs": []any{backend}}}
		}
	}
	return defaultOf
}
