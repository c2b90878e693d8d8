package kumainspect

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"text/template"

	"github.com/meshguard/meshguard/api"
)

// hostnamesList is the body of /meshes/{mesh}/{serviceType}/{name}/_hostnames
// (Kuma's InspectHostnames): the hostnames the HostnameGenerators give one
// service, by hostname, each with the zones it is generated for. Items is null
// when there are none, as Kuma writes it.
type hostnamesList struct {
	Items []hostnameEntry `json:"items"`
	Total int             `json:"total"`
}

type hostnameEntry struct {
	Hostname string         `json:"hostname"`
	Zones    []hostnameZone `json:"zones"`
}

type hostnameZone struct {
	Name string `json:"name"`
}

// hostnameServiceKind is a kind _hostnames inspects, with the field of a
// HostnameGenerator's selector that picks services of the kind.
type hostnameServiceKind struct{ kind, selector string }

// hostnameServiceKinds are the kinds _hostnames inspects, in the order Kuma's
// error names their collections.
func hostnameServiceKinds() []hostnameServiceKind {
	return []hostnameServiceKind{
		{api.KindMeshService, "meshService"},
		{api.KindMeshExternalService, "meshExternalService"},
		{api.KindMeshMultiZoneService, "meshMultiZoneService"},
	}
}

// hostnames answers /meshes/{mesh}/{serviceType}/{name}/_hostnames as Kuma's
// matchingHostnames does: every HostnameGenerator whose selector for the
// service's kind matches its labels renders its template for it (Kuma's
// EvaluateTemplate, without the DNS check: the read-only view shows what older
// zones generated). The service's own origin is the only one tried on a zone
// control plane; a global one tries the service as of zone and of global origin,
// since what is synced across zones changes origin.
func (s *Store) hostnames(collection, mesh, name string) Response {
	var plurals []string
	kind, selector := "", ""
	for _, k := range hostnameServiceKinds() {
		plural := s.pluginName(k.kind)
		plurals = append(plurals, plural)
		if plural == collection {
			kind, selector = k.kind, k.selector
		}
	}
	if kind == "" {
		return errorResponse(http.StatusBadRequest, fmt.Sprintf("only %q are available for inspection", strings.Join(plurals, ",")), "Resource is not valid")
	}
	svc, found := s.find(kind, mesh, name)
	if !found {
		return notFound("could not retrieve service")
	}
	zone := svc.Labels[api.LabelZone]
	if zone == "" {
		zone, _, _ = strings.Cut(svc.Name, ".")
	}
	origins := []string{svc.Labels[api.LabelOrigin]}
	if s.global {
		origins = []string{api.OriginZone, api.OriginGlobal}
	}
	byHostname := map[string]map[string]bool{}
	for _, hg := range s.objects {
		if hg.Type != api.KindHostnameGenerator {
			continue
		}
		sel, _ := hg.Spec["selector"].(map[string]any)
		ls, ok := sel[selector].(map[string]any)
		if !ok {
			continue
		}
		for _, origin := range origins {
			labels := map[string]string{}
			for k, v := range svc.Labels {
				labels[k] = v
			}
			labels[api.LabelOrigin] = origin
			if !labelsInclude(labels, stringMap(ls["matchLabels"])) {
				continue
			}
			host, err := renderHostname(str(hg.Spec["template"]), svc, labels, zone)
			if err != nil {
				return internalError("could not generate hostname")
			}
			if host == "" {
				continue
			}
			if byHostname[host] == nil {
				byHostname[host] = map[string]bool{}
			}
			byHostname[host][zone] = true
		}
	}
	return ok(hostnamesBody(byHostname))
}

// hostnamesBody lists the hostnames in order, each with its zones in order.
func hostnamesBody(byHostname map[string]map[string]bool) hostnamesList {
	var out hostnamesList
	for host, zones := range byHostname {
		e := hostnameEntry{Hostname: host, Zones: []hostnameZone{}}
		for z := range zones {
			e.Zones = append(e.Zones, hostnameZone{Name: z})
		}
		sort.Slice(e.Zones, func(i, j int) bool { return e.Zones[i].Name < e.Zones[j].Name })
		out.Items = append(out.Items, e)
	}
	sort.Slice(out.Items, func(i, j int) bool { return out.Items[i].Hostname < out.Items[j].Hostname })
	out.Total = len(out.Items)
	return out
}

// renderHostname is Kuma's EvaluateTemplate: the template (Go text/template, with
// a label function that fails on a missing label) over the service's name (its
// Kubernetes name for a manifest), display name, namespace, mesh and zone (its
// zone label, else the local zone).
func renderHostname(text string, svc object, labels map[string]string, localZone string) (string, error) {
	tmpl, err := template.New("").Funcs(template.FuncMap{
		"label": func(key string) (string, error) {
			v, ok := labels[key]
			if !ok {
				return "", fmt.Errorf("label %s not found", key)
			}
			return v, nil
		},
	}).Parse(text)
	if err != nil {
		return "", fmt.Errorf("failed compiling gotemplate error=%q", err.Error())
	}
	name := svc.k8sName
	if name == "" {
		name = svc.Name
	}
	display, ok := labels[api.LabelDisplayName]
	if !ok {
		display = name
	}
	zone := labels[api.LabelZone]
	if zone == "" {
		zone = localZone
	}
	var b strings.Builder
	err = tmpl.Execute(&b, struct{ Name, DisplayName, Namespace, Mesh, Zone string }{
		Name: name, DisplayName: display, Namespace: labels[api.LabelNamespace], Mesh: svc.Mesh, Zone: zone,
	})
	if err != nil {
		return "", fmt.Errorf("pre evaluation of template with parameters failed with error=%q", err.Error())
	}
	return b.String(), nil
}
