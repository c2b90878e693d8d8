package validate

// Codes of Kuma 2.14 behaviours meshguard reports since issue 26.
const (
	// CodeFromDeprecated is Kuma 2.14's deprecation warning for `from` on the
	// kinds other than MeshTrafficPermission (MG190) that deprecate it.
	CodeFromDeprecated = "MG192"
	// CodeSpiffePrefix is a SPIFFE Prefix matcher, which Kuma matches as a plain
	// string prefix: it admits identities that continue its last segment.
	CodeSpiffePrefix = "MG193"
)

// Codes of what Kuma policies do across the proxies of their mesh (issue 29 part
// 6), judged by the engine's kumaEffects check over the objects of a lint run, an
// audit or the webhook's caches.
const (
	CodeKumaFromIgnored = "MG450"
	CodeKumaOverridden  = "MG451"
	CodeKumaSelectsNone = "MG452"
	CodeKumaToUnreached = "MG453"
)
