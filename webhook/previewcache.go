package webhook

import (
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumaauthz"
)

// maxParsedPerGeneration bounds the stored policies previewCache keeps read: it
// keeps the ones read since its current generation began, up to this many, and
// those of the generation before.
const maxParsedPerGeneration = 2048

// previewCache makes the preview's cost depend on the incoming policy and the few
// stored ones that share its proxies, not on every MeshTrafficPermission of the
// cluster:
//
//   - the stored policies are found through the informer's index of their targets
//     (PolicyIndex, kumaauthz.Related): only candidates that can share a group with
//     the incoming policy are read, however many policies the cluster stores;
//   - stored objects are read (kumaauthz.PolicyFromObject) once per uid and
//     resourceVersion, which change with every write of an object;
//   - only the groups that contain the incoming policy are compiled: groups are
//     formed per distinct target and hold every policy that applies to it, so
//     compiling the incoming policy with the stored ones that share a group with it
//     forms those groups again, with the same members, and they come out as they
//     would from compiling everything. A stored group the incoming policy is not in
//     is not this request's business: its errors, if any, do not fail the answer.
//
// Objects without uid or resourceVersion (not from an API server) are not cached.
type previewCache struct {
	opts  kumaauthz.Options
	sysNS string
	mu    sync.Mutex
	// parsed holds the policies read in this generation, previous those of the one
	// before; a hit there moves to parsed. A new generation begins when parsed is
	// full, so what was read recently stays and the rest is forgotten.
	parsed, previous map[parsedKey]parsedPolicy
}

// parsedKey identifies a stored object's content: its uid and resourceVersion.
type parsedKey struct{ uid, rv string }

// parsedPolicy is a stored object read once: its policy and the policy's target.
type parsedPolicy struct {
	stored kumaauthz.Stored
	ok     bool
}

func newPreviewCache(opts kumaauthz.Options) *previewCache {
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

// read returns the policies of the stored objects an index lookup found, with
// their targets, skipping those that do not compile.
func (c *previewCache) read(items []unstructured.Unstructured) []kumaauthz.Stored {
	out := make([]kumaauthz.Stored, 0, len(items))
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range items {
		u := &items[i]
		// Read like GetUID and GetResourceVersion, without their allocations.
		meta, _ := u.Object["metadata"].(map[string]any)
		uid, rv := metaString(meta, "uid"), metaString(meta, "resourceVersion")
		if uid == "" || rv == "" {
			if pp := c.parse(u); pp.ok {
				out = append(out, pp.stored)
			}
			continue
		}
		key := parsedKey{uid, rv}
		pp, hit := c.parsed[key]
		if !hit {
			if pp, hit = c.previous[key]; !hit {
				pp = c.parse(u)
			}
			c.remember(key, pp)
		}
		if pp.ok {
			out = append(out, pp.stored)
		}
	}
	return out
}

// parse reads one stored object.
func (c *previewCache) parse(u *unstructured.Unstructured) parsedPolicy {
	p, err := kumaauthz.PolicyFromObject(u)
	if err != nil {
		return parsedPolicy{}
	}
	return parsedPolicy{stored: kumaauthz.Stored{Policy: p, Target: kumaauthz.TargetOf(p, c.sysNS)}, ok: true}
}

// remember keeps pp in the current generation, beginning a new one when it is full.
func (c *previewCache) remember(key parsedKey, pp parsedPolicy) {
	if len(c.parsed) >= maxParsedPerGeneration {
		c.previous, c.parsed = c.parsed, make(map[parsedKey]parsedPolicy, len(c.parsed))
	}
	c.parsed[key] = pp
}
