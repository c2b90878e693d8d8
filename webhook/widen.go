package webhook

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/authz"
	"github.com/meshguard/meshguard/compile"
	"github.com/meshguard/meshguard/internal/warnline"
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
	list    PolicyLister
	linkerd func(ctx context.Context) []unstructured.Unstructured
	cache   *storedMTPs
	sysNS   string
	opts    compile.Options
}

// NewWidening returns the WideningFunc of the validating handler. For a
// MeshTrafficPermission it compares the stored policies that share a group of
// proxies with the old or the new object, with the old object and with the new
// one (compile.DiffPolicies, groups past opts.MaxGroupItems not compared); for a
// Linkerd authorization object or Server, the stored Linkerd objects of its
// namespace (authz.Diff). list and linkerd may be nil.
func NewWidening(list PolicyLister, linkerd func(ctx context.Context) []unstructured.Unstructured, opts compile.Options) WideningFunc {
	sysNS := opts.SystemNamespace
	if sysNS == "" {
		sysNS = api.DefaultSystemNS
	}
	w := &widening{list: list, linkerd: linkerd, cache: &storedMTPs{sysNS: sysNS, parsed: map[parsedKey]*storedMTP{}}, sysNS: sysNS, opts: opts}
	return w.answer
}

func (w *widening) answer(ctx context.Context, obj, old *unstructured.Unstructured, spec *api.MeshTrafficPermissionSpec) []string {
	gk := obj.GroupVersionKind().GroupKind()
	switch {
	case gk.Group == api.KumaGroup && gk.Kind == api.KindMeshTrafficPermission && w.list != nil:
		return w.kuma(ctx, obj, old, spec)
	case gk.Group == api.LinkerdGroup && linkerdAuthzKind(gk.Kind) && w.linkerd != nil:
		return w.linkerdLine(ctx, obj, old)
	}
	return nil
}

// storedMTPs reads stored MeshTrafficPermissions once per uid and
// resourceVersion, as previewCache does, but hands out pointers: the check scans
// every stored policy's target and copies only the few that share a group with
// the admitted one.
type storedMTPs struct {
	sysNS  string
	mu     sync.Mutex
	parsed map[parsedKey]*storedMTP
}

// storedMTP is a stored object read once; nil in the cache when it does not
// compile.
type storedMTP struct {
	policy compile.Policy
	target compile.Target
}

// read returns the stored policies other than namespace/name that compile.
func (c *storedMTPs) read(stored []unstructured.Unstructured, namespace, name string) []*storedMTP {
	out := make([]*storedMTP, 0, len(stored))
	c.mu.Lock()
	defer c.mu.Unlock()
	keys := make([]parsedKey, 0, len(stored))
	for i := range stored {
		u := &stored[i]
		meta, _ := u.Object["metadata"].(map[string]any)
		if metaString(meta, "namespace") == namespace && metaString(meta, "name") == name {
			continue
		}
		key := parsedKey{metaString(meta, "uid"), metaString(meta, "resourceVersion")}
		e, hit := c.parsed[key]
		if !hit {
			if p, err := compile.PolicyFromObject(u); err == nil {
				e = &storedMTP{policy: p, target: compile.TargetOf(p, c.sysNS)}
			}
			if key.uid != "" && key.rv != "" {
				c.parsed[key] = e
			}
		}
		keys = append(keys, key)
		if e != nil {
			out = append(out, e)
		}
	}
	if len(c.parsed) > len(stored)+maxParsedSlack {
		keep := make(map[parsedKey]*storedMTP, len(keys))
		for _, k := range keys {
			if e, ok := c.parsed[k]; ok {
				keep[k] = e
			}
		}
		c.parsed = keep
	}
	return out
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
	incoming, err := incomingPolicy(obj, spec)
	if err != nil {
		return nil // validation said why
	}
	stored, _ := w.list(ctx)
	entries := w.cache.read(stored, incoming.Namespace, incoming.Name)
	mine := []compile.Target{compile.TargetOf(incoming, w.sysNS)}
	oldSet := []compile.Policy{}
	if old != nil {
		if p, err := compile.PolicyFromObject(old); err == nil {
			oldSet = append(oldSet, p)
			mine = append(mine, compile.TargetOf(p, w.sysNS))
		}
	}
	// The groups either version takes part in are formed again, with the same
	// members, from the stored policies that share one with it (as the preview
	// forms its groups): a group is a target, and holds what applies to it.
	groups := slices.Clone(mine)
	for _, e := range entries {
		for _, m := range mine {
			if compile.Applies(m, e.target) {
				groups = append(groups, e.target)
				break
			}
		}
	}
	newSet := []compile.Policy{incoming}
	for _, e := range entries {
		for _, g := range groups {
			if compile.Applies(e.target, g) {
				oldSet, newSet = append(oldSet, e.policy), append(newSet, e.policy)
				break
			}
		}
	}
	diffs, err := compile.DiffPolicies(oldSet, newSet, compile.DiffOptions{SystemNamespace: w.sysNS,
		MaxClasses: maxWideningClasses, MaxGroupItems: w.opts.MaxGroupItems})
	if err != nil {
		return nil
	}
	var first *compile.Change
	var target compile.Target
	widened, skipped := 0, 0
	for _, d := range diffs {
		if d.Incomplete != "" {
			skipped++
		}
		for i, c := range d.Changes {
			if c.Kind != compile.ChangeWidened {
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
func wideningLine(first *compile.Change, t compile.Target, widened, skipped int) []string {
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
func shortScope(t compile.Target) string {
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
	for _, u := range w.linkerd(ctx) {
		if u.GetNamespace() != ns {
			continue // Linkerd authorizes Servers of the objects' own namespace
		}
		if u.GroupVersionKind().GroupKind() == gk && u.GetName() == name {
			continue // replaced by old (UPDATE) and obj
		}
		oldObjs, newObjs = append(oldObjs, u), append(newObjs, u)
	}
	if old != nil {
		oldObjs = append(oldObjs, *old)
	}
	newObjs = append(newObjs, *obj)
	var first *authz.Change
	var server string
	widened := 0
	for _, d := range authz.Diff(oldObjs, newObjs, authz.Options{}, maxWideningClasses) {
		for i, c := range d.Changes {
			if c.Kind != authz.ChangeWidened || d.Default {
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
