package lint

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestKustomizeEnableHelm: helmCharts are inflated with the Helm SDK under
// --enable-helm (no helm binary), with the entry's release name, namespace and
// inline values, and then transformed by the kustomization like any resource.
func TestKustomizeEnableHelm(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "kustomization.yaml", `namePrefix: prod-
helmCharts:
- name: app
  releaseName: shop
  namespace: payments
  valuesInline:
    idle: 5s
`)
	write(t, dir, "charts/app/Chart.yaml", "apiVersion: v2\nname: app\nversion: 0.1.0\n")
	write(t, dir, "charts/app/values.yaml", "idle: 10s\n")
	write(t, dir, "charts/app/templates/t.yaml", `{{- if .Capabilities.APIVersions.Has "kuma.io/v1alpha1" }}
apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: {{ .Release.Name }}-timeout
  namespace: {{ .Release.Namespace }}
  annotations:
    idle: {{ .Values.idle }}
spec:
  targetRef:
    kind: Mesh
{{- end }}
`)
	kfile := filepath.Join(dir, "kustomization.yaml")
	got := LoadAll([]string{kfile}, nil, LoadOptions{Kustomize: true, Render: RenderOptions{EnableHelm: true, Renderer: rendererExe(t)}})
	var views []string
	for _, d := range got.Docs {
		if d.Err != nil {
			t.Fatalf("%s:%d: %v", d.File, d.Line, d.Err)
		}
		views = append(views, d.File+" "+d.Object.GetNamespace()+"/"+d.Object.GetName()+" idle="+d.Object.GetAnnotations()["idle"])
	}
	want := []string{kfile + " payments/prod-shop-timeout idle=5s"}
	if diff := cmp.Diff(want, views); diff != "" {
		t.Errorf("inflated (-want +got):\n%s", diff)
	}
	got = LoadAll([]string{kfile}, nil, LoadOptions{Kustomize: true})
	if e := errorsOf(t, got, "")[kfile]; !strings.Contains(e, "enable-helm") {
		t.Errorf("without --enable-helm: error %q, want kustomize's pointer to --enable-helm", e)
	}
	write(t, dir, "kustomization.yaml", "helmCharts:\n- name: redis\n  repo: https://charts.example.com\n  version: 1.0.0\n")
	got = LoadAll([]string{kfile}, nil, LoadOptions{Kustomize: true, Render: RenderOptions{EnableHelm: true, AllowRemote: true}})
	if e := errorsOf(t, got, "")[kfile]; !strings.Contains(e, "pulls no charts") {
		t.Errorf("chart not in chartHome: error %q", e)
	}
}
