package localcp

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// TestAPIServerArgs checks the flags Start gives kube-apiserver on top of envtest's
// defaults (here the one that concerns admission plugins, as envtest sets it):
// NamespaceAutoProvision enabled, envtest's disabled ServiceAccount plugin left
// disabled, no plugin both enabled and disabled (kube-apiserver refuses to start
// then), and the audit log.
func TestAPIServerArgs(t *testing.T) {
	envtestDefaults := map[string][]string{"disable-admission-plugins": {"ServiceAccount"}}
	got := configureAPIServer(envtest.EmptyArguments(), "/d/audit-policy.yaml", "/d/audit.log").AsStrings(envtestDefaults)
	want := []string{
		"--audit-log-mode=blocking",
		"--audit-log-path=/d/audit.log",
		"--audit-policy-file=/d/audit-policy.yaml",
		"--disable-admission-plugins=ServiceAccount",
		"--enable-admission-plugins=NamespaceAutoProvision",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kube-apiserver flags (-want +got):\n%s", diff)
	}
	var enabled, disabled []string
	for _, a := range got {
		if v, ok := strings.CutPrefix(a, "--enable-admission-plugins="); ok {
			enabled = append(enabled, strings.Split(v, ",")...)
		}
		if v, ok := strings.CutPrefix(a, "--disable-admission-plugins="); ok {
			disabled = append(disabled, strings.Split(v, ",")...)
		}
	}
	for _, p := range enabled {
		if slices.Contains(disabled, p) {
			t.Errorf("%s is both enabled and disabled", p)
		}
	}
}
