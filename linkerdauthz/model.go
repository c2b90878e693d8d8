// Package linkerdauthz is Linkerd's authorization engine: it previews inbound authorization: for every Server in a set of
// policy.linkerd.io objects, which clients may connect and which object grants each;
// and for pods and ports no Server covers, what the default inbound policy allows.
//
// It is pure (objects in, previews out, no API calls, no controller-runtime) so the
// CLI can run it over files and the webhook over its informer cache alike. The
// semantics follow Linkerd's policy controller: a Server denies unless a
// ServerAuthorization or AuthorizationPolicy admits the client (authorizations are a
// union, to which a v1beta3 Server's accessPolicy adds its own clients), and ports
// without a Server get the default inbound policy from the pod (template), the
// namespace or the cluster, in that order.
package linkerdauthz

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/meshguard/meshguard/validate"
)

// Client kinds: who a grant admits. An "identity" may be a glob (*.ns.serviceaccount…).
const (
	ClientIdentity           = "identity"
	ClientServiceAccount     = "serviceAccount"
	ClientNamespace          = "namespace"
	ClientAuthenticated      = "authenticated"
	ClientUnauthenticatedTLS = "unauthenticatedTLS"
	ClientUnauthenticated    = "unauthenticated"
	ClientNone               = "none"
)

// DefaultMode is Linkerd's cluster default inbound policy (proxy.defaultInboundPolicy)
// when the installation does not set one.
const DefaultMode = "all-unauthenticated"

// DefaultClusterNetworks is Linkerd's default clusterNetworks value: what the
// cluster-* modes call "the cluster" unless the installation says otherwise.
const DefaultClusterNetworks = "10.0.0.0/8,100.64.0.0/10,172.16.0.0/12,192.168.0.0/16,fd00::/8"

// AnnotationDefaultPolicy sets the default inbound policy of a namespace or workload.
const AnnotationDefaultPolicy = "config.linkerd.io/default-inbound-policy"

// Options are the cluster-level facts a manifest set does not carry.
type Options struct {
	// DefaultPolicy is the cluster default inbound policy; empty means DefaultMode.
	DefaultPolicy string
	// ClusterNetworks are the CIDRs of the cluster-* modes; empty means
	// DefaultClusterNetworks.
	ClusterNetworks []string
	// TrustDomain is the mesh's identity trust domain (identityTrustDomain of the
	// installation); empty means DefaultTrustDomain. A service account's mesh
	// identity ends in it, so comparing a ServiceAccount grant with an identity
	// grant needs it.
	TrustDomain string
}

// Check reports options Linkerd would not accept: a default policy that is not
// an inbound policy mode, a cluster network that is not a CIDR, a trust domain
// that is not a DNS name. Messages name the flags every command binds them to.
func (o Options) Check() error {
	if o.DefaultPolicy != "" && !slices.Contains(validate.InboundPolicies, o.DefaultPolicy) {
		return fmt.Errorf("--linkerd-default-policy (Linkerd's proxy.defaultInboundPolicy) must be one of %s (got %q)", strings.Join(validate.InboundPolicies, ", "), o.DefaultPolicy)
	}
	for _, n := range o.ClusterNetworks {
		if _, err := netip.ParsePrefix(strings.TrimSpace(n)); err != nil {
			return fmt.Errorf("--linkerd-cluster-networks (Linkerd's clusterNetworks): %q is not a CIDR (like 10.0.0.0/8)", n)
		}
	}
	if o.TrustDomain != "" {
		if errs := validation.IsDNS1123Subdomain(o.TrustDomain); len(errs) > 0 {
			return fmt.Errorf("--linkerd-trust-domain (Linkerd's identityTrustDomain) %q is not a DNS name: %s", o.TrustDomain, strings.Join(errs, "; "))
		}
	}
	return nil
}

// identitySuffix is the mesh identity of a service account past its name and
// namespace: ".serviceaccount.identity.linkerd.<trust domain>".
func (o Options) identitySuffix() string {
	td := o.TrustDomain
	if td == "" {
		td = DefaultTrustDomain
	}
	return ".serviceaccount.identity.linkerd." + td
}

// Client is one kind of client a grant admits, from some networks.
type Client struct {
	// Kind is one of the Client* constants.
	Kind string `json:"kind"`
	// Name is the identity, "namespace/serviceaccount" or namespace, per Kind.
	Name string `json:"name,omitempty"`
	// Networks are the source CIDRs, each possibly "minus" exceptions.
	Networks []string `json:"networks"`
	// Via is the object that grants it, with its authentication refs.
	Via string `json:"via"`
	// Route is set when the grant covers one route of the Server only.
	Route string `json:"route,omitempty"`
}

// Preview is what one Server (or one default-policy scope) lets in.
type Preview struct {
	// Default marks a default-policy view (pods or ports no Server covers).
	Default bool `json:"-"`
	// Namespace and Name identify the Server; for a default view Name is the
	// workload ("Deployment/web") or empty for a whole namespace or the cluster.
	Namespace string `json:"namespace"`
	Name      string `json:"name,omitempty"`
	// Port is the Server's port, or for a default view the uncovered ports.
	Port string `json:"port"`
	// Pods says in words which pods (or external workloads) are meant.
	Pods string `json:"pods"`
	// Policy is how access is decided: "authorizations", "accessPolicy: deny", a mode.
	Policy string `json:"policy"`
	// Clients are the grants, in a stable order.
	Clients []Client `json:"clients"`
	// Notes are caveats: the kubelet probe exception, refs not in the set.
	Notes []string `json:"notes,omitempty"`
}

// Ref is "namespace/name" of the preview, as tables and warnings show it.
func (p Preview) Ref() string {
	switch {
	case p.Namespace == "" && p.Name == "":
		return "(cluster)"
	case p.Name == "":
		return p.Namespace
	}
	return p.Namespace + "/" + p.Name
}
