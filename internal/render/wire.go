// Package render is what meshguard and its renderer executable,
// meshguard-render, share: the request and answer of one Helm render or
// kustomize build, the protocol version both sides check, and the path guards
// that keep a render inside the linted roots. It links neither Helm nor
// kustomize's builder: meshguard imports it, and only meshguard-render (package
// render/child) pays for those libraries' initialisers (docs/performance.md,
// "Start-up").
package render

import (
	"bufio"
	"bytes"
	"errors"

	"sigs.k8s.io/kustomize/api/resource"
)

// ProtocolVersion is the version of Request and Answer. meshguard refuses an
// answer of another version, so a meshguard and a meshguard-render of
// different releases never misread each other; bump it on any change of the
// fields' meaning or of the framing. Version 2: one renderer process serves a
// run's requests, one JSON line each way per render.
const ProtocolVersion = 2

// ExecutableName is the renderer's file name (plus ".exe" on Windows), looked
// up next to meshguard and on $PATH.
const ExecutableName = "meshguard-render"

// EnvRenderer names the environment variable that points meshguard at a
// renderer executable, overriding the lookup (the --renderer flag sets it too).
const EnvRenderer = "MESHGUARD_RENDERER"

// Request is one render, read by meshguard-render from its standard input.
// Exactly one of Helm and Kustomize is set.
type Request struct {
	Protocol  int               `json:"protocol"`
	Helm      *HelmRequest      `json:"helm,omitempty"`
	Kustomize *KustomizeRequest `json:"kustomize,omitempty"`
	// MaxMemory bounds the renderer's memory (address space beyond what it had
	// at start, on Linux); 0 means no bound.
	MaxMemory int64 `json:"maxMemory,omitempty"`
}

// Answer is what meshguard-render writes back: its own protocol version, and
// the result of the one render asked for. Logs are what the libraries printed
// (Go's log package), for meshguard to report as notes.
type Answer struct {
	Protocol  int              `json:"protocol"`
	Helm      *HelmResult      `json:"helm,omitempty"`
	Kustomize *KustomizeResult `json:"kustomize,omitempty"`
	// Err is a failure of the request itself (a protocol mismatch, no render
	// asked for), not of the render.
	Err  string   `json:"err,omitempty"`
	Logs []string `json:"logs,omitempty"`
}

// HelmRequest is one chart to render, with everything `helm template` would
// take from its flags.
type HelmRequest struct {
	Dir string `json:"dir"`
	// Values are the values under ValueFiles (kustomize's valuesInline).
	Values      map[string]any `json:"values,omitempty"`
	ValueFiles  []string       `json:"valueFiles,omitempty"`
	Set         []string       `json:"set,omitempty"`
	SetString   []string       `json:"setString,omitempty"`
	ReleaseName string         `json:"releaseName"`
	Namespace   string         `json:"namespace"`
	APIVersions []string       `json:"apiVersions,omitempty"`
	KubeVersion string         `json:"kubeVersion,omitempty"`
	AllowRemote bool           `json:"allowRemote,omitempty"`
	MaxBytes    int64          `json:"maxBytes"`
}

// HelmResult is a chart's name and its rendered templates by name
// ("chart/templates/x.yaml"), or the error with the template file and line
// Helm named.
type HelmResult struct {
	Chart     string            `json:"chart,omitempty"`
	Templates map[string]string `json:"templates,omitempty"`
	Err       string            `json:"err,omitempty"`
	ErrFile   string            `json:"errFile,omitempty"`
	ErrLine   int               `json:"errLine,omitempty"`
	Logs      []string          `json:"logs,omitempty"`
}

// KustomizeRequest is one kustomize build of Dir, the code `kubectl kustomize`
// runs, with the root kustomization File served with Content (meshguard adds
// origin annotations to learn where each object came from).
type KustomizeRequest struct {
	Dir     string `json:"dir"`
	File    string `json:"file"`
	Content []byte `json:"content"`
	// RemoveOrigin drops the origin annotations meshguard added from the output.
	RemoveOrigin bool `json:"removeOrigin,omitempty"`
	// Roots are the linted paths (canonical): what a symlink read by the build
	// may point into, besides the directories of the kustomizations it reads.
	Roots          []string `json:"roots,omitempty"`
	AllowRemote    bool     `json:"allowRemote,omitempty"`
	LoadRestrictor string   `json:"loadRestrictor,omitempty"`
	// EnableHelm inflates helmCharts with the Helm SDK; HelmDefaults carries
	// the run's Helm options (API and Kubernetes versions, output bound) for
	// those renders.
	EnableHelm   bool        `json:"enableHelm,omitempty"`
	HelmDefaults HelmRequest `json:"helmDefaults"`
	MaxBytes     int64       `json:"maxBytes"`
}

// KustomizeResult is the build's resources in order, each printed as
// `kubectl kustomize` prints it with the origin kustomize recorded, and every
// file the build read (canonical paths); or the error that stopped it.
type KustomizeResult struct {
	Resources []Resource `json:"resources,omitempty"`
	Reads     []string   `json:"reads,omitempty"`
	Err       string     `json:"err,omitempty"`
}

// Resource is one object of a kustomize build.
type Resource struct {
	YAML   string           `json:"yaml"`
	Origin *resource.Origin `json:"origin,omitempty"`
}

// VirtualPrefix starts the names of the files that hold a helmCharts entry's
// rendered chart, which exist only inside the build's file system; objects
// from them are reported against the kustomization.
const VirtualPrefix = ".meshguard-helm-"

// CappedBuffer keeps the first Max bytes written to it and drops the rest, so
// a chatty library or child cannot grow memory without end.
type CappedBuffer struct {
	bytes.Buffer
	Max int
}

// Write keeps what fits and reports everything written.
func (b *CappedBuffer) Write(p []byte) (int, error) {
	if room := b.Max - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// ErrLineTooLong is a request or answer line longer than its reader's bound.
var ErrLineTooLong = errors.New("line too long")

// ReadLine reads one line of the render protocol (a JSON value and its
// newline) of at most limit bytes, and returns it without the newline. A longer
// line is ErrLineTooLong, read no further than the bound; at the end of input
// it returns what is left with io.EOF. Both sides read with it: the renderer
// its requests, meshguard the answers.
func ReadLine(r *bufio.Reader, limit int64) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if int64(len(line)+len(chunk)) > limit+1 {
			return nil, ErrLineTooLong
		}
		line = append(line, chunk...)
		switch err {
		case nil:
			return line[:len(line)-1], nil
		case bufio.ErrBufferFull:
			continue
		}
		return line, err
	}
}
