package localcp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// RenderChart renders charts/meshguard like `helm template meshguard -n
// meshguard-system` with the given values (validated against values.schema.json):
// with no cluster, Helm's lookup finds nothing.
func RenderChart(values map[string]any) ([]*unstructured.Unstructured, error) {
	return RenderChartIn(nil, values)
}

// RenderChartIn renders charts/meshguard as `helm install` does against the
// cluster of cfg, whose objects the templates' lookup calls read (nil: none, as
// `helm template`).
func RenderChartIn(cfg *rest.Config, values map[string]any) ([]*unstructured.Unstructured, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	c, err := loader.Load(filepath.Join(root, "charts", "meshguard"))
	if err != nil {
		return nil, err
	}
	rv, err := chartutil.ToRenderValues(c, values, chartutil.ReleaseOptions{Name: ReleaseName, Namespace: ReleaseNamespace, Revision: 1, IsInstall: true}, chartutil.DefaultCapabilities)
	if err != nil {
		return nil, err
	}
	var files map[string]string
	if cfg != nil {
		files, err = engine.RenderWithClient(c, rv, cfg)
	} else {
		files, err = engine.Render(c, rv)
	}
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(files))
	for n := range files {
		if strings.HasSuffix(n, ".yaml") && !strings.HasPrefix(path.Base(n), "_") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var out []*unstructured.Unstructured
	for _, n := range names {
		r := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(files[n])))
		for {
			doc, err := r.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", n, err)
			}
			u := &unstructured.Unstructured{}
			if err := yaml.Unmarshal(doc, &u.Object); err != nil {
				return nil, fmt.Errorf("%s: %w", n, err)
			}
			if len(u.Object) == 0 {
				continue
			}
			out = append(out, u)
		}
	}
	return out, nil
}

// Apply creates the objects, or updates them when they exist, in the namespace of the
// release for namespaced objects without one. It creates the release namespace.
func Apply(ctx context.Context, c client.Client, objs []*unstructured.Unstructured) error {
	if err := EnsureNamespace(ctx, c, ReleaseNamespace); err != nil {
		return err
	}
	for _, o := range objs {
		cur := o.DeepCopy()
		err := c.Create(ctx, cur)
		if apierrors.IsAlreadyExists(err) {
			existing := &unstructured.Unstructured{}
			existing.SetGroupVersionKind(o.GroupVersionKind())
			if err := c.Get(ctx, client.ObjectKeyFromObject(o), existing); err != nil {
				return err
			}
			cur.SetResourceVersion(existing.GetResourceVersion())
			err = c.Update(ctx, cur)
		}
		if err != nil {
			return fmt.Errorf("applying %s %s: %w", o.GetKind(), o.GetName(), err)
		}
	}
	return nil
}

// EnsureNamespace creates a namespace if it does not exist.
func EnsureNamespace(ctx context.Context, c client.Client, name string) error {
	err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}
