package validate

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// maxServiceNameLength bounds the names of MeshService and MeshExternalService: Kuma
// uses them as DNS labels.
const maxServiceNameLength = 63

// meshServiceOneSelectorSince is the Kuma release whose MeshService validator first
// refuses two kinds of selector; Kuma 2.13 accepts them (--kuma-version 2.13).
const meshServiceOneSelectorSince = "2.14"

// meshService mirrors Kuma's MeshService validator: a name of at most 63 characters
// and, from Kuma 2.14, at most one kind of selector. Kuma's deprecation warnings (a name that is no
// DNS-1035 label, port names unusable in an SNI) come as warnings.
func (v *validator) meshService(s *api.MeshServiceSpec, p *field.Path) {
	v.nameLength(maxServiceNameLength, CodeMeshService)
	sel := s.Selector
	set := 0
	for _, present := range []bool{sel.DataplaneTags != nil, sel.DataplaneRef != nil, sel.DataplaneLabels != nil} {
		if present {
			set++
		}
	}
	if set > 1 && !api.KumaBefore(v.s.KumaVersion, meshServiceOneSelectorSince) {
		v.err(field.Invalid(p.Child("selector"), "", "set only one of dataplaneTags, dataplaneRef or dataplaneLabels; Kuma refuses a MeshService that selects its proxies in two ways"), CodeMeshService)
	}
	v.dnsNameDeprecation(CodeMeshService)
	for i, port := range s.Ports {
		v.sniPortDeprecation("msvc", portName(port.Name, port.Port), p.Child("ports").Index(i), CodeMeshService)
	}
}

// portName is the name Kuma gives a port: its name, else its number.
func portName(name *string, port int32) string {
	if name != nil {
		return *name
	}
	return strconv.Itoa(int(port))
}

// dnsNameDeprecation warns, as Kuma does, when a service's name is no DNS-1035 label.
// Kuma computes deprecations only for objects it accepts, so an object with errors
// gets none. From Kuma 3.0 (#18026) such a name is refused: Mesh, MeshService,
// MeshExternalService and MeshMultiZoneService names must be RFC 1035 labels.
func (v *validator) dnsNameDeprecation(code string) {
	if v.name == "" {
		return
	}
	if !api.KumaBefore(v.s.KumaVersion, api.Kuma30) {
		if errs := validation.IsDNS1035Label(v.name); len(errs) > 0 {
			v.err(field.Invalid(field.NewPath("metadata", "name"), v.name, fmt.Sprintf(
				"Kuma %s refuses %s names that are not RFC 1035 labels (%s): rename it before upgrading, "+
					"e.g. to %q (Kuma 2.14 only warns)", v.s.KumaVersion, v.kind.Kind, strings.Join(errs, "; "), dns1035Like(v.name))), code)
		}
		return
	}
	if len(v.res.Errors) > 0 {
		return
	}
	if errs := validation.IsDNS1035Label(v.name); len(errs) > 0 {
		v.warn(field.Invalid(field.NewPath("metadata", "name"), v.name, fmt.Sprintf(
			"Kuma deprecates %s names that are not DNS-1035 labels (%s); rename it", v.kind.Kind, strings.Join(errs, "; "))), code)
	}
}

// sniPortDeprecation warns, as Kuma does, when a service's SNI for a port would be
// malformed: Kuma builds it as sni.<short>.<mesh>[.<zone>[.<namespace>]].<name>.<port>
// from the labels and the port's name, each part must be a DNS-1123 label (no dots,
// at most 63) and the whole at most 253 characters.
func (v *validator) sniPortDeprecation(short, port string, p *field.Path, code string) {
	if len(v.res.Errors) > 0 {
		return
	}
	mesh := v.labelMap[api.LabelMesh]
	if mesh == "" {
		mesh = v.s.DefaultMesh
	}
	parts := [][2]string{{"mesh", mesh}}
	if z := v.labelMap[api.LabelZone]; z != "" {
		parts = append(parts, [2]string{"zone", z})
		if ns := v.labelMap[api.LabelNamespace]; ns != "" {
			parts = append(parts, [2]string{"namespace", ns})
		}
	}
	parts = append(parts, [2]string{"name", v.name}, [2]string{"port name", port})
	var problems []string
	sni := []string{"sni", short}
	for _, part := range parts {
		sni = append(sni, part[1])
		if msgs := validation.IsDNS1123Label(part[1]); len(msgs) > 0 {
			problems = append(problems, fmt.Sprintf("%s %q: %s", part[0], part[1], strings.Join(msgs, "; ")))
		}
	}
	if n := len(strings.Join(sni, ".")); n > 253 {
		problems = append(problems, fmt.Sprintf("the SNI has %d characters, more than a host name's 253", n))
	}
	if len(problems) > 0 {
		v.warn(field.Invalid(p, port, fmt.Sprintf("Kuma deprecates an SNI built from these parts (%s); traffic to this port may break in a later Kuma",
			strings.Join(problems, "; "))), code)
	}
}

// dns1035Like suggests an RFC 1035 label for name: lower case, every other
// character a '-', a leading letter, no trailing '-', at most 63 characters.
func dns1035Like(name string) string {
	b := []byte(strings.ToLower(name))
	for i, c := range b {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			b[i] = '-'
		}
	}
	out := string(b)
	if out == "" || out[0] < 'a' || out[0] > 'z' {
		out = "x-" + out
	}
	if len(out) > 63 {
		out = out[:63]
	}
	return strings.TrimRight(out, "-")
}
