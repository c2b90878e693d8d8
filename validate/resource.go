package validate

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// kumaResource validates a Kuma resource that is not a targetRef policy (Mesh,
// MeshService, ...): the labels Kuma keys on, then the kind's own rules on its typed
// spec. The schema layer has already run.
func (v *validator) kumaResource(raw any) {
	p := field.NewPath("spec")
	spec, ok := raw.(map[string]any)
	if !ok {
		if raw != nil && !v.schemaAnswered {
			v.err(field.TypeInvalid(p, api.TypeName(raw), "spec must be an object"), api.CodeWrongType)
		}
		if raw == nil {
			spec = map[string]any{} // Kuma validates an absent spec as an empty one
		} else {
			return
		}
	}
	typed := v.kind.NewSpec()
	_, free := protoSpecCode(typed)
	var unknown []string // fields Kuma ignores: looked for where no CRD schema prunes them
	var err error
	if free {
		spec = api.ProtoJSONNames(spec, typed)
		unknown, err = api.DecodeStrict(spec, typed)
	} else {
		err = api.Decode(spec, typed)
	}
	if err != nil {
		if code, free := protoSpecCode(typed); free {
			// The CRD has no schema for spec: no earlier layer saw the types.
			v.err(field.Invalid(p, "", fmt.Sprintf("Kuma cannot decode this %s spec (%v); fix the field's type", v.kind.Kind, err)), code)
		}
		return // the schema layer reported the types that do not decode
	}
	v.res.Spec = typed
	if free {
		for _, f := range unknown {
			v.warn(field.Invalid(jsonPath(p, f), "", fmt.Sprintf("Kuma does not know this field of a %s and ignores it (the CRD keeps it): check its spelling", v.kind.Kind)), api.CodeUnknownField)
		}
	}
	v.runKindRules(typed, p)
}

// jsonPath extends p by a dotted path with list indexes ("backends[0].name").
func jsonPath(p *field.Path, dotted string) *field.Path {
	for _, seg := range strings.Split(dotted, ".") {
		name, rest, _ := strings.Cut(seg, "[")
		if name != "" {
			p = p.Child(name)
		}
		for rest != "" {
			idx, after, _ := strings.Cut(rest, "]")
			if i, err := strconv.Atoi(idx); err == nil {
				p = p.Index(i)
			} else {
				p = p.Key(idx)
			}
			rest = strings.TrimPrefix(after, "[")
		}
	}
	return p
}

// nameLength reports a name longer than Kuma's validator allows for the kind (a
// resource's display name: on Kubernetes, metadata.name).
func (v *validator) nameLength(maxLen int, code string) {
	if len(v.name) > maxLen {
		v.err(field.Invalid(field.NewPath("metadata", "name"), v.name, fmt.Sprintf(
			"Kuma accepts %s names of at most %d characters (this one has %d); shorten it", v.kind.Kind, maxLen, len(v.name))), code)
	}
}

// isIP is an address Go's net package parses as IPv4 or IPv6.
func isIP(s string) bool { return net.ParseIP(s) != nil }

// isDNSName is Kuma's notion of a host name (the govalidator rule its validators call):
// not an IP; labels of 1-63 letters, digits, '_' or '-' not starting with '-',
// separated by dots, an optional final dot; at most 255 characters besides the dots.
func isDNSName(s string) bool {
	if s == "" || len(strings.ReplaceAll(s, ".", "")) > 255 || isIP(s) {
		return false
	}
	s = strings.TrimSuffix(s, ".")
	for _, label := range strings.Split(s, ".") {
		if len(label) == 0 || len(label) > 63 || label[0] == '-' {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
				return false
			}
		}
	}
	return true
}

// validPort is a TCP/UDP port number, 1-65535.
func validPort(p int64) bool { return p >= 1 && p <= 65535 }
