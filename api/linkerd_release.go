package api

import (
	"slices"
	"strings"
)

// Linkerd releases whose admission rules differ, by the tag they were taken from:
// the names --linkerd-version accepts, and the releases a release-aware rule names
// in LinkerdBefore.
const (
	LinkerdV218 = "version-2.18"
	LinkerdV219 = "version-2.19"
	LinkerdV220 = "version-2.20"
	LinkerdEdge = "edge-26.8.3"
)

// LinkerdReleases lists the Linkerd releases meshguard has admission profiles for,
// oldest first: the feature releases enterprise users run and the newest edge
// release, which follows version-2.20.
func LinkerdReleases() []string { return []string{LinkerdV218, LinkerdV219, LinkerdV220, LinkerdEdge} }

// LinkerdBefore reports whether Linkerd release version ("version-2.18") is older
// than release ("version-2.19"): the test every release-aware Linkerd rule makes,
// as KumaBefore is for Kuma. An empty version is the default release, the newest;
// a version meshguard has no profile for counts as newer than every one it has
// (schema.CheckSettings refuses it at start-up anyway).
func LinkerdBefore(version, release string) bool {
	if version == "" {
		version = DefaultLinkerdVersion
	}
	rank := func(v string) int {
		if i := slices.Index(LinkerdReleases(), v); i >= 0 {
			return i
		}
		return len(LinkerdReleases())
	}
	return rank(version) < rank(release)
}

// LinkerdVersionName turns the short form of a feature release ("2.18") into its
// tag ("version-2.18"), so that --linkerd-version 2.18 works as users say it; any
// other value is returned unchanged.
func LinkerdVersionName(v string) string {
	if strings.HasPrefix(v, "2.") {
		return "version-" + v
	}
	return v
}

// GatewayAPIFor is the Gateway API version a cluster running Linkerd release
// linkerdVersion has unless --gateway-api-version says otherwise: what the release
// installs or tells users to install. version-2.18's linkerd-crds chart installs the
// v1.1.1 routes it bundles (installGatewayAPI defaults to true); from version-2.19 on
// users install Gateway API themselves, and the version each release's `linkerd
// install` names is the default: v1.4.0 for version-2.19 (embedded as its patch
// release v1.4.1), v1.2.1 for version-2.20 (also the one its integration tests
// install), v1.5.1 for edge-26.8.3 (linkerd/linkerd2#15567).
func GatewayAPIFor(linkerdVersion string) string {
	switch linkerdVersion {
	case LinkerdV218:
		return "v1.1.1"
	case LinkerdV219:
		return "v1.4.1"
	case LinkerdV220:
		return "v1.2.1"
	}
	return "v1.5.1"
}

// GatewayAPI is the Gateway API version s selects: GatewayAPIVersion, else the one
// its Linkerd release bundles or documents.
func (s Settings) GatewayAPI() string {
	if s.GatewayAPIVersion != "" {
		return s.GatewayAPIVersion
	}
	lv := s.LinkerdVersion
	if lv == "" {
		lv = DefaultLinkerdVersion
	}
	return GatewayAPIFor(lv)
}
