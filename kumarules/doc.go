// Package kumarules is Kuma's policy matching and merging, as Kuma 2.14's control
// plane computes it (pkg/plugins/policies/core/rules in kumahq/kuma v2.14.3), as a
// pure library: no controller-runtime, no command. `meshguard inspect`, the
// cross-policy findings and the per-kind diff are built on it, so that meshguard
// answers "which conf does this proxy get, and from which policies" the way Kuma does.
//
// It reads policies as unstructured objects (the form the Kubernetes path and
// api.FromUniversal produce) and keeps every conf as JSON-shaped maps: the merge
// is RFC 7396 on those maps plus the list semantics Kuma's typed structs carry
// (append lists, MeshHTTPRoute's rules merged by matches and grouped by hostname).
package kumarules
