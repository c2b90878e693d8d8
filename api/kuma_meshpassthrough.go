package api

// MeshPassthroughSpec is a MeshPassthrough: which traffic to destinations outside the
// mesh passes through the proxy (a single `default`).
type MeshPassthroughSpec = Policy[MeshPassthroughConf]

// MeshPassthroughConf is the conf of MeshPassthrough, after Kuma's meshpassthrough
// v1alpha1 Conf.
type MeshPassthroughConf struct {
	PassthroughMode *string             `json:"passthroughMode,omitempty"`
	AppendMatch     *[]PassthroughMatch `json:"appendMatch,omitempty"`
}

// PassthroughMatch is one destination let through: a Domain, IP or CIDR, an
// optional port and a protocol. Port is int64 so that an out-of-range port reaches
// the rule that reports it.
type PassthroughMatch struct {
	Type     string `json:"type,omitempty"`
	Value    string `json:"value,omitempty"`
	Port     *int64 `json:"port,omitempty"`
	Protocol string `json:"protocol,omitempty"`
}
