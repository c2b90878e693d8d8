package api

// WorkloadSpec is the spec of a Workload: empty in Kuma 2.14 (a Workload is a name
// that proxies' identities refer to). Kuma's validator only bounds the name.
type WorkloadSpec struct{}

// KindWorkload is the kind's name, for code outside api that must spell it.
const KindWorkload = "Workload"
