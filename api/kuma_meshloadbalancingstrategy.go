package api

import "k8s.io/apimachinery/pkg/util/intstr"

// MeshLoadBalancingStrategySpec is a MeshLoadBalancingStrategy: the load balancer,
// hash policies and locality awareness of outbound traffic (`to` only).
type MeshLoadBalancingStrategySpec = Policy[MeshLoadBalancingStrategyConf]

// MeshLoadBalancingStrategyConf is the conf of the `to` items, after Kuma's
// meshloadbalancingstrategy v1alpha1 Conf.
type MeshLoadBalancingStrategyConf struct {
	LocalityAwareness *LocalityAwareness `json:"localityAwareness,omitempty"`
	LoadBalancer      *LoadBalancer      `json:"loadBalancer,omitempty"`
	HashPolicies      *[]HashPolicy      `json:"hashPolicies,omitempty"`
}

// LocalityAwareness prefers endpoints in the local zone (LocalZone) and says where
// traffic fails over to (CrossZone).
type LocalityAwareness struct {
	Disabled  *bool      `json:"disabled,omitempty"`
	LocalZone *LocalZone `json:"localZone,omitempty"`
	CrossZone *CrossZone `json:"crossZone,omitempty"`
}

// LocalZone lists the tags whose equality with the client makes an endpoint local.
type LocalZone struct {
	AffinityTags *[]AffinityTag `json:"affinityTags,omitempty"`
}

// AffinityTag is one affinity tag; Weight is int64 so that a zero or negative
// weight reaches the rule that reports it.
type AffinityTag struct {
	Key    string `json:"key,omitempty"`
	Weight *int64 `json:"weight,omitempty"`
}

// CrossZone is the ordered failover list and the threshold that triggers it.
type CrossZone struct {
	Failover          *[]Failover        `json:"failover,omitempty"`
	FailoverThreshold *FailoverThreshold `json:"failoverThreshold,omitempty"`
}

// Failover says where traffic from the From zones may go (To).
type Failover struct {
	From *FailoverFrom `json:"from,omitempty"`
	To   FailoverTo    `json:"to"`
}

// FailoverFrom are the zones a failover rule applies to.
type FailoverFrom struct {
	Zones []string `json:"zones"`
}

// FailoverTo is the target of a failover rule: None, Only, Any or AnyExcept zones.
type FailoverTo struct {
	Type  string    `json:"type,omitempty"`
	Zones *[]string `json:"zones,omitempty"`
}

// FailoverThreshold is the share of healthy local endpoints below which traffic
// fails over.
type FailoverThreshold struct {
	Percentage *intstr.IntOrString `json:"percentage,omitempty"`
}

// LoadBalancer is the load balancing algorithm (Type) and its parameters.
type LoadBalancer struct {
	Type         string        `json:"type,omitempty"`
	RoundRobin   *Free         `json:"roundRobin,omitempty"`
	LeastRequest *LeastRequest `json:"leastRequest,omitempty"`
	RingHash     *RingHash     `json:"ringHash,omitempty"`
	Random       *Free         `json:"random,omitempty"`
	Maglev       *Maglev       `json:"maglev,omitempty"`
}

// LeastRequest are the parameters of the LeastRequest balancer.
type LeastRequest struct {
	ChoiceCount       *int64              `json:"choiceCount,omitempty"`
	ActiveRequestBias *intstr.IntOrString `json:"activeRequestBias,omitempty"`
}

// RingHash are the parameters of the RingHash balancer.
type RingHash struct {
	HashFunction *string       `json:"hashFunction,omitempty"`
	MinRingSize  *int64        `json:"minRingSize,omitempty"`
	MaxRingSize  *int64        `json:"maxRingSize,omitempty"`
	HashPolicies *[]HashPolicy `json:"hashPolicies,omitempty"`
}

// Maglev are the parameters of the Maglev balancer.
type Maglev struct {
	TableSize    *int64        `json:"tableSize,omitempty"`
	HashPolicies *[]HashPolicy `json:"hashPolicies,omitempty"`
}

// HashPolicy is one input of a hashing balancer; the section named by Type must be
// set (Connection also for SourceIP).
type HashPolicy struct {
	Type           string          `json:"type,omitempty"`
	Terminal       *bool           `json:"terminal,omitempty"`
	Header         *HashName       `json:"header,omitempty"`
	Cookie         *HashCookie     `json:"cookie,omitempty"`
	Connection     *HashConnection `json:"connection,omitempty"`
	QueryParameter *HashName       `json:"queryParameter,omitempty"`
	FilterState    *HashFilter     `json:"filterState,omitempty"`
}

// HashName names a header or query parameter to hash.
type HashName struct {
	Name string `json:"name,omitempty"`
}

// HashCookie is a cookie to hash; Path must be absolute when set.
type HashCookie struct {
	Name string  `json:"name,omitempty"`
	TTL  *string `json:"ttl,omitempty"`
	Path *string `json:"path,omitempty"`
}

// HashConnection hashes the connection's source IP.
type HashConnection struct {
	SourceIP *bool `json:"sourceIP,omitempty"`
}

// HashFilter names a filter state key to hash.
type HashFilter struct {
	Key string `json:"key,omitempty"`
}
