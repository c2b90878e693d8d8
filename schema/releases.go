package schema

// Releases lists the names of the embedded CRD sets ("kuma-2.14",
// "linkerd-edge-26.8.3"), sorted, so `meshguard version` can say what a binary
// checks against.
func Releases() []string { return releaseNames() }
