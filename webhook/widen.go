package webhook

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/internal/warnline"
	"github.com/meshguard/meshguard/kumaauthz"
	"github.com/meshguard/meshguard/linkerdauthz"
)

// WideningFunc returns at most one warning line for an admitted object that lets
// in a client its stored predecessor (or its absence, on CREATE) did not: who
// gains access to what. obj is the incoming object, old the request's oldObject
// (nil on CREATE), spec obj's MeshTrafficPermission spec as validation decoded
// it (nil: decode obj). It reads informer caches only.
type WideningFunc func(ctx context.Context, obj, old *unstructured.Unstructured, spec *api.MeshTrafficPermissionSpec) []string

// maxWideningClasses bounds the client classes one group or Server is compared
// over at admission; `meshguard diff` has no such bound by default.
const maxWideningClasses = 2000

// widening is the state behind NewWidening's WideningFunc.
type widening struct {
	linkerd LinkerdSource
	// set finds the stored policies and reads each once per uid and
	// resourceVersion; the server shares it with the preview.
	set  *storedSet
	opts kumaauthz.Options
}

// NewWidening returns the WideningFunc of the validating handler. For a
// MeshTrafficPermission it compares the stored policies that share a group of
// proxies with the old or the new object (found through index, as the preview
// finds them: kumaauthz.Related), with the old object and with the new one
// (kumaauthz.DiffPolicies, groups past opts.MaxGroupItems not compared); for a
// Linkerd authorization object or Server, the stored Linkerd objects of its
// namespace (linkerdauthz.Diff), read with the installation's facts in linkerd.Options.
// index and linkerd.Stored may be nil.
func NewWidening(index PolicyIndex, linkerd LinkerdSource, opts kumaauthz.Options) WideningFunc {
	return newWidening(newStoredSet(index, newPreviewCache(opts)), linkerd)
}

// newWidening is NewWidening reading stored policies through set, shared with
// the preview so that each stored object is read once for both.
func newWidening(set *storedSet, linkerd LinkerdSource) WideningFunc {
	w := &widening{linkerd: linkerd, set: set, opts: set.read.opts}
	return w.answer
}

func (w *widening) answer(ctx context.Context, obj, old *unstructured.Unstructured, spec *api.MeshTrafficPermissionSpec) []string {
	gk := obj.GroupVersionKind().GroupKind()
	switch {
	case gk.Group == api.KumaGroup && gk.Kind == api.KindMeshTrafficPermission && w.set.index != nil:
		return w.kuma(ctx, obj, old, spec)
	case gk.Group == api.LinkerdGroup && linkerdAuthzKind(gk.Kind) && w.linkerd.Stored != nil:
		return w.linkerdLine(ctx, obj, old)
	}
	return nil
}

// linkerdAuthzKind reports whether a policy.linkerd.io kind decides who may
// connect to a Server.
func linkerdAuthzKind(kind string) bool {
	switch kind {
	case api.KindServer, api.KindServerAuthorization, api.KindAuthorizationPolicy,
		api.KindMeshTLSAuthentication, api.KindNetworkAuthentication:
		return true
	}
	return false
}

func (w *widening) kuma(ctx context.Context, obj, old *unstructured.Unstructured, spec *api.MeshTrafficPermissionSpec) []string {
	r := w.set.related(ctx, obj, spec)
	if r.err != nil {
		return nil // validation said why
	}
	// The groups either version takes part in are formed again, with the same
	// members, from the stored policies that share one with it, as the preview
	// forms its groups.
	if !r.listed {
		return nil // the preview says the cache is not ready
	}
	incoming, rel := r.incoming, r.policies // shared with the preview: not modified
	oldSet, newSet := make([]kumaauthz.Policy, 0, len(rel)), make([]kumaauthz.Policy, 1, len(rel))
	newSet[0] = incoming
	if old != nil {
		if p, err := kumaauthz.PolicyFromObject(old); err == nil {
			oldRel, _ := w.set.relatedOf(ctx, p)
			oldSet = append(oldSet, p)
			rel = append(slices.Clip(rel), oldRel[1:]...)
		}
	}
	seen := map[[2]string]bool{{incoming.Namespace, incoming.Name}: true}
	for _, p := range rel[1:] {
		if id := [2]string{p.Namespace, p.Name}; !seen[id] {
			seen[id] = true
			oldSet, newSet = append(oldSet, p), append(newSet, p)
		}
	}
	diffs, err := kumaauthz.DiffPolicies(oldSet, newSet, kumaauthz.DiffOptions{SystemNamespace: w.set.read.sysNS,
		MaxClasses: maxWideningClasses, MaxGroupItems: w.opts.MaxGroupItems,
		OldIdentities: r.identities, NewIdentities: r.identities})
	if err != nil {
		return nil
	}
	var first *kumaauthz.Change
	var target kumaauthz.Target
	widened, skipped := 0, 0
	for _, d := range diffs {
		if d.Incomplete != "" {
			skipped++
		}
		for i, c := range d.Changes {
			if c.Kind != kumaauthz.ChangeWidened {
				continue
			}
			if widened++; first == nil {
				first, target = &d.Changes[i], d.Target
			}
		}
	}
	return wideningLine(first, target, widened, skipped)
}

// wideningLine is the warning: "rbac-diff: widens access to PROXIES for CLIENTS
// (+N more classes)"; a note when nothing widens but some groups were past the
// bound; nothing otherwise.
func wideningLine(first *kumaauthz.Change, t kumaauthz.Target, widened, skipped int) []string {
	if first == nil {
		if skipped == 0 {
			return nil
		}
		return []string{warnline.Text("rbac-diff: widening not checked for "+plural(skipped, "proxy group")+
			" past the bound; `meshguard diff` checks them", MaxWarningLen)}
	}
	return []string{clientsLine("rbac-diff", shortScope(t), first.Clients, widened)}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// shortScope names a group of proxies in few words: "Dataplanes app=ledger in
// payments", "all proxies of mesh other".
func shortScope(t kumaauthz.Target) string {
	var s string
	switch t.Kind {
	case api.RefMesh, "":
		s = "all proxies"
	case api.RefDataplane:
		switch {
		case t.Name != "":
			s = "Dataplane " + t.Name
		default:
			s = "Dataplanes " + tagWords(t.Tags)
		}
	case api.RefMeshSubset:
		s = "proxies " + tagWords(t.Tags)
	case api.RefMeshServiceSubset:
		s = "MeshService " + t.Name + " " + tagWords(t.Tags)
	default:
		s = string(t.Kind) + " " + t.Name
	}
	if t.SectionName != "" {
		s += " section " + t.SectionName
	}
	if t.Namespace != "" {
		s += " in " + t.Namespace
	}
	if t.Mesh != api.DefaultMeshName {
		s += " of mesh " + t.Mesh
	}
	return s
}

func tagWords(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		keys[i] = k + "=" + m[k]
	}
	return strings.Join(keys, ",")
}

// clientsLine is "TAG: widens access to WHAT for CLIENTS (+N more classes)" on
// one warning line: the conditions of the first widened class, the count of the
// others.
func clientsLine(tag, what string, clients []string, widened int) string {
	if len(clients) == 0 {
		clients = []string{"every client"}
	}
	// What the clients are before what they are not, should the line cut.
	clients = slices.Clone(clients)
	slices.SortStableFunc(clients, func(a, b string) int { return cmpBool(negative(a), negative(b)) })
	tail := ""
	switch {
	case widened == 2:
		tail = " (+1 more class)"
	case widened > 2:
		tail = " (+" + strconv.Itoa(widened-1) + " more classes)"
	}
	return warnline.Line{Lead: tag + ": widens access to " + what + " for ", Items: clients, Sep: ", ", Tail: tail}.Fit(MaxWarningLen, "(see `meshguard diff`)")
}

// negative reports whether a client condition says what the clients are not.
func negative(c string) bool { return strings.Contains(c, "!=") || strings.Contains(c, " notin ") }

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

func (w *widening) linkerdLine(ctx context.Context, obj, old *unstructured.Unstructured) []string {
	gk, ns, name := obj.GroupVersionKind().GroupKind(), obj.GetNamespace(), obj.GetName()
	var oldObjs, newObjs []unstructured.Unstructured
	for _, u := range w.linkerd.Stored(ctx) {
		if u.GetNamespace() != ns {
			continue // Linkerd authorizes Servers of the objects' own namespace
		}
		if u.GroupVersionKind().GroupKind() == gk && u.GetName() == name {
			continue // replaced by old (UPDATE) and obj
		}
		oldObjs, newObjs = append(oldObjs, u), append(newObjs, u)
	}
	if w.linkerd.Namespace != nil {
		// What the namespace's pods get without a Server: its default-inbound-policy
		// annotation, else the cluster default. A Server added or removed changes
		// access from that, so the widening depends on it.
		if n, ok := w.linkerd.Namespace(ctx, ns); ok {
			oldObjs, newObjs = append(oldObjs, *n), append(newObjs, *n)
		}
	}
	if old != nil {
		oldObjs = append(oldObjs, *old)
	}
	newObjs = append(newObjs, *obj)
	var first *linkerdauthz.Change
	var server string
	widened := 0
	for _, d := range linkerdauthz.Diff(oldObjs, newObjs, w.linkerd.Options, maxWideningClasses) {
		for i, c := range d.Changes {
			if c.Kind != linkerdauthz.ChangeWidened || d.Default {
				continue
			}
			if widened++; first == nil {
				first, server = &d.Changes[i], "Server "+d.Ref()
			}
		}
	}
	if first == nil {
		return nil
	}
	return []string{clientsLine("authz-diff", server, first.Clients, widened)}
}
