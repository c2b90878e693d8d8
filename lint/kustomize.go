package lint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"

	"github.com/meshguard/meshguard/internal/render"
)

// Rendering says where a rendered object sits in the render's output, next to
// the source position the Document itself carries.
type Rendering struct {
	// By is the kustomization file whose build, or the Chart.yaml whose render,
	// produced the object.
	By string
	// Line is the 1-based line where the object starts in the output: the whole
	// build as `kubectl kustomize` prints it, or the one rendered Helm template.
	Line int

	lines lineIndex
	// patches are documents of other files a kustomize build read (patches)
	// that name this object, for fields the source file does not have.
	patches []*Document
	// templateLines maps the lines of a rendered Helm template to its source
	// (see templateLines); nil for kustomize builds.
	templateLines []int
}

// LineOf is Document.LineOf for the render's output: the line of fieldPath (or
// of its nearest ancestor) there.
func (r *Rendering) LineOf(fieldPath string) int {
	d := Document{Line: r.Line, lines: r.lines}
	return d.LineOf(fieldPath)
}

// isKustomizationFile reports whether name is one of the file names kustomize
// looks for in a directory.
func isKustomizationFile(name string) bool {
	return slices.Contains(konfig.RecognizedKustomizationFileNames(), name)
}

// kustomizationIn returns the path of the kustomization file in dir, or "" when
// there is none. With several, kustomize itself refuses to build; the first is
// named in that error.
func kustomizationIn(dir string) string {
	for _, name := range konfig.RecognizedKustomizationFileNames() {
		p := filepath.Join(dir, name)
		if info, err := os.Stat(p); err == nil && !info.IsDir() {
			return p
		}
	}
	return ""
}

// build is the outcome of rendering one kustomization directory or Helm chart.
type build struct {
	dir  string
	file string // the kustomization file (or Chart.yaml), as the user's path spells it
	docs []Document
	// reads holds the cleaned absolute paths of every file the build read, so
	// the files it consumed are not linted again as raw files.
	reads map[string]bool
	// component is set for a kind: Component, which is only built as part of
	// the kustomizations that use it.
	component bool
	// ownsAll is set for a Helm chart, which reads every file under it.
	ownsAll bool
	failed  bool
}

// renderDir runs the kustomize build of dir, the code `kubectl kustomize dir`
// runs (krusty with its default options: load restrictions to the root, no
// plugins, on the real file system), in the renderer process under the run's
// bounds. Origin annotations are switched on to learn which file each object
// came from and are removed again before linting.
func (r *renderer) renderDir(dir string) (b *build) {
	b = &build{dir: dir, file: kustomizationIn(dir), reads: map[string]bool{}}
	if b.file == "" {
		b.file = filepath.Join(dir, konfig.DefaultKustomizationFileName())
	}
	fail := func(err error) *build {
		b.failed = true
		b.docs = []Document{{File: b.file, Line: 1, ErrLine: 1, Err: fmt.Errorf("kustomize build %s failed: %v", dir, err)}}
		return b
	}
	data, err := readBounded(b.file)
	if err != nil {
		return fail(err)
	}
	if len(data) > MaxFileBytes {
		return fail(fmt.Errorf("%s is larger than %d MiB", b.file, MaxFileBytes>>20))
	}
	if isComponent(data) {
		b.component = true
		b.docs = []Document{{File: b.file, Line: 1, skip: "kustomize Component: linted as part of the kustomizations that use it, not on its own"}}
		return b
	}
	patched, added, _ := withOriginAnnotations(data)
	o := r.opts.Render
	helm := r.helmRequest(dir)
	helm.ValueFiles, helm.Set, helm.SetString = nil, nil, nil
	res, err := r.kustomize(render.KustomizeRequest{Dir: dir, File: b.file, Content: patched, RemoveOrigin: added,
		Roots: o.roots, AllowRemote: o.AllowRemote, LoadRestrictor: o.LoadRestrictor,
		EnableHelm: o.EnableHelm, HelmDefaults: helm, MaxBytes: o.MaxBytes})
	if err == nil && res.Err != "" {
		err = errors.New(res.Err)
	}
	if err != nil {
		return fail(err)
	}
	for _, p := range res.Reads {
		b.reads[p] = true
	}
	docs, err := renderedDocuments(res.Resources, b, o.MaxBytes)
	if err != nil {
		return fail(err)
	}
	b.docs = docs
	return b
}

// renderedDocuments prints the build as `kubectl kustomize` does (resources
// joined by "---"), parses that output with the loader and gives every object
// the position of its origin. The renderer has already dropped the origin
// annotations meshguard asked for, so they never reach the linter or
// `meshguard default`.
func renderedDocuments(resources []render.Resource, b *build, maxBytes int64) ([]Document, error) {
	var out strings.Builder
	var starts []int
	var origins []*resource.Origin
	line := 1
	for i, res := range resources {
		y, origin := []byte(res.YAML), res.Origin
		if i > 0 {
			out.WriteString("---\n")
			line++
		}
		starts = append(starts, line)
		origins = append(origins, origin)
		out.Write(y)
		line += countLines(y)
	}
	if int64(out.Len()) > maxBytes {
		return nil, fmt.Errorf("build output is larger than %d bytes (--render-max-bytes)", maxBytes)
	}
	rendered := LoadBytes(b.file, []byte(out.String()))
	src := sources{}
	patches := src.patchDocs(b, origins)
	for i := range rendered {
		d := &rendered[i]
		k, found := slices.BinarySearch(starts, d.Line)
		if !found {
			k = max(k-1, 0)
		}
		d.Rendered = &Rendering{By: b.file, Line: d.Line, lines: d.lines}
		if d.Object == nil {
			// kustomize printed something the loader cannot take: report it on
			// the kustomization, at its line in the build output.
			d.File = b.file
			continue
		}
		name := src.place(d, origins[k], b.dir, b.file)
		if isVirtual(d.File) {
			// A chart helmCharts inflated: the kustomization that lists it
			// is the place to edit, as for kustomize's own generators.
			d.File, d.Line = filepath.Join(filepath.Dir(d.File), filepath.Base(b.file)), 1
			if k := kustomizationIn(filepath.Dir(d.File)); k != "" {
				d.File = k
			}
		}
		d.Rendered.patches = matchPatches(patches, d.Object, name)
	}
	return rendered, nil
}

// isVirtual reports whether a document's file is one of a build's own files
// (a chart that helmCharts inflated).
func isVirtual(file string) bool {
	return strings.HasPrefix(filepath.Base(file), render.VirtualPrefix)
}

// isComponent reports whether a kustomization file declares kind: Component.
func isComponent(data []byte) bool {
	var k struct {
		Kind string `yaml:"kind"`
	}
	return yaml.Unmarshal(data, &k) == nil && k.Kind == types.ComponentKind
}
