package api

// MeshTLSSpec is a MeshTLS: the TLS mode, versions and ciphers of a proxy's inbounds
// (`from` or `rules`).
type MeshTLSSpec = Policy[MeshTLSConf]

// MeshTLSConf is the conf of MeshTLS's items, after Kuma's meshtls v1alpha1 Conf.
type MeshTLSConf struct {
	TLSVersion *TLSVersion `json:"tlsVersion,omitempty"`
	TLSCiphers *[]string   `json:"tlsCiphers,omitempty"`
	Mode       *string     `json:"mode,omitempty"`
}

// TLSVersion bounds the TLS versions: TLSAuto, TLS10, TLS11, TLS12 or TLS13.
type TLSVersion struct {
	Min *string `json:"min,omitempty"`
	Max *string `json:"max,omitempty"`
}
