package webhook

import (
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/compile"
)

// Bounds of the preview cache; past them it forgets what the current list does not
// hold.
const (
	maxParsedSlack   = 256
	maxStoredResults = 64
)

// previewCache makes the preview's cost depend on the incoming policy and the few
// stored ones that share its proxies, not on every MeshTrafficPermission of the
// cluster, while returning exactly what compiling everything would:
//
//   - stored objects are read (compile.PolicyFromObject) once per uid and
//     resourceVersion, which change with every write of an object;
//   - whether the stored policies alone compile (every group BuildPreviews forms from
//     them) is remembered per set of uids and resourceVersions. When they do, the
//     groups that do not contain the incoming policy compile as well (they are the
//     same groups, with the same members), so only the policies that share a group
//     with the incoming one need compiling; the groups containing it come out
//     identical. Whenever anything fails, the whole set is compiled as before, so
//     errors read the same.
//
// Objects without uid or resourceVersion (not from an API server) are not cached.
type previewCache struct {
	opts   compile.Options
	sysNS  string
	mu     sync.Mutex
	parsed map[parsedKey]parsedPolicy
	stored map[setVersion]bool
}

// parsedKey identifies a stored object's content: its uid and resourceVersion.
type parsedKey struct{ uid, rv string }

// parsedPolicy is a stored object read once: its policy and the policy's target.
type parsedPolicy struct {
	policy compile.Policy
	target compile.Target
	ok     bool
}

func newPreviewCache(opts compile.Options) *previewCache {
	sysNS := opts.SystemNamespace
	if sysNS == "" {
		sysNS = api.DefaultSystemNS // what compile defaults to
	}
	return &previewCache{opts: opts, sysNS: sysNS, parsed: map[parsedKey]parsedPolicy{}, stored: map[setVersion]bool{}}
}

// setVersion identifies a set of stored policies; see storedSetVersion.
type setVersion [sha256.Size]byte

// storedSetVersion is the version of the stored-policy set a preview of
// namespace/name merges with: a hash of the sorted uid/resourceVersion pairs of
// every stored object but that one. A resourceVersion changes with every write of an
// object and a uid with every re-creation, so creating, updating or deleting any
// other stored MeshTrafficPermission gives a new version; the list order (which an
// informer cache does not keep) does not matter, as policies are grouped and sorted
// by name. ok=false when some object has no uid or resourceVersion (not from an API
// server): such a set has no version and nothing computed from it is cached.
func storedSetVersion(stored []unstructured.Unstructured, namespace, name string) (v setVersion, ok bool) {
	type pair struct{ uid, rv string }
	pairs := make([]pair, 0, len(stored))
	for i := range stored {
		// Read like GetNamespace, GetName, GetUID and GetResourceVersion, without
		// their allocations.
		meta, _ := stored[i].Object["metadata"].(map[string]any)
		if metaString(meta, "namespace") == namespace && metaString(meta, "name") == name {
			continue
		}
		p := pair{metaString(meta, "uid"), metaString(meta, "resourceVersion")}
		if p.uid == "" || p.rv == "" {
			return setVersion{}, false
		}
		pairs = append(pairs, p)
	}
	slices.SortFunc(pairs, func(a, b pair) int {
		if c := strings.Compare(a.uid, b.uid); c != 0 {
			return c
		}
		return strings.Compare(a.rv, b.rv)
	})
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	for _, p := range pairs {
		for _, s := range []string{p.uid, p.rv} {
			h.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))])
			h.Write([]byte(s))
		}
	}
	h.Sum(v[:0])
	return v, true
}

// metaString is metadata[field] when it is a string, "" otherwise.
func metaString(meta map[string]any, field string) string {
	s, _ := meta[field].(string)
	return s
}

// policies reads the stored objects other than namespace/name, in list order,
// skipping those that do not compile, and returns them after first:
// out[0] is first, out[1:] the stored policies and targets[i] is
// compile.TargetOf(out[i+1]).
func (c *previewCache) policies(first compile.Policy, stored []unstructured.Unstructured, namespace, name string) (out []compile.Policy, targets []compile.Target) {
	keys := make([]parsedKey, 0, len(stored))
	out = make([]compile.Policy, 1, len(stored)+1)
	out[0] = first
	targets = make([]compile.Target, 0, len(stored))
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range stored {
		u := &stored[i]
		// Read like GetNamespace, GetName, GetUID and GetResourceVersion, without
		// their allocations.
		meta, _ := u.Object["metadata"].(map[string]any)
		if metaString(meta, "namespace") == namespace && metaString(meta, "name") == name {
			continue
		}
		uid, rv := metaString(meta, "uid"), metaString(meta, "resourceVersion")
		if uid == "" || rv == "" {
			if p, err := compile.PolicyFromObject(u); err == nil {
				out = append(out, p)
				targets = append(targets, compile.TargetOf(p, c.sysNS))
			}
			continue
		}
		key := parsedKey{uid, rv}
		keys = append(keys, key)
		pp, hit := c.parsed[key]
		if !hit {
			p, err := compile.PolicyFromObject(u)
			pp = parsedPolicy{policy: p, ok: err == nil}
			if pp.ok {
				pp.target = compile.TargetOf(p, c.sysNS)
			}
			c.parsed[key] = pp
		}
		if pp.ok {
			out = append(out, pp.policy)
			targets = append(targets, pp.target)
		}
	}
	if len(c.parsed) > len(stored)+maxParsedSlack {
		keep := make(map[parsedKey]parsedPolicy, len(keys))
		for _, k := range keys {
			keep[k] = c.parsed[k]
		}
		c.parsed = keep
	}
	return out, targets
}

// build compiles the previews of policies (the incoming one first, then the stored
// ones of the set with the given version, see storedSetVersion, whose targets are
// storedTargets); the groups that contain the incoming policy are the same as those
// of compile.BuildPreviews(policies, opts), and so is any error.
func (c *previewCache) build(policies []compile.Policy, storedTargets []compile.Target, version setVersion, versioned bool) ([]compile.Preview, error) {
	if !versioned || !c.storedCompile(policies[1:], version) {
		return compile.BuildPreviews(policies, c.opts)
	}
	previews, err := compile.BuildPreviews(c.related(policies, storedTargets), c.opts)
	if err != nil {
		return compile.BuildPreviews(policies, c.opts)
	}
	return previews, nil
}

// storedCompile reports whether every group of the stored policies compiles;
// fingerprint is their set's version.
func (c *previewCache) storedCompile(stored []compile.Policy, fingerprint setVersion) bool {
	c.mu.Lock()
	ok, hit := c.stored[fingerprint]
	c.mu.Unlock()
	if hit {
		return ok
	}
	_, err := compile.BuildPreviews(stored, c.opts)
	ok = err == nil
	c.mu.Lock()
	if len(c.stored) >= maxStoredResults {
		clear(c.stored)
	}
	c.stored[fingerprint] = ok
	c.mu.Unlock()
	return ok
}

// related returns policies[0] and the policies that are members of a group it is
// a member of. Groups are formed per distinct target and hold every policy that
// applies to it; since a target applies to itself, each group containing
// policies[0] is formed again, with the same members, from the result.
// storedTargets are the targets of policies[1:].
func (c *previewCache) related(policies []compile.Policy, storedTargets []compile.Target) []compile.Policy {
	first := compile.TargetOf(policies[0], c.sysNS)
	var mine []compile.Target
	if compile.Applies(first, first) {
		mine = append(mine, first)
	}
	for _, t := range storedTargets {
		if compile.Applies(first, t) {
			mine = append(mine, t)
		}
	}
	out := []compile.Policy{policies[0]}
	for i := 1; i < len(policies); i++ {
		for _, t := range mine {
			if compile.Applies(storedTargets[i-1], t) {
				out = append(out, policies[i])
				break
			}
		}
	}
	return out
}
