package main

import (
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/resource"
	kversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/meshguard/meshguard/lint"
)

// renderFlags are the flags of Helm and kustomize rendering that mirror
// `helm template` and `kustomize build`, plus the bounds that make linting an
// untrusted repository safe (docs/lint.md).
type renderFlags struct {
	set, setString []string
	releaseName    string
	apiVersions    []string
	kubeVersion    string
	enableHelm     bool
	loadRestrictor string
	allowRemote    bool
	timeout        time.Duration
	maxBytes       string
	maxMemory      string
	renderer       string
}

func (f *renderFlags) bind(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringArrayVar(&f.set, "set", nil, "Helm value for every rendered chart, as helm template --set (key=value, a.b=1,c=x; repeatable)")
	fs.StringArrayVar(&f.setString, "set-string", nil, "Helm string value, as helm template --set-string (repeatable)")
	fs.StringVar(&f.releaseName, "release-name", "release-name", "Helm release name of rendered charts (.Release.Name)")
	fs.StringSliceVar(&f.apiVersions, "api-versions", nil, "API versions charts see in .Capabilities.APIVersions besides Kubernetes' built-ins, as helm template --api-versions (default: every version of the kinds meshguard guards, e.g. kuma.io/v1alpha1)")
	fs.StringVar(&f.kubeVersion, "kube-version", "", "Kubernetes version charts see in .Capabilities.KubeVersion, as helm template --kube-version (default: Helm's)")
	fs.BoolVar(&f.enableHelm, "enable-helm", false, "inflate kustomize helmCharts with the Helm SDK, as kustomize build --enable-helm (no helm binary is run)")
	fs.StringVar(&f.loadRestrictor, "load-restrictor", lint.LoadRestrictionsRootOnly, "kustomize's --load-restrictor: LoadRestrictionsRootOnly (files only below each kustomization) or LoadRestrictionsNone")
	fs.BoolVar(&f.allowRemote, "allow-remote", false, "let kustomize fetch remote resources (URLs, git) and Helm value schemas resolve remote references; off, they are input errors")
	fs.DurationVar(&f.timeout, "render-timeout", lint.DefaultRenderTimeout, "time one kustomize build or Helm render may take")
	fs.StringVar(&f.maxBytes, "render-max-bytes", "64Mi", "output one render may produce (a quantity: 64Mi, 10M)")
	fs.StringVar(&f.maxMemory, "render-max-memory", "1Gi", "memory one Helm render or kustomize build may use, in its meshguard-render process (Linux: address-space limit)")
	fs.StringVar(&f.renderer, "renderer", "", "path of the meshguard-render executable that renders charts and kustomizations (default: $"+lint.RendererEnv+", else meshguard-render next to this executable, else on $PATH; plain YAML never needs it)")
}

// options turns the flags into the loader's render options, or a usage error.
func (f *renderFlags) options() (lint.RenderOptions, time.Duration, error) {
	if f.loadRestrictor != lint.LoadRestrictionsRootOnly && f.loadRestrictor != lint.LoadRestrictionsNone {
		return lint.RenderOptions{}, 0, usageErr("--load-restrictor must be %s or %s (got %q)", lint.LoadRestrictionsRootOnly, lint.LoadRestrictionsNone, f.loadRestrictor)
	}
	if f.timeout <= 0 {
		return lint.RenderOptions{}, 0, usageErr("--render-timeout must be positive (got %v)", f.timeout)
	}
	if f.kubeVersion != "" {
		if _, err := kversion.ParseGeneric(f.kubeVersion); err != nil {
			return lint.RenderOptions{}, 0, usageErr("--kube-version: %v", err)
		}
	}
	if strings.TrimSpace(f.releaseName) == "" {
		return lint.RenderOptions{}, 0, usageErr("--release-name must not be empty")
	}
	maxBytes, err := quantity("--render-max-bytes", f.maxBytes)
	if err != nil {
		return lint.RenderOptions{}, 0, err
	}
	maxMemory, err := quantity("--render-max-memory", f.maxMemory)
	if err != nil {
		return lint.RenderOptions{}, 0, err
	}
	return lint.RenderOptions{Set: f.set, SetString: f.setString, ReleaseName: f.releaseName, APIVersions: f.apiVersions,
		KubeVersion: f.kubeVersion, EnableHelm: f.enableHelm, LoadRestrictor: f.loadRestrictor, AllowRemote: f.allowRemote,
		MaxBytes: maxBytes, MaxMemory: maxMemory, Renderer: f.renderer, Version: toolVersion()}, f.timeout, nil
}

// quantity parses a positive byte quantity flag (64Mi, 10M, 1048576).
func quantity(flag, s string) (int64, error) {
	q, err := resource.ParseQuantity(s)
	if err != nil || q.Value() <= 0 {
		return 0, usageErr("%s must be a positive quantity of bytes such as 64Mi (got %q)", flag, s)
	}
	return q.Value(), nil
}

// changed maps the PATHs of --changed-files to what is linted (the charts and
// kustomizations around them, see lint.ChangedPaths) and marks the run as
// partial, so ignore-file entries for objects not in it are not stale.
func (o *lintOptions) changed(args []string, eng *lint.Options) []string {
	if !o.changedFiles {
		return args
	}
	eng.Partial = true
	return lint.ChangedPaths(args, o.loadOptions())
}
