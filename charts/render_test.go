// Package charts_test renders charts/meshguard with the Helm Go SDK, decodes the
// manifests into typed Kubernetes objects and asserts on them, so `make test`
// covers the chart without a helm binary or a cluster.
package charts_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
	sigsyaml "sigs.k8s.io/yaml"
)

func ptr[T any](v T) *T { return &v }

const (
	chartDir  = "meshguard"
	release   = "meshguard"
	namespace = "meshguard-system"
)

// manifests is a rendered release: typed objects by "Kind/name", plus NOTES.txt.
type manifests struct {
	objs  map[string]runtime.Object
	notes string
}

func loadChart(t *testing.T) *chart.Chart {
	t.Helper()
	c, err := loader.Load(chartDir)
	if err != nil {
		t.Fatalf("loading chart: %v", err)
	}
	return c
}

// renderChart renders like `helm install --namespace ns` would: values are
// coalesced with values.yaml and validated against values.schema.json first.
func renderChart(t *testing.T, vals map[string]any, ns string) (*manifests, error) {
	t.Helper()
	c := loadChart(t)
	opts := chartutil.ReleaseOptions{Name: release, Namespace: ns, Revision: 1, IsInstall: true}
	rv, err := chartutil.ToRenderValues(c, vals, opts, chartutil.DefaultCapabilities)
	if err != nil {
		return nil, err
	}
	out, err := engine.Render(c, rv)
	if err != nil {
		return nil, err
	}
	m := &manifests{objs: map[string]runtime.Object{}}
	// Strict decoding: a misspelt field in a template fails here instead of being
	// dropped silently by the API server's pruning.
	dec := json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme.Scheme, scheme.Scheme,
		json.SerializerOptions{Yaml: true, Strict: true})
	names := make([]string, 0, len(out))
	for n := range out {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		body := out[name]
		switch {
		case path.Base(name) == "NOTES.txt":
			m.notes = body
			continue
		case strings.HasPrefix(path.Base(name), "_"):
			continue
		}
		r := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(body)))
		for {
			doc, err := r.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			if len(bytes.TrimSpace(stripComments(doc))) == 0 {
				continue
			}
			obj, gvk, err := dec.Decode(doc, nil, nil)
			if runtime.IsNotRegisteredError(err) {
				// A kind of another project's CRDs (a ServiceMonitor): kept as read.
				u := &unstructured.Unstructured{}
				if err = sigsyaml.Unmarshal(doc, &u.Object); err == nil {
					obj, gvk = u, ptr(u.GroupVersionKind())
				}
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w\n%s", name, err, doc)
			}
			key := gvk.Kind + "/" + obj.(interface{ GetName() string }).GetName()
			if _, dup := m.objs[key]; dup {
				return nil, fmt.Errorf("%s rendered twice", key)
			}
			m.objs[key] = obj
		}
	}
	return m, nil
}

// mustRender renders with the default namespace and fails the test on error.
func mustRender(t *testing.T, vals map[string]any) *manifests {
	t.Helper()
	m, err := renderChart(t, vals, namespace)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	return m
}

// get returns the object Kind/name as T, failing the test when it is missing.
func get[T runtime.Object](t *testing.T, m *manifests, key string) T {
	t.Helper()
	o, ok := m.objs[key]
	if !ok {
		t.Fatalf("%s not rendered; have %v", key, m.keys())
	}
	v, ok := o.(T)
	if !ok {
		t.Fatalf("%s is %T", key, o)
	}
	return v
}

func (m *manifests) keys() []string {
	var ks []string
	for k := range m.objs {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func (m *manifests) has(key string) bool { _, ok := m.objs[key]; return ok }

func stripComments(doc []byte) []byte {
	var b bytes.Buffer
	for _, l := range bytes.Split(doc, []byte("\n")) {
		if t := bytes.TrimSpace(l); len(t) > 0 && t[0] != '#' {
			b.Write(l)
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}
