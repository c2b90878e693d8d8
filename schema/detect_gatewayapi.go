package schema

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// The annotations every CRD of a Gateway API bundle carries: its release
// ("v1.2.1") and channel ("standard" or "experimental"). They say which bundle a
// cluster installed, where Kuma's and Linkerd's CRDs have to be fingerprinted.
const (
	GatewayAPIBundleAnnotation  = "gateway.networking.k8s.io/bundle-version"
	GatewayAPIChannelAnnotation = "gateway.networking.k8s.io/channel"
)

// GatewayAPICRDNames are the CRDs Gateway API detection reads from a cluster: the
// route CRDs any embedded bundle has, sorted. They are read off the embedded
// files' names (crdFileParts: <group>_<plural>), not parsed: detection runs
// at every start of serve and audit, and the route CRDs are large.
func GatewayAPICRDNames() ([]string, error) {
	seen := map[string]bool{}
	for _, v := range GatewayAPIVersions() {
		paths, err := releaseFiles(GatewayAPIRelease(v))
		if err != nil {
			return nil, err
		}
		for _, p := range paths {
			group, plural, ok := crdFileParts(p)
			if !ok {
				return nil, fmt.Errorf("%s: not named <group>_<plural>.json", p)
			}
			seen[plural+"."+group] = true
		}
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out, nil
}

// GatewayAPICRD is what detection reads of one installed Gateway API CRD.
type GatewayAPICRD struct {
	Name, Bundle, Channel string
}

// GatewayAPIDetected is what a cluster says about the Gateway API bundle it
// serves: the route CRDs installed with their bundle-version and channel
// annotations. The doors with a cluster at hand build it with package live, as
// they build Detected for the meshes.
type GatewayAPIDetected struct {
	CRDs []GatewayAPICRD
	// Unreadable says why the CRDs could not be read ("" when they were).
	Unreadable string
}

// distinct lists the distinct non-empty values of one annotation, sorted.
func (g GatewayAPIDetected) distinct(of func(GatewayAPICRD) string) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range g.CRDs {
		if v := of(c); v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}

func bundleOf(c GatewayAPICRD) string  { return c.Bundle }
func channelOf(c GatewayAPICRD) string { return c.Channel }

// Bundle is the bundle-version the installed route CRDs agree on, "" when none
// carries one or they differ.
func (g GatewayAPIDetected) Bundle() string {
	if b := g.distinct(bundleOf); len(b) == 1 {
		return b[0]
	}
	return ""
}

// Channel is the channel the installed route CRDs agree on ("" as for Bundle).
func (g GatewayAPIDetected) Channel() string {
	if c := g.distinct(channelOf); len(c) == 1 {
		return c[0]
	}
	return ""
}

// Version is the embedded bundle that checks routes as the cluster does: the
// bundle installed, or the embedded patch release of its minor (v1.4.0 → v1.4.1,
// as the version-2.19 default is taken), "" when nothing fits.
func (g GatewayAPIDetected) Version() string {
	b := g.Bundle()
	if b == "" {
		return ""
	}
	if KnowsGatewayAPI(b) {
		return b
	}
	minor := b
	if i := strings.LastIndex(b, "."); i > 0 {
		minor = b[:i+1]
	}
	best := ""
	for _, v := range GatewayAPIVersions() {
		if strings.HasPrefix(v, minor) {
			best = v // sorted: the last is the newest patch
		}
	}
	return best
}

// Decide is the --gateway-api-version to check against: flag when explicit (the
// command line or .meshguard.yaml set it), else the detected bundle, else flag
// ("" leaves the default of the Linkerd release). Warnings say where the cluster
// and the choice disagree, or where the cluster serves what meshguard does not
// check against (another bundle, mixed bundles, the standard channel).
func (g GatewayAPIDetected) Decide(flag string, explicit bool) (version string, warnings []string) {
	det := g.Version()
	version = flag
	if !explicit && det != "" {
		version = det
	}
	if explicit && det != "" && det != flag {
		warnings = append(warnings, fmt.Sprintf("--gateway-api-version %s was given, but the cluster serves Gateway API %s (%s): checking against %s as told",
			flag, g.Bundle(), g.evidence(), flag))
	}
	if b := g.Bundle(); b != "" && det == "" {
		warnings = append(warnings, fmt.Sprintf("the cluster serves Gateway API %s, a bundle meshguard does not embed (%s): checking against %s",
			b, strings.Join(GatewayAPIVersions(), ", "), orDefault(version)))
	}
	if bs := g.distinct(bundleOf); len(bs) > 1 {
		warnings = append(warnings, fmt.Sprintf("the cluster's Gateway API route CRDs come from different bundles (%s): checking against %s",
			strings.Join(bs, ", "), orDefault(version)))
	}
	if slices.Contains(g.distinct(channelOf), "standard") {
		warnings = append(warnings, "the cluster serves Gateway API's standard channel; meshguard checks routes against the experimental channel's CRDs, "+
			"so an experimental field the API server prunes is not reported, and TCPRoute and TLSRoute may not be served")
	}
	return version, warnings
}

func orDefault(v string) string {
	if v == "" {
		return "the Linkerd release's default"
	}
	return v
}

// evidence says what the detected bundle rests on.
func (g GatewayAPIDetected) evidence() string {
	s := fmt.Sprintf("%d route CRDs annotated %s", len(g.CRDs), GatewayAPIBundleAnnotation)
	if c := g.Channel(); c != "" {
		s += ", " + c + " channel"
	}
	return s
}

// Found says what the cluster showed: the route CRDs installed, their bundle and
// channel, or why they could not be read.
func (g GatewayAPIDetected) Found() string {
	var b strings.Builder
	b.WriteString("gateway-api: CRDs: ")
	bundles := g.distinct(bundleOf)
	switch {
	case g.Unreadable != "":
		fmt.Fprintf(&b, "not read (%s)", g.Unreadable)
	case len(g.CRDs) == 0:
		b.WriteString("no route CRDs installed")
	case len(bundles) == 0:
		fmt.Fprintf(&b, "%d route CRDs installed, without the %s annotation", len(g.CRDs), GatewayAPIBundleAnnotation)
	case len(bundles) > 1:
		fmt.Fprintf(&b, "%d route CRDs installed, of bundles %s", len(g.CRDs), strings.Join(bundles, ", "))
	default:
		fmt.Fprintf(&b, "%d route CRDs installed, bundle %s", len(g.CRDs), bundles[0])
		if c := g.Channel(); c != "" {
			fmt.Fprintf(&b, ", %s channel", c)
		}
		if v := g.Version(); v != "" && v != bundles[0] {
			fmt.Fprintf(&b, " (checked with the embedded %s of that minor)", v)
		}
	}
	return b.String()
}

// Summary is the line a door prints: what was found and the bundle it checks
// against (used, "" for the Linkerd release's default, which is dflt), and
// whether that was detected, given, or the default.
func (g GatewayAPIDetected) Summary(used, dflt string, explicit bool) string {
	how := "the default of the Linkerd release"
	switch {
	case explicit:
		how = "as given"
	case used != "" && g.Version() == used:
		how = "detected"
	}
	if used == "" {
		used = dflt
	}
	return fmt.Sprintf("%s; checking against Gateway API %s (%s)", g.Found(), used, how)
}
