package lint

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/meshguard/meshguard/internal/render"
)

// minChunksPerWorker keeps small inputs on one goroutine, where starting workers
// would cost more than it saves.
const minChunksPerWorker = 32

// Load reads every path (a file, a directory searched recursively for .yaml, .yml
// and .json files, or "-" for stdin) and returns its documents in input order,
// leaving out documents that are not Kubernetes objects. It renders nothing:
// LoadAll with LoadOptions.Kustomize does. It never fails as a whole: unreadable
// files and unparsable documents come back as Documents with Err set, so the
// caller can report them next to the findings of every other document. Documents
// are parsed in parallel; the order of the result does not depend on it.
func Load(paths []string, stdin io.Reader) []Document {
	return LoadAll(paths, stdin, LoadOptions{}).Docs
}

// LoadOptions say how LoadAll treats what it finds.
type LoadOptions struct {
	// Kustomize renders every directory that holds a kustomization file with the
	// kustomize library and returns the rendered objects instead of the files the
	// kustomization consumes; see docs/lint.md for the rule.
	Kustomize bool
	// Helm renders every directory that holds a Chart.yaml as `helm template`
	// does and returns the rendered manifests instead of the chart's files.
	Helm bool
	// HelmValues are values files merged, in order, over each chart's own
	// values (helm template -f).
	HelmValues []string
	// Namespace is the release namespace of Helm renders; "" means "default".
	Namespace string
	// RenderTimeout bounds each build or render; 0 means DefaultRenderTimeout.
	RenderTimeout time.Duration
	// Render holds the remaining Helm and kustomize options and the bounds of
	// rendering (render.go).
	Render RenderOptions
	// NoFieldLines lets each parsed document's YAML node tree go once the object
	// is read, keeping the line of its metadata.name alone: LineOf answers that
	// path as before and the document's line for any other. It is for readers
	// that report nothing at a field (diff, whose notes name a document's line and
	// where a duplicate is defined): the node trees are the larger part of what a
	// loaded document keeps alive, so the collector marks a heap a third the size.
	NoFieldLines bool
}

// Loaded is what LoadAll found: the documents to lint and what it left out.
type Loaded struct {
	Docs []Document
	// Skipped lists documents and files that were not linted and why (YAML that is
	// not a Kubernetes object, files no kustomization uses), so the doors can say
	// so instead of passing over them in silence.
	Skipped []Skip
}

// Skip is one document or file that was not linted.
type Skip struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

// LoadAll is Load with options, and it also returns the skipped documents.
func LoadAll(paths []string, stdin io.Reader, o LoadOptions) Loaded {
	var units []unit
	eachUnit(paths, stdin, o, func(u unit) { units = append(units, u) })
	parseUnits(units, o.NoFieldLines)
	return collect(units)
}

// eachUnit calls fn with every unit of paths in input order: the chunks of each
// file, a unit with err for a file that cannot be read, and with rendering on,
// the finished documents of each kustomize build or Helm render.
func eachUnit(paths []string, stdin io.Reader, o LoadOptions, fn func(unit)) {
	r := newRenderer(o, paths)
	defer r.close()
	for _, p := range paths {
		if p == "-" {
			stdinUnits(stdin, fn)
			continue
		}
		info, err := os.Stat(p)
		if err != nil {
			fn(unit{file: p, err: err})
			continue
		}
		switch {
		case !info.IsDir() && o.Kustomize && isKustomizationFile(filepath.Base(p)):
			r.renderOnce(filepath.Dir(p), false, fn)
		case !info.IsDir() && o.Helm && filepath.Base(p) == chartFile:
			r.renderOnce(filepath.Dir(p), true, fn)
		case !info.IsDir():
			r.files.fileUnits(p, fn)
		case o.Kustomize || o.Helm:
			r.treeUnits(p, fn)
		default:
			for _, f := range r.files.walk(p) {
				r.files.walkedUnits(f, fn)
			}
		}
	}
}

// renderOnce renders the kustomization or chart in dir (a PATH named its
// kustomization file or Chart.yaml) unless a PATH before walked it already.
func (r *renderer) renderOnce(dir string, chart bool, fn func(unit)) {
	if real, err := realPath(dir); err == nil {
		if r.files.dirs[real] {
			return
		}
		r.files.dirs[real] = true
	}
	r.renderUnits(dir, chart, fn)
}

// stdinUnits reads standard input. When it is a regular file (a shell
// redirect), its size is checked before any work; a pipe is cut off at
// MaxFileBytes as it is read.
func stdinUnits(stdin io.Reader, fn func(unit)) {
	if f, ok := stdin.(*os.File); ok {
		if info, err := f.Stat(); err == nil && info.Mode().IsRegular() && info.Size() > MaxFileBytes {
			fn(unit{file: StdinName, err: fileTooLarge(info.Size())})
			return
		}
	}
	splitReader(StdinName, stdin, fn)
}

// LoadBytes parses the content of one file named name; tests, fuzzers and
// callers holding the bytes already use it directly. Documents that are not
// Kubernetes objects are left out, as Load does.
func LoadBytes(name string, data []byte) []Document {
	return assemble(splitUnits(name, data)).Docs
}

// unit is one piece of work: a chunk of a file, or a file that could not be read,
// or documents made already (a kustomize build, a skipped file), whose File and
// Index assemble keeps when done is set.
type unit struct {
	file  string
	chunk chunk
	err   error
	// oversize is the size of a chunk past MaxDocumentBytes that was not kept;
	// chunk.line is then its first line with content.
	oversize int
	docs     []Document
	done     bool
	// parsed marks a chunk whose docs are set already (a diff's twin, see
	// LoadPair): File and Index are still assemble's to set.
	parsed bool
}

func isManifest(name string) bool { return render.IsManifest(name) }

func splitUnits(name string, data []byte) []unit {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	chunks := splitDocuments(data)
	out := make([]unit, len(chunks))
	for i, c := range chunks {
		out[i] = unit{file: name, chunk: c}
	}
	return out
}

// assemble parses all units, on up to GOMAXPROCS goroutines, and concatenates
// their Documents in input order, numbering them per file; skipped documents
// go to Loaded.Skipped and take no number.
func assemble(units []unit) Loaded {
	parseUnits(units, false)
	return collect(units)
}

// parseUnits parses every unit, on up to GOMAXPROCS goroutines; noFieldLines
// is LoadOptions.NoFieldLines.
func parseUnits(units []unit, noFieldLines bool) {
	workers := min(runtime.GOMAXPROCS(0), len(units)/minChunksPerWorker)
	if workers <= 1 {
		for i := range units {
			units[i].parse(noFieldLines)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(units); i = int(next.Add(1) - 1) {
				units[i].parse(noFieldLines)
			}
		})
	}
	wg.Wait()
}

// collect concatenates the Documents of parsed units in input order, numbering
// them per file; skipped documents go to Loaded.Skipped and take no number.
func collect(units []unit) Loaded {
	var out Loaded
	index, file := 0, ""
	for i, u := range units {
		if i == 0 || u.file != file {
			index, file = 0, u.file
		}
		for _, d := range u.docs {
			if !u.done {
				d.File = u.file
			}
			if d.skip != "" {
				out.Skipped = append(out.Skipped, Skip{File: d.File, Line: d.Line, Reason: d.skip})
				continue
			}
			if !u.done {
				d.Index = index
				index++
			}
			out.Docs = append(out.Docs, d)
		}
	}
	return out
}

func (u *unit) parse(noFieldLines bool) {
	if u.done || u.parsed {
		return
	}
	if u.err != nil {
		u.docs = []Document{{Err: u.err}}
		return
	}
	if u.oversize > 0 {
		l := &loader{}
		l.fail(u.chunk.line, u.chunk.line, oversizeError(u.oversize))
		u.docs = l.docs
		return
	}
	u.docs = parseChunk(u.chunk)
	if noFieldLines {
		for i := range u.docs {
			u.docs[i].dropFieldLines()
		}
	}
	u.chunk = chunk{} // let the bytes go once parsed
}
