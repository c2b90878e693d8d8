package validate

import (
	"encoding/json"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// meshAccessLog runs Kuma 2.14's MeshAccessLog conf rules on every to, from and
// rules item's default: backends must be listed, each backend's own section must be
// there and be well formed (file path, TCP address, line formats, OpenTelemetry
// collector and attribute keys). An item without default is the CRD's finding.
func (v *validator) meshAccessLog(s *api.MeshAccessLogSpec, p *field.Path) {
	o := obsRules{v: v, code: CodeAccessLogConf}
	for i, it := range s.To {
		if it.Default != nil {
			o.accessLogConf(it.Default, p.Child("to").Index(i).Child("default"), "to", i)
		}
	}
	for i, it := range s.From {
		if it.Default != nil {
			o.accessLogConf(it.Default, p.Child("from").Index(i).Child("default"), "from", i)
		}
	}
	for i, r := range s.Rules {
		if r.Default != nil {
			o.accessLogConf(r.Default, p.Child("rules").Index(i).Child("default"), "rules", i)
		}
	}
}

func (o obsRules) accessLogConf(c *api.MeshAccessLogConf, p *field.Path, sec string, i int) {
	if c.Backends == nil {
		if !o.v.rawPresent(sec, i, "default", "backends") {
			o.required(p.Child("backends"), "list the access log backends (file, tcp or openTelemetry); an empty list [] turns access logs off")
		}
		return
	}
	for j, b := range *c.Backends {
		o.accessLogBackend(b, p.Child("backends").Index(j))
	}
}

func (o obsRules) accessLogBackend(b api.AccessLogBackend, p *field.Path) {
	switch b.Type {
	case api.AccessLogFile:
		fp := p.Child("file")
		if b.File == nil {
			o.required(fp, "a backend of type File needs 'file' with the path to write to")
			return
		}
		o.logFormat(b.File.Format, fp.Child("format"))
		if b.File.Path != nil {
			if !isFilePath(*b.File.Path) {
				o.invalid(fp.Child("path"), *b.File.Path, "must be an absolute file path, e.g. /var/log/access.log or /dev/stdout")
			}
		}
	case api.AccessLogTCP:
		tp := p.Child("tcp")
		if b.TCP == nil {
			o.required(tp, "a backend of type Tcp needs 'tcp' with the collector's address")
			return
		}
		o.logFormat(b.TCP.Format, tp.Child("format"))
		if b.TCP.Address != nil && !isURL(*b.TCP.Address) {
			o.invalid(tp.Child("address"), *b.TCP.Address, "must be an address Kuma can parse as a URL, e.g. logstash.logging:5000 or 127.0.0.1:5000 (a bare name needs a dot or a port)")
		}
	case api.AccessLogOtel:
		op := p.Child("openTelemetry")
		if b.OpenTelemetry == nil {
			o.required(op, "a backend of type OpenTelemetry needs 'openTelemetry' with backendRef (or the deprecated endpoint)")
			return
		}
		o.v.otelBackend(b.OpenTelemetry.Endpoint, b.OpenTelemetry.BackendRef, op, false)
		for j, a := range b.OpenTelemetry.Attributes {
			// Kuma 2.13 does not check attribute keys (--kuma-version 2.13).
			if a.Key != nil && !api.KumaBefore(o.v.s.KumaVersion, otelAttributeKeysSince) {
				o.otelAttributeKey(*a.Key, op.Child("attributes").Index(j).Child("key"))
			}
		}
	}
}

// logFormat checks the format Type selects; the other one is ignored, as by Kuma.
func (o obsRules) logFormat(f *api.AccessLogFormat, p *field.Path) {
	if f == nil {
		return
	}
	switch f.Type {
	case api.AccessLogPlain:
		pp := p.Child("plain")
		switch {
		case f.Plain == nil:
			o.required(pp, "format type Plain needs 'plain', the line template, e.g. '[%START_TIME%] %KUMA_MESH% %UPSTREAM_HOST%'")
		case *f.Plain == "":
			o.invalid(pp, "", "must not be empty; write the line template, e.g. '[%START_TIME%] %KUMA_MESH% %UPSTREAM_HOST%'")
		}
	case api.AccessLogJSON:
		jp := p.Child("json")
		switch {
		case f.JSON == nil:
			o.required(jp, "format type Json needs 'json', a list of key/value pairs")
			return
		case len(*f.JSON) == 0:
			o.invalid(jp, "[]", "must not be empty; list at least one key/value pair, e.g. {key: start_time, value: '%START_TIME%'}")
		}
		for i, kv := range *f.JSON {
			o.jsonLogField(kv, jp.Index(i))
		}
	}
}

// jsonLogField applies Kuma's rules to one key/value pair of a JSON format: neither
// may be empty, and the two, pasted unescaped into {"key": "value"}, must still be
// a JSON object (so no double quotes, stray backslashes or control characters).
func (o obsRules) jsonLogField(kv api.JSONLogField, p *field.Path) {
	var key, value string
	if kv.Key != nil {
		key = *kv.Key
		if key == "" {
			o.invalid(p.Child("key"), "", "must not be empty; name the JSON key")
		}
	}
	if kv.Value != nil {
		value = *kv.Value
		if value == "" {
			o.invalid(p.Child("value"), "", "must not be empty; give the value, e.g. '%START_TIME%'")
		}
	}
	if !json.Valid([]byte(`{"` + key + `": "` + value + `"}`)) {
		o.invalid(p, key+": "+value, `Kuma pastes key and value unescaped into {"key": "value"}, and this pair does not give a JSON object; remove double quotes, backslashes and control characters`)
	}
}

// otelAttributeKeysSince is the Kuma release whose MeshAccessLog validator first
// checks OpenTelemetry attribute keys.
const otelAttributeKeysSince = "2.14"

// otelAttributeKey is Kuma's rule for an OpenTelemetry attribute name: static (no
// placeholders), not under the reserved otel. prefix, lowercase letters and digits
// in segments joined by single '.' or '_'.
func (o obsRules) otelAttributeKey(key string, p *field.Path) {
	switch {
	case key == "":
		o.invalid(p, "", "must not be empty; name the attribute, e.g. service.version")
	case strings.Contains(key, "%"):
		o.invalid(p, key, "an attribute key must be a fixed name; placeholders such as %KUMA_ZONE% belong in the value")
	case strings.HasPrefix(key, "otel."):
		o.invalid(p, key, "the prefix 'otel.' is reserved by OpenTelemetry; choose another name")
	case !otelAttributeName(key):
		o.invalid(p, key, "must start with a lowercase letter and use lowercase letters and digits, with single '.' or '_' between them and a letter or digit at the end, e.g. service.version")
	}
}

// otelAttributeName matches ^[a-z]([a-z0-9]|[._][a-z0-9])*$ without a regexp.
func otelAttributeName(s string) bool {
	lowerOrDigit := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if c == '.' || c == '_' {
			i++
			if i == len(s) || !lowerOrDigit(s[i]) {
				return false
			}
			continue
		}
		if !lowerOrDigit(c) {
			return false
		}
	}
	return true
}
