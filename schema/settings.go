package schema

import (
	"fmt"
	"strings"

	"github.com/meshguard/meshguard/api"
)

// ForSettings returns the CRDs of s.KumaVersion, of s.LinkerdVersion (policy.linkerd.io)
// and of s.GatewayAPIVersion (the Gateway API routes; by default the one the Linkerd
// release bundles or documents, GatewayAPIFor), each CRD compiled
// on the first object of its kind: a run over a few kinds does not pay for parsing
// and compiling the others (for a 10,000-policy lint of four Kuma kinds, 5% of its
// CPU), nor a run over Kuma manifests for Linkerd's. The doors call it after
// CheckSettings; the webhook then calls DeferredErr to compile everything before
// serving. An empty LinkerdVersion (settings built by hand rather than from
// api.DefaultSettings) means the embedded default.
func ForSettings(s api.Settings) (*Set, error) {
	lv := s.LinkerdVersion
	if lv == "" {
		lv = DefaultLinkerdVersion
	}
	set, err := Load()
	if err != nil {
		return nil, err
	}
	if err := set.Defer(KumaRelease(s.KumaVersion), api.KumaGroup); err != nil {
		return nil, err
	}
	if err := set.Defer(LinkerdRelease(lv), api.LinkerdGroup); err != nil {
		return nil, err
	}
	if err := set.Defer(GatewayAPIRelease(gatewayAPIOf(s)), api.GatewayGroup); err != nil {
		return nil, err
	}
	return set, nil
}

// LoadInto sets s.Schemas to ForSettings(*s): what every door does before judging
// objects, kept in one place so that the doors cannot load different CRDs.
func LoadInto(s *api.Settings) error {
	set, err := ForSettings(*s)
	if err != nil {
		return err
	}
	s.Schemas = set
	return nil
}

// CheckSettings is api.Settings.Check and then what only the embedded CRDs can say:
// that --kuma-version, --linkerd-version and --gateway-api-version name releases
// meshguard embeds. The
// doors that take those flags call it at start-up, so a mistyped release fails
// there rather than on the first object.
func CheckSettings(s api.Settings) error {
	if err := s.Check(); err != nil {
		return err
	}
	if !KnowsKuma(s.KumaVersion) {
		return fmt.Errorf("--kuma-version must be one of %s (got %q)", strings.Join(KumaVersions(), ", "), s.KumaVersion)
	}
	if s.LinkerdVersion != "" && !KnowsLinkerd(s.LinkerdVersion) {
		return fmt.Errorf("--linkerd-version must be one of %s (got %q)", strings.Join(LinkerdVersions(), ", "), s.LinkerdVersion)
	}
	if s.GatewayAPIVersion != "" && !KnowsGatewayAPI(s.GatewayAPIVersion) {
		return fmt.Errorf("--gateway-api-version must be one of %s (got %q)", strings.Join(GatewayAPIVersions(), ", "), s.GatewayAPIVersion)
	}
	return nil
}
