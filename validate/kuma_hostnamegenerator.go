package validate

import (
	"fmt"
	"strings"
	"text/template"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// hostnameGenerator mirrors Kuma's HostnameGenerator validator: exactly one selector,
// and a template that parses as a Go template, renders with Kuma's fields and
// `label` function, and gives a lower-case DNS name.
func (v *validator) hostnameGenerator(s *api.HostnameGeneratorSpec, p *field.Path) {
	set := 0
	for _, present := range []bool{s.Selector.MeshService != nil, s.Selector.MeshExternalService != nil, s.Selector.MeshMultiZoneService != nil} {
		if present {
			set++
		}
	}
	if set != 1 {
		v.err(field.Invalid(p.Child("selector"), "", "set exactly one of meshService, meshExternalService or meshMultiZoneService"), CodeHostnameGenerator)
	}
	if msg := checkHostnameTemplate(s.Template); msg != "" {
		v.err(field.Invalid(p.Child("template"), s.Template, msg), CodeHostnameGenerator)
	}
	if s.Extension != nil && s.Extension.Type == "" {
		v.err(field.Required(p.Child("extension", "type"), "name the extension that handles this HostnameGenerator"), CodeHostnameGenerator)
	}
}

// checkHostnameTemplate renders the template with stand-in values, as Kuma does, and
// returns what is wrong with it ("" when nothing is).
func checkHostnameTemplate(tmpl string) string {
	if tmpl == "" {
		return "must not be empty; write a template such as '{{ .Name }}.mesh'"
	}
	parsed, err := template.New("").
		Funcs(template.FuncMap{"label": func(string) (string, error) { return "label", nil }}).
		Parse(tmpl)
	if err != nil {
		return fmt.Sprintf("the template does not parse: %v", err)
	}
	stub := struct{ Name, DisplayName, Namespace, Mesh, Zone string }{
		Name: "name", DisplayName: "displayname", Namespace: "namespace", Mesh: "mesh", Zone: "zone",
	}
	sb := &boundedWriter{max: 4096}
	if err := parsed.Execute(sb, stub); err != nil {
		return fmt.Sprintf("the template does not render (it may use only .Name, .DisplayName, .Namespace, .Mesh, .Zone and label): %v", err)
	}
	if errs := validation.IsDNS1123Subdomain(sb.String()); len(errs) > 0 {
		return fmt.Sprintf("renders to %q, which is not a lower-case DNS name: %s", sb.String(), strings.Join(errs, ", "))
	}
	return ""
}

// boundedWriter collects a rendered template up to max bytes and then fails, which
// stops the template: a host name is at most 253 characters, and a template that
// writes without end must not hold the webhook.
type boundedWriter struct {
	strings.Builder
	max int
}

func (w *boundedWriter) Write(p []byte) (int, error) {
	if w.Len()+len(p) > w.max {
		return 0, fmt.Errorf("renders to more than %d characters", w.max)
	}
	return w.Builder.Write(p)
}
