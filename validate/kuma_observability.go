package validate

import (
	"fmt"
	"net"
	"strings"

	"github.com/shopspring/decimal"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// obsRules reports the conf findings of one observability kind (MeshAccessLog,
// MeshTrace, MeshMetric) under that kind's code. The rules are Kuma 2.14's
// validators for these kinds; what the CRD already refuses (enums, required fields,
// maxItems) is left to the schema layer, so an absent required field gives one
// finding, not two.
type obsRules struct {
	v    *validator
	code string
}

func (o obsRules) invalid(p *field.Path, value any, msg string) {
	o.v.err(field.Invalid(p, value, msg), o.code)
}

func (o obsRules) required(p *field.Path, msg string) {
	o.v.err(field.Required(p, msg), o.code)
}

// rawPresent reports whether the raw spec has a value at the given steps (string
// keys and int indexes). The structural check drops wrongly typed values before the
// spec is decoded; a rule that would report such a value as "missing" asks here
// first, since the schema's type error already says what is wrong.
func (v *validator) rawPresent(steps ...any) bool {
	var cur any = v.spec
	for _, s := range steps {
		switch k := s.(type) {
		case string:
			m, ok := cur.(map[string]any)
			if !ok {
				return false
			}
			cur, ok = m[k]
			if !ok {
				return false
			}
		case int:
			l, ok := cur.([]any)
			if !ok || k < 0 || k >= len(l) {
				return false
			}
			cur = l[k]
		}
	}
	return cur != nil
}

// otelBackend is Kuma's rule for the OpenTelemetry backend of MeshAccessLog,
// MeshTrace and MeshMetric: exactly one of endpoint (inline, deprecated in Kuma 2.14)
// and backendRef (a MeshOpenTelemetryBackend selected by labels); an endpoint is
// host:port, never a URL. MeshMetric also wants the port (hostPort), which it always
// required. An inline endpoint gets Kuma's deprecation warning.
func (v *validator) otelBackend(endpoint string, ref *api.BackendResourceRef, p *field.Path, hostPort bool) {
	ep := p.Child("endpoint")
	if api.KumaBefore(v.s.KumaVersion, otelBackendRefSince) {
		v.otelEndpointBefore214(endpoint, ep, hostPort)
		return
	}
	switch {
	case endpoint != "" && ref != nil:
		v.err(field.Forbidden(ep, "an OpenTelemetry backend takes either endpoint or backendRef, not both; remove endpoint and keep backendRef"), CodeOtelBackend)
	case endpoint == "" && ref == nil:
		v.err(field.Required(p.Child("backendRef"), "an OpenTelemetry backend needs a collector: set backendRef to a MeshOpenTelemetryBackend (kind and labels), or the deprecated endpoint host:port"), CodeOtelBackend)
	case ref != nil:
		if len(ref.Labels) == 0 {
			v.err(field.Required(p.Child("backendRef", "labels"), "backendRef selects its MeshOpenTelemetryBackend by labels; add the labels of that resource"), CodeOtelBackend)
		}
	case strings.ContainsAny(endpoint, "/?#"):
		v.err(field.Invalid(ep, endpoint, "endpoint is host:port (e.g. otel-collector:4317), not a URL; to give a scheme or path, use a MeshOpenTelemetryBackend and backendRef"), CodeOtelBackend)
	case hostPort && !splitsHostPort(endpoint):
		v.err(field.Invalid(ep, endpoint, "MeshMetric needs endpoint as host:port with the port, e.g. otel-collector:4317"), CodeOtelBackend)
	default:
		// A usable inline endpoint: Kuma accepts it with a deprecation warning (an
		// unusable one has its error, which already says what to write).
		v.warn(field.Invalid(ep, endpoint, "openTelemetry.endpoint is deprecated in Kuma 2.14; create a MeshOpenTelemetryBackend for the collector and refer to it with backendRef (kind: MeshOpenTelemetryBackend, labels)"), CodeOtelEndpoint)
	}
}

// otelBackendRefSince is the Kuma release that brought backendRef (a
// MeshOpenTelemetryBackend) to the OpenTelemetry backends and the endpoint rules
// above.
const otelBackendRefSince = "2.14"

// otelEndpointBefore214 is Kuma 2.13's rule for an OpenTelemetry backend: the
// endpoint is all there is (its CRD requires it and has no backendRef, which the
// schema layer reports); MeshTrace and MeshAccessLog check nothing more, MeshMetric
// (hostPort) wants a URL as govalidator reads one, without an http or https scheme.
func (v *validator) otelEndpointBefore214(endpoint string, ep *field.Path, hostPort bool) {
	if endpoint == "" {
		if !v.schemaAnswered {
			v.err(field.Required(ep, "an OpenTelemetry backend needs the collector's endpoint, host:port"), CodeOtelBackend)
		}
		return
	}
	if !hostPort {
		return
	}
	if !isURL(endpoint) {
		v.err(field.Invalid(ep, endpoint, fmt.Sprintf("must be a valid url (Kuma %s), e.g. otel-collector:4317", v.s.KumaVersion)), CodeOtelBackend)
	}
	if strings.HasPrefix(endpoint, "http://") || strings.HasPrefix(endpoint, "https://") {
		v.err(field.Invalid(ep, endpoint, fmt.Sprintf("must not use a scheme (Kuma %s): write host:port, e.g. otel-collector:4317", v.s.KumaVersion)), CodeOtelBackend)
	}
}

func splitsHostPort(s string) bool {
	_, _, err := net.SplitHostPort(s)
	return err == nil
}

// percent reads an int-or-string percentage as Kuma does (a decimal, from a string
// with shopspring/decimal) and reports a string that is not a number, or a value
// outside 0-100.
func (o obsRules) percent(p *field.Path, n *intstr.IntOrString) {
	if n == nil {
		return
	}
	d := decimal.NewFromInt(int64(n.IntVal))
	if n.Type == intstr.String {
		var err error
		if d, err = decimal.NewFromString(n.StrVal); err != nil {
			o.invalid(p, n.StrVal, fmt.Sprintf("%q is not a number; write a percentage such as 50 or \"12.5\"", n.StrVal))
			return
		}
	}
	if d.IsNegative() || d.GreaterThan(decimal.NewFromInt(100)) {
		var value any = n.StrVal
		if n.Type == intstr.Int {
			value = n.IntVal
		}
		o.invalid(p, value, "is a percentage: must be from 0 to 100 (decimals as strings, e.g. \"0.5\")")
	}
}
