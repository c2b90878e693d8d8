package validate

import "github.com/meshguard/meshguard/api"

// Example Linkerd objects for the rule catalogue; TestCatalogueExamples lints each.

func lkObj(version, kind, spec string) string {
	return "apiVersion: " + api.LinkerdGroup + "/" + version + "\nkind: " + kind + "\nmetadata:\n  name: web\n  namespace: web-ns\nspec:\n" + spec
}

// lkNamed is a v1beta3 Server with its own name, for examples with several Servers.
func lkNamed(name, spec string) string {
	return "apiVersion: policy.linkerd.io/v1beta3\nkind: Server\nmetadata:\n  name: " + name + "\n  namespace: web-ns\nspec:\n" + spec
}

func lkServer(spec string) string { return lkObj("v1beta3", api.KindServer, spec) }
func lkSAZ(spec string) string    { return lkObj("v1beta1", api.KindServerAuthorization, spec) }
func lkAP(spec string) string     { return lkObj("v1alpha1", api.KindAuthorizationPolicy, spec) }
func lkMTLS(spec string) string   { return lkObj("v1alpha1", api.KindMeshTLSAuthentication, spec) }
func lkNet(spec string) string    { return lkObj("v1alpha1", api.KindNetworkAuthentication, spec) }

const (
	lkPods      = "  podSelector:\n    matchLabels:\n      app: web\n"
	lkServerOK  = lkPods + "  port: http\n  proxyProtocol: HTTP/1\n"
	lkSAZServer = "  server:\n    name: web-http\n"
	lkSAZOK     = lkSAZServer + "  client:\n    meshTLS:\n      serviceAccounts:\n        - name: frontend\n"
	lkAPTarget  = "  targetRef:\n    group: policy.linkerd.io\n    kind: Server\n    name: web-http\n"
	lkMTLSRef   = "    - group: policy.linkerd.io\n      kind: MeshTLSAuthentication\n      name: frontend\n"
	lkAPOK      = lkAPTarget + "  requiredAuthenticationRefs:\n" + lkMTLSRef
	lkNetOK     = "  networks:\n    - cidr: 10.0.0.0/8\n      except:\n        - 10.0.9.0/24\n"
)

func linkerdCatalogue() []RuleDoc {
	return append(linkerdAuthzCatalogue(), linkerdRouteCatalogue()...)
}

// linkerdAuthzCatalogue documents the codes of issue 6's authorization kinds.
func linkerdAuthzCatalogue() []RuleDoc {
	return []RuleDoc{
		{Code: CodeLinkerdServerSelector, Severity: SeverityError, Summary: "a Server sets both or neither of podSelector and externalWorkloadSelector",
			Bad: lkServer(lkPods + "  externalWorkloadSelector:\n    matchLabels:\n      app: web\n  port: 8080\n"), Good: lkServer(lkServerOK)},
		{Code: CodeLinkerdPort, Severity: SeverityError, Summary: "a Server port is missing, outside 1-65535 or not a valid port name",
			Bad: lkServer(lkPods + "  port: 70000\n"), Good: lkServer(lkPods + "  port: 8080\n")},
		{Code: CodeLinkerdProxyProtocol, Severity: SeverityError, Summary: "a Server proxyProtocol is not one of unknown, opaque, TLS, HTTP/1, HTTP/2, gRPC",
			Bad: lkServer(lkPods + "  port: http\n  proxyProtocol: HTTP\n"), Good: lkServer(lkServerOK)},
		{Code: CodeLinkerdAccessPolicy, Severity: SeverityError, Summary: "a Server accessPolicy is not a default inbound policy (all-authenticated, deny, audit, …)",
			Bad: lkServer(lkServerOK + "  accessPolicy: allow\n"), Good: lkServer(lkServerOK + "  accessPolicy: deny\n")},
		{Code: CodeLinkerdSelector, Severity: SeverityError, Summary: "a label selector is invalid (operator, values, label syntax)",
			Bad:  lkServer("  podSelector:\n    matchExpressions:\n      - key: app\n        operator: Exists\n        values: [web]\n  port: http\n"),
			Good: lkServer("  podSelector:\n    matchExpressions:\n      - key: app\n        operator: In\n        values: [web]\n  port: http\n")},
		{Code: CodeLinkerdServerRef, Severity: SeverityError, Summary: "a ServerAuthorization names its server by both or neither of name and selector",
			Bad: lkSAZ("  server:\n    name: web-http\n    selector:\n      matchLabels:\n        app: web\n  client:\n    unauthenticated: true\n"), Good: lkSAZ(lkSAZServer + "  client:\n    unauthenticated: true\n")},
		{Code: CodeLinkerdClient, Severity: SeverityError, Summary: "a ServerAuthorization client is missing, admits no one, or sets unauthenticated with meshTLS",
			Bad: lkSAZ(lkSAZServer + "  client:\n    unauthenticated: true\n    meshTLS:\n      identities: [\"*\"]\n"), Good: lkSAZ(lkSAZOK)},
		{Code: CodeLinkerdUnauthTLS, Severity: SeverityError, Summary: "meshTLS.unauthenticatedTLS is set together with identities or serviceAccounts",
			Bad: lkSAZ(lkSAZServer + "  client:\n    meshTLS:\n      unauthenticatedTLS: true\n      identities: [\"*\"]\n"), Good: lkSAZ(lkSAZServer + "  client:\n    meshTLS:\n      unauthenticatedTLS: true\n")},
		{Code: CodeLinkerdNetwork, Severity: SeverityError, Summary: "a network cidr or except is not a CIDR, or an except lies outside its cidr or covers it whole",
			Bad: lkNet("  networks:\n    - cidr: 10.0.0.0/16\n      except:\n        - 10.1.0.0/24\n"), Good: lkNet(lkNetOK)},
		{Code: CodeLinkerdIdentity, Severity: SeverityError, Summary: "a client identity is neither a SPIFFE ID nor a DNS-like name (with an optional leading * glob)",
			Bad: lkMTLS("  identities:\n    - \"web.*.serviceaccount.identity.linkerd.cluster.local\"\n"), Good: lkMTLS("  identities:\n    - \"*.web-ns.serviceaccount.identity.linkerd.cluster.local\"\n")},
		{Code: CodeLinkerdPolicyTarget, Severity: SeverityError, Summary: "an AuthorizationPolicy targets something other than a Server, HTTPRoute, GRPCRoute or its own Namespace",
			Bad: lkAP("  targetRef:\n    kind: Namespace\n    name: other-ns\n  requiredAuthenticationRefs:\n" + lkMTLSRef), Good: lkAP("  targetRef:\n    kind: Namespace\n    name: web-ns\n  requiredAuthenticationRefs:\n" + lkMTLSRef)},
		{Code: CodeLinkerdAuthnRefs, Severity: SeverityError, Summary: "requiredAuthenticationRefs has an unsupported kind, two of one kind, or a MeshTLSAuthentication with a ServiceAccount",
			Bad: lkAP(lkAPTarget + "  requiredAuthenticationRefs:\n" + lkMTLSRef + "    - kind: ServiceAccount\n      name: frontend\n"), Good: lkAP(lkAPOK)},
		{Code: CodeLinkerdMeshTLSAuthn, Severity: SeverityError, Summary: "a MeshTLSAuthentication sets both or neither of identities and identityRefs, or an identityRef is malformed",
			Bad: lkMTLS("  identityRefs:\n    - kind: Namespace\n      name: frontend-ns\n      namespace: frontend-ns\n"), Good: lkMTLS("  identityRefs:\n    - kind: Namespace\n      name: frontend-ns\n")},
		{Code: CodeLinkerdNetworksEmpty, Severity: SeverityError, Summary: "a NetworkAuthentication lists no network",
			Bad: lkNet("  networks: []\n"), Good: lkNet(lkNetOK)},
		{Code: CodeLinkerdDeprecated, Severity: SeverityWarning, Summary: "a deprecated policy.linkerd.io version; the message names the replacement",
			Bad: lkObj("v1beta1", api.KindServer, lkServerOK), Good: lkServer(lkServerOK)},
		{Code: CodeLinkerdInboundAnnotation, Severity: SeverityError, Summary: "config.linkerd.io/default-inbound-policy on a Namespace or workload is not a known mode",
			Bad: inboundNS("allow-all"), Good: inboundNS("cluster-authenticated")},
		{Code: CodeLinkerdServerConflict, Severity: SeverityWarning, Summary: "two Servers in one namespace can select the same pod on the same port (linter across files; webhook from its cache, --linkerd-server-conflicts)",
			Bad:  lkNamed("web-http", lkPods+"  port: 8080\n") + "---\n" + lkNamed("web-all", "  podSelector: {}\n  port: 8080\n"),
			Good: lkNamed("web-http", lkPods+"  port: 8080\n") + "---\n" + lkNamed("web-admin", lkPods+"  port: 9990\n")},
	}
}

// Examples of the kinds issue 16 added.
const (
	lkEgressOK  = "  trafficPolicy: Allow\n  networks:\n    - cidr: 0.0.0.0/0\n      except:\n        - 10.0.0.0/8\n"
	lkEgressRef = "  parentRefs:\n    - group: policy.linkerd.io\n      kind: EgressNetwork\n      name: internet\n"
	lkRLTarget  = "  targetRef:\n    group: policy.linkerd.io\n    kind: Server\n    name: web-http\n"
	lkSvcParent = "  parentRefs:\n    - kind: Service\n      group: core\n      name: web\n      port: 8080\n"
	lkSrvParent = "  parentRefs:\n    - group: policy.linkerd.io\n      kind: Server\n      name: web-http\n"
)

// lkObjNamed is a v1alpha1 policy.linkerd.io object with its own name.
func lkObjNamed(name, kind, spec string) string {
	return "apiVersion: " + api.LinkerdGroup + "/v1alpha1\nkind: " + kind + "\nmetadata:\n  name: " + name + "\n  namespace: web-ns\nspec:\n" + spec
}

func lkEgress(spec string) string { return lkObj("v1alpha1", api.KindEgressNetwork, spec) }
func lkRL(spec string) string     { return lkObj("v1alpha1", api.KindHTTPLocalRateLimitPolicy, spec) }
func lkRoute(spec string) string  { return lkObj("v1beta3", api.KindHTTPRoute, spec) }

// gwObj is a Gateway API route of kind in version.
func gwObj(version, kind, spec string) string {
	return "apiVersion: " + api.GatewayGroup + "/" + version + "\nkind: " + kind + "\nmetadata:\n  name: web\n  namespace: web-ns\nspec:\n" + spec
}

// gwRoute is a Gateway API HTTPRoute with its metadata annotations (may be empty).
func gwRoute(annotations, spec string) string {
	return "apiVersion: " + api.GatewayGroup + "/v1\nkind: HTTPRoute\nmetadata:\n  name: web\n  namespace: web-ns\n" + annotations + "spec:\n" + spec
}

// linkerdRouteCatalogue documents the codes of issue 16's kinds.
func linkerdRouteCatalogue() []RuleDoc {
	return []RuleDoc{
		{Code: CodeLinkerdEgressNetwork, Severity: SeverityError, Summary: "an EgressNetwork sets networks to an empty list (drop it to mean every address outside the cluster)",
			Bad: lkEgress("  trafficPolicy: Allow\n  networks: []\n"), Good: lkEgress(lkEgressOK)},
		{Code: CodeLinkerdRateLimit, Severity: SeverityError, Summary: "an HTTPLocalRateLimitPolicy targets something other than a Server, sets a zero limit, an identity or override limit above the total, or an override client that is not a ServiceAccount",
			Bad:  lkRL(lkRLTarget + "  total:\n    requestsPerSecond: 100\n  identity:\n    requestsPerSecond: 200\n"),
			Good: lkRL(lkRLTarget + "  total:\n    requestsPerSecond: 100\n  identity:\n    requestsPerSecond: 20\n")},
		{Code: CodeLinkerdRouteParent, Severity: SeverityError, Summary: "a route parented to an EgressNetwork names no port",
			Bad: lkRoute(lkEgressRef), Good: lkRoute(lkEgressRef + "      port: 443\n")},
		{Code: CodeLinkerdRouteMatch, Severity: SeverityError, Summary: "a route match Linkerd cannot read: a relative path, a regular expression that does not compile, an invalid header name or value, a gRPC method matched by regular expression",
			Bad:  lkRoute(lkSrvParent + "  rules:\n    - matches:\n        - path:\n            type: PathPrefix\n            value: api\n"),
			Good: lkRoute(lkSrvParent + "  rules:\n    - matches:\n        - path:\n            type: PathPrefix\n            value: /api\n")},
		{Code: CodeLinkerdRouteFilter, Severity: SeverityError, Summary: "a route filter Linkerd cannot apply: a redirect to a relative path, an invalid header name or value",
			Bad:  lkRoute(lkSrvParent + "  rules:\n    - filters:\n        - type: RequestRedirect\n          requestRedirect:\n            path:\n              type: ReplaceFullPath\n              replaceFullPath: login\n"),
			Good: lkRoute(lkSrvParent + "  rules:\n    - filters:\n        - type: RequestRedirect\n          requestRedirect:\n            path:\n              type: ReplaceFullPath\n              replaceFullPath: /login\n")},
		{Code: CodeLinkerdRouteBackend, Severity: SeverityError, Summary: "a Gateway API HTTPRoute or GRPCRoute parented to Linkerd sends to a Service backend without a port",
			Bad:  gwRoute("", lkSvcParent+"  rules:\n    - backendRefs:\n        - group: core\n          kind: Service\n          name: web-v2\n"),
			Good: gwRoute("", lkSvcParent+"  rules:\n    - backendRefs:\n        - name: web-v2\n          port: 8080\n")},
		{Code: CodeLinkerdRouteTimeouts, Severity: SeverityError, Summary: "a policy.linkerd.io HTTPRoute rule timeout is negative, or its backendRequest timeout exceeds its request timeout",
			Bad:  lkRoute(lkSrvParent + "  rules:\n    - timeouts:\n        request: 5s\n        backendRequest: 10s\n"),
			Good: lkRoute(lkSrvParent + "  rules:\n    - timeouts:\n        request: 10s\n        backendRequest: 5s\n")},
		{Code: CodeLinkerdRouteRules, Severity: SeverityError, Summary: "a TCPRoute or TLSRoute parented to Linkerd has more than one rule (Linkerd supports exactly one)",
			Bad:  gwObj("v1alpha2", api.KindTCPRoute, lkSvcParent+"  rules:\n    - backendRefs:\n        - name: web-v1\n          port: 8080\n    - backendRefs:\n        - name: web-v2\n          port: 8080\n"),
			Good: gwObj("v1alpha2", api.KindTCPRoute, lkSvcParent+"  rules:\n    - backendRefs:\n        - name: web-v1\n          port: 8080\n        - name: web-v2\n          port: 8080\n")},
		{Code: CodeLinkerdRouteAnnotation, Severity: SeverityError, Summary: "a retry.linkerd.io or timeout.linkerd.io annotation on a route parented to a Service or an EgressNetwork does not parse (Linkerd's durations: a whole number and ms, s, m, h or d)",
			Bad:  gwRoute("  annotations:\n    timeout.linkerd.io/request: 1.5s\n", lkSvcParent+"  rules:\n    - backendRefs:\n        - name: web\n          port: 8080\n"),
			Good: gwRoute("  annotations:\n    timeout.linkerd.io/request: 1500ms\n", lkSvcParent+"  rules:\n    - backendRefs:\n        - name: web\n          port: 8080\n")},
		{Code: CodeLinkerdMissingEgressNet, Severity: SeverityWarning, Summary: "a route is parented to an EgressNetwork that is not in the linted files (linter across files): Linkerd leaves it unattached until the EgressNetwork exists. Judged only in a namespace where the linted files hold some EgressNetwork, or everywhere, as an error, with --strict-references",
			Flags: "--strict-references",
			Bad:   lkRoute(lkEgressRef + "      port: 443\n"),
			Good:  lkObjNamed("internet", api.KindEgressNetwork, lkEgressOK) + "---\n" + lkRoute(lkEgressRef+"      port: 443\n")},
		{Code: CodeLinkerdRateLimitConflict, Severity: SeverityWarning, Summary: "two HTTPLocalRateLimitPolicies target the same Server (linter across files): Linkerd applies only one",
			Bad:  lkObjNamed("web-rl", api.KindHTTPLocalRateLimitPolicy, lkRLTarget+"  total:\n    requestsPerSecond: 100\n") + "---\n" + lkObjNamed("web-rl-burst", api.KindHTTPLocalRateLimitPolicy, lkRLTarget+"  total:\n    requestsPerSecond: 500\n"),
			Good: lkObjNamed("web-rl", api.KindHTTPLocalRateLimitPolicy, lkRLTarget+"  total:\n    requestsPerSecond: 100\n")},
	}
}

func inboundNS(mode string) string {
	return "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: web-ns\n  annotations:\n    config.linkerd.io/default-inbound-policy: " + mode + "\n"
}

// Codes of the Linkerd kinds issue 16 added (EgressNetwork, HTTPLocalRateLimitPolicy,
// HTTPRoute and the Gateway API routes Linkerd validates).
const (
	CodeLinkerdEgressNetwork     = "MG360"
	CodeLinkerdRateLimit         = "MG361"
	CodeLinkerdRouteParent       = "MG362"
	CodeLinkerdRouteMatch        = "MG363"
	CodeLinkerdRouteFilter       = "MG364"
	CodeLinkerdRouteBackend      = "MG365"
	CodeLinkerdRouteTimeouts     = "MG366"
	CodeLinkerdRouteRules        = "MG367"
	CodeLinkerdRouteAnnotation   = "MG368"
	CodeLinkerdMissingEgressNet  = "MG369"
	CodeLinkerdRateLimitConflict = "MG370"
)
