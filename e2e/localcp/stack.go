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
	// Replicas is how many `meshguard serve` processes run (0 or 1: one, with the
	// webhook url pointing at it). With more, each has its own directory
	// (replica-N) and ports, and a Balancer the webhook url points at stands in for
	// the Service.
	Replicas int
	// Log receives progress lines (nil: none).
	Log io.Writer
	// Bin is a meshguard binary to run (empty: Up builds one from the repository
	// into Dir). A suite that starts several stacks builds once and passes it, since
	// each build relinks a 100 MB executable: half a minute or more on a busy
	// 2-core machine.
	Bin string
}

// Stack is a control plane with meshguard installed the way a user installs it: the
// chart's webhook configurations, RBAC and Secret applied, the real binary serving.
type Stack struct {
	CP *ControlPlane
	// Meshguard is the first (or only) replica; Replicas are all of them.
	Meshguard *Meshguard
	Replicas  []*Meshguard
	// Balancer is in front of the replicas when there are several.
	Balancer *Balancer
	Client   client.Client
	Log      io.Writer
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
	bin := o.Bin
	if bin == "" {
		st.logf("building meshguard")
		if bin, err = BuildMeshguard(o.Dir); err != nil {
			return nil, err
		}
	}
	if err = st.newReplicas(bin, o); err != nil {
		return nil, err
	}
	values := map[string]any{
		"webhook":    map[string]any{"url": st.WebhookURL()},
		"deployment": map[string]any{"enabled": false},
	}
	for k, v := range o.Values {
		values[k] = v
	}
	// A cluster running Kuma has its control plane's namespace, where the chart
	// puts its release-detection Role (releaseDetection.kuma: auto looks for it).
	if err = EnsureNamespace(ctx, st.Client, "kuma-system"); err != nil {
		return nil, err
	}
	objs, err := RenderChartIn(st.CP.Config, values) // as helm install: lookup reads the cluster
	if err != nil {
		return nil, fmt.Errorf("rendering charts/meshguard: %w", err)
	}
	st.logf("applying %d objects rendered from charts/meshguard (webhook.url=%s)", len(objs), st.WebhookURL())
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
		for _, m := range st.Replicas {
			m.Kubeconfig = kc
		}
	}
	st.logf("starting %d meshguard serve process(es) as %s (cert rotation on, logs in %s)", len(st.Replicas), st.identity(o), st.Meshguard.LogPath)
	for _, m := range st.Replicas {
		if err = m.Start(); err != nil {
			return nil, err
		}
	}
	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for _, m := range st.Replicas {
		if err = m.WaitReady(wctx); err != nil {
			return nil, fmt.Errorf("meshguard not ready: %w", err)
		}
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
	// The control plane first: its connections to meshguard close with it, and a
	// stopping meshguard serves open connections until their clients close them.
	if s.CP != nil {
		_ = s.CP.Stop()
	}
	for _, m := range s.Replicas {
		_ = m.Stop(15 * time.Second)
	}
	if s.Balancer != nil {
		_ = s.Balancer.Close()
	}
}

// newReplicas prepares the meshguard processes and, for more than one, the
// balancer in front of them.
func (s *Stack) newReplicas(bin string, o StackOptions) error {
	if o.Replicas <= 1 {
		m, err := NewMeshguard(bin, s.CP.Kubeconfig, o.Dir, o.ServeArgs...)
		if err != nil {
			return err
		}
		s.Meshguard, s.Replicas = m, []*Meshguard{m}
		return nil
	}
	var backends []*Backend
	for i := range o.Replicas {
		dir := filepath.Join(o.Dir, fmt.Sprintf("replica-%d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		m, err := NewMeshguard(bin, s.CP.Kubeconfig, dir, o.ServeArgs...)
		if err != nil {
			return err
		}
		s.Replicas = append(s.Replicas, m)
		backends = append(backends, m.Backend())
	}
	s.Meshguard = s.Replicas[0]
	var err error
	s.Balancer, err = StartBalancer(backends, 0)
	return err
}

// WebhookURL is the chart's webhook.url: the balancer's, or the only replica's.
func (s *Stack) WebhookURL() string {
	if s.Balancer != nil {
		return s.Balancer.URL()
	}
	return s.Meshguard.URL()
}
