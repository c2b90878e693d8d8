package kumaauthz

import (
	"fmt"
	"slices"

	"github.com/meshguard/meshguard/api"
)

// A MeshIdentity splits a group of proxies: those it gives an identity are
// programmed from `rules` policies only (see identity.go). DiffPolicies compares
// each part of a group on its own: the proxies a MeshIdentity of either set
// selects among the group's (a variant with the labels it asks for), and the
// others.

// identityVariant is a part of a group: the proxies with Labels (none: the
// group's proxies that no partly-covering MeshIdentity selects), and the
// identity each set gives them (nil: none, or one not Ready).
type identityVariant struct {
	labels   map[string]string
	old, new *Identity
}

func (v identityVariant) oldOn() bool { return v.old != nil }
func (v identityVariant) newOn() bool { return v.new != nil }

// coverage is how a MeshIdentity relates to a group's proxies.
type coverage int

const (
	coverNone coverage = iota
	coverSome
	coverAll
)

// knownLabel is a Dataplane label every proxy of group t has, with its value:
// the group's selector entries, its mesh, namespace and zone, and extra.
func knownLabel(t Target, extra map[string]string, k string) (string, bool) {
	if v, ok := extra[k]; ok {
		return v, true
	}
	switch k {
	case api.LabelMesh:
		return t.Mesh, true
	case api.LabelNamespace:
		if t.Namespace != "" {
			return t.Namespace, true
		}
	case api.ZoneTag:
		if t.Zone != "" {
			return t.Zone, true
		}
	}
	if !selectsProxies(t.Kind) {
		return "", false
	}
	return selectorGet(t, k)
}

// cover says whether id selects all, some or none of group t's proxies that
// also have the labels extra; unknown are the labels it asks for that the group
// does not fix.
func cover(id Identity, t Target, extra map[string]string) (c coverage, unknown map[string]string) {
	if id.Mesh != t.Mesh || !id.Selects || t.Route() {
		return coverNone, nil
	}
	for k, v := range id.MatchLabels {
		w, ok := knownLabel(t, extra, k)
		switch {
		case !ok:
			if unknown == nil {
				unknown = map[string]string{}
			}
			unknown[k] = v
		case w != v:
			return coverNone, nil
		}
	}
	if len(unknown) > 0 {
		return coverSome, unknown
	}
	return coverAll, nil
}

// inForce is the identity a set gives the proxies of t with labels extra: the
// best of its MeshIdentities that select all of them, if it is Ready.
func inForce(ids []Identity, t Target, extra map[string]string) *Identity {
	var best *Identity
	for i := range ids {
		if c, _ := cover(ids[i], t, extra); c != coverAll {
			continue
		}
		if best == nil || betterIdentity(ids[i], *best) < 0 {
			best = &ids[i]
		}
	}
	if best == nil || !best.Ready() {
		return nil
	}
	return best
}

// identityVariants are the parts of group t to compare: the group as a whole
// (its proxies no partly-covering MeshIdentity selects) and, for each
// MeshIdentity of either set that selects only some of its proxies, those
// proxies, when their identities differ from the whole's.
func identityVariants(t Target, oldIDs, newIDs []Identity) []identityVariant {
	base := identityVariant{old: inForce(oldIDs, t, nil), new: inForce(newIDs, t, nil)}
	out := []identityVariant{base}
	seen := map[string]bool{}
	for _, ids := range [][]Identity{oldIDs, newIDs} {
		for _, id := range ids {
			c, unknown := cover(id, t, nil)
			if c != coverSome || seen[tagString(unknown)] {
				continue
			}
			seen[tagString(unknown)] = true
			v := identityVariant{labels: unknown, old: inForce(oldIDs, t, unknown), new: inForce(newIDs, t, unknown)}
			if v.oldOn() != base.oldOn() || v.newOn() != base.newOn() {
				out = append(out, v)
			}
		}
	}
	slices.SortStableFunc(out[1:], func(a, b identityVariant) int {
		if tagString(a.labels) < tagString(b.labels) {
			return -1
		}
		return 1
	})
	return out
}

// describe fills the GroupDiff fields that say which part of the group it is
// and what the MeshIdentities do to it; parts says whether the group has more
// than one.
func (v identityVariant) describe(gd *GroupDiff, parts bool) {
	if v.old != nil {
		gd.OldIdentity = v.old.Ref()
	}
	if v.new != nil {
		gd.NewIdentity = v.new.Ref()
	}
	switch {
	case len(v.labels) > 0:
		gd.Scope += ", those with labels " + tagString(v.labels)
	case parts:
		gd.Scope += ", those no other MeshIdentity selects"
	}
	kind := api.KindMeshIdentity
	switch {
	case v.old == nil && v.new != nil:
		gd.Identity = fmt.Sprintf("%s %s selects them in the new set only: only `rules` policies are programmed there, `from` policies are not", kind, gd.NewIdentity)
	case v.old != nil && v.new == nil:
		gd.Identity = fmt.Sprintf("%s %s selected them in the old set only: `from` policies are programmed again", kind, gd.OldIdentity)
	case v.old != nil:
		gd.Identity = fmt.Sprintf("%s %s selects them in both sets: only `rules` policies are programmed", kind, gd.NewIdentity)
	}
}

// identitySide is the merged list of the side's policies idx for proxies with a
// Ready identity: the SPIFFE matchers of its `rules` policies, possibly none
// (then every client is denied).
func (s *diffSide) identitySide(idx []int) *listSide {
	out := &listSide{matcher: true}
	for _, i := range idx {
		out.entries = append(out.entries, s.entries[i]...)
	}
	return out
}
