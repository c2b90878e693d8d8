package main

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/meshguard/meshguard/access"
	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumaauthz"
	"github.com/meshguard/meshguard/linkerdauthz"
	"github.com/meshguard/meshguard/lint"
)

// mapOptions are the flags of `meshguard map`.
type mapOptions struct {
	lintOptions
	meshType    string
	by          string
	change      bool
	gitBase     string
	form        string
	maxCells    int
	linkerd     linkerdauthz.Options
	kubeconfig  string
	kubeContext string
}

// mapByValues are the values of --by: a row per destination, or namespaces.
func mapByValues() []string { return []string{"destination", "namespace"} }

// mapFormats are map's -o values.
func mapFormats() []format {
	return []format{formatText, formatCSV, formatJSON, formatYAML, formatMarkdown, formatDot, formatHTML}
}

func newMapCmd(s streams) *cobra.Command { return newMapCmdWith(s, &mapOptions{}) }

// defaultMapOptions are map's options as its flags default them, for a door
// that maps without map's flags (audit --map), with its settings.
func defaultMapOptions(settings api.Settings) *mapOptions {
	o := &mapOptions{}
	newMapCmdWith(streams{}, o)
	o.settings = settings
	return o
}

func newMapCmdWith(s streams, o *mapOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:         "map [PATH|-]... | map --change OLD NEW | map --git-base REF PATH...",
		Annotations: map[string]string{bulkReadAnnotation: "lint"},
		Short:       "Show who may call whom across the whole mesh: the access matrix, and what a change does to it",
		Long: `Map answers 'meshguard check' for every pair of the input at once: every destination
(Kuma: each Dataplane inbound, and each workload once per port of the Services that
select it; Linkerd: each workload and container port, a Server's or the default
policy's) against every client (Kuma: the certificate each of those proxies presents,
by tags or by the SPIFFE ID its MeshIdentity issues, plus another service of the mesh,
another mesh and a client without a certificate; Linkerd: every ServiceAccount of the
input's workloads, an identity of none of them, unauthenticated clients from the
cluster networks, from outside them and from each network the input names). Each
cell is check's answer for that pair, with the deciding item (policy, spec.from[i],
authorization, file:line) and the shadow decision, from the same engine.

Destinations decided alike for every client share a class (D1, D2, ...), clients
decided alike by every destination too (C1, C2, ...): a cell is judged once per class
pair, so the work grows with the classes the policies tell apart, not with
workloads². --max-cells bounds it; past the bound the map says so in its notes.

The input is read as check reads it (files, directories, - for standard input,
kustomizations and Helm charts rendered), or with --kubeconfig/--context from a
cluster. The mesh is the one the input holds (--mesh-type says it when it holds both).

  -o text       a compact matrix: a line per destination, a column per client class
  -o csv        one row per destination × client
  -o json|yaml  the model (docs/map.md documents it)
  -o markdown   a table for a pull request; by namespace when large
  -o dot        Graphviz: namespaces as clusters, allowed edges solid, shadow-only dashed
  -o html       one self-contained page

--by namespace aggregates destinations by namespace and clients by namespace (or
kind, for callers that are no workload): how many pairs are allowed.

--change OLD NEW compares two inputs, and --git-base REF PATH... the PATHs at a
git revision with the PATHs now (as diff does): the pairs that open, close, or
keep their decision under another deciding item or shadow decision.

Exit codes: 0 the map was written, 2 usage or input errors.`,
		Example: `  meshguard map examples/check/kuma
  meshguard map examples/check/linkerd -o markdown > access.md
  meshguard map deploy/ -o dot | dot -Tsvg > mesh.svg
  meshguard map deploy/ --by namespace
  meshguard map --change policies-before/ policies-after/
  meshguard map --git-base origin/main deploy/ -o markdown
  meshguard map --kubeconfig ~/.kube/config -o csv > access.csv`,
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(s, args) },
	}
	o.bind(cmd)
	f := cmd.Flags()
	f.StringVar(&o.meshType, "mesh-type", "auto", "auto (the mesh the input holds), kuma or linkerd")
	f.StringVar(&o.by, "by", "destination", "rows: destination (every destination and client class) or namespace (counts per namespace)")
	f.BoolVar(&o.change, "change", false, "the two PATHs are OLD and NEW: show what the change does to the map")
	f.StringVar(&o.gitBase, "git-base", "", "compare the PATHs at this git revision (OLD) with the PATHs now (NEW)")
	f.StringVar(&o.form, "form", defaultForm, "Kuma RBAC form to compile 'from' policies to: "+oneOf(formValues())+" (the answers are the same)")
	f.IntVar(&o.maxCells, "max-cells", 0, fmt.Sprintf("most cells judged and written, each client class a cell lists counting one (0: Kuma %d, Linkerd %d)", kumaauthz.DefaultMaxMapCells, linkerdauthz.DefaultMaxMapCells))
	linkerdFlags(f, &o.linkerd)
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "read the objects from this cluster (read-only) instead of files")
	f.StringVar(&o.kubeContext, "context", "", "the kubeconfig context to read from")
	bindOutput(cmd, &o.output, mapFormats()...)
	return cmd
}

func (o *mapOptions) validate(args []string) error {
	if err := checkOutput(o.output, mapFormats()); err != nil {
		return err
	}
	for _, e := range []struct{ flag, value string }{{"by", o.by}, {"form", o.form}, {"mesh-type", o.meshType}} {
		values := map[string][]string{"by": mapByValues(), "form": formValues(), "mesh-type": {"auto", "kuma", "linkerd"}}[e.flag]
		if err := checkEnum(e.flag, e.value, values); err != nil {
			return err
		}
	}
	if err := checkLinkerd(o.linkerd); err != nil {
		return err
	}
	live := o.kubeconfig != "" || o.kubeContext != ""
	switch {
	case o.maxCells < 0:
		return usageErr("--max-cells must not be negative (got %d)", o.maxCells)
	case o.change && o.gitBase != "":
		return usageErr("give --change OLD NEW or --git-base REF PATH..., not both")
	case o.change && len(args) != 2:
		return usageErr("--change needs OLD and NEW (got %d arguments)", len(args))
	case o.gitBase != "" && len(args) == 0:
		return usageErr("with --git-base, map needs at least one PATH")
	case live && (len(args) > 0 || o.change || o.gitBase != ""):
		return usageErr("give either manifests or --kubeconfig/--context, not both")
	case !live && len(args) == 0:
		return usageErr("map needs at least one PATH, - for standard input, or --kubeconfig")
	case o.by == "namespace" && o.output == string(formatHTML):
		return usageErr("-o html shows the whole map (it filters by namespace itself); --by namespace is for the other formats")
	case o.by == "namespace" && (o.change || o.gitBase != ""):
		return usageErr("--by namespace maps one input; a change is listed pair by pair")
	}
	return nil
}

func (o *mapOptions) run(s streams, args []string) error {
	eng, err := o.engine()
	if err != nil {
		return err
	}
	if err := o.validate(args); err != nil {
		return err
	}
	defer tuneGCForLint()()
	if o.change || o.gitBase != "" {
		return o.runChange(s, args, eng)
	}
	var loaded lint.Loaded
	if o.kubeconfig != "" || o.kubeContext != "" {
		if loaded, err = readLive(o.kubeconfig, o.kubeContext); err != nil {
			return err
		}
	} else {
		if err := checkPaths(args); err != nil {
			return err
		}
		loaded = o.load(s, args)
	}
	mesh, err := o.mesh(loaded.Docs)
	if err != nil {
		return err
	}
	m, err := o.build(s, loaded, mesh)
	if err != nil {
		return err
	}
	return writeMap(s, o.output, o.by, m)
}

// mesh is the mesh to map: --mesh-type, else the one whose objects the input
// holds.
func (o *mapOptions) mesh(docs ...[]lint.Document) (string, error) {
	if o.meshType != "auto" {
		return o.meshType, nil
	}
	var kuma, linkerd bool
	for _, ds := range docs {
		for i := range ds {
			if obj := ds[i].Object; obj != nil {
				g := obj.GroupVersionKind().Group
				kuma = kuma || g == api.KumaGroup
				linkerd = linkerd || g == api.LinkerdGroup
			}
		}
	}
	switch {
	case kuma && linkerd:
		return "", usageErr("the input holds Kuma and Linkerd objects: give --mesh-type kuma or --mesh-type linkerd")
	case linkerd:
		return "linkerd", nil
	case kuma:
		return "kuma", nil
	}
	return "", usageErr("the input holds no Kuma (kuma.io) or Linkerd (policy.linkerd.io) object: give --mesh-type to map its workloads anyway")
}

// build reads the input as check does and maps it with the mesh's engine.
func (o *mapOptions) build(s streams, loaded lint.Loaded, mesh string) (*access.Map, error) {
	if err := lint.WriteNotes(s.err, loaded.Skipped); err != nil {
		return nil, err
	}
	docs := loaded.Docs
	if notes := lint.ParseNotes(docs); len(notes) > 0 {
		printNotes(s, notes)
		return nil, usageErr("the input has documents that cannot be read (see above): a policy map cannot read could be the one that decides")
	}
	eng, err := o.engine()
	if err != nil {
		return nil, err
	}
	loc := newLocator(docs, o.namespace).at
	if mesh == "linkerd" {
		in := lint.LinkerdCheckInput(docs, eng)
		if err := readable(s, in); err != nil {
			return nil, err
		}
		return linkerdauthz.BuildMap(in.Linkerd, linkerdauthz.MapOptions{Options: o.linkerd, MaxCells: o.maxCells}, loc)
	}
	var mu atomicMeshes
	in := lint.KumaCheckInput(docs, eng, func(p kumaauthz.Policy) bool {
		if k := p.TopRef().Kind; k == api.RefMeshService || k == api.RefMeshServiceSubset {
			mu.add(p.Mesh)
		}
		return true
	})
	if err := readable(s, in); err != nil {
		return nil, err
	}
	ck := kumaauthz.Checker{Policies: in.Policies, Identities: in.Identities, SystemNamespace: o.settings.SystemNamespace,
		Form: kumaauthz.Form(o.form), ServiceTargets: mu.has}
	return kumaauthz.BuildMap(objectsOf(docs, o.namespace), ck,
		kumaauthz.MapOptions{DefaultMesh: o.settings.DefaultMesh, Zone: o.settings.Zone, MaxCells: o.maxCells}, loc)
}

// atomicMeshes is the set of meshes some policy of which targets a
// MeshService, filled by KumaCheckInput's parallel selection (check's note).
type atomicMeshes struct {
	mu     sync.Mutex
	meshes []string
}

func (a *atomicMeshes) add(mesh string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !slices.Contains(a.meshes, mesh) {
		a.meshes = append(a.meshes, mesh)
	}
}

func (a *atomicMeshes) has(mesh string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Contains(a.meshes, mesh)
}

// runChange maps OLD and NEW (or the PATHs at --git-base and now) and writes
// what changes.
func (o *mapOptions) runChange(s streams, args []string, eng lint.Options) error {
	d := &diffOptions{lintOptions: o.lintOptions, gitBase: o.gitBase}
	sides, cleanup, err := d.sides(s, args)
	defer cleanup()
	if err != nil {
		return err
	}
	oldLoaded := lint.LoadAll(sides.old, nil, o.loadOptions())
	newLoaded := lint.LoadAll(sides.new, nil, o.loadOptions())
	mesh, err := o.mesh(oldLoaded.Docs, newLoaded.Docs)
	if err != nil {
		return err
	}
	oldMap, err := o.build(s, oldLoaded, mesh)
	if err != nil {
		return fmt.Errorf("%s: %w", strings.Join(sides.old, " "), err)
	}
	newMap, err := o.build(s, newLoaded, mesh)
	if err != nil {
		return fmt.Errorf("%s: %w", strings.Join(sides.new, " "), err)
	}
	return writeMapChange(s, o.output, access.CompareMaps(oldMap, newMap))
}
