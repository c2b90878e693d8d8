package schema

import "github.com/meshguard/meshguard/api"

// GatewayAPIRelease names the embedded CRD set of a Gateway API version ("v1.5.1" →
// "gateway-api-v1.5.1"): the HTTPRoute, GRPCRoute, TCPRoute and TLSRoute CRDs of
// that bundle's experimental channel, which meshguard checks the routes parented to
// Linkerd objects against.
func GatewayAPIRelease(version string) string { return "gateway-api-" + version }

// GatewayAPIVersions lists the Gateway API versions whose route CRDs are embedded,
// sorted, for flag help and errors.
func GatewayAPIVersions() []string { return versionsOf("gateway-api-") }

// KnowsGatewayAPI reports whether the route CRDs of Gateway API version are embedded.
func KnowsGatewayAPI(version string) bool { return isEmbedded(GatewayAPIRelease(version)) }

// GatewayAPIFor is the Gateway API version a cluster running Linkerd release
// linkerdVersion has unless --gateway-api-version says otherwise (api.GatewayAPIFor).
func GatewayAPIFor(linkerdVersion string) string { return api.GatewayAPIFor(linkerdVersion) }

// gatewayAPIOf is the Gateway API version settings s select.
func gatewayAPIOf(s api.Settings) string { return s.GatewayAPI() }
