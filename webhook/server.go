package webhook

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"github.com/open-policy-agent/cert-controller/pkg/rotator"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	crwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumaauthz"
	"github.com/meshguard/meshguard/linkerdauthz"
	meshschema "github.com/meshguard/meshguard/schema"
	"github.com/meshguard/meshguard/webhook/serving"
)

// Paths the handlers are served on; the chart's webhook configurations use them.
const (
	MutatePath   = "/mutate"
	ValidatePath = "/validate"
)

// Options configure `meshguard serve`. Every field is a flag; see cmd/meshguard.
type Options struct {
	Settings api.Settings

	Host    string
	Port    int
	CertDir string
	// DisableCertRotation serves the certs mounted in CertDir (cert-manager, etc.).
	DisableCertRotation bool
	// SyncCertDir writes the rotated Secret into CertDir, which kubelet does in a pod;
	// for runs outside the cluster.
	SyncCertDir bool
	// SecretNamespace/SecretName hold the generated CA and serving cert.
	SecretNamespace, SecretName string
	// ServiceName is the Service in front of the webhook; the cert is issued for
	// <service>.<namespace>.svc plus CertDNSNames.
	ServiceName  string
	CertDNSNames []string
	// MutatingWebhookName/ValidatingWebhookName are the configurations whose caBundle
	// the rotator keeps current.
	MutatingWebhookName, ValidatingWebhookName     string
	CertValidity, RotationCheck, RotationLookahead time.Duration

	MetricsAddr string
	// MetricsSecure serves MetricsAddr over HTTPS behind Kubernetes authentication
	// (TokenReview) and authorization (SubjectAccessReview of GET /metrics), with
	// controller-runtime's filters (metricsserving.go); false, asked for
	// explicitly, serves plain HTTP to whoever reaches the port.
	MetricsSecure bool
	// SchemaCheck is when the validating webhook runs the schema layer:
	// SchemaCheckAuto (also ""), SchemaCheckAlways or SchemaCheckNever
	// (schemacheck.go).
	SchemaCheck string
	ProbeAddr   string
	// PprofAddr serves Go's net/http/pprof profiles (controller-runtime's
	// PprofBindAddress), for finding where a replica spends its time; "" or "0"
	// is off, the default.
	PprofAddr       string
	EnableHTTP2     bool
	ShutdownTimeout time.Duration
	// ShutdownDelay is how long a replica keeps serving after SIGTERM with /readyz
	// failing and every answer closing its connection, before it stops listening:
	// the time the Service (or a load balancer) needs to stop sending it new
	// connections and the API server to move its keep-alive connections elsewhere.
	ShutdownDelay time.Duration
	// FailOpenUntilReady: the chart registers the webhooks with failurePolicy
	// Ignore; once a self-check through the configured clientConfig succeeds,
	// meshguard sets them to Fail (see failopen.go).
	FailOpenUntilReady bool

	// PrivilegedUsers are trusted in addition to api.PrivilegedUsers (the control
	// plane's service account in Settings.SystemNamespace, the garbage collector and
	// the namespace controller); PrivilegedGroups are trusted groups.
	PrivilegedUsers  []string
	PrivilegedGroups []string
	PreviewForm      kumaauthz.Form
	// PreviewMaxItems bounds the merged items of a group the RBAC preview compiles
	// (kumaauthz.Options.MaxGroupItems; 0: no bound). The analysis compares items
	// pairwise and the API server waits only timeoutSeconds for an answer.
	PreviewMaxItems int
	// LinkerdServerConflicts is what a Server conflict (MG350) does on admission:
	// ServerConflictsWarn (the default, also for "") or ServerConflictsDeny.
	LinkerdServerConflicts string
	// Linkerd are the Linkerd installation's facts the authorization preview and
	// the widening check read objects with (zero: a default install).
	Linkerd linkerdauthz.Options
	// RequestReadTimeout, RequestWriteTimeout and RequestBodyBudget bound how
	// request bodies are read (serving.BodyLimits; zero: the defaults). Bodies are capped at
	// MaxRequestBytes.
	RequestReadTimeout, RequestWriteTimeout time.Duration
	RequestBodyBudget                       int64
	// RequestMinBodyRate is serving.BodyLimits.MinBodyRate (0: the default; negative: off).
	RequestMinBodyRate int64
	// MaxConnections is serving.Server.MaxConnections (0: sized from the Go
	// memory limit).
	MaxConnections int
	// Offline serves without an API server: the certificate in CertDir as is (no
	// rotation) and no informer caches, so previews show the incoming policy alone
	// and Linkerd Server conflicts are not checked. For trying the webhook with curl
	// and for tests; a cluster needs the default.
	Offline bool
}

// DefaultPreviewMaxItems is the default of Options.PreviewMaxItems: a group of
// 2,000 merged items of one tag (or fewer with more tags, see
// kumaauthz.Options.MaxGroupItems) previewed in at most 0.33 s on one core of the
// load test's machine, well within the chart's 5 s timeout; 20,000 took 23 s.
const DefaultPreviewMaxItems = 2000

// offlineConfig is the rest.Config of an offline server: the manager needs one,
// and nothing in an offline server contacts it.
var offlineConfig = rest.Config{Host: "https://offline.invalid:1"}

// Check reports options that cannot work.
func (o Options) Check() error {
	if err := meshschema.CheckSettings(o.Settings); err != nil {
		return err
	}
	if o.Port < 1 || o.Port > 65535 {
		return fmt.Errorf("--port must be 1-65535")
	}
	if c := o.LinkerdServerConflicts; c != "" && c != ServerConflictsWarn && c != ServerConflictsDeny {
		return fmt.Errorf("--linkerd-server-conflicts must be warn or deny (got %q)", c)
	}
	if err := o.Linkerd.Check(); err != nil {
		return err
	}
	if o.CertDir == "" {
		return fmt.Errorf("--cert-dir must not be empty")
	}
	if o.RequestReadTimeout < 0 || o.RequestWriteTimeout < 0 || o.RequestBodyBudget < 0 || o.MaxConnections < 0 {
		return fmt.Errorf("--request-read-timeout, --request-write-timeout, --request-body-budget and --max-connections must not be negative (0: the default)")
	}
	if o.ShutdownDelay < 0 || o.ShutdownTimeout < 0 {
		return fmt.Errorf("--shutdown-delay and --shutdown-timeout must not be negative")
	}
	if o.FailOpenUntilReady && (o.Offline || o.DisableCertRotation) {
		return fmt.Errorf("--fail-open-until-ready needs certificate rotation (it reads the webhook configurations meshguard injects the caBundle into); not with --offline or --disable-cert-rotation")
	}
	if err := o.checkMetricsAndSchema(); err != nil {
		return err
	}
	if o.PreviewMaxItems < 0 {
		return fmt.Errorf("--preview-max-items must not be negative (0: no bound)")
	}
	if o.Offline && o.SyncCertDir {
		return fmt.Errorf("--sync-cert-dir reads the certificate Secret from the API server; --offline has none")
	}
	if !o.DisableCertRotation && !o.Offline && (o.SecretNamespace == "" || o.SecretName == "" || o.ServiceName == "") {
		return fmt.Errorf("cert rotation needs --secret-namespace, --secret-name and --service-name (or --disable-cert-rotation)")
	}
	return nil
}

func set(l []string) map[string]bool {
	m := map[string]bool{}
	for _, s := range l {
		m[s] = true
	}
	return m
}

// Run starts the manager and blocks until ctx ends, then shuts down gracefully:
// /readyz fails and answers close their connections for ShutdownDelay, then the
// server stops listening and in-flight admission requests finish within
// ShutdownTimeout.
func Run(ctx context.Context, cfg *rest.Config, o Options, log logr.Logger) error {
	if err := o.Check(); err != nil {
		return err
	}
	set, err := servedSchemas(&o.Settings)
	if err != nil {
		return err
	}
	if err := prepareSchemas(set, o); err != nil {
		return err
	}
	ctrl.SetLogger(log)
	if o.Offline {
		c := offlineConfig
		cfg, o.DisableCertRotation = &c, true
	}
	mgr, err := newManager(cfg, o, log)
	if err != nil {
		return err
	}
	eng, err := newHandlers(mgr, o, log)
	if err != nil {
		return err
	}
	ready := make(chan struct{})
	if err := addCertRotation(mgr, o, ready, log); err != nil {
		return err
	}
	var draining atomic.Bool
	server := &serving.Server{Host: o.Host, Port: o.Port, CertDir: o.CertDir, TLSOpts: serving.TLSOptions(o.EnableHTTP2),
		ShutdownTimeout: o.ShutdownTimeout, Draining: &draining, Log: log.WithName("webhook-server"),
		MaxConnections: o.MaxConnections}
	limits := serving.NewBodyLimiter(serving.BodyLimits{ReadTimeout: o.RequestReadTimeout, WriteTimeout: o.RequestWriteTimeout,
		Budget: o.RequestBodyBudget, MinBodyRate: o.RequestMinBodyRate})
	registered := registerWhenReady(ctx, mgr, server, Routes(eng, limits), ready, log)
	if err := addChecks(mgr, server, registered, &draining); err != nil {
		return err
	}
	if o.FailOpenUntilReady {
		if err := mgr.Add(newFailOpen(mgr, o, registered, log.WithName("fail-open"))); err != nil {
			return err
		}
	}
	log.Info("starting meshguard", "mode", o.Settings.Mode, "zone", o.Settings.Zone, "systemNamespace", o.Settings.SystemNamespace,
		"port", o.Port, "certRotation", !o.DisableCertRotation, "shutdownDelay", o.ShutdownDelay)
	mgrCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	go drainThenStop(ctx, mgrCtx, stop, &draining, o.ShutdownDelay, log)
	return mgr.Start(mgrCtx)
}

// servedSchemas is the schema set the server judges with: the one the options
// bring (a test's) or the CRDs of the settings' releases, loaded into s. The server
// needs package schema's Set itself, not only the engine's api.SchemaSet: it
// compiles every CRD before serving and compares them with the installed ones.
func servedSchemas(s *api.Settings) (*meshschema.Set, error) {
	switch set := s.Schemas.(type) {
	case nil:
		loaded, err := meshschema.ForSettings(*s)
		if err != nil {
			return nil, err
		}
		s.Schemas = loaded
		return loaded, nil
	case *meshschema.Set:
		return set, nil
	}
	return nil, fmt.Errorf("the server judges with the embedded CRDs (*schema.Set), not %T", s.Schemas)
}

// prepareSchemas parses every mesh's CRDs before the first request, not during
// one, and builds their validators where the schema layer runs on every object
// (--schema-check always, or auto offline, where no installed CRD can make it
// redundant). With never they are never built, and with auto InstalledSchemas
// builds those of a CRD it finds installed with another schema: on a cluster
// running the embedded release they would only hold memory (~10 MB of an idle
// replica's heap, twice that at its peak).
func prepareSchemas(set *meshschema.Set, o Options) error {
	if err := set.DeferredErr(); err != nil {
		return err
	}
	if o.SchemaCheck == SchemaCheckAlways || (o.Offline && o.SchemaCheck != SchemaCheckNever) {
		return set.BuildCheckers()
	}
	return nil
}

// drainThenStop waits for ctx (SIGTERM), sets draining (readiness fails, answers
// close their connections) and stops the manager after delay.
func drainThenStop(ctx, mgrCtx context.Context, stop context.CancelFunc, draining *atomic.Bool, delay time.Duration, log logr.Logger) {
	select {
	case <-ctx.Done():
	case <-mgrCtx.Done():
		return
	}
	draining.Store(true)
	log.Info("shutting down: not ready, closing connections after their answers", "stopListeningIn", delay)
	t := time.NewTimer(delay)
	defer t.Stop()
	select {
	case <-t.C:
	case <-mgrCtx.Done():
	}
	stop()
}

// Routes are the HTTP handlers of both paths as the server registers them:
// controller-runtime's admission webhook (its codec reads and writes the
// AdmissionReviews) behind limits, which reads the bodies first.
func Routes(eng *Handlers, limits *serving.BodyLimiter) map[string]http.Handler {
	return map[string]http.Handler{
		MutatePath:   limits.Wrap(&crwebhook.Admission{Handler: admission.HandlerFunc(eng.Mutate)}),
		ValidatePath: limits.Wrap(&crwebhook.Admission{Handler: admission.HandlerFunc(eng.Validate)}),
	}
}

// newManager is the controller-runtime manager: metrics, probes, graceful shutdown.
// The webhook server is not in its options; registerWhenReady adds it.
func newManager(cfg *rest.Config, o Options, log logr.Logger) (manager.Manager, error) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	// The webhook server serves open connections for up to ShutdownTimeout and
	// gives requests in flight one more second (serving.Server.stop).
	timeout := o.ShutdownTimeout + 5*time.Second
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                  scheme,
		Logger:                  log,
		Metrics:                 metricsOptions(o),
		HealthProbeBindAddress:  o.ProbeAddr,
		PprofBindAddress:        o.PprofAddr,
		GracefulShutdownTimeout: &timeout,
	})
	if err != nil {
		return nil, fmt.Errorf("creating manager: %w", err)
	}
	return mgr, nil
}

// newHandlers builds the handlers with their metrics and the informer caches they read.
func newHandlers(mgr manager.Manager, o Options, log logr.Logger) (*Handlers, error) {
	findings, err := registerCounterVec(prometheus.CounterOpts{
		Name: "meshguard_admission_findings_total",
		Help: "Findings reported by the validating webhook, by kind, rule code and severity.",
	}, "kind", "code", "severity")
	if err != nil {
		return nil, err
	}
	sysNS := o.Settings.SystemNamespace
	policies := &policyCache{log: log.WithName("mtp-cache"),
		index: func(u *unstructured.Unstructured) []string { return PolicyIndexKeys(u, sysNS) }}
	if err := startCache(mgr, o, policies); err != nil {
		return nil, err
	}
	servers := &policyCache{log: log.WithName("server-cache"), gvk: ServerGVK,
		what: "Linkerd Servers for conflict checks", fallback: "Server conflicts are not checked meanwhile"}
	if err := startCache(mgr, o, servers); err != nil {
		return nil, err
	}
	// The authorization preview reads every Linkerd policy kind from caches too.
	authzCaches := []*policyCache{servers}
	for _, gvk := range LinkerdAuthzGVKs() {
		c := &policyCache{log: log.WithName(strings.ToLower(gvk.Kind) + "-cache"), gvk: gvk,
			what: "Linkerd " + gvk.Kind + "s for the authorization preview", fallback: "the preview leaves them out meanwhile"}
		if err := startCache(mgr, o, c); err != nil {
			return nil, err
		}
		authzCaches = append(authzCaches, c)
	}
	objects, namespace, err := startRefCaches(mgr, o, log)
	if err != nil {
		return nil, err
	}
	// The cross-object checks read the Linkerd kinds the preview caches as well;
	// informers are shared, so a kind both cache is watched once.
	objects.file(authzCaches...)
	linkerdStored := func(ctx context.Context) []unstructured.Unstructured {
		var all []unstructured.Unstructured
		for _, c := range authzCaches {
			items, _ := c.list(ctx)
			all = append(all, items...)
		}
		return all
	}
	identities := &policyCache{log: log.WithName("meshidentity-cache"), gvk: MeshIdentityGVK,
		what: "MeshIdentities for the preview", fallback: "the preview takes no proxy to have one meanwhile"}
	if err := startCache(mgr, o, identities); err != nil {
		return nil, err
	}
	// The preview and the widening check read stored policies through one store.
	linkerd := LinkerdSource{Stored: linkerdStored, Namespace: namespace, Options: o.Linkerd}
	preview, widening := NewPreviewAndWideningWithIdentities(policies.byKey, linkerd, kumaauthz.Options{Form: o.PreviewForm,
		MaxExpandedRules: 64, SystemNamespace: o.Settings.SystemNamespace, MaxGroupItems: o.PreviewMaxItems},
		StoredIdentities(identities.list))
	configChange, err := startConfigDiff(mgr, o, log, objects)
	if err != nil {
		return nil, err
	}
	// The Kuma cross-policy checks (MG450-MG453) read MeshTrafficPermissions and
	// MeshIdentities with every other Kuma kind: from the preview's caches.
	objects.file(policies, identities)
	users, groups := PrivilegedSets(o)
	schemaRedundant, err := addSchemaCheck(mgr, o, log)
	if err != nil {
		return nil, err
	}
	return &Handlers{
		Registry: api.DefaultRegistry(), Settings: o.Settings, Objects: objects,
		PrivilegedUsers: users, PrivilegedGroups: groups,
		Record:              func(kind, code, sev string) { findings.WithLabelValues(kind, code, sev).Inc() },
		Log:                 log.WithName("admission"),
		Preview:             preview,
		DenyServerConflicts: o.LinkerdServerConflicts == ServerConflictsDeny,
		Linkerd:             linkerd,
		Widening:            widening,
		ConfigChange:        configChange,
		SchemaRedundant:     schemaRedundant,
	}, nil
}

// addCertRotation has cert-controller generate and rotate the serving certificate
// and close ready once it is in CertDir; without rotation ready is closed now.
func addCertRotation(mgr manager.Manager, o Options, ready chan struct{}, log logr.Logger) error {
	if o.DisableCertRotation {
		close(ready)
		return nil
	}
	// cert-controller's cache lists and watches only the objects named in o (see
	// certscope.go), so RBAC can name them.
	err := rotator.AddRotator(scopedRotatorManager(mgr, rotatorCollections(o)), &rotator.CertRotator{
		SecretKey:      types.NamespacedName{Namespace: o.SecretNamespace, Name: o.SecretName},
		CertDir:        o.CertDir,
		CAName:         "meshguard-ca",
		CAOrganization: "meshguard",
		DNSName:        fmt.Sprintf("%s.%s.svc", o.ServiceName, o.SecretNamespace),
		ExtraDNSNames:  o.CertDNSNames,
		IsReady:        ready,
		Webhooks: []rotator.WebhookInfo{
			{Name: o.ValidatingWebhookName, Type: rotator.Validating},
			{Name: o.MutatingWebhookName, Type: rotator.Mutating},
		},
		ServerCertDuration:     o.CertValidity,
		RotationCheckFrequency: o.RotationCheck,
		LookaheadInterval:      o.RotationLookahead,
		EnableReadinessCheck:   true,
	})
	if err != nil {
		return fmt.Errorf("setting up cert rotation: %w", err)
	}
	if o.SyncCertDir {
		return mgr.Add(&secretSync{reader: mgr.GetAPIReader(), key: types.NamespacedName{Namespace: o.SecretNamespace, Name: o.SecretName}, dir: o.CertDir, log: log.WithName("cert-sync")})
	}
	return nil
}

// registerWhenReady registers the handlers and starts the server once certificates
// are ready: before that the API server could not reach us anyway, and readiness
// tells the truth meanwhile. The manager must not start the server itself, so it
// is not passed in the manager's options. The result turns true once registered.
func registerWhenReady(ctx context.Context, mgr manager.Manager, server *serving.Server, handlers map[string]http.Handler, ready <-chan struct{}, log logr.Logger) *atomic.Bool {
	var registered atomic.Bool
	go func() {
		select {
		case <-ready:
		case <-ctx.Done():
			return
		}
		for _, path := range []string{MutatePath, ValidatePath} {
			server.Register(path, handlers[path])
		}
		// The server joins the manager only now: it needs the certificate files to
		// start, and a running manager starts runnables added late right away.
		if err := mgr.Add(server); err != nil {
			log.Error(err, "starting the webhook server")
			return
		}
		registered.Store(true)
		log.Info("webhooks registered", "mutate", MutatePath, "validate", ValidatePath)
	}()
	return &registered
}

// addChecks adds /healthz and a /readyz that waits for the webhooks and fails
// again as soon as shutdown starts.
func addChecks(mgr manager.Manager, server *serving.Server, registered, draining *atomic.Bool) error {
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	started := server.StartedChecker()
	return mgr.AddReadyzCheck("webhook", func(req *http.Request) error {
		if draining.Load() {
			return errors.New("shutting down")
		}
		if !registered.Load() {
			return errors.New("certificates not ready; webhooks not registered yet")
		}
		return started(req)
	})
}

// registerCounterVec registers a counter with controller-runtime's metrics registry,
// or returns the one registered by an earlier Run in the same process.
func registerCounterVec(opts prometheus.CounterOpts, labels ...string) (*prometheus.CounterVec, error) {
	c := prometheus.NewCounterVec(opts, labels)
	if err := metrics.Registry.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if !errors.As(err, &are) {
			return nil, err
		}
		return are.ExistingCollector.(*prometheus.CounterVec), nil
	}
	return c, nil
}
