package main

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/meshguard/meshguard/linkerdauthz"
)

// linkerdFlags binds the facts of a Linkerd installation that no manifest carries
// (the values `linkerd install` and its Helm chart take) onto o, for every
// command that reads Linkerd authorization: preview, check, diff and serve. They
// decide what pods and ports without a Server get, which networks the cluster-*
// modes mean, and which identity a ServiceAccount has.
func linkerdFlags(f *pflag.FlagSet, o *linkerdauthz.Options) {
	f.StringVar(&o.DefaultPolicy, "linkerd-default-policy", linkerdauthz.DefaultMode,
		"Linkerd's cluster default inbound policy (the proxy.defaultInboundPolicy value), for pods and ports no Server covers")
	f.StringSliceVar(&o.ClusterNetworks, "linkerd-cluster-networks", strings.Split(linkerdauthz.DefaultClusterNetworks, ","),
		"Linkerd's clusterNetworks value: the CIDRs the cluster-authenticated and cluster-unauthenticated policies admit")
	f.StringVar(&o.TrustDomain, "linkerd-trust-domain", linkerdauthz.DefaultTrustDomain,
		"Linkerd's identityTrustDomain: a ServiceAccount's mesh identity is <name>.<namespace>.serviceaccount.identity.linkerd.<this>")
}

// checkLinkerd is Options.Check as a usage error.
func checkLinkerd(o linkerdauthz.Options) error {
	if err := o.Check(); err != nil {
		return usageErr("%v", err)
	}
	return nil
}
