package api

// KindEgressNetwork is Linkerd's policy.linkerd.io EgressNetwork: traffic to
// destinations outside the cluster, which routes may take as their parent.
const KindEgressNetwork = "EgressNetwork"

// EgressNetworkSpec is policy.linkerd.io/v1alpha1 EgressNetwork. Networks is a
// pointer so that an absent list (every address outside the cluster) differs from an
// empty one, which Linkerd rejects.
type EgressNetworkSpec struct {
	Networks      *[]Network `json:"networks,omitempty"`
	TrafficPolicy string     `json:"trafficPolicy,omitempty"`
}
