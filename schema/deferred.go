package schema

import (
	"maps"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// deferredRelease is a release compiled on first use, file by file: a linter run
// over one mesh's manifests need not pay for compiling the other mesh's CRDs
// (Linkerd's bundled Gateway API routes and their CEL rules take longer than all of
// Kuma's), nor for the CRDs of kinds it never meets (parsing and compiling Kuma's
// 31 CRDs cost a 10,000-policy `meshguard lint` of four kinds 5% of its CPU).
type deferredRelease struct {
	name   string
	groups []string
	files  []*deferredFile
	// once compiles every file (Kinds, DeferredErr, a kind no file name gives);
	// kinds is then the whole release, nil when a file failed.
	once  sync.Once
	kinds map[schema.GroupVersionKind]*compiled
	err   error
	// found are the kinds resolved so far, so that a lookup is one map read.
	found sync.Map // schema.GroupVersionKind → *compiled
}

// deferredFile is one CRD file of a deferred release, compiled on first use.
type deferredFile struct {
	release, path string
	// group and plural are read from the file name ("kuma.io_meshretries.json"),
	// the layout controller-gen writes; empty for other names.
	group, plural string
	once          sync.Once
	kinds         map[schema.GroupVersionKind]*compiled
	err           error
}

// Defer adds release r, serving the API groups listed, to be compiled on the first
// lookup of a kind in one of those groups: only the CRD file of that kind when its
// name says which (group_plural.json), the whole release otherwise. It fails only
// on an unknown release; a CRD that does not compile (which the package's tests
// rule out for every embedded release) leaves its kinds without a schema, as
// DeferredErr reports.
func (s *Set) Defer(r string, groups ...string) error {
	paths, err := releaseFiles(r)
	if err != nil {
		return err
	}
	d := &deferredRelease{name: r, groups: groups}
	for _, p := range paths {
		f := &deferredFile{release: r, path: p}
		if g, plural, ok := crdFileParts(p); ok {
			f.group, f.plural = g, plural
		}
		d.files = append(d.files, f)
	}
	s.deferred = append(s.deferred, d)
	return nil
}

// DeferredErr compiles every deferred release now and returns the first error.
func (s *Set) DeferredErr() error {
	for _, d := range s.deferred {
		if err := d.load(); err != nil {
			return err
		}
	}
	return nil
}

// load compiles every file of d, on GOMAXPROCS goroutines.
func (d *deferredRelease) load() error {
	d.once.Do(func() {
		eachParallel(len(d.files), func(i int) { d.files[i].load() })
		kinds := map[schema.GroupVersionKind]*compiled{}
		for _, f := range d.files { // in file name order, as Load
			if f.err != nil {
				d.err = f.err
				return
			}
			maps.Copy(kinds, f.kinds)
		}
		d.kinds = kinds
	})
	return d.err
}

func (f *deferredFile) load() error {
	f.once.Do(func() {
		lf := loadFile(f.release, f.path)
		f.kinds, f.err = lf.kinds, lf.err
	})
	return f.err
}

// mayServe reports whether f's name says it is the CRD of gvk's kind: its plural
// is the kind's as controller-gen makes it (MeshRetry → meshretries, MeshTLS →
// meshtlses, Mesh → meshes, Dataplane → dataplanes). A wrong guess costs only a
// compile: the file's own kinds decide.
func (f *deferredFile) mayServe(gvk schema.GroupVersionKind) bool {
	if f.group != gvk.Group || f.plural == "" {
		return false
	}
	k := strings.ToLower(gvk.Kind)
	return f.plural == k+"s" || f.plural == k+"es" ||
		(strings.HasSuffix(k, "y") && f.plural == k[:len(k)-1]+"ies")
}

// lookup is the compiled schema of gvk in d, compiling what it needs: the file
// its name says serves gvk, else the whole release. Safe for concurrent use.
func (d *deferredRelease) lookup(gvk schema.GroupVersionKind) *compiled {
	if !slices.Contains(d.groups, gvk.Group) {
		return nil
	}
	if c, ok := d.found.Load(gvk); ok {
		return c.(*compiled)
	}
	var c *compiled
	for _, f := range d.files {
		if f.mayServe(gvk) && f.load() == nil {
			if c = f.kinds[gvk]; c != nil {
				break
			}
		}
	}
	if c == nil && d.load() == nil {
		c = d.kinds[gvk]
	}
	if c != nil {
		d.found.Store(gvk, c)
	}
	return c
}
