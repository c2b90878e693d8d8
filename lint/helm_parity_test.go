package lint

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// paramChart is a chart whose one ConfigMap shows what the render saw: the
// release name, the values, the capabilities.
func paramChart(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write(t, dir, "Chart.yaml", "apiVersion: v2\nname: shop\nversion: 0.1.0\n")
	write(t, dir, "values.yaml", "port: 80\nlabel: none\n")
	write(t, dir, "templates/cm.yaml", `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-cm
data:
  port: {{ .Values.port | quote }}
  portKind: {{ kindOf .Values.port }}
  label: {{ kindOf .Values.label }}
  kube: {{ .Capabilities.KubeVersion.Version | quote }}
`)
	write(t, dir, "templates/mtp.yaml", `{{- if .Capabilities.APIVersions.Has "kuma.io/v1alpha1/MeshTrafficPermission" }}
apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata:
  name: {{ .Release.Name }}-mtp
spec:
  targetRef:
    kind: Mesh
{{- end }}
`)
	return dir
}

// TestHelmParity: the flags of helm template reach the render.
func TestHelmParity(t *testing.T) {
	dir := paramChart(t)
	tests := []struct {
		name string
		ro   RenderOptions
		want map[string]string // "Kind/name" or "Kind/name data.key" → value; "" only presence
	}{
		{"defaults: release-name, the chart's values, mesh API versions present", RenderOptions{}, map[string]string{
			"ConfigMap/release-name-cm port": "80", "ConfigMap/release-name-cm portKind": "float64",
			"MeshTrafficPermission/release-name-mtp": "",
		}},
		{"--release-name", RenderOptions{ReleaseName: "shop"}, map[string]string{
			"ConfigMap/shop-cm port": "80", "ConfigMap/shop-cm portKind": "float64", "MeshTrafficPermission/shop-mtp": "",
		}},
		{"--set is typed, --set-string stays a string, --set-string last", RenderOptions{Set: []string{"port=8080", "label=7"}, SetString: []string{"label=x"}}, map[string]string{
			"ConfigMap/release-name-cm port": "8080", "ConfigMap/release-name-cm portKind": "int64",
			"ConfigMap/release-name-cm label": "string", "MeshTrafficPermission/release-name-mtp": "",
		}},
		{"--api-versions replaces the mesh versions: a cluster without Kuma", RenderOptions{APIVersions: []string{"example.com/v1"}}, map[string]string{
			"ConfigMap/release-name-cm port": "80",
		}},
		{"--kube-version", RenderOptions{KubeVersion: "1.31.2"}, map[string]string{
			"ConfigMap/release-name-cm kube": "v1.31.2", "MeshTrafficPermission/release-name-mtp": "",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := LoadAll([]string{dir}, nil, LoadOptions{Helm: true, Render: tt.ro})
			seen := map[string]string{}
			for _, d := range got.Docs {
				if d.Err != nil {
					t.Fatalf("%s:%d: %v", d.File, d.Line, d.Err)
				}
				id := d.Object.GetKind() + "/" + d.Object.GetName()
				seen[id] = ""
				data, _ := d.Object.Object["data"].(map[string]any)
				for k, v := range data {
					if want, ok := tt.want[id+" "+k]; ok || k == "port" {
						_ = want
						seen[id+" "+k] = v.(string)
					}
				}
			}
			for k := range seen {
				if _, ok := tt.want[k]; !ok {
					delete(seen, k)
				}
			}
			if diff := cmp.Diff(tt.want, seen); diff != "" {
				t.Errorf("render (-want +got):\n%s", diff)
			}
			if tt.want["MeshTrafficPermission/"+strings.TrimSuffix(tt.ro.ReleaseName+"-mtp", "")] == "" && len(got.Docs) == 0 {
				t.Error("nothing rendered")
			}
		})
	}
}

// TestHelmErrorPlace: Helm's errors land on the template file and line it
// names, not on Chart.yaml.
func TestHelmErrorPlace(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "Chart.yaml", "apiVersion: v2\nname: app\nversion: 0.1.0\n")
	write(t, dir, "templates/ok.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n")
	write(t, dir, "templates/exec.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: {{ .Values.missing.deep }}\n")
	got := LoadAll([]string{dir}, nil, LoadOptions{Helm: true}).Docs
	want := []renderedView{{File: filepath.Join(dir, "templates/exec.yaml"), Line: 6, Err: `executing "app/templates/exec.yaml"`}}
	if diff := cmp.Diff(want, renderedViews(got), errSubstring); diff != "" {
		t.Errorf("exec error (-want +got):\n%s", diff)
	}
	write(t, dir, "templates/exec.yaml", "")
	write(t, dir, "charts/sub/Chart.yaml", "apiVersion: v2\nname: sub\nversion: 0.1.0\n")
	write(t, dir, "charts/sub/templates/f.yaml", "\n\n{{ fail \"no way\" }}\n")
	got = LoadAll([]string{dir}, nil, LoadOptions{Helm: true}).Docs
	want = []renderedView{{File: filepath.Join(dir, "charts/sub/templates/f.yaml"), Line: 3, Err: "no way"}}
	if diff := cmp.Diff(want, renderedViews(got), errSubstring); diff != "" {
		t.Errorf("fail in a subchart (-want +got):\n%s", diff)
	}
}

// TestHelmLogsAreNotes: what Helm's libraries log (Go's log package) comes
// back as notes on the chart, captured in meshguard-render, not printed.
func TestHelmLogsAreNotes(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "Chart.yaml", "apiVersion: v2\nname: app\nversion: 0.1.0\n")
	write(t, dir, "values.yaml", "table: 3\n")
	write(t, dir, "over.yaml", "table:\n  a: 1\n")
	write(t, dir, "templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n")
	got := LoadAll([]string{filepath.Join(dir, "Chart.yaml")}, nil, LoadOptions{Helm: true, HelmValues: []string{filepath.Join(dir, "over.yaml")},
		Render: RenderOptions{Renderer: rendererExe(t)}})
	want := []Skip{{File: filepath.Join(dir, "Chart.yaml"), Reason: "Helm said while rendering: warning: skipped value for app.table: Not a table."}}
	if diff := cmp.Diff(want, got.Skipped, cmpopts.EquateEmpty(), cmp.Comparer(func(a, b string) bool {
		return a == b || (a != "" && b != "" && (strings.HasPrefix(a, b) || strings.HasPrefix(b, a)))
	})); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}
