package kumarules

import (
	"fmt"
	"reflect"
	"unicode"
)

// mergeShape says which of Kuma's typed-struct merge behaviours apply to a conf:
// only MeshHTTPRoute's `to` conf ({rules, hostnames}) has fields merged by key and
// values grouped by hostname; every conf has the append lists.
type mergeShape int

const (
	shapePlain mergeShape = iota
	shapeHTTPRoute
)

// shapeOf is the merge shape of a policy kind's items.
func shapeOf(policyType string) mergeShape {
	if policyType == refMeshHTTPRoute {
		return shapeHTTPRoute
	}
	return shapePlain
}

// Merge merges confs in order, the later overriding, as Kuma merges the `default`s of
// the items that apply to one subset or resource: an RFC 7396 merge patch of each
// conf onto the previous result (objects merge key by key, lists and scalars are
// replaced), except that lists under a key `append…` (MeshProxyPatch's
// appendModifications, MeshPassthrough's appendMatch, MeshMetric's appendProfiles)
// are concatenated. MeshHTTPRoute confs also merge their rules by `matches` and give
// one result per hostname; every other kind gives exactly one result. Null values
// are ignored, as Kuma's typed decoding drops them. The inputs are not modified.
func Merge(policyType string, confs []any) ([]any, error) {
	return mergeConfs(shapeOf(policyType), confs)
}

func mergeConfs(shape mergeShape, confs []any) ([]any, error) {
	clean := make([]any, len(confs))
	for i, c := range confs {
		clean[i] = cleanConf(c)
	}
	return mergeClean(shape, clean)
}

// cleanConf is a conf as the merge reads it: a copy without nulls, {} for none.
// Items clean their conf once (see listItems), not once per subset they join.
func cleanConf(c any) any {
	if c = withoutNulls(c); c == nil {
		return map[string]any{}
	}
	return c
}

// mergeClean is mergeConfs over confs already passed through cleanConf; it does
// not modify them.
func mergeClean(shape mergeShape, clean []any) ([]any, error) {
	if len(clean) == 0 {
		return nil, nil
	}
	groups := [][]any{clean}
	if shape == shapeHTTPRoute {
		groups = groupByHostname(clean)
	}
	out := make([]any, 0, len(groups))
	for _, g := range groups {
		merged, err := mergeGroup(shape, g)
		if err != nil {
			return nil, err
		}
		out = append(out, merged)
	}
	return out, nil
}

// mergeGroup merges confs that apply to the same hostname.
func mergeGroup(shape mergeShape, confs []any) (any, error) {
	var result any
	for i, c := range confs {
		if i == 0 {
			result = deepCopy(c)
			continue
		}
		result = mergePatch(result, c)
	}
	m, ok := result.(map[string]any)
	if !ok {
		return result, nil
	}
	clearAppendLists(m, shape)
	for _, c := range confs {
		if src, ok := c.(map[string]any); ok {
			appendLists(m, src, shape)
		}
	}
	if shape == shapeHTTPRoute {
		rules, err := mergeRulesByMatches(m["rules"])
		if err != nil {
			return nil, err
		}
		if rules != nil {
			// Kuma reverses each item's rules before merging (the last rule of the
			// merged list wins) and back afterwards (the first written rule wins).
			for i, j := 0, len(rules)-1; i < j; i, j = i+1, j-1 {
				rules[i], rules[j] = rules[j], rules[i]
			}
			m["rules"] = rules
		}
	}
	return m, nil
}

// mergePatch applies patch to target as RFC 7396 says; target may be modified.
func mergePatch(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return deepCopy(patch)
	}
	t, ok := target.(map[string]any)
	if !ok {
		t = map[string]any{}
	}
	for k, v := range p {
		if v == nil {
			delete(t, k)
			continue
		}
		t[k] = mergePatch(t[k], v)
	}
	return t
}

// isAppendKey reports a list Kuma concatenates instead of replacing: the Go fields
// named Append… in Kuma's policy types, appendX in JSON.
func isAppendKey(k string) bool {
	return len(k) > len("append") && k[:len("append")] == "append" && unicode.IsUpper(rune(k[len("append")]))
}

// concatenated reports whether the list under key k of a conf is concatenated.
func concatenated(k string, shape mergeShape, top bool) bool {
	return isAppendKey(k) || (top && shape == shapeHTTPRoute && k == "rules")
}

func clearAppendLists(m map[string]any, shape mergeShape) { clearLists(m, shape, true) }

func clearLists(m map[string]any, shape mergeShape, top bool) {
	for k, v := range m {
		switch x := v.(type) {
		case []any:
			if concatenated(k, shape, top) {
				m[k] = []any{}
			}
		case map[string]any:
			clearLists(x, shapePlain, false)
		}
	}
}

func appendLists(dst, src map[string]any, shape mergeShape) { appendInto(dst, src, shape, true) }

func appendInto(dst, src map[string]any, shape mergeShape, top bool) {
	for k, v := range dst {
		switch x := v.(type) {
		case []any:
			if s, ok := src[k].([]any); ok && concatenated(k, shape, top) {
				dst[k] = append(x, deepCopy(s).([]any)...)
			}
		case map[string]any:
			if s, ok := src[k].(map[string]any); ok {
				appendInto(x, s, shapePlain, false)
			}
		}
	}
}

// groupByHostname splits MeshHTTPRoute confs by hostname: a conf for several
// hostnames takes part in the merge of each of them (with just that hostname),
// one without hostnames in the merge of "no hostname". Groups keep the order in
// which their hostname first appears.
func groupByHostname(confs []any) [][]any {
	var order []string
	byHost := map[string][]any{}
	for _, c := range confs {
		m, _ := c.(map[string]any)
		hosts := []string{""}
		if hs, ok := m["hostnames"].([]any); ok && len(hs) > 0 {
			hosts = hosts[:0]
			for _, h := range hs {
				hosts = append(hosts, fmt.Sprint(h))
			}
		}
		for _, h := range hosts {
			if _, ok := byHost[h]; !ok {
				order = append(order, h)
			}
			cp := c
			if h != "" {
				mc := make(map[string]any, len(m))
				for k, v := range m {
					mc[k] = v
				}
				mc["hostnames"] = []any{h}
				cp = mc
			}
			byHost[h] = append(byHost[h], cp)
		}
	}
	out := make([][]any, 0, len(order))
	for _, h := range order {
		out = append(out, byHost[h])
	}
	return out
}

// mergeRulesByMatches merges MeshHTTPRoute rules with equal `matches`: their
// `default`s merge in order, and the merged rule takes the place of the last one.
func mergeRulesByMatches(v any) ([]any, error) {
	rules, ok := v.([]any)
	if !ok || len(rules) == 0 {
		return nil, nil
	}
	type acc struct {
		skip bool
		key  any
		defs []any
	}
	var accs []acc
	for _, r := range rules {
		rm, _ := r.(map[string]any)
		key := rm["matches"]
		defs := []any{rm["default"]}
		for i := range accs {
			if accs[i].skip || !reflect.DeepEqual(accs[i].key, key) {
				continue
			}
			defs = append(append([]any(nil), accs[i].defs...), defs...)
			accs[i] = acc{skip: true}
		}
		accs = append(accs, acc{key: key, defs: defs})
	}
	var out []any
	for _, a := range accs {
		if a.skip {
			continue
		}
		merged, err := mergeConfs(shapePlain, a.defs)
		if err != nil {
			return nil, err
		}
		for _, m := range merged {
			out = append(out, map[string]any{"matches": a.key, "default": m})
		}
	}
	return out, nil
}

// withoutNulls is a deep copy of v without null members (nulls inside lists stay).
func withoutNulls(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if e != nil {
				out[k] = withoutNulls(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = withoutNulls(e)
		}
		return out
	}
	return v
}

// deepCopy copies maps and lists so results never share memory with inputs.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}
