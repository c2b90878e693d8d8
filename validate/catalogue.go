package validate

import (
	"slices"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/defaults"
)

// Stable rule codes. They are part of the product contract (CI pipelines filter on
// them), so a code is never reused for a different rule.
const (
	CodeParse           = "MG000"
	CodeMetadata        = "MG003"
	CodeUnknownKind     = "MG004"
	CodeUnservedKind    = "MG005"
	CodeMeshName        = "MG010"
	CodeMeshChanged     = "MG011"
	CodeOwnedLabel      = "MG012"
	CodeOrigin          = "MG013"
	CodeZoneLabel       = "MG014"
	CodeGlobalNamespace = "MG015"
	// CodeLabelReplaced is found by the mutating stage (defaults), the only place
	// that sees both the user's value and the computed one.
	CodeLabelReplaced   = defaults.CodeLabelReplaced
	CodeSpecShape       = "MG020"
	CodeMixedRoles      = "MG101"
	CodeFromAndTo       = "MG102"
	CodeCrossNamespace  = "MG103"
	CodeGatewayConsumer = "MG104"
	CodeGatewayRoute    = "MG105"
	CodeTopKind         = "MG110"
	CodeToKind          = "MG111"
	CodeFromKind        = "MG112"
	CodeBackendKind     = "MG113"
	CodeRefField        = "MG114"
	CodeTag             = "MG115"
	CodeDeprecated      = "MG116"
	CodeMTPAction       = "MG120"
	CodeMTPForm         = "MG121"
	CodeSpiffe          = "MG122"
	CodeCrossMesh       = "MG123"

	// Linkerd (policy.linkerd.io) rules, issue 6.
	CodeLinkerdServerSelector    = "MG301"
	CodeLinkerdPort              = "MG302"
	CodeLinkerdProxyProtocol     = "MG303"
	CodeLinkerdAccessPolicy      = "MG304"
	CodeLinkerdSelector          = "MG305"
	CodeLinkerdServerRef         = "MG310"
	CodeLinkerdClient            = "MG311"
	CodeLinkerdUnauthTLS         = "MG312"
	CodeLinkerdNetwork           = "MG313"
	CodeLinkerdIdentity          = "MG314"
	CodeLinkerdPolicyTarget      = "MG320"
	CodeLinkerdAuthnRefs         = "MG321"
	CodeLinkerdMeshTLSAuthn      = "MG330"
	CodeLinkerdNetworksEmpty     = "MG331"
	CodeLinkerdDeprecated        = "MG340"
	CodeLinkerdInboundAnnotation = "MG341"
	CodeLinkerdServerConflict    = "MG350"
)

// CodeDuplicate is found by the linter across documents: two documents of one
// object (group, kind, namespace, name), of which a cluster keeps one.
const CodeDuplicate = "MG006"

// Severities of findings.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
)

// RuleDoc documents one code: what it means and a bad and a good example. It is the
// one catalogue type: compile's analysis rules use it too, and lint.Rules() merges
// both for `meshguard rules`, docs/rules.md and SARIF's rule table. The examples are
// executable: a test lints each and expects exactly this verdict.
type RuleDoc struct {
	Code     string
	Severity string
	Summary  string
	// Settings, when not empty, is the `meshguard lint` flag line the examples need.
	Flags string
	Bad   string
	Good  string
}

// Catalogue lists every code validate and the decoder produce, in code order.
func Catalogue() []RuleDoc {
	return append([]RuleDoc{
		{Code: CodeParse, Severity: SeverityError, Summary: "the document cannot be read or parsed as YAML/JSON, or a kustomization or Helm chart cannot be rendered", Bad: "kind: MeshTimeout\nspec: [unclosed\n", Good: mtGood},
		{Code: api.CodeUnknownField, Severity: SeverityError, Summary: "a field the kind's CRD does not declare: `kubectl apply` (strict field validation, the default since Kubernetes 1.27) refuses the object, so the file doors report an error; a warning with `--unknown-fields=warn` (for tools that let the API server prune it) and in the webhook, where the API server has already pruned it", Bad: mtHead + "spec:\n  targetRef:\n    kind: Mesh\n  to:\n    - targetRef:\n        kind: Mesh\n      default:\n        connectTimeout: 5s\n", Good: mtGood},
		{Code: api.CodeWrongType, Severity: SeverityError, Summary: "the kind's CRD refuses the object, as the API server would before any webhook: a wrong type, a value outside an enum, pattern or bounds, a missing required field, a CEL rule (Kuma's CRDs of --kuma-version)", Bad: mtHead + "spec:\n  to: Mesh\n", Good: mtGood},
		{Code: CodeMetadata, Severity: SeverityError, Summary: "metadata or metadata.name is missing", Bad: "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  namespace: kuma-system\nspec:\n  to:\n    - targetRef:\n        kind: Mesh\n      default:\n        idleTimeout: 1h\n", Good: mtGood},
		{Code: CodeUnknownKind, Severity: SeverityWarning, Summary: "a policy.linkerd.io kind and version that the Linkerd release's CRDs (--linkerd-version) serve but meshguard has no rules for; it is not checked (no embedded release has one today: a kind or version the CRDs do not serve is MG005)", Bad: "apiVersion: policy.linkerd.io/v1beta3\nkind: Sever\nmetadata:\n  name: web\n  namespace: web-ns\nspec: {}\n", Good: lkServer(lkServerOK)},
		{Code: CodeUnservedKind, Severity: SeverityError, Summary: "a kuma.io or policy.linkerd.io kind or version that the mesh's CRDs (--kuma-version, --linkerd-version) do not serve (a typo, or policy.linkerd.io/v1beta3 AuthorizationPolicy): the API server refuses it", Bad: "apiVersion: kuma.io/v1alpha1\nkind: MeshTimout\nmetadata:\n  name: t\n  namespace: kuma-system\nspec: {}\n", Good: mtGood},
		{Code: CodeDuplicate, Severity: SeverityError, Summary: "two documents define the same object (group, kind, namespace after defaulting, name): the cluster keeps only the last one admitted, so the other has no effect (linter, across files; cross-document checks see the copy kept)", Bad: mtGood + "---\n" + mtGood, Good: mtGood},
		{Code: CodeMeshName, Severity: SeverityError, Summary: "kuma.io/mesh is not a valid mesh name", Bad: labelled("kuma.io/mesh: Prod_Mesh!"), Good: labelled("kuma.io/mesh: prod")},
		{Code: CodeMeshChanged, Severity: SeverityError, Summary: "kuma.io/mesh changed on UPDATE (webhook only)", Bad: labelled("kuma.io/mesh: other"), Good: mtGood},
		{Code: CodeOwnedLabel, Severity: SeverityError, Summary: "a policy's k8s.kuma.io/namespace or kuma.io/policy-role differs from the computed value (webhook only, when mutation was skipped; the linter recomputes them and reports MG016). A Dataplane keeps a k8s.kuma.io/namespace it sets, as in Kuma", Bad: labelled("kuma.io/policy-role: producer"), Good: mtGood},
		{Code: CodeOrigin, Severity: SeverityError, Summary: "kuma.io/origin is unknown or belongs to the other control plane; in the webhook also: a non-privileged UPDATE removes or changes the stored object's kuma.io/origin, or a DELETE on a federated zone removes a system-namespace object that is not the zone's own", Flags: "--mode zone --zone zone-1", Bad: labelled("kuma.io/origin: global"), Good: mtGood},
		{Code: CodeZoneLabel, Severity: SeverityError, Summary: "kuma.io/zone differs from this zone; in the webhook also: a non-privileged UPDATE removes or changes the stored object's kuma.io/zone, or a DELETE on a federated zone removes another zone's object", Flags: "--mode zone --zone zone-1", Bad: labelled("kuma.io/zone: wrong-zone"), Good: labelled("kuma.io/zone: zone-1")},
		{Code: CodeGlobalNamespace, Severity: SeverityError, Summary: "on a global control plane policies and resources live only in the system namespace", Flags: "--mode global", Bad: consumerTimeout, Good: mtGood},
		{Code: CodeLabelReplaced, Severity: SeverityWarning, Summary: "the mutating stage replaced a label the object set with the value meshguard computes: a policy's kuma.io/policy-role (Kuma replaces it too), a policy's k8s.kuma.io/namespace (Kuma keeps a value set; meshguard owns it on policies, since Kuma's policy matching reads it), an empty kuma.io/mesh", Bad: labelled("kuma.io/policy-role: producer"), Good: mtGood},
		{Code: CodeSpecShape, Severity: SeverityError, Summary: "the spec is missing or configures nothing, or a to/from/rules item lacks the default Kuma requires", Bad: mtHead + "spec:\n  targetRef:\n    kind: Mesh\n", Good: mtGood},
		{Code: CodeMixedRoles, Severity: SeverityError, Summary: "'to' mixes producer items (own namespace) and consumer items (Kuma's policy-on-namespace MADR)", Bad: mixedRoles, Good: consumerTimeout},
		{Code: CodeFromAndTo, Severity: SeverityError, Summary: "a namespace-scoped policy has both 'from' and 'to' (Kuma's policy-on-namespace MADR)", Bad: fromAndTo, Good: consumerTimeout},
		{Code: CodeCrossNamespace, Severity: SeverityError, Summary: "a route on a MeshGateway, outside the system namespace, sends traffic to another namespace (Kuma's policy-on-namespace MADR)", Bad: gatewayRoute("payments-ns", "internal-ns"), Good: gatewayRoute("kuma-system", "internal-ns")},
		{Code: CodeGatewayConsumer, Severity: SeverityError, Summary: "a consumer policy targets a MeshGateway (Kuma's policy-on-namespace MADR)", Bad: gatewayConsumer, Good: gatewayProducer},
		{Code: CodeGatewayRoute, Severity: SeverityError, Summary: "a route, or a policy that configures more than clusters, targets a MeshGateway outside the system namespace (Kuma's policy-on-namespace MADR, Kuma issues 12864/13856)", Bad: gatewayRoute("payments-ns", "payments-ns"), Good: gatewayRoute("kuma-system", "payments-ns")},
		{Code: CodeTopKind, Severity: SeverityError, Summary: "the top-level targetRef kind is not supported by this policy", Bad: "apiVersion: kuma.io/v1alpha1\nkind: MeshTrace\nmetadata:\n  name: t\n  namespace: kuma-system\nspec:\n  targetRef:\n    kind: MeshHTTPRoute\n    name: r\n  default:\n    backends: []\n", Good: "apiVersion: kuma.io/v1alpha1\nkind: MeshTrace\nmetadata:\n  name: t\n  namespace: kuma-system\nspec:\n  targetRef:\n    kind: Mesh\n  default:\n    backends: []\n"},
		{Code: CodeToKind, Severity: SeverityError, Summary: "a to[].targetRef kind is not supported by this policy", Bad: mtHead + "spec:\n  to:\n    - targetRef:\n        kind: MeshSubset\n        tags:\n          app: web\n      default:\n        idleTimeout: 1h\n", Good: mtGood},
		{Code: CodeFromKind, Severity: SeverityError, Summary: "a from[].targetRef kind is not supported by this policy", Bad: mtpHead + "spec:\n  from:\n    - targetRef:\n        kind: MeshHTTPRoute\n        name: r\n      default:\n        action: Allow\n", Good: mtpGood},
		{Code: CodeBackendKind, Severity: SeverityError, Summary: "a route backendRef kind is not supported", Bad: routeBackend(string(api.RefMesh), ""), Good: routeBackend(string(api.RefMeshService), "backend")},
		{Code: CodeRefField, Severity: SeverityError, Summary: "a targetRef field is missing, or set where its kind does not allow it", Bad: mtHead + "spec:\n  targetRef:\n    kind: Mesh\n    name: everything\n  to:\n    - targetRef:\n        kind: Mesh\n      default:\n        idleTimeout: 1h\n", Good: mtGood},
		{Code: CodeTag, Severity: SeverityError, Summary: "a tag key or value is empty or has characters Kuma does not allow", Bad: mtpHead + "spec:\n  from:\n    - targetRef:\n        kind: MeshSubset\n        tags:\n          version: \"v 1\"\n      default:\n        action: Allow\n", Good: mtpGood},
		{Code: CodeDeprecated, Severity: SeverityWarning, Summary: "a targetRef kind Kuma deprecates in this place; the message names the replacement", Bad: mtpHead + "spec:\n  targetRef:\n    kind: MeshService\n    name: backend\n  from:\n    - targetRef:\n        kind: Mesh\n      default:\n        action: Allow\n", Good: mtpGood},
		{Code: CodeMTPAction, Severity: SeverityError, Summary: "a MeshTrafficPermission 'from' item has no action, or one outside Allow, Deny, AllowWithShadowDeny", Bad: mtpHead + "spec:\n  from:\n    - targetRef:\n        kind: Mesh\n      default: {}\n", Good: mtpGood},
		{Code: CodeMTPForm, Severity: SeverityError, Summary: "a MeshTrafficPermission has both 'from' and 'rules'", Bad: mtpHead + "spec:\n  from:\n    - targetRef:\n        kind: Mesh\n      default:\n        action: Allow\n  rules:\n    - default:\n        allow:\n          - spiffeID:\n              type: Prefix\n              value: spiffe://td.mesh/\n", Good: spiffeGood},
		{Code: CodeSpiffe, Severity: SeverityError, Summary: "a MeshTrafficPermission matcher is malformed: a spiffeID that is not a SPIFFE ID, an sni that is not a lower-case DNS name, a missing or unknown type", Bad: mtpHead + "spec:\n  rules:\n    - default:\n        deny:\n          - spiffeID:\n              type: Exact\n              value: https://td.mesh/ns/default/sa/frontend\n", Good: spiffeGood},
		{Code: CodeCrossMesh, Severity: SeverityError, Summary: "a cross-mesh 'from' (targetRef.mesh) without a MeshGatewayRoute target (Kuma's MeshTrafficPermission MADR; Kuma 2.14's CRD accepts no such target, so remove mesh)", Bad: mtpHead + "spec:\n  targetRef:\n    kind: Mesh\n  from:\n    - targetRef:\n        kind: MeshSubset\n        mesh: consume\n        tags:\n          kuma.io/service: backend\n      default:\n        action: Allow\n", Good: mtpHead + "spec:\n  targetRef:\n    kind: Mesh\n  from:\n    - targetRef:\n        kind: MeshSubset\n        tags:\n          kuma.io/service: backend\n      default:\n        action: Allow\n"},
	}, slices.Concat(resourcesCatalogue(), gatewaysCatalogue(), linkerdCatalogue(), resilienceCatalogue(), observabilityCatalogue(), sharedCatalogue(), mtpCatalogue(), shapingCatalogue(), suppressCatalogue(), kuma214Catalogue())...)
}
