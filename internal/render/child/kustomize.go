package child

import (
	"fmt"
	"slices"

	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"

	"github.com/meshguard/meshguard/internal/render"
)

// loadRestrictionsNone is kustomize's --load-restrictor value that lets a
// kustomization read files outside its directory.
const loadRestrictionsNone = "LoadRestrictionsNone"

// kustomizeBuild runs the kustomize build of req.Dir, the code `kubectl
// kustomize dir` runs: krusty with its default options (load restrictions to
// the root unless req says otherwise, no plugins) on the real file system,
// read through recordingFS, which serves the prepared root kustomization,
// refuses links out of the roots and records every file read. The output is
// bounded by req.MaxBytes.
func kustomizeBuild(req render.KustomizeRequest) render.KustomizeResult {
	reads := map[string]bool{}
	fsys, err := newRecordingFS(req, reads)
	if err != nil {
		return render.KustomizeResult{Err: err.Error()}
	}
	if req.EnableHelm {
		fsys.inflate = func(dir string, data []byte) ([]byte, map[string][]byte, error) {
			return inflateHelmCharts(req, dir, data)
		}
	}
	opts := krusty.MakeDefaultOptions()
	if req.LoadRestrictor == loadRestrictionsNone {
		opts.LoadRestrictions = types.LoadRestrictionsNone
	}
	m, err := krusty.MakeKustomizer(opts).Run(fsys, req.Dir)
	if err != nil {
		if refused := fsys.refusal(); refused != nil {
			err = refused
		}
		return render.KustomizeResult{Err: err.Error()}
	}
	var res render.KustomizeResult
	total := int64(0)
	for i, r := range m.Resources() {
		origin, err := r.GetOrigin()
		if err != nil {
			return render.KustomizeResult{Err: err.Error()}
		}
		if req.RemoveOrigin {
			if err := r.SetOrigin(nil); err != nil {
				return render.KustomizeResult{Err: err.Error()}
			}
		}
		y, err := r.AsYAML()
		if err != nil {
			return render.KustomizeResult{Err: err.Error()}
		}
		if total += int64(len(y)); i > 0 {
			total += int64(len("---\n"))
		}
		if total > req.MaxBytes {
			return render.KustomizeResult{Err: fmt.Sprintf("build output is larger than %d bytes (--render-max-bytes)", req.MaxBytes)}
		}
		res.Resources = append(res.Resources, render.Resource{YAML: string(y), Origin: origin})
	}
	for p := range reads {
		res.Reads = append(res.Reads, p)
	}
	slices.Sort(res.Reads)
	return res
}

// isKustomizationFile reports whether name is one of the file names kustomize
// looks for in a directory.
func isKustomizationFile(name string) bool {
	return slices.Contains(konfig.RecognizedKustomizationFileNames(), name)
}

// canonical and within are render's, under the names the guards were written with.
func canonical(path string) (string, error) { return render.Canonical(path) }

func within(p string, roots []string) bool { return render.Within(p, roots) }
