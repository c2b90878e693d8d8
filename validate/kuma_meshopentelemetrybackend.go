package validate

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// meshOpenTelemetryBackend mirrors Kuma's MeshOpenTelemetryBackend validator: the
// endpoint's address and port, a path only for http (absolute, no query), and the
// protocol and env values.
func (v *validator) meshOpenTelemetryBackend(s *api.MeshOpenTelemetryBackendSpec, p *field.Path) {
	protocol := "grpc"
	if s.Protocol != nil {
		protocol = *s.Protocol
	}
	if s.Endpoint != nil {
		v.otelEndpoint(s.Endpoint, protocol, p.Child("endpoint"))
	}
	if protocols := []string{"grpc", "http"}; protocol != "" && !slices.Contains(protocols, protocol) {
		v.err(field.NotSupported(p.Child("protocol"), protocol, protocols), CodeMeshOpenTelemetryBackend)
	}
	if env := s.Env; env != nil {
		if modes := []string{"Disabled", "Optional", "Required"}; env.Mode != "" && !slices.Contains(modes, env.Mode) {
			v.err(field.NotSupported(p.Child("env", "mode"), env.Mode, modes), CodeMeshOpenTelemetryBackend)
		}
		if prec := []string{"ExplicitFirst", "EnvFirst"}; env.Precedence != "" && !slices.Contains(prec, env.Precedence) {
			v.err(field.NotSupported(p.Child("env", "precedence"), env.Precedence, prec), CodeMeshOpenTelemetryBackend)
		}
	}
}

// otelEndpoint checks the collector's address, port and (http only) path.
func (v *validator) otelEndpoint(e *api.OTelBackendEndpoint, protocol string, p *field.Path) {
	if e.Address != nil {
		switch a := *e.Address; {
		case a == "":
			v.err(field.Required(p.Child("address"), "give the collector's address or leave address out"), CodeMeshOpenTelemetryBackend)
		case !isIP(a) && !isDNSName(a):
			v.err(field.Invalid(p.Child("address"), a, "must be an IP address or a host name (no scheme, no port)"), CodeMeshOpenTelemetryBackend)
		}
	}
	if e.Port != nil && !validPort(int64(*e.Port)) {
		v.err(field.Invalid(p.Child("port"), *e.Port, "must be a port number, 1-65535"), CodeMeshOpenTelemetryBackend)
	}
	if e.Path == nil || *e.Path == "" {
		return
	}
	path, pp := *e.Path, p.Child("path")
	if protocol == "grpc" || protocol == "" {
		v.err(field.Forbidden(pp, "a path is only for protocol http; remove it or set protocol: http"), CodeMeshOpenTelemetryBackend)
		return
	}
	if !strings.HasPrefix(path, "/") {
		v.err(field.Invalid(pp, path, "must start with /"), CodeMeshOpenTelemetryBackend)
	}
	if strings.ContainsAny(path, "?#") {
		v.err(field.Invalid(pp, path, "must not contain a query or a fragment"), CodeMeshOpenTelemetryBackend)
	}
}
