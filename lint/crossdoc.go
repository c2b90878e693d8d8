package lint

import (
	"math"
	"sync"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumaauthz"
	"github.com/meshguard/meshguard/validate"
)

// rbacStage compiles the MeshTrafficPermissions of the linted set together and
// reports the compiler's findings (dead items, deny-all, mesh-wide allow-all) on
// the policy they concern. Policies the webhook would deny are left out: they
// never reach a proxy.
type rbacStage struct {
	systemNamespace string
	// sums are the added summaries, by pointer: the policies are copied into
	// one slice of the final size when Findings compiles them. Copying each
	// Policy and Anchor into growing slices as they were added copied them
	// again at every doubling and, at the end of a large run, held the old
	// arrays beside the new ones.
	sums []*mtpSummary
	// shared are what the summaries repeat (namespaces, meshes, files,
	// specs), shared among them as Summarize makes them: every policy is
	// kept to the end of the run.
	shared sharedParts
}

// sharedParts shares what the summaries of documents checked in parallel
// repeat: a policy's metadata and place apart from its name, and its spec.
type sharedParts struct {
	mu    sync.Mutex
	parts map[mtpParts]*mtpParts
	specs specTable
}

// mtpParts are the parts of a policy and its place that many policies share.
type mtpParts struct {
	namespace, mesh, origin, zone, displayName string
	role                                       api.PolicyRole
	file, apiVersion, kind                     string
}

// share returns the kept parts and spec equal to parts and spec.
func (sp *sharedParts) share(parts mtpParts, spec api.MeshTrafficPermissionSpec) (*mtpParts, *api.MeshTrafficPermissionSpec) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	kept := sp.parts[parts]
	if kept == nil {
		kept = &parts
		if sp.parts == nil {
			sp.parts = map[mtpParts]*mtpParts{}
		}
		if len(sp.parts) < internLimit {
			sp.parts[parts] = kept
		}
	}
	return kept, sp.specs.share(spec)
}

// mtpSummary is what the stage keeps of one policy until the run's end (80
// bytes; the Policy and Anchor it replaces were ~800 with the typed spec): the
// policy's name, its shared parts and spec, and where its findings point. A
// document read as it is (the common case) keeps its line and the lines of
// mtpPaths as numbers; a rendered one keeps the general Anchor, whose paths may
// lie in patch files.
type mtpSummary struct {
	name  string
	parts *mtpParts
	spec  *api.MeshTrafficPermissionSpec
	line  int32
	// first are the lines of the first three of mtpPaths(p), more the others'
	// (nil when there are no others); both unused with anchor.
	first  [3]int32
	more   []int32
	anchor *Anchor
}

// policy is the summarized policy.
func (m *mtpSummary) policy() kumaauthz.Policy {
	pt := m.parts
	return kumaauthz.Policy{Name: m.name, Namespace: pt.namespace, Mesh: pt.mesh, Origin: pt.origin, Zone: pt.zone,
		Role: pt.role, DisplayName: pt.displayName, Spec: *m.spec}
}

// pathLine is the line of the i-th of mtpPaths.
func (m *mtpSummary) pathLine(i int) int32 {
	if i < len(m.first) {
		return m.first[i]
	}
	return m.more[i-len(m.first)]
}

func (s *rbacStage) Summarize(c Checked) any {
	if c.Kind == nil || c.Kind.Kind != api.KindMeshTrafficPermission || c.Denied {
		return nil
	}
	// The spec validation built, as the webhook's preview uses it; decoded again
	// only when there is none.
	var p kumaauthz.Policy
	var err error
	if spec, ok := c.Spec.(*api.MeshTrafficPermissionSpec); ok && spec != nil {
		p, err = kumaauthz.PolicyFromSpec(c.Object, spec)
	} else {
		p, err = kumaauthz.PolicyFromObject(c.Object)
	}
	if err != nil {
		return nil
	}
	parts := mtpParts{namespace: p.Namespace, mesh: p.Mesh, origin: p.Origin, zone: p.Zone, role: p.Role, displayName: p.DisplayName}
	m := &mtpSummary{name: p.Name}
	paths := mtpPaths(p)
	if c.Doc != nil && c.Doc.Rendered == nil {
		// Read as it is: every path is in the document's own file.
		var line int
		parts.file, line = c.Doc.locate("")
		m.line = clampLine(line)
		parts.apiVersion, parts.kind = c.Object.GetAPIVersion(), c.Object.GetKind()
		for i, path := range paths {
			_, line := c.Doc.locate(path)
			if i < len(m.first) {
				m.first[i] = clampLine(line)
			} else {
				m.more = append(m.more, clampLine(line))
			}
		}
	} else {
		a := NewAnchor(c.Doc, paths...)
		m.anchor = &a
	}
	m.parts, m.spec = s.shared.share(parts, p.Spec)
	return m
}

// mtpPaths are the paths the analysis reports on p: the spec, the list, its
// items and the SPIFFE matchers.
func mtpPaths(p kumaauthz.Policy) []string {
	paths := make([]string, 0, 2+len(p.Spec.From))
	paths = append(paths, "spec", "spec.from")
	for i := range p.Spec.From {
		paths = append(paths, kumaauthz.MergedItem{Index: i}.Path())
	}
	for _, e := range kumaauthz.SpiffeEntries(p) {
		paths = append(paths, e.Path)
	}
	return paths
}

// clampLine is line as an int32 (files are at most MaxFileBytes, so lines fit).
func clampLine(line int) int32 {
	return int32(min(max(line, math.MinInt32), math.MaxInt32))
}

func (s *rbacStage) Add(v any) {
	s.sums = append(s.sums, v.(*mtpSummary))
}

// finding is Anchor.Finding on the summarized policy.
func (m *mtpSummary) finding(severity, code, fieldPath, msg string) Finding {
	if m.anchor != nil {
		return m.anchor.Finding(severity, code, fieldPath, msg)
	}
	pt := m.parts
	f := Finding{File: pt.file, Line: max(int(m.line), 1), Severity: severity, Code: code, Field: fieldPath, Message: msg,
		APIVersion: pt.apiVersion, Kind: pt.kind, Namespace: pt.namespace, Name: m.name}
	for i, p := range mtpPaths(m.policy()) {
		if p == fieldPath {
			f.Line = max(int(m.pathLine(i)), 1)
			break
		}
	}
	return f
}

func (s *rbacStage) Findings() []Finding {
	if len(s.sums) == 0 {
		return nil
	}
	ps := make([]kumaauthz.Policy, len(s.sums))
	for i, m := range s.sums {
		ps[i] = m.policy()
	}
	errs := kumaauthz.AnalyzePolicies(ps, s.systemNamespace)
	if len(errs) == 0 {
		return make([]Finding, 0)
	}
	// Built here, not as policies are added: a key per policy held to the
	// end of the run is what the stage no longer keeps.
	byRef := make(map[string]int, len(ps))
	for i := range ps {
		byRef[ps[i].Ref()] = i // the last document of a Ref gets its findings
	}
	out := make([]Finding, 0, len(errs))
	for _, e := range errs {
		ref, _ := e.BadValue.(string)
		i, ok := byRef[ref]
		if !ok {
			continue
		}
		out = append(out, s.sums[i].finding(validate.SeverityWarning, e.Origin, e.Field, e.Detail))
	}
	return out
}
