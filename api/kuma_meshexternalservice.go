package api

// MeshExternalServiceSpec is the spec of a MeshExternalService: how the mesh matches
// traffic to a destination outside it (match), where that destination is (endpoints)
// and how to speak TLS to it. With an extension, endpoints and tls are the
// extension's to check.
type MeshExternalServiceSpec struct {
	Match     MESMatch       `json:"match"`
	Extension *KumaExtension `json:"extension,omitempty"`
	Endpoints *[]MESEndpoint `json:"endpoints,omitempty"`
	TLS       *MESTLS        `json:"tls,omitempty"`
}

// MESMatch is what traffic the MeshExternalService catches; the CRD defaults type to
// HostnameGenerator and protocol to tcp.
type MESMatch struct {
	Type     string `json:"type,omitempty"`
	Port     int32  `json:"port"`
	Protocol string `json:"protocol,omitempty"`
}

// MESEndpoint is one address of the destination.
type MESEndpoint struct {
	Address  string `json:"address"`
	Port     int32  `json:"port"`
	Priority *int32 `json:"priority,omitempty"`
}

// MESTLS is how the proxy originates TLS to the destination.
type MESTLS struct {
	Enabled            bool             `json:"enabled,omitempty"`
	Version            *KumaTLSVersion  `json:"version,omitempty"`
	AllowRenegotiation bool             `json:"allowRenegotiation,omitempty"`
	Verification       *MESVerification `json:"verification,omitempty"`
}

// KumaTLSVersion bounds the TLS versions (TLSAuto, TLS10 ... TLS13).
type KumaTLSVersion struct {
	Min *string `json:"min,omitempty"`
	Max *string `json:"max,omitempty"`
}

// MESVerification is how the destination's certificate is checked, and the client
// certificate the proxy presents (cert and key come together).
type MESVerification struct {
	Mode            string          `json:"mode,omitempty"`
	ServerName      *string         `json:"serverName,omitempty"`
	SubjectAltNames *[]MESSANMatch  `json:"subjectAltNames,omitempty"`
	CaCert          *KumaDataSource `json:"caCert,omitempty"`
	ClientCert      *KumaDataSource `json:"clientCert,omitempty"`
	ClientKey       *KumaDataSource `json:"clientKey,omitempty"`
}

// MESSANMatch is one subject alternative name the certificate must have.
type MESSANMatch struct {
	Type  string `json:"type,omitempty"`
	Value string `json:"value"`
}

// KumaDataSource is where Kuma reads bytes from: a secret, a file or inline data.
type KumaDataSource struct {
	Secret       *string `json:"secret,omitempty"`
	File         *string `json:"file,omitempty"`
	Inline       *string `json:"inline,omitempty"`
	InlineString *string `json:"inlineString,omitempty"`
}

// MESMatchHostnameGenerator is the one match type Kuma 2.14 knows: the service's
// hostnames come from HostnameGenerators.
const MESMatchHostnameGenerator = KindHostnameGenerator
