package main

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/schema"
)

// linkerdVersionValue is --linkerd-version: a release tag, or a feature release's
// short form ("2.18" for version-2.18), stored as the tag so that every later
// reader (CRD selection, the release-aware rules, messages) sees one spelling.
type linkerdVersionValue struct{ p *string }

func (v linkerdVersionValue) String() string { return *v.p }

func (v linkerdVersionValue) Set(s string) error {
	*v.p = api.LinkerdVersionName(s)
	return nil
}

func (v linkerdVersionValue) Type() string { return "string" }

// releaseFlags binds --linkerd-version and --gateway-api-version, the Linkerd
// settings every door shares beside the Kuma ones (settingsFlags).
func releaseFlags(fs *pflag.FlagSet, st *api.Settings) {
	fs.Var(linkerdVersionValue{&st.LinkerdVersion}, "linkerd-version", "the Linkerd release the cluster runs ("+
		strings.Join(schema.LinkerdVersions(), ", ")+"; 2.18, 2.19 and 2.20 name the version-2.x releases): "+
		"its CRDs check Linkerd's policy.linkerd.io objects and its admission rules apply to them and to the Gateway API routes "+
		"parented to a Linkerd Server, EgressNetwork or Service (routes parented only to other gateways are left alone)")
	fs.StringVar(&st.GatewayAPIVersion, "gateway-api-version", "", "the Gateway API release the cluster serves ("+
		strings.Join(schema.GatewayAPIVersions(), ", ")+"), whose route CRDs (experimental channel) check the routes parented to Linkerd; "+
		"default: the one the --linkerd-version release bundles or documents (version-2.18 v1.1.1, version-2.19 v1.4.1, version-2.20 v1.2.1, edge-26.8.3 v1.5.1)")
}
