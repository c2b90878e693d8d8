package serving

import "crypto/tls"

// TLSOptions are TLS 1.2 at least with AEAD suites only (AEADCipherSuites) and,
// unless asked for, HTTP/1.1 only.
func TLSOptions(enableHTTP2 bool) []func(*tls.Config) {
	tlsOpts := []func(*tls.Config){func(c *tls.Config) {
		c.MinVersion = tls.VersionTLS12
		c.CipherSuites = AEADCipherSuites()
	}}
	if !enableHTTP2 {
		// HTTP/2 stays off unless asked for (CVE-2023-44487, rapid reset).
		tlsOpts = append(tlsOpts, func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} })
	}
	return tlsOpts
}

// AEADCipherSuites are the TLS 1.2 suites the webhook server accepts: ECDHE key
// exchange (forward secrecy) with an AEAD cipher. Go's defaults still include the
// CBC-SHA suites (ECDHE-*-AES128-SHA, -AES256-SHA), which are open to padding-oracle
// and Lucky13-style attacks; the API server's client (Go) prefers AEAD suites, so
// dropping CBC refuses only old or hostile clients. TLS 1.3 suites are not
// configurable in Go and are all AEAD.
func AEADCipherSuites() []uint16 {
	return []uint16{
		tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
		tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
		tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
		tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
		tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
		tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
	}
}
