package apilatency

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meshguard/meshguard/hack/bench/kit"
	"github.com/meshguard/meshguard/webhook/webhooktest"
)

// config is one of the three webhook configurations of the API server measured.
type config string

const (
	absent        config = "absent"
	withNoop      config = "noop"
	withMeshguard config = "meshguard"
)

// order is the order of the configurations in a block before rotation.
func order() []config { return []config{absent, withNoop, withMeshguard} }

// noopServer is the peer: a controller-runtime webhook server answering both of
// meshguard's paths with webhooktest.Noop, counting the calls.
type noopServer struct {
	base   string // https://localhost:port
	caPEM  []byte
	served atomic.Int64
}

// startNoop starts the no-op server on a free loopback port with a throw-away CA
// (its certificate covers localhost, as meshguard's does); it stops with ctx.
func startNoop(ctx context.Context, dir string) (*noopServer, error) {
	certDir := filepath.Join(dir, "noop-certs")
	if err := os.MkdirAll(certDir, 0o755); err != nil {
		return nil, err
	}
	if _, err := kit.WriteCerts(certDir); err != nil {
		return nil, err
	}
	ca, err := os.ReadFile(filepath.Join(certDir, kit.CAFile))
	if err != nil {
		return nil, err
	}
	n := &noopServer{caPEM: ca}
	h := webhooktest.ControllerRuntime(webhooktest.Noop)
	counted := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.served.Add(1)
		h.ServeHTTP(w, r)
	})
	base, err := kit.ServeAll(ctx, certDir, map[string]http.Handler{"/mutate": counted, "/validate": counted})
	if err != nil {
		return nil, fmt.Errorf("no-op webhook server: %w", err)
	}
	// The API server calls it by name: its certificate covers localhost, as
	// meshguard's does.
	n.base = strings.Replace(base, "127.0.0.1", "localhost", 1)
	return n, nil
}

// switcher sets the API server's webhook configurations to one config and waits
// until the API server calls exactly the webhooks of that config.
type switcher struct {
	c           client.Client
	noop        *noopServer
	metricsPort int
	// objs are the configurations of each config, as created (no server fields).
	objs map[config][]client.Object
	seq  int
}

// newSwitcher reads meshguard's configurations as the chart installed them and
// derives the no-op ones: the same webhooks (rules, selectors, match conditions,
// failure policy, timeout), renamed, pointed at the no-op server.
func newSwitcher(ctx context.Context, c client.Client, noop *noopServer, metricsPort int) (*switcher, error) {
	var vw admissionregistrationv1.ValidatingWebhookConfigurationList
	var mw admissionregistrationv1.MutatingWebhookConfigurationList
	if err := c.List(ctx, &vw); err != nil {
		return nil, err
	}
	if err := c.List(ctx, &mw); err != nil {
		return nil, err
	}
	s := &switcher{c: c, noop: noop, metricsPort: metricsPort, objs: map[config][]client.Object{}}
	var stored []client.Object
	for i := range mw.Items {
		stored = append(stored, &mw.Items[i])
	}
	for i := range vw.Items {
		stored = append(stored, &vw.Items[i])
	}
	for _, o := range stored {
		if !strings.Contains(o.GetName(), "meshguard") {
			continue
		}
		s.objs[withMeshguard] = append(s.objs[withMeshguard], fresh(o.DeepCopyObject().(client.Object)))
		n, err := noop.copyOf(fresh(o.DeepCopyObject().(client.Object)))
		if err != nil {
			return nil, err
		}
		s.objs[withNoop] = append(s.objs[withNoop], n)
	}
	if len(s.objs[withMeshguard]) != 2 {
		return nil, fmt.Errorf("want meshguard's mutating and validating configurations, found %d", len(s.objs[withMeshguard]))
	}
	return s, nil
}

// fresh clears what the API server set on a stored object, so it can be created again.
func fresh[T client.Object](o T) T {
	o.SetResourceVersion("")
	o.SetUID("")
	o.SetCreationTimestamp(metav1.Time{})
	o.SetManagedFields(nil)
	o.SetGeneration(0)
	return o
}

// copyOf renames a copy of one of meshguard's configurations and its webhooks and
// points them at the no-op server.
func (n *noopServer) copyOf(o client.Object) (client.Object, error) {
	o.SetName("apilatency-noop-" + o.GetName())
	var names []*string
	var ccs []*admissionregistrationv1.WebhookClientConfig
	switch c := o.(type) {
	case *admissionregistrationv1.MutatingWebhookConfiguration:
		for j := range c.Webhooks {
			names, ccs = append(names, &c.Webhooks[j].Name), append(ccs, &c.Webhooks[j].ClientConfig)
		}
	case *admissionregistrationv1.ValidatingWebhookConfiguration:
		for j := range c.Webhooks {
			names, ccs = append(names, &c.Webhooks[j].Name), append(ccs, &c.Webhooks[j].ClientConfig)
		}
	default:
		return nil, fmt.Errorf("%T is not a webhook configuration", o)
	}
	for j := range names {
		*names[j] = "noop-" + *names[j]
		if err := n.point(ccs[j]); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// point aims a webhook's client configuration at the no-op server, on the same path.
func (n *noopServer) point(cc *admissionregistrationv1.WebhookClientConfig) error {
	if cc.URL == nil {
		return fmt.Errorf("meshguard's webhook has no url (the local stack installs the chart with webhook.url)")
	}
	u, err := url.Parse(*cc.URL)
	if err != nil {
		return err
	}
	target := n.base + u.Path
	cc.URL = &target
	cc.CABundle = n.caPEM
	return nil
}

// to makes cfg the API server's configuration: it deletes every configuration of
// the others, creates cfg's, and waits until two probe applies in a row reach
// exactly cfg's webhooks (meshguard's or the no-op server's two, or none).
func (s *switcher) to(ctx context.Context, cfg config) error {
	for other, objs := range s.objs {
		if other == cfg {
			continue
		}
		for _, o := range objs {
			if err := s.c.Delete(ctx, o.DeepCopyObject().(client.Object)); err != nil && !apierrors.IsNotFound(err) {
				return err
			}
		}
	}
	for _, o := range s.objs[cfg] {
		if err := s.c.Create(ctx, o.DeepCopyObject().(client.Object)); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	want := map[config][2]int64{absent: {0, 0}, withNoop: {0, 2}, withMeshguard: {2, 0}}[cfg]
	inARow := 0
	for tries := 0; inARow < 2; tries++ {
		if tries > 200 {
			return fmt.Errorf("the API server did not switch to %s's webhooks within %d probes", cfg, tries)
		}
		mg0, err := meshguardCalls(s.metricsPort)
		if err != nil {
			return err
		}
		n0 := s.noop.served.Load()
		s.seq++
		probe := policy(fmt.Sprintf("lat-probe-%d", s.seq), "probe", "probe")
		if err := s.c.Patch(ctx, probe, client.Apply, client.FieldOwner("apilatency"), client.ForceOwnership); err != nil {
			return err
		}
		mg1, err := meshguardCalls(s.metricsPort)
		if err != nil {
			return err
		}
		if [2]int64{mg1 - mg0, s.noop.served.Load() - n0} == want {
			inARow++
			continue
		}
		inARow = 0
		time.Sleep(50 * time.Millisecond)
	}
	return nil
}

// meshguardCalls is how many reviews meshguard's webhook server has answered, from
// controller-runtime's request counter on its metrics endpoint.
func meshguardCalls(port int) (int64, error) {
	resp, err := http.Get("http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	total := 0.0
	for _, v := range scrape(resp.Body, "controller_runtime_webhook_requests_total") {
		total += v
	}
	return int64(total), nil
}
