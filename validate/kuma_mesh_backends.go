package validate

import (
	"fmt"
	"net"
	"net/url"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// meshLogging checks the Mesh's access-log backends: named, unique, a known type with
// a usable conf, and a defaultBackend that is one of them.
func (v *validator) meshLogging(l *api.MeshLogging, p *field.Path) {
	used := map[string]bool{}
	for i, b := range l.Backends {
		ip := p.Child("backends").Index(i)
		if b.Name == "" {
			v.err(field.Required(ip.Child("name"), "name the backend"), CodeMesh)
		}
		switch b.Type {
		case "file":
			var conf struct {
				Path string `json:"path,omitempty"`
			}
			if v.meshConf(b.Conf, &conf, ip.Child("conf")) && conf.Path == "" {
				v.err(field.Required(ip.Child("conf", "path"), "give the file to write the access log to"), CodeMesh)
			}
		case "tcp":
			var conf struct {
				Address string `json:"address,omitempty"`
			}
			if v.meshConf(b.Conf, &conf, ip.Child("conf")) {
				v.hostPort(conf.Address, ip.Child("conf", "address"))
			}
		default:
			v.err(field.NotSupported(ip.Child("type"), b.Type, []string{"tcp", "file"}), CodeMesh)
		}
		if used[b.Name] {
			v.err(field.Duplicate(ip.Child("name"), b.Name), CodeMesh)
		}
		used[b.Name] = true
	}
	if l.DefaultBackend != "" && !used[l.DefaultBackend] {
		v.err(field.Invalid(p.Child("defaultBackend"), l.DefaultBackend, "must be the name of one of logging.backends"), CodeMesh)
	}
}

// hostPort checks a tcp log collector's address: required, HOST:PORT.
func (v *validator) hostPort(addr string, p *field.Path) {
	if addr == "" {
		v.err(field.Required(p, "give the collector's address as HOST:PORT"), CodeMesh)
		return
	}
	if host, port, err := net.SplitHostPort(addr); err != nil || host == "" || port == "" {
		v.err(field.Invalid(p, addr, "must be HOST:PORT"), CodeMesh)
	}
}

// meshTracing checks the Mesh's tracing backends: named, unique, sampling 0-100, a
// known type with a usable conf, and a defaultBackend that is one of them.
func (v *validator) meshTracing(t *api.MeshTracing, p *field.Path) {
	used := map[string]bool{}
	for i, b := range t.Backends {
		ip := p.Child("backends").Index(i)
		if b.Name == "" {
			v.err(field.Required(ip.Child("name"), "name the backend"), CodeMesh)
		}
		if b.Sampling != nil && (*b.Sampling < 0 || *b.Sampling > 100) {
			v.err(field.Invalid(ip.Child("sampling"), float64(*b.Sampling), "must be a percentage, 0.0-100.0"), CodeMesh)
		}
		switch b.Type {
		case "zipkin":
			v.zipkin(b.Conf, ip.Child("conf"))
		case "datadog":
			var conf struct {
				Address string          `json:"address,omitempty"`
				Port    api.ProtoNumber `json:"port,omitempty"`
			}
			if v.meshConf(b.Conf, &conf, ip.Child("conf")) {
				if conf.Address == "" {
					v.err(field.Required(ip.Child("conf", "address"), "give the Datadog agent's address"), CodeMesh)
				}
				if !validPort(int64(conf.Port)) || float64(conf.Port) != float64(int64(conf.Port)) {
					v.err(field.Invalid(ip.Child("conf", "port"), conf.Port, "must be a port number, 1-65535"), CodeMesh)
				}
			}
		default:
			v.err(field.NotSupported(ip.Child("type"), b.Type, []string{"zipkin", "datadog"}), CodeMesh)
		}
		if used[b.Name] {
			v.err(field.Duplicate(ip.Child("name"), b.Name), CodeMesh)
		}
		used[b.Name] = true
	}
	if t.DefaultBackend != "" && !used[t.DefaultBackend] {
		v.err(field.Invalid(p.Child("defaultBackend"), t.DefaultBackend, "must be the name of one of tracing.backends"), CodeMesh)
	}
}

// zipkin checks a Zipkin conf: a known apiVersion, and an absolute url with a port.
func (v *validator) zipkin(raw any, p *field.Path) {
	var conf struct {
		URL        string `json:"url,omitempty"`
		APIVersion string `json:"apiVersion,omitempty"`
	}
	if !v.meshConf(raw, &conf, p) {
		return
	}
	if versions := []string{"httpJsonV1", "httpJson", "httpProto"}; conf.APIVersion != "" && !slices.Contains(versions, conf.APIVersion) {
		v.err(field.NotSupported(p.Child("apiVersion"), conf.APIVersion, versions), CodeMesh)
	}
	up := p.Child("url")
	if conf.URL == "" {
		v.err(field.Required(up, "give the Zipkin collector's URL, e.g. http://zipkin:9411/api/v2/spans"), CodeMesh)
		return
	}
	u, err := url.ParseRequestURI(conf.URL)
	switch {
	case err != nil:
		v.err(field.Invalid(up, conf.URL, "must be an absolute URL"), CodeMesh)
	case u.Port() == "":
		v.err(field.Invalid(up, conf.URL, "must name the port explicitly, e.g. http://zipkin:9411/api/v2/spans"), CodeMesh)
	}
}

// meshMetrics checks the Mesh's metrics backends: unique names, type prometheus with
// a usable conf, and an enabledBackend that is one of them.
func (v *validator) meshMetrics(m *api.MeshMetrics, p *field.Path) {
	used := map[string]bool{}
	for i, b := range m.Backends {
		ip := p.Child("backends").Index(i)
		if used[b.Name] {
			v.err(field.Duplicate(ip.Child("name"), b.Name), CodeMesh)
		}
		if b.Type != "prometheus" {
			v.err(field.NotSupported(ip.Child("type"), b.Type, []string{"prometheus"}), CodeMesh)
		} else {
			v.prometheus(b.Conf, ip.Child("conf"))
		}
		used[b.Name] = true
	}
	if m.EnabledBackend != "" && !used[m.EnabledBackend] {
		v.err(field.Invalid(p.Child("enabledBackend"), m.EnabledBackend, "must be the name of one of metrics.backends"), CodeMesh)
	}
}

// prometheus checks a Prometheus conf as Kuma does after its defaulting webhook has
// run: skipMTLS and tls must agree (the webhook drops skipMTLS beside tls.mode
// providedTLS), filterRegex must compile, aggregate names must be unique.
func (v *validator) prometheus(raw any, p *field.Path) {
	var conf struct {
		Port     *api.ProtoNumber  `json:"port,omitempty"`
		Path     string            `json:"path,omitempty"`
		Tags     map[string]string `json:"tags,omitempty"`
		SkipMTLS *bool             `json:"skipMTLS,omitempty"`
		TLS      *struct {
			Mode any `json:"mode,omitempty"`
		} `json:"tls,omitempty"`
		Envoy *struct {
			FilterRegex string `json:"filterRegex,omitempty"`
			UsedOnly    *bool  `json:"usedOnly,omitempty"`
		} `json:"envoy,omitempty"`
		Aggregate []struct {
			Name    string           `json:"name,omitempty"`
			Port    *api.ProtoNumber `json:"port,omitempty"`
			Path    string           `json:"path,omitempty"`
			Enabled *bool            `json:"enabled,omitempty"`
			Address string           `json:"address,omitempty"`
		} `json:"aggregate,omitempty"`
	}
	if !v.meshConf(raw, &conf, p) {
		return
	}
	if conf.TLS != nil {
		v.meshEnum(conf.TLS.Mode, p.Child("tls", "mode"), "activeMTLSBackend", "providedTLS", "disabled")
	}
	if conf.SkipMTLS != nil && conf.TLS != nil {
		mode := fmt.Sprint(conf.TLS.Mode)
		agree := mode == "providedTLS" || mode == "1" ||
			!*conf.SkipMTLS && (conf.TLS.Mode == nil || mode == "activeMTLSBackend" || mode == "0") ||
			*conf.SkipMTLS && (mode == "disabled" || mode == "2")
		if !agree {
			v.err(field.Invalid(p, "", "skipMTLS and tls disagree; set only tls.mode (activeMTLSBackend, providedTLS or disabled)"), CodeMesh)
			return
		}
	}
	if conf.Envoy != nil {
		if err := compiles(conf.Envoy.FilterRegex); err != nil {
			v.err(field.Invalid(p.Child("envoy", "filterRegex"), conf.Envoy.FilterRegex, fmt.Sprintf("must be a valid regular expression: %v", err)), CodeMesh)
			return
		}
	}
	seen := map[string]bool{}
	for i, a := range conf.Aggregate {
		if seen[a.Name] {
			v.err(field.Duplicate(p.Child("aggregate").Index(i).Child("name"), a.Name), CodeMesh)
		}
		seen[a.Name] = true
	}
}
