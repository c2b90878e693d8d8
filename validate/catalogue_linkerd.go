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

func inboundNS(mode string) string {
	return "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: web-ns\n  annotations:\n    config.linkerd.io/default-inbound-policy: " + mode + "\n"
}
