package validate

import (
	"github.com/meshguard/meshguard/defaults"
	"github.com/meshguard/meshguard/rules"
)

// Stable rule codes. They are part of the product contract (CI pipelines filter on
// them), so a code is never reused for a different rule. Each is documented, with
// its severity and examples, in the one catalogue: rules/catalogue.yaml.
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

// Severities of findings, as the rules catalogue spells them.
const (
	SeverityError   = rules.SeverityError
	SeverityWarning = rules.SeverityWarning
)
