package validate

import (
	"fmt"
	"net/url"
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// meshTrace runs Kuma 2.14's MeshTrace conf rules on `default`: backends must be
// listed (an empty list turns tracing off), the one backend must be well formed
// (Zipkin URL, Datadog http://host:port, OpenTelemetry collector), sampling values
// are percentages, and each tag has a name and exactly one source. Kuma reads an
// absent default as an empty conf, so a MeshTrace without default is refused too.
func (v *validator) meshTrace(s *api.MeshTraceSpec, p *field.Path) {
	o := obsRules{v: v, code: CodeTraceConf}
	dp := p.Child("default")
	c := s.Default
	if c == nil {
		if v.rawPresent("default") {
			return // present but not an object: the schema's finding
		}
		c = &api.MeshTraceConf{}
	}
	switch {
	case c.Backends == nil:
		if !v.rawPresent("default", "backends") {
			o.required(dp.Child("backends"), "list the tracing backend (one of zipkin, datadog, openTelemetry), or [] to turn tracing off")
		}
	case len(*c.Backends) == 1:
		o.traceBackend((*c.Backends)[0], dp.Child("backends").Index(0))
	}
	// More than one backend is the CRD's maxItems finding.
	for i, t := range obsItems(c.Tags) {
		o.traceTag(t, dp.Child("tags").Index(i))
	}
	if c.Sampling != nil {
		sp := dp.Child("sampling")
		o.percent(sp.Child("client"), c.Sampling.Client)
		o.percent(sp.Child("random"), c.Sampling.Random)
		o.percent(sp.Child("overall"), c.Sampling.Overall)
	}
}

func obsItems[T any](s *[]T) []T {
	if s == nil {
		return nil
	}
	return *s
}

func (o obsRules) traceBackend(b api.TraceBackend, p *field.Path) {
	switch b.Type {
	case api.TraceDatadog:
		dp := p.Child("datadog")
		if b.Datadog == nil {
			o.required(dp, "a backend of type Datadog needs 'datadog' with the agent's url, e.g. http://datadog-agent:8126")
			return
		}
		if b.Datadog.URL != nil {
			o.datadogURL(*b.Datadog.URL, dp.Child("url"))
		}
	case api.TraceZipkin:
		zp := p.Child("zipkin")
		if b.Zipkin == nil {
			o.required(zp, "a backend of type Zipkin needs 'zipkin' with the collector's url, e.g. http://jaeger-collector:9411/api/v2/spans")
			return
		}
		if b.Zipkin.URL == nil {
			return // the CRD's `required`
		}
		switch u := *b.Zipkin.URL; {
		case u == "":
			o.invalid(zp.Child("url"), u, "must not be empty; give the collector's url, e.g. http://jaeger-collector:9411/api/v2/spans")
		case !isURL(u):
			o.invalid(zp.Child("url"), u, "is not a URL Kuma accepts; write it like http://jaeger-collector:9411/api/v2/spans")
		}
	case api.TraceOtel:
		op := p.Child("openTelemetry")
		if b.OpenTelemetry == nil {
			o.required(op, "a backend of type OpenTelemetry needs 'openTelemetry' with backendRef (or the deprecated endpoint)")
			return
		}
		o.v.otelBackend(b.OpenTelemetry.Endpoint, b.OpenTelemetry.BackendRef, op, false)
	}
}

// datadogURL is Kuma's rule for the Datadog agent address: an absolute http URL with
// a port from 1 to 65535 and nothing else (no user, path, query or fragment).
func (o obsRules) datadogURL(raw string, p *field.Path) {
	u, err := url.ParseRequestURI(raw)
	if err != nil {
		o.invalid(p, raw, "is not a valid URL; write http://host:port, e.g. http://datadog-agent:8126")
		return
	}
	if u.Scheme != "http" {
		o.invalid(p, raw, fmt.Sprintf("the scheme must be http, not %q; the Datadog agent is reached at http://host:port", u.Scheme))
	}
	if u.Port() == "" {
		o.invalid(p, raw, "needs a port, e.g. http://datadog-agent:8126")
	} else if n, err := strconv.Atoi(u.Port()); err != nil || !validPort(int64(n)) {
		o.invalid(p, raw, fmt.Sprintf("port %s is not a port; use 1-65535", u.Port()))
	}
	for _, part := range []struct {
		name string
		set  bool
	}{
		{"opaque part", u.Opaque != ""}, {"user", u.User != nil}, {"path", u.Path != ""},
		{"query", u.RawQuery != ""}, {"fragment", u.Fragment != ""},
	} {
		if part.set {
			o.invalid(p, raw, "must not have a "+part.name+"; write only http://host:port")
		}
	}
}

// traceTag: a tag needs a name and exactly one of literal and header. An absent name
// is the CRD's `required`.
func (o obsRules) traceTag(t api.TraceTag, p *field.Path) {
	if t.Name != nil && *t.Name == "" {
		o.invalid(p.Child("name"), "", "must not be empty; name the span tag")
	}
	if (t.Header != nil) == (t.Literal != nil) {
		o.invalid(p, "tag", "set exactly one of literal (a fixed value) and header (taken from a request header)")
	}
}
