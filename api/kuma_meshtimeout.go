package api

// MeshTimeoutSpec is a MeshTimeout: connection and request timeouts of outbounds
// (`to`) and inbounds (`from`, `rules`).
type MeshTimeoutSpec = Policy[MeshTimeoutConf]

// MeshTimeoutConf is the conf of MeshTimeout's to/from/rules items, after Kuma's
// meshtimeout v1alpha1 Conf. Durations are the CRD's strings ("5s"); Kuma decodes
// them with Go's time.ParseDuration, so a string it cannot parse is refused, which
// the validator reports. Pointers keep "absent" apart from "0s".
type MeshTimeoutConf struct {
	ConnectionTimeout *string          `json:"connectionTimeout,omitempty"`
	IdleTimeout       *string          `json:"idleTimeout,omitempty"`
	HTTP              *MeshTimeoutHTTP `json:"http,omitempty"`
}

// MeshTimeoutHTTP are MeshTimeout's HTTP timeouts.
type MeshTimeoutHTTP struct {
	RequestTimeout        *string `json:"requestTimeout,omitempty"`
	StreamIdleTimeout     *string `json:"streamIdleTimeout,omitempty"`
	MaxStreamDuration     *string `json:"maxStreamDuration,omitempty"`
	MaxConnectionDuration *string `json:"maxConnectionDuration,omitempty"`
	RequestHeadersTimeout *string `json:"requestHeadersTimeout,omitempty"`
}
