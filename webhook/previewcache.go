package webhook

import (
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/compile"
)

// maxParsedSlack bounds the preview cache: past it, it forgets the parsed objects
// the current list does not hold.
const maxParsedSlack = 256

// previewCache makes the preview's cost depend on the incoming policy and the few
// stored ones that share its proxies, not on every MeshTrafficPermission of the
// cluster:
//
//   - stored objects are read (compile.PolicyFromObject) once per uid and
//     resourceVersion, which change with every write of an object;
//   - only the groups that contain the incoming policy are compiled: groups are
//     formed per distinct target and hold every policy that applies to it, so
//     compiling the incoming policy with the stored ones that share a group with it
//     forms those groups again, with the same members, and they come out as they
//     would from compiling everything. A stored group the incoming policy is not in
//     is not this request's business: its errors, if any, do not fail the answer,
//     and it costs nothing, however many policies the cluster stores.
//
// Objects without uid or resourceVersion (not from an API server) are not cached.
type previewCache struct {
	opts   compile.Options
	sysNS  string
	mu     sync.Mutex
	parsed map[parsedKey]parsedPolicy
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
	return &previewCache{opts: opts, sysNS: sysNS, parsed: map[parsedKey]parsedPolicy{}}
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
// ones, whose targets are storedTargets) that contain the incoming policy.
func (c *previewCache) build(policies []compile.Policy, storedTargets []compile.Target) ([]compile.Preview, error) {
	return compile.BuildPreviews(c.related(policies, storedTargets), c.opts)
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
