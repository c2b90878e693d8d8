package localcp

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// StackOptions configure Up.
type StackOptions struct {
	// Dir holds everything the stack writes: kubeconfig, audit log, certs, logs.
	Dir  string
	CRDs []*apiextensionsv1.CustomResourceDefinition
	// Values are extra chart values (merged over the url-mode values).
	Values map[string]any
	// ServeArgs are extra `meshguard serve` flags.
	ServeArgs []string
	// AdminMeshguard runs meshguard with the admin kubeconfig. By default it runs as
	// the chart's ServiceAccount, with only the RBAC the chart grants, as in a pod.
	AdminMeshguard bool
	// Log receives progress lines (nil: none).
	Log io.Writer
}

// Stack is a control plane with meshguard installed the way a user installs it: the
// chart's webhook configurations, RBAC and Secret applied, the real binary serving.
type Stack struct {
	CP        *ControlPlane
	Meshguard *Meshguard
	Client    client.Client
	Log       io.Writer
}

func (s *Stack) logf(format string, a ...any) {
	if s.Log != nil {
		fmt.Fprintf(s.Log, format+"\n", a...)
	}
}

// Up starts everything and returns when meshguard is ready (certificates issued and
// injected, handlers registered). On error everything started is stopped.
func Up(ctx context.Context, o StackOptions) (_ *Stack, err error) {
	// st is not the named result: a "return nil, err" sets the result to nil before
	// deferred calls run, and the half-started stack must still be torn down.
	st := &Stack{Log: o.Log}
	defer func() {
		if err != nil {
			st.Down()
		}
	}()
	if err = os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, err
	}
	st.logf("starting kube-apiserver and etcd (binaries built from source, cached per machine)")
	if st.CP, err = Start(Options{Dir: o.Dir, CRDs: o.CRDs, Output: nil}); err != nil {
		return nil, err
	}
	scheme := runtime.NewScheme()
	if err = clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if st.Client, err = client.New(st.CP.Config, client.Options{Scheme: scheme}); err != nil {
		return nil, err
	}
	st.logf("building meshguard")
	bin, err := BuildMeshguard(o.Dir)
	if err != nil {
		return nil, err
	}
	if st.Meshguard, err = NewMeshguard(bin, st.CP.Kubeconfig, o.Dir, o.ServeArgs...); err != nil {
		return nil, err
	}
	values := map[string]any{
		"webhook":    map[string]any{"url": st.Meshguard.URL()},
		"deployment": map[string]any{"enabled": false},
	}
	for k, v := range o.Values {
		values[k] = v
	}
	objs, err := RenderChart(values)
	if err != nil {
		return nil, fmt.Errorf("rendering charts/meshguard: %w", err)
	}
	st.logf("applying %d objects rendered from charts/meshguard (webhook.url=%s)", len(objs), st.Meshguard.URL())
	if err = Apply(ctx, st.Client, objs); err != nil {
		return nil, err
	}
	if !o.AdminMeshguard {
		// As the ServiceAccount the chart binds its Role and ClusterRole to: a
		// permission the chart forgot fails here, not in users' clusters.
		kc := filepath.Join(o.Dir, "meshguard-sa.kubeconfig")
		if err = st.CP.WriteServiceAccountKubeconfig(ReleaseNamespace, ReleaseName, kc); err != nil {
			return nil, err
		}
		st.Meshguard.Kubeconfig = kc
	}
	st.logf("starting meshguard serve as %s (cert rotation on, logs in %s)", st.identity(o), st.Meshguard.LogPath)
	if err = st.Meshguard.Start(); err != nil {
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err = st.Meshguard.WaitReady(wctx); err != nil {
		return nil, fmt.Errorf("meshguard not ready: %w", err)
	}
	st.logf("meshguard is ready: certificates issued, caBundle injected, webhooks registered")
	return st, nil
}

func (s *Stack) identity(o StackOptions) string {
	if o.AdminMeshguard {
		return "the admin"
	}
	return ServiceAccountUser(ReleaseNamespace, ReleaseName)
}

// Down stops meshguard and the control plane; safe on a partial stack.
func (s *Stack) Down() {
	if s == nil {
		return
	}
	if s.Meshguard != nil {
		_ = s.Meshguard.Stop(15 * time.Second)
	}
	if s.CP != nil {
		_ = s.CP.Stop()
	}
}
