package validate

import (
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// meshCAPlugins are the certificate-authority backend types Kuma 2.14 installs.
func meshCAPlugins() []string { return []string{"builtin", "provided"} }

// maxMeshNameLength is the longest Mesh name Kuma's Mesh webhook accepts on create.
const maxMeshNameLength = 63

// mesh mirrors what Kuma checks of a Mesh on Kubernetes: the Mesh validator (mTLS,
// logging, tracing, metrics, constraints, zone egress), the Mesh webhook (name length,
// installed CA plugins and their confs, no CA change while mTLS is on), and the enum
// values Kuma's decoder refuses; and Kuma's warning for a name that is no DNS-1035 label.
func (v *validator) mesh(s *api.MeshSpec, p *field.Path) {
	if v.req.Operation != api.OpUpdate && len(v.name) > maxMeshNameLength {
		v.err(field.TooLong(field.NewPath("metadata", "name"), "", maxMeshNameLength), CodeMesh)
	}
	v.meshMTLS(s.MTLS, p.Child("mtls"))
	v.meshCAChange(s)
	if s.Logging != nil {
		v.meshLogging(s.Logging, p.Child("logging"))
	}
	if s.Tracing != nil {
		v.meshTracing(s.Tracing, p.Child("tracing"))
	}
	if s.Metrics != nil {
		v.meshMetrics(s.Metrics, p.Child("metrics"))
	}
	if c := s.Constraints; c != nil && c.DataplaneProxy != nil {
		cp := p.Child("constraints", "dataplaneProxy")
		for i, r := range c.DataplaneProxy.Requirements {
			v.meshSelectorTags(r.Tags, cp.Child("requirements").Index(i).Child("tags"))
		}
		for i, r := range c.DataplaneProxy.Restrictions {
			v.meshSelectorTags(r.Tags, cp.Child("restrictions").Index(i).Child("tags"))
		}
	}
	if s.Routing != nil && s.Routing.ZoneEgress && (s.MTLS == nil || s.MTLS.EnabledBackend == "") {
		v.err(field.Required(p.Child("mtls"), "routing.zoneEgress needs mTLS: set mtls.enabledBackend"), CodeMesh)
	}
	if s.MeshServices != nil {
		v.meshEnum(s.MeshServices.Mode, p.Child("meshServices", "mode"), "Disabled", "Everywhere", "ReachableBackends", "Exclusive")
	}
	v.dnsNameDeprecation(CodeMesh)
}

// meshMTLS checks the CA backends: at most one, unique names, an installed plugin
// and a conf it accepts, a valid certificate rotation, and an enabledBackend that is
// one of them.
func (v *validator) meshMTLS(m *api.MeshMTLS, p *field.Path) {
	if m == nil {
		return
	}
	bp := p.Child("backends")
	if len(m.Backends) > 1 {
		v.err(field.TooMany(bp, len(m.Backends), 1), CodeMesh)
	}
	used := map[string]bool{}
	pluginChecked := false
	for i, b := range m.Backends {
		ip := bp.Index(i)
		if used[b.Name] {
			v.err(field.Duplicate(ip.Child("name"), b.Name), CodeMesh)
		}
		used[b.Name] = true
		if b.DpCert != nil {
			exp := ""
			if b.DpCert.Rotation != nil {
				exp = b.DpCert.Rotation.Expiration
			}
			if !kumaDuration(exp) {
				v.err(field.Invalid(ip.Child("dpCert", "rotation", "expiration"), exp,
					"must be a whole number with a unit (ms, s, m, h, d, w, y), e.g. 1d"), CodeMesh)
			}
		}
		v.meshEnum(b.Mode, ip.Child("mode"), "STRICT", "PERMISSIVE")
		if b.DpCert != nil {
			v.protoDuration(b.DpCert.RequestTimeout, ip.Child("dpCert", "requestTimeout"))
		}
		if rc, ok := b.RootChain.(map[string]any); ok {
			v.protoDuration(rc["requestTimeout"], ip.Child("rootChain", "requestTimeout"))
		}
		// Kuma's webhook stops at the first backend whose plugin is missing.
		if !pluginChecked {
			pluginChecked = !v.meshCABackend(b, m.SkipValidation, ip)
		}
	}
	if m.EnabledBackend != "" && !used[m.EnabledBackend] {
		v.err(field.Invalid(p.Child("enabledBackend"), m.EnabledBackend, "must be the name of one of mtls.backends"), CodeMesh)
	}
}

// meshCABackend checks a CA backend's type and, unless validation is skipped, its
// conf as the plugin does; it returns false when the type is no installed plugin.
func (v *validator) meshCABackend(b api.MeshCABackend, skip bool, p *field.Path) bool {
	switch b.Type {
	case "builtin":
		if skip {
			return true
		}
		var conf struct {
			CaCert *struct {
				RSAbits    *api.ProtoNumber `json:"RSAbits,omitempty"`
				Expiration string           `json:"expiration,omitempty"`
			} `json:"caCert,omitempty"`
		}
		v.meshConf(b.Conf, &conf, p.Child("conf"))
		secret := fmt.Sprintf("%s.ca-builtin-cert-%s", v.meshNameForCA(), b.Name)
		if len(secret) > 255 || !isDNSName(secret) || strings.ToLower(secret) != secret {
			v.err(field.Invalid(p.Child("name"), b.Name, fmt.Sprintf(
				"Kuma stores the CA in a secret named %q, which must be a lower-case DNS name of at most 255 characters; rename the backend", secret)), CodeMesh)
		}
	case "provided":
		if skip {
			return true
		}
		var conf struct {
			Cert *api.KumaDataSource `json:"cert,omitempty"`
			Key  *api.KumaDataSource `json:"key,omitempty"`
		}
		if v.meshConf(b.Conf, &conf, p.Child("conf")) {
			v.meshDataSource(conf.Cert, p.Child("conf", "cert"))
			v.meshDataSource(conf.Key, p.Child("conf", "key"))
		}
	default:
		v.err(field.NotSupported(p.Child("type"), b.Type, meshCAPlugins()), CodeMesh)
		return false
	}
	return true
}

// meshNameForCA is the Mesh's name as Kuma names its CA secrets.
func (v *validator) meshNameForCA() string {
	if v.name != "" {
		return v.name
	}
	return "mesh"
}

// meshDataSource checks a provided CA's cert or key: defined, one source, not empty.
func (v *validator) meshDataSource(ds *api.KumaDataSource, p *field.Path) {
	if ds == nil {
		v.err(field.Required(p, "a provided CA needs its cert and key: set secret, file, inline or inlineString"), CodeMesh)
		return
	}
	switch {
	case ds.Secret != nil:
		if *ds.Secret == "" {
			v.err(field.Required(p.Child("secret"), "name the secret"), CodeMesh)
		}
	case ds.File != nil:
		if *ds.File == "" {
			v.err(field.Required(p.Child("file"), "give the file's path"), CodeMesh)
		}
	case ds.Inline != nil:
		if *ds.Inline == "" {
			v.err(field.Required(p.Child("inline"), "give the base64 data"), CodeMesh)
		}
	case ds.InlineString != nil:
	default:
		v.err(field.Required(p, "choose a data source: secret, file, inline or inlineString"), CodeMesh)
	}
}

// meshCAChange refuses, on UPDATE, a change of the enabled CA while mTLS stays on,
// as Kuma's Mesh webhook does.
func (v *validator) meshCAChange(s *api.MeshSpec) {
	if v.req.Operation != api.OpUpdate || v.req.Old == nil {
		return
	}
	oldRaw, _ := v.req.Old.Object["spec"].(map[string]any)
	var old api.MeshSpec
	if api.Decode(oldRaw, &old) != nil || old.MTLS == nil || s.MTLS == nil {
		return
	}
	if old.MTLS.EnabledBackend != "" && s.MTLS.EnabledBackend != "" && old.MTLS.EnabledBackend != s.MTLS.EnabledBackend {
		v.err(field.Forbidden(field.NewPath("spec", "mtls", "enabledBackend"),
			"Kuma forbids changing the CA while mTLS is enabled; disable mTLS first, then change the CA"), CodeMesh)
	}
}

// meshConf decodes a backend's free-form conf into its typed form, as Kuma does (unknown
// fields are ignored, wrong types refused); it reports and returns false when it
// cannot.
func (v *validator) meshConf(conf any, out any, p *field.Path) bool {
	if conf == nil {
		return true
	}
	if err := api.Decode(conf, out); err != nil {
		v.err(field.Invalid(p, "", fmt.Sprintf("Kuma cannot read this conf (%v); fix the field's type", err)), CodeMesh)
		return false
	}
	return true
}

// meshEnum checks a proto enum Kuma decodes by name or number.
func (v *validator) meshEnum(val any, p *field.Path, names ...string) {
	switch x := val.(type) {
	case nil:
	case string:
		for _, n := range names {
			if x == n {
				return
			}
		}
		v.err(field.NotSupported(p, x, names), CodeMesh)
	case int64:
		if x < 0 || x >= int64(len(names)) {
			v.err(field.NotSupported(p, x, names), CodeMesh)
		}
	case float64:
		if x != float64(int64(x)) || x < 0 || x >= float64(len(names)) {
			v.err(field.NotSupported(p, x, names), CodeMesh)
		}
	default:
		v.err(field.TypeInvalid(p, x, "must be one of "+strings.Join(names, ", ")), CodeMesh)
	}
}

// kumaDuration is Kuma's duration syntax for certificate rotation: "0", or a whole
// number followed by ms, s, m, h, d, w or y.
func kumaDuration(s string) bool {
	if s == "0" {
		return true
	}
	digits := strings.TrimRight(s, "msdhwy")
	unit := s[len(digits):]
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return false
	}
	switch unit {
	case "y", "w", "d", "h", "m", "s", "ms":
		return true
	}
	return false
}

// meshSelectorTags checks a constraint's tags as Kuma's selector rules do: at least
// one, keys and values not empty, Kuma's character sets (a value may be "*").
func (v *validator) meshSelectorTags(tags map[string]string, p *field.Path) {
	if len(tags) == 0 {
		v.err(field.Required(p, "list at least one tag"), CodeMesh)
	}
	for k, val := range tags {
		if k == "" {
			v.err(field.Invalid(p, k, "a tag name must not be empty"), CodeMesh)
		}
		if !tagChars(k, true) {
			v.err(field.Invalid(p.Key(k), k, "a tag name may only contain letters, digits, '.', '-', '_', ':' and '/'"), CodeMesh)
		}
		if val == "" {
			v.err(field.Invalid(p.Key(k), val, "a tag value must not be empty"), CodeMesh)
		}
		if val != "*" && !tagChars(val, true) {
			v.err(field.Invalid(p.Key(k), val, `a tag value may only contain letters, digits, '.', '-', '_', ':' and '/', or be "*"`), CodeMesh)
		}
	}
}

// tagChars reports whether s has only letters, digits, '.', '-', '_', ':' (and '/'
// when slash).
func tagChars(s string, slash bool) bool {
	for _, c := range s {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(".-_:", c) || slash && c == '/'
		if !ok {
			return false
		}
	}
	return true
}

// compiles reports whether a Prometheus filterRegex is a valid Go regexp, as Kuma
// requires.
func compiles(re string) error {
	_, err := regexp.Compile(re)
	return err
}

// protoDuration checks a protobuf Duration as Kuma's decoder reads it: a string of
// seconds with the unit s ("5s", "0.5s"); anything else makes Kuma refuse the Mesh.
func (v *validator) protoDuration(val any, p *field.Path) {
	if val == nil {
		return
	}
	s, ok := val.(string)
	num := strings.TrimPrefix(strings.TrimSuffix(s, "s"), "-")
	whole, frac, dotted := strings.Cut(num, ".")
	good := ok && strings.HasSuffix(s, "s") && whole != "" && strings.Trim(whole, "0123456789") == "" &&
		(!dotted || frac != "" && len(frac) <= 9 && strings.Trim(frac, "0123456789") == "")
	if !good {
		v.err(field.Invalid(p, val, "must be a protobuf duration: seconds with the unit s, e.g. \"10s\" or \"0.5s\" (not \"1m\")"), CodeMesh)
	}
}
