package lint

import (
	"time"
)

// Defaults of the rendering bounds (docs/lint.md, "Linting an untrusted pull
// request"). A local kustomize build or Helm render takes milliseconds and a
// few MiB; the bounds are there for hostile input: a template that allocates
// without end, or a remote resource that never answers.
const (
	// DefaultRenderTimeout bounds one kustomize build or Helm render.
	DefaultRenderTimeout = 60 * time.Second
	// DefaultRenderMaxBytes bounds what one render may produce: the rendered
	// manifests of a chart, or a kustomize build's output. It equals the
	// loader's limit for one file, since a render is read like one.
	DefaultRenderMaxBytes = MaxFileBytes
	// DefaultRenderMaxMemory bounds the memory of the process that renders one
	// Helm chart (address space beyond what the process had at start).
	DefaultRenderMaxMemory = 1 << 30
)

// Load restrictors kustomize knows (kustomize build --load-restrictor).
const (
	LoadRestrictionsRootOnly = "LoadRestrictionsRootOnly"
	LoadRestrictionsNone     = "LoadRestrictionsNone"
)

// RenderOptions are the knobs of Helm and kustomize rendering that mirror the
// flags of `helm template` and `kustomize build`, and the bounds that make
// rendering a repository one does not trust safe.
type RenderOptions struct {
	// Set and SetString are helm template's --set and --set-string, applied in
	// that order after the values files.
	Set, SetString []string
	// ReleaseName is the Helm release name; "" means "release-name", as
	// helm template names a release it is given no name for.
	ReleaseName string
	// APIVersions are the API versions .Capabilities.APIVersions reports on
	// top of Kubernetes' built-in ones; nil means the versions of every kind
	// in the registry meshguard guards (DefaultAPIVersions).
	APIVersions []string
	// KubeVersion is .Capabilities.KubeVersion; "" means Helm's default.
	KubeVersion string
	// EnableHelm inflates kustomize helmCharts with the Helm SDK, as
	// kustomize build --enable-helm does with a helm binary.
	EnableHelm bool
	// LoadRestrictor is kustomize's --load-restrictor; "" means
	// LoadRestrictionsRootOnly.
	LoadRestrictor string
	// AllowRemote lets kustomize fetch remote resources (URLs, git) and
	// Helm's values schema resolve remote references. Off, anything that would
	// reach the network is an input error naming --allow-remote.
	AllowRemote bool
	// MaxBytes bounds the output of one render; 0 means DefaultRenderMaxBytes.
	MaxBytes int64
	// MaxMemory bounds the memory of the renderer process of one render; 0
	// means DefaultRenderMaxMemory.
	MaxMemory int64
	// Renderer is the path of the meshguard-render executable that runs every
	// Helm render and kustomize build in a process of its own, where memory and
	// time can be bounded for real. "" looks it up on first use (FindRenderer):
	// plain YAML never needs it.
	Renderer string
	// Version is meshguard's own version, named in the install hint when the
	// renderer is missing or speaks another protocol.
	Version string
	// roots are the canonical paths given to LoadAll: what a symlink inside a
	// chart or kustomization may point into.
	roots []string
}

// renderer runs the kustomize builds and Helm renders of one LoadAll, one
// after the other.
type renderer struct {
	opts    LoadOptions
	timeout time.Duration
	// exe is the renderer executable once found, exeErr why it was not; the
	// lookup runs at the first render of the run, once.
	exe      string
	exeErr   error
	lookedUp bool
	// files reads the plain files of the run's PATHs (see fileSet).
	files *fileSet
	// proc is the renderer process that serves the run's renders in turn,
	// started at the first; nil after one was killed (the next starts anew).
	proc *rendererProc
}

func newRenderer(o LoadOptions, paths []string) *renderer {
	r := &renderer{opts: o, timeout: o.RenderTimeout}
	if r.timeout <= 0 {
		r.timeout = DefaultRenderTimeout
	}
	if r.opts.Namespace == "" {
		r.opts.Namespace = "default"
	}
	ro := &r.opts.Render
	if ro.MaxBytes <= 0 {
		ro.MaxBytes = DefaultRenderMaxBytes
	}
	if ro.MaxMemory <= 0 {
		ro.MaxMemory = DefaultRenderMaxMemory
	}
	if ro.ReleaseName == "" {
		ro.ReleaseName = helmReleaseName
	}
	if ro.LoadRestrictor == "" {
		ro.LoadRestrictor = LoadRestrictionsRootOnly
	}
	roots := NewRoots(paths)
	ro.roots = roots.real
	r.files = newFileSet(roots)
	return r
}

// renderUnits renders the kustomization or chart in dir and hands fn the unit
// of its finished documents.
func (r *renderer) renderUnits(dir string, chart bool, fn func(unit)) {
	if chart {
		fn(r.renderChart(dir).unit())
		return
	}
	fn(r.renderDir(dir).unit())
}

func (b *build) unit() unit {
	return unit{file: b.file, docs: b.docs, done: true}
}
