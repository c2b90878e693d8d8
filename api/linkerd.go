package api

// Typed specs of Linkerd's policy.linkerd.io resources. Field names and JSON keys
// follow Linkerd's CRDs (charts/linkerd-crds/templates/policy) and the Rust types of
// its policy controller exactly, so api.Check reports what the API server would prune
// (MG001) or reject (MG002). Versions that lack a field get their own type: a
// v1beta1 Server has no accessPolicy, and its CRD prunes one.

// LabelSelector is a Kubernetes label selector as Linkerd's CRDs spell it. meshguard
// does not reuse metav1.LabelSelector here so the structural check stays in this
// package's hands (metav1 types carry protobuf tags and omit nothing useful).
type LabelSelector struct {
	MatchLabels      map[string]string          `json:"matchLabels,omitempty"`
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty"`
}

// LabelSelectorRequirement is one matchExpressions item.
type LabelSelectorRequirement struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values,omitempty"`
}

// ServerSpec is policy.linkerd.io/v1beta3 Server, the storage version: a port on the
// pods (or external workloads) a selector picks. Port is a number or a port name
// (x-kubernetes-int-or-string), so it stays free-form and the rules check its type.
type ServerSpec struct {
	PodSelector              *LabelSelector `json:"podSelector,omitempty"`
	ExternalWorkloadSelector *LabelSelector `json:"externalWorkloadSelector,omitempty"`
	Port                     Free           `json:"port,omitempty"`
	ProxyProtocol            string         `json:"proxyProtocol,omitempty"`
	AccessPolicy             string         `json:"accessPolicy,omitempty"`
}

// ServerV1Beta2Spec is policy.linkerd.io/v1beta2 Server: no accessPolicy yet.
type ServerV1Beta2Spec struct {
	PodSelector              *LabelSelector `json:"podSelector,omitempty"`
	ExternalWorkloadSelector *LabelSelector `json:"externalWorkloadSelector,omitempty"`
	Port                     Free           `json:"port,omitempty"`
	ProxyProtocol            string         `json:"proxyProtocol,omitempty"`
}

// ServerV1Beta1Spec is policy.linkerd.io/v1alpha1 and v1beta1 Server: pods only.
type ServerV1Beta1Spec struct {
	PodSelector   *LabelSelector `json:"podSelector,omitempty"`
	Port          Free           `json:"port,omitempty"`
	ProxyProtocol string         `json:"proxyProtocol,omitempty"`
}

// ServerAuthorizationSpec is policy.linkerd.io/v1beta1 (and v1alpha1)
// ServerAuthorization: which clients may reach the Servers it names or selects.
type ServerAuthorizationSpec struct {
	Server *ServerRef `json:"server,omitempty"`
	Client *Client    `json:"client,omitempty"`
}

// ServerRef names one Server or selects Servers by label; Linkerd wants exactly one.
type ServerRef struct {
	Name     string         `json:"name,omitempty"`
	Selector *LabelSelector `json:"selector,omitempty"`
}

// Client describes the authorized clients of a ServerAuthorization.
type Client struct {
	Networks        []Network `json:"networks,omitempty"`
	Unauthenticated bool      `json:"unauthenticated,omitempty"`
	MeshTLS         *MeshTLS  `json:"meshTLS,omitempty"`
}

// MeshTLS lists the mTLS identities a ServerAuthorization admits.
type MeshTLS struct {
	UnauthenticatedTLS bool                `json:"unauthenticatedTLS,omitempty"`
	Identities         []string            `json:"identities,omitempty"`
	ServiceAccounts    []ServiceAccountRef `json:"serviceAccounts,omitempty"`
}

// ServiceAccountRef names a ServiceAccount; no namespace means the object's own.
type ServiceAccountRef struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
}

// Network is a CIDR with optional exceptions, as Linkerd's Network type.
type Network struct {
	Cidr   string   `json:"cidr"`
	Except []string `json:"except,omitempty"`
}

// LinkerdTargetRef is Linkerd's TargetRef (LocalTargetRef / NamespacedTargetRef):
// no group means the core group.
type LinkerdTargetRef struct {
	Group     string `json:"group,omitempty"`
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
}

// LinkerdLocalRef is Linkerd's LocalTargetRef: a resource in the object's own
// namespace (or the namespace itself), so it has no namespace field.
type LinkerdLocalRef struct {
	Group string `json:"group,omitempty"`
	Kind  string `json:"kind"`
	Name  string `json:"name"`
}

// AuthorizationPolicySpec is policy.linkerd.io/v1alpha1 AuthorizationPolicy.
type AuthorizationPolicySpec struct {
	TargetRef                  *LinkerdLocalRef   `json:"targetRef,omitempty"`
	RequiredAuthenticationRefs []LinkerdTargetRef `json:"requiredAuthenticationRefs"`
}

// MeshTLSAuthenticationSpec is policy.linkerd.io/v1alpha1 MeshTLSAuthentication.
type MeshTLSAuthenticationSpec struct {
	Identities   []string           `json:"identities,omitempty"`
	IdentityRefs []LinkerdTargetRef `json:"identityRefs,omitempty"`
}

// NetworkAuthenticationSpec is policy.linkerd.io/v1alpha1 NetworkAuthentication.
type NetworkAuthenticationSpec struct {
	Networks []Network `json:"networks,omitempty"`
}
