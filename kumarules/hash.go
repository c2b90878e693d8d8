package kumarules

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
)

// HashMatches is the key Kuma gives a MeshHTTPRoute rule's matches: the SHA-256 of
// their JSON. Kuma marshals its typed structs, so the JSON here follows their field
// order (path, method, queryParams, headers; type before value, name before
// value) and leaves out empty members.
func HashMatches(matches any) (string, error) {
	b, err := json.Marshal(orderedMatches(matches))
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return base64.StdEncoding.EncodeToString(sum[:]), nil
}

// orderedMatches rewrites matches as ordered JSON values (see HashMatches).
func orderedMatches(v any) any {
	list, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([]json.RawMessage, 0, len(list))
	for _, m := range list {
		mm, _ := m.(map[string]any)
		out = append(out, ordered(mm, []string{"path", "method", "queryParams", "headers"}, func(k string, v any) any {
			switch k {
			case "path":
				pm, _ := v.(map[string]any)
				return ordered(pm, []string{"value", "type"}, nil)
			case "queryParams", "headers":
				xs, _ := v.([]any)
				rs := make([]json.RawMessage, 0, len(xs))
				for _, x := range xs {
					xm, _ := x.(map[string]any)
					rs = append(rs, ordered(xm, []string{"type", "name", "value"}, nil))
				}
				return rs
			}
			return v
		}))
	}
	return out
}

// ordered writes the members keys of m that are present, in that order, each
// value passed through sub when given.
func ordered(m map[string]any, keys []string, sub func(string, any) any) json.RawMessage {
	buf := []byte{'{'}
	first := true
	for _, k := range keys {
		v, ok := m[k]
		if !ok || v == nil {
			continue
		}
		if sub != nil {
			v = sub(k, v)
		}
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(v)
		if err != nil {
			continue
		}
		if !first {
			buf = append(buf, ',')
		}
		first = false
		buf = append(append(append(buf, kb...), ':'), vb...)
	}
	return append(buf, '}')
}
