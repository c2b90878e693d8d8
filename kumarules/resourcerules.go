package kumarules

import (
	"strconv"
	"strings"

	"github.com/meshguard/meshguard/api"
)

// ResourceRule is the conf the `to` items that resolve to one real resource (or one
// port of it) give the outbounds to it.
type ResourceRule struct {
	// Resource is the resource (with Section, the port) the rule is for.
	Resource KRI `json:"resource"`
	// Conf is the merged conf: one entry, or one per hostname for MeshHTTPRoute.
	Conf []any `json:"conf"`
	// Origins are the contributing items, each policy and item once, in merge order.
	Origins []Origin `json:"origins"`
}

// section is a `to` item resolved to one resource (and port).
type section struct {
	item    Item
	obj     Policy
	section string
	// key identifies the item (policy and index) for origins.
	key string
}

func (s section) kri() KRI {
	k := kriOf(s.obj, s.obj.Type)
	k.Section = s.section
	return k
}

// BuildResourceRules computes Kuma's rules for real resources: every `to` item of
// the policies (one kind) is resolved among objects (by name and namespace, by
// labels, by a legacy kuma.io/service name name_namespace_svc_port, narrowed by
// sectionName or port), and each resolved resource gets the merge, in ToEntries
// order, of the items that apply to it: items for the whole Mesh apply to every
// resource of the mesh, items for a whole MeshService or MeshMultiZoneService to
// each of its ports. Rules are keyed by KRI text.
func (e *Engine) BuildResourceRules(policies, objects []Policy) (map[string]ResourceRule, error) {
	return e.buildResourceRules(policies, newResourceIndex(objects))
}

// buildResourceRules is BuildResourceRules over indexed objects. Each target's
// relevant items are the mesh's items plus those resolved to the same resource,
// found by key rather than by testing every resolved item against every target.
func (e *Engine) buildResourceRules(policies []Policy, res *resourceIndex) (map[string]ResourceRule, error) {
	items, err := e.ToEntries(policies)
	if err != nil {
		return nil, err
	}
	byPolicy := map[string]Policy{}
	for _, p := range policies {
		byPolicy[p.key()] = p
	}
	var resolved []section
	for _, it := range items {
		for _, s := range res.resolve(it.Ref, byPolicy[it.Policy.key()]) {
			s.item = it
			s.key = it.Policy.key() + "#" + strconv.Itoa(it.Index)
			resolved = append(resolved, s)
		}
	}
	indexed := map[string]int{}
	var order []string
	meshItems := map[string][]int{}
	sameObject := map[KRI][]int{}
	for i, s := range resolved {
		k := s.kri().String()
		if _, ok := indexed[k]; !ok {
			order = append(order, k)
		}
		indexed[k] = i
		switch s.obj.Type {
		case api.KindMesh:
			meshItems[s.obj.Name] = append(meshItems[s.obj.Name], i)
		case refMeshService, refMeshMultiZoneService, refMeshExternalService, refMeshHTTPRoute:
			id := kriOf(s.obj, s.obj.Type)
			sameObject[id] = append(sameObject[id], i)
		}
	}
	shape := shapePlain
	if len(resolved) > 0 {
		shape = shapeOf(resolved[0].item.Policy.Type)
	}
	// Items resolved to the Mesh apply to every resource of that mesh alike.
	rn, err := planRuns(len(resolved), func(i int) string {
		if resolved[i].obj.Type == api.KindMesh {
			return resolved[i].obj.Name
		}
		return ""
	}, func(i int) any { return resolved[i].item.Conf }, shape)
	if err != nil {
		return nil, err
	}
	idx := newOriginIndex(len(resolved), func(i int) string { return resolved[i].key })
	out := make(map[string]ResourceRule, len(order))
	var relevant []int
	for _, k := range order {
		target := resolved[indexed[k]]
		relevant = target.relevantItems(relevant[:0], resolved, meshItems, sameObject)
		if len(relevant) == 0 {
			continue
		}
		confs := rn.confsOf(relevant, func(i int) any { return resolved[i].item.Conf })
		merged, err := mergeClean(shape, confs)
		if err != nil {
			return nil, err
		}
		out[k] = ResourceRule{Resource: target.kri(), Conf: merged, Origins: idx.origins(relevant, func(i int) Origin {
			return Origin{Meta: resolved[i].item.Policy, Index: resolved[i].item.Index}
		})}
	}
	return out, nil
}

// relevantItems appends to out, ascending, the resolved items that apply to
// target (those relevantTo says): the items of target's mesh (of the Mesh itself,
// for a Mesh) and the items resolved to the same resource whose section covers
// target's.
func (target section) relevantItems(out []int, resolved []section, meshItems map[string][]int, sameObject map[KRI][]int) []int {
	obj, sec := target.obj, target.section
	if obj.Type == api.KindMesh {
		return append(out, meshItems[obj.Name]...)
	}
	var same []int
	switch obj.Type {
	case refMeshService, refMeshMultiZoneService, refMeshExternalService, refMeshHTTPRoute:
		same = sameObject[kriOf(obj, obj.Type)]
	}
	mesh := meshItems[obj.Mesh]
	for len(mesh) > 0 || len(same) > 0 {
		if len(same) == 0 || (len(mesh) > 0 && mesh[0] < same[0]) {
			out = append(out, mesh[0])
			mesh = mesh[1:]
			continue
		}
		if i := same[0]; resolved[i].relevantTo(obj, sec) {
			out = append(out, i)
		}
		same = same[1:]
	}
	return out
}

// relevantTo reports whether the resolved item applies to other (at section).
func (s section) relevantTo(other Policy, sec string) bool {
	switch s.obj.Type {
	case api.KindMesh:
		if other.Type == api.KindMesh {
			return s.obj.Name == other.Name
		}
		return s.obj.Name == other.Mesh
	case refMeshService, refMeshMultiZoneService:
		if other.Type != s.obj.Type {
			return false
		}
		self, them := kriOf(s.obj, s.obj.Type), kriOf(other, other.Type)
		return self == them && (s.section == sec || (s.section == "" && sec != ""))
	case refMeshExternalService, refMeshHTTPRoute:
		return other.Type == s.obj.Type && kriOf(s.obj, s.obj.Type) == kriOf(other, other.Type)
	}
	return false
}

// resourceIndex is the objects `to` items can name, by type and by identifier
// (kriOf), so that resolving an item looks up instead of scanning every object.
type resourceIndex struct {
	objects []Policy
	byType  map[string][]int
	byKRI   map[KRI][]int
}

func newResourceIndex(objects []Policy) *resourceIndex {
	x := &resourceIndex{objects: objects, byType: map[string][]int{}, byKRI: map[KRI][]int{}}
	for i, o := range objects {
		x.byType[o.Type] = append(x.byType[o.Type], i)
		if k := kriOf(o, o.Type); k != (KRI{}) {
			x.byKRI[k] = append(x.byKRI[k], i)
		}
	}
	return x
}

// resolve finds the objects (and ports) a `to` targetRef of policy names.
func (x *resourceIndex) resolve(ref TargetRef, policy Policy) []section {
	if ref.Kind == refMeshSubset || ref.Kind == refMeshServiceSubset {
		return nil
	}
	var byLabels map[string]string
	var byID KRI
	sectionName, portNum := ref.SectionName, 0
	if len(ref.Labels) > 0 {
		byLabels = ref.Labels
	} else {
		byID = refKRI(policy, ref)
	}
	if ref.Kind == refMeshService && ref.SectionName == "" {
		if name, ns, p, ok := parseLegacyService(ref.Name); ok {
			byLabels = map[string]string{api.LabelNamespace: ns, labelDisplayName: name}
			portNum = p
		}
	}
	typ := ref.Kind
	if typ == refMesh {
		typ = api.KindMesh
	}
	var found []int
	switch {
	case byLabels != nil:
		for _, i := range x.byType[typ] {
			if labelsInclude(x.objects[i].Labels, byLabels) {
				found = append(found, i)
			}
		}
	case byID != (KRI{}) && byID.Type == typ:
		found = x.byKRI[byID]
	}
	var out []section
	for _, i := range found {
		o := x.objects[i]
		if portNum == 0 && sectionName == "" {
			out = append(out, section{obj: o})
			continue
		}
		ports, has := portsOf(o)
		if !has {
			out = append(out, section{obj: o})
			continue
		}
		for _, p := range ports {
			if (portNum != 0 && p.value == portNum) || (portNum == 0 && p.name == sectionName) {
				out = append(out, section{obj: o, section: p.name})
				break
			}
		}
	}
	return out
}

func labelsInclude(labels, want map[string]string) bool {
	for k, v := range want {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// parseLegacyService reads a kuma.io/service name of a Kubernetes Service,
// name_namespace_svc_port (port 0 when absent).
func parseLegacyService(s string) (name, ns string, port int, ok bool) {
	parts := strings.Split(s, "_")
	switch len(parts) {
	case 4:
		p, err := strconv.Atoi(parts[3])
		if err != nil {
			return "", "", 0, false
		}
		port = p
	case 3:
	default:
		return "", "", 0, false
	}
	return parts[0], parts[1], port, true
}

// ComputeResourceRule is the rule an outbound to resource k gets, as Kuma's
// ResourceRules.Compute finds it: the rule of k itself; for MeshService,
// MeshExternalService, MeshMultiZoneService and MeshHTTPRoute, else that of the
// whole resource (k without its section), else that of its mesh. Nil when none
// applies.
func ComputeResourceRule(rules map[string]ResourceRule, k KRI) *ResourceRule {
	if r, ok := rules[k.String()]; ok {
		return &r
	}
	switch k.Type {
	case refMeshService, refMeshExternalService, refMeshMultiZoneService, refMeshHTTPRoute:
	default:
		return nil
	}
	if k.Section != "" {
		k.Section = ""
		return ComputeResourceRule(rules, k)
	}
	if r, ok := rules[KRI{Type: api.KindMesh, Name: k.Mesh}.String()]; ok {
		return &r
	}
	return nil
}
