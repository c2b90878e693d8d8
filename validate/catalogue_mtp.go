package validate

// MeshTrafficPermission codes of issue 15 (Kuma 2.14 parity). MG120-MG123, the older
// MeshTrafficPermission codes, are declared with the others in catalogue.go.
const (
	// CodeMTPFromDeprecated is Kuma 2.14's deprecation of MeshTrafficPermission `from`
	// (a code of its own, so that a pipeline can silence it apart from MG116 while it
	// migrates to `rules`).
	CodeMTPFromDeprecated = "MG190"
	// CodeMTPEmptyMatcher is a `rules` matcher with neither spiffeID nor sni, which
	// Kuma accepts and programs as nothing.
	CodeMTPEmptyMatcher = "MG191"
)
