// Package schema checks objects against the meshes' real CustomResourceDefinitions the
// way the Kubernetes API server does, with the API server's own library
// (k8s.io/apiextensions-apiserver): pruning of unknown fields, the OpenAPI v3 schema
// (types, enums, formats, patterns, required fields, bounds), list-type invariants and
// x-kubernetes-validations CEL rules. A policy that fails here never reaches a
// webhook, so meshguard reports it as the API server would, before the mesh's own
// rules.
//
// The CRDs are data, kept per mesh release under crds/<mesh>-<version>/ as the mesh
// ships them (YAML) and embedded as the same objects in JSON (crdjson_test.go writes
// them: go test ./schema -run TestEmbeddedJSON -update), compiled when a kind is first
// needed. Adding a release is adding its directory of files.
package schema

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	apiextensions "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	celconfig "k8s.io/apiserver/pkg/apis/cel"

	"github.com/meshguard/meshguard/api"
)

// embedded holds each release's CRDs in JSON, its SOURCE.md and ALSO files. JSON,
// not the YAML they are kept in: decoding a CRD from YAML took four times as long
// as from JSON, and a one-file lint decodes one CRD per kind it meets.
//
//go:embed crds/*/*.json crds/*/SOURCE.md crds/*/ALSO
var embedded embed.FS

// releaseDirs maps the CRD sets meshguard embeds, by the name they are loaded with,
// to their directory under crds/: every directory there is a release, named as
// the directory ("kuma-2.14", "linkerd-edge-26.8.3"), plus the releases its ALSO
// file names, so adding a release is adding its files and nothing else lists it
// (`meshguard version`, the flags' help and detection all read this).
func releaseDirs() map[string]string {
	out := map[string]string{}
	entries, err := fs.ReadDir(embedded, "crds")
	if err != nil {
		return out // cannot happen: crds is embedded; TestReleasesAreData holds it
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := path.Join("crds", e.Name())
		out[e.Name()] = dir
		// Linkerd's policy CRDs are the same at every release but one file, so
		// releases share directories: a directory's ALSO file names the other
		// releases it serves (version-2.20 edge's, version-2.19 version-2.18's,
		// which holds only the file that differs: releaseBase).
		also, _ := fs.ReadFile(embedded, path.Join(dir, "ALSO"))
		for _, r := range strings.Fields(string(also)) {
			out[r] = dir
		}
	}
	return out
}

// releaseBase maps a directory that holds only the files in which its releases
// differ to the directory the other files are read from.
func releaseBase() map[string]string {
	return map[string]string{"crds/linkerd-version-2.18": "crds/linkerd-edge-26.8.3"}
}

// DefaultKumaVersion is the Kuma release whose CRDs meshguard checks against unless
// told otherwise (--kuma-version); api.DefaultSettings holds the same.
const DefaultKumaVersion = api.DefaultKumaVersion

// KumaRelease names the embedded CRD set of a Kuma version ("2.14" → "kuma-2.14").
func KumaRelease(version string) string { return "kuma-" + version }

// KumaVersions lists the Kuma versions whose CRDs are embedded, sorted, for flag help
// and errors.
func KumaVersions() []string { return versionsOf("kuma-") }

// KnowsKuma reports whether the CRDs of Kuma version are embedded.
func KnowsKuma(version string) bool { return isEmbedded(KumaRelease(version)) }

// DefaultLinkerdVersion is the Linkerd release whose CRDs (its policy.linkerd.io kinds
// and the Gateway API routes it bundles) meshguard checks against unless told
// otherwise (--linkerd-version); api.DefaultSettings holds the same.
const DefaultLinkerdVersion = api.DefaultLinkerdVersion

// LinkerdRelease names the embedded CRD set of a Linkerd version ("edge-26.8.3" →
// "linkerd-edge-26.8.3").
func LinkerdRelease(version string) string { return "linkerd-" + version }

// LinkerdVersions lists the Linkerd versions whose CRDs are embedded, oldest first
// (edge-26.8.3 follows version-2.20), for flag help, errors and the chart's enum.
func LinkerdVersions() []string {
	out := versionsOf("linkerd-")
	slices.SortStableFunc(out, func(a, b string) int {
		switch {
		case api.LinkerdBefore(a, b):
			return -1
		case api.LinkerdBefore(b, a):
			return 1
		}
		return strings.Compare(a, b)
	})
	return out
}

// KnowsLinkerd reports whether the CRDs of Linkerd version are embedded.
func KnowsLinkerd(version string) bool { return isEmbedded(LinkerdRelease(version)) }

// versionsOf lists the versions of the embedded releases named mesh+version, sorted.
func versionsOf(mesh string) []string {
	var out []string
	for name := range releaseDirs() {
		if v, ok := strings.CutPrefix(name, mesh); ok {
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}

// isEmbedded reports whether the CRDs of release are embedded.
func isEmbedded(release string) bool {
	_, ok := releaseDirs()[release]
	return ok
}

// Set is the compiled CRDs of one or more mesh releases, by group, version and kind.
// Releases added with Defer are compiled on the first lookup in one of their groups.
type Set struct {
	kinds    map[schema.GroupVersionKind]*compiled
	deferred []*deferredRelease
}

// lookup is the compiled schema of gvk, compiling what a deferred release of its
// group needs first if need be; nil when no release serves it. Safe for concurrent
// use: the eager map is never written after Load, a deferred release's maps only
// inside their Once (or a sync.Map).
func (s *Set) lookup(gvk schema.GroupVersionKind) *compiled {
	if c := s.kinds[gvk]; c != nil {
		return c
	}
	for _, d := range s.deferred {
		if c := d.lookup(gvk); c != nil {
			return c
		}
	}
	return nil
}

// compiled is one served version of one CRD, ready to check objects.
type compiled struct {
	structural *structuralschema.Structural
	// built are the validators (checkers), built on the first Check of the
	// version from props: the set of a process that never runs the schema layer
	// (the webhook with --schema-check never, or auto where the installed CRDs
	// are the embedded ones) keeps only the structural schemas.
	props      *apiextensions.JSONSchemaProps
	once       sync.Once
	built      atomic.Pointer[checkers]
	deprecated string // deprecation warning of a deprecated version
	// embedded and listTypes say whether the schema has nodes the embedded-resource
	// and list-type checks look at (walks.go); without, Check skips them.
	embedded, listTypes bool
	// defaults says whether a node of the schema has a default: without one,
	// the API server's defaulting changes nothing and decode skips it.
	defaults bool
	crd      *crdSource // the CRD this version comes from
}

// checkers are what Check runs beside the structural schema: the API server's
// validator and CEL rules. Built once per version, on first use, because they are
// most of a compiled release's memory (the CEL programs of Kuma's and Linkerd's
// CRDs and kube-openapi's schemas held ~10 MB of a 15 MB idle webhook heap), and
// a webhook that leaves the schema to the API server never needs them.
type checkers struct {
	// validator is the API server's validator as apiextensions-apiserver builds it;
	// trees checks with the same kube-openapi code, its sub-validators kept
	// between objects (see validatorTrees). Check uses trees; the tests compare
	// both.
	validator apiservervalidation.SchemaValidator
	trees     *validatorTrees
	cel       *cel.Validator // nil when the schema has no CEL rules
	// err is why the validator could not be built (never for an embedded
	// release: TestEveryReleaseChecks builds them all); Check then has no schema
	// for the version, as for a kind the set does not know.
	err error
}

// checkers are c's validators, built on the first call. Safe for concurrent use.
func (c *compiled) checkers() *checkers {
	c.once.Do(func() {
		c.built.Store(newCheckers(c.props, c.structural))
		c.props = nil // only the validators read it
	})
	return c.built.Load()
}

// newCheckers builds the checkers of the version whose schema is props (st, its
// structural form).
func newCheckers(props *apiextensions.JSONSchemaProps, st *structuralschema.Structural) *checkers {
	v, openapi, err := apiservervalidation.NewSchemaValidator(props)
	if err != nil {
		return &checkers{err: err}
	}
	k := &checkers{validator: v, trees: newValidatorTrees(openapi)}
	if hasCEL(st) {
		k.cel = cel.NewValidator(st, true, celconfig.PerCallLimit)
	}
	return k
}

// Load compiles the CRDs of the named releases ("kuma-2.14", "linkerd-edge-26.8.3"). It fails on an
// unknown release or a CRD the API server itself would refuse to serve. The files
// of a release are parsed and compiled on GOMAXPROCS goroutines: every door loads
// them before its first object, and on one core that wait was most of a small
// lint's run.
func Load(releases ...string) (*Set, error) {
	s := &Set{kinds: map[schema.GroupVersionKind]*compiled{}}
	for _, r := range releases {
		paths, err := releaseFiles(r)
		if err != nil {
			return nil, err
		}
		files := make([]loadedFile, len(paths))
		eachParallel(len(paths), func(i int) { files[i] = loadFile(r, paths[i]) })
		for _, f := range files { // in file name order, as one goroutine would
			if f.err != nil {
				return nil, f.err
			}
			maps.Copy(s.kinds, f.kinds)
		}
	}
	return s, nil
}

// loadedFile is one CRD file of a release, compiled.
type loadedFile struct {
	kinds map[schema.GroupVersionKind]*compiled
	err   error
}

// loadFile parses and compiles the CRD file p of release r.
func loadFile(r, p string) loadedFile {
	crd, err := readCRD(r, p)
	if err != nil {
		return loadedFile{err: err}
	}
	kinds, err := compileVersions(crd)
	if err != nil {
		return loadedFile{err: fmt.Errorf("%s: %s: %w", r, path.Base(p), err)}
	}
	return loadedFile{kinds: kinds}
}

// eachParallel calls fn(0) … fn(n-1) on up to GOMAXPROCS goroutines and returns
// when all have returned.
func eachParallel(n int, fn func(int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				fn(i)
			}
		})
	}
	wg.Wait()
}

// CRDs returns the CustomResourceDefinitions of the named releases as the mesh
// installs them, for a test control plane that should refuse what a cluster running
// that release refuses.
func CRDs(releases ...string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, r := range releases {
		paths, err := releaseFiles(r)
		if err != nil {
			return nil, err
		}
		for _, p := range paths {
			crd, err := readCRD(r, p)
			if err != nil {
				return nil, err
			}
			out = append(out, crd)
		}
	}
	return out, nil
}

// crdFileParts reads a CRD's group and plural off the name of its embedded file
// (<group>_<plural>.json, the layout controller-gen writes); ok is false for other
// names. The lazy compile and Gateway API detection find files by it, without
// decoding them.
func crdFileParts(p string) (group, plural string, ok bool) {
	return strings.Cut(strings.TrimSuffix(path.Base(p), ".json"), "_")
}

// releaseFiles lists the embedded CRD files of release r, in file name order.
func releaseFiles(r string) ([]string, error) {
	dir, ok := releaseDirs()[r]
	if !ok {
		return nil, fmt.Errorf("no CRDs for %q; known: %s", r, strings.Join(releaseNames(), ", "))
	}
	paths, err := fs.Glob(embedded, path.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if base, ok := releaseBase()[dir]; ok {
		shared, err := fs.Glob(embedded, path.Join(base, "*.json"))
		if err != nil {
			return nil, err
		}
		for _, p := range shared {
			if !slices.ContainsFunc(paths, func(q string) bool { return path.Base(q) == path.Base(p) }) {
				paths = append(paths, p)
			}
		}
		slices.SortFunc(paths, func(a, b string) int { return strings.Compare(path.Base(a), path.Base(b)) })
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s: no CRD files in %s", r, dir)
	}
	return paths, nil
}

// readCRD parses the embedded CRD file p of release r. Unknown fields are an
// error, as they were when the files were read as YAML strictly.
func readCRD(r, p string) (*apiextensionsv1.CustomResourceDefinition, error) {
	data, err := fs.ReadFile(embedded, p)
	if err != nil {
		return nil, err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := strictCRDDecoder(data).Decode(crd); err != nil {
		return nil, fmt.Errorf("%s: %s: %w", r, path.Base(p), err)
	}
	return crd, nil
}

// strictCRDDecoder decodes one CRD from data, refusing unknown fields.
func strictCRDDecoder(data []byte) *json.Decoder {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec
}

func releaseNames() []string {
	var out []string
	for k := range releaseDirs() {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// compileVersions compiles every served version of crd.
func compileVersions(crd *apiextensionsv1.CustomResourceDefinition) (map[schema.GroupVersionKind]*compiled, error) {
	out := map[schema.GroupVersionKind]*compiled{}
	src := &crdSource{name: crd.Name, crd: crd}
	for _, v := range crd.Spec.Versions {
		if !v.Served || v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		var props apiextensions.JSONSchemaProps
		if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, &props, nil); err != nil {
			return nil, fmt.Errorf("version %s: %w", v.Name, err)
		}
		c, err := compile(&props)
		if err != nil {
			return nil, fmt.Errorf("version %s: %w", v.Name, err)
		}
		c.crd = src
		if v.Deprecated {
			c.deprecated = fmt.Sprintf("%s/%s %s is deprecated", crd.Spec.Group, v.Name, crd.Spec.Names.Kind)
			if v.DeprecationWarning != nil {
				c.deprecated = *v.DeprecationWarning
			}
		}
		out[schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}] = c
	}
	return out, nil
}

func compile(props *apiextensions.JSONSchemaProps) (*compiled, error) {
	st, err := structuralschema.NewStructural(props)
	if err != nil {
		return nil, err
	}
	if errs := structuralschema.ValidateStructural(nil, st); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	c := &compiled{structural: st, embedded: hasEmbeddedResource(st), listTypes: hasListType(st), defaults: hasDefault(st)}
	c.props = props
	return c, nil
}

// hasCEL reports whether any node of s has x-kubernetes-validations rules.
func hasCEL(s *structuralschema.Structural) bool {
	if s == nil {
		return false
	}
	if len(s.XValidations) > 0 {
		return true
	}
	for _, p := range s.Properties {
		if hasCEL(&p) {
			return true
		}
	}
	if s.Items != nil && hasCEL(s.Items) {
		return true
	}
	return s.AdditionalProperties != nil && hasCEL(s.AdditionalProperties.Structural)
}

// Knows reports whether the set has a schema for gvk.
func (s *Set) Knows(gvk schema.GroupVersionKind) bool { return s.lookup(gvk) != nil }

// Kinds lists the group-version-kinds the set has schemas for, sorted.
func (s *Set) Kinds() []schema.GroupVersionKind {
	out := make([]schema.GroupVersionKind, 0, len(s.kinds))
	for k := range s.kinds {
		out = append(out, k)
	}
	for _, d := range s.deferred {
		if d.load() == nil {
			for k := range d.kinds {
				out = append(out, k)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// BuildCheckers builds the validators of every kind of the set whose CRD is named
// in crds (every kind when crds is empty), compiling deferred releases first, and
// returns the first error. Check builds them on first use; a webhook that will
// run the schema layer on a kind's objects builds them here instead, before a
// request has to wait for it.
func (s *Set) BuildCheckers(crds ...string) error {
	for _, gvk := range s.Kinds() {
		c := s.lookup(gvk)
		if c == nil || (len(crds) > 0 && !slices.Contains(crds, c.crd.name)) {
			continue
		}
		if err := c.checkers().err; err != nil {
			return fmt.Errorf("%s: %v: %w", c.crd.name, gvk, err)
		}
	}
	return nil
}

// Built reports whether the validators of gvk are built (BuildCheckers, or a
// Check of one of its objects): what the schema layer holds in memory for the
// kind, which a webhook that leaves the schema to the API server should not.
func (s *Set) Built(gvk schema.GroupVersionKind) bool {
	c := s.lookup(gvk)
	if c == nil {
		return false
	}
	return c.built.Load() != nil
}
