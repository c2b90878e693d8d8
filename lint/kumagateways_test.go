package lint

import (
	"regexp"
	"strings"
)

// rewriteProtoPath is the resource suite README's rewrite for the kinds whose spec is
// one of Kuma's proto messages (MeshGateway, MeshGatewayRoute, Dataplane) and for
// MeshGatewayInstance: Kuma's Kubernetes webhooks give their validators' paths
// relative to spec (the caller prepends it), and
// some of their validators name a field by its proto name (query_parameters) or hang
// a path match's value on the match rather than on its path.
func rewriteProtoPath(kind, p string) string {
	if kind == "Dataplane" {
		// Kuma hangs a builtin gateway's probes under networking and misspells
		// transparentProxying in the reachable backends' paths.
		p = strings.Replace(p, "spec.networking.probes", "spec.probes", 1)
		return strings.Replace(p, ".transparentProxing.", ".transparentProxying.", 1)
	}
	if kind != "MeshGatewayRoute" {
		return p
	}
	for proto, json := range map[string]string{
		"query_parameters": "queryParameters", "request_header": "requestHeader",
		"status_code": "statusCode",
	} {
		p = strings.ReplaceAll(p, "."+proto, "."+json)
	}
	return regexp.MustCompile(`(\.matches\[\d+\])\.value$`).ReplaceAllString(p, "$1.path.value")
}
