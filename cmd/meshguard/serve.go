package main

import (
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/zapr"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/meshguard/meshguard/kumaauthz"
	"github.com/meshguard/meshguard/webhook"
	"github.com/meshguard/meshguard/webhook/serving"
)

// serveOptions are the flags of `meshguard serve`.
type serveOptions struct {
	webhook.Options
	kubeconfig  string
	logLevel    string
	logFormat   string
	previewForm string
	// memoryLimitRatio is the share of the container's memory limit given to the
	// Go runtime as its soft limit (0: leave the runtime's default).
	memoryLimitRatio float64
}

func defaultNamespace() string {
	if ns := os.Getenv("POD_NAMESPACE"); ns != "" {
		return ns
	}
	return "meshguard-system"
}

func newServeCmd(s streams) *cobra.Command {
	o := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the mutating and validating admission webhook",
		Long: `Serve runs the admission webhook on controller-runtime: a mutating handler (labels and
syntactic-sugar defaults) on /mutate and a validating handler (all lint rules plus the RBAC
preview of MeshTrafficPermissions) on /validate, over TLS.

Certificates: by default a CA and serving certificate are generated into a Secret and the
caBundle of both webhook configurations is kept current (open-policy-agent/cert-controller);
handlers are registered once certificates are ready, and /readyz reports it. With
--disable-cert-rotation the certificate in --cert-dir (tls.crt, tls.key) is served as is,
for cert-manager or other issuers. Outside a cluster add --sync-cert-dir so the generated
Secret is written to --cert-dir, as kubelet would.

Every request is answered afresh: AdmissionReviews are read and written by
controller-runtime's codec, request bodies are read with a size cap, a read
timeout and a minimum rate, connections are capped (the longest-silent one is
evicted at the cap), small reviews have a lane of their own, a request's work
stops at its caller's timeout, and the causes of a denial are capped. See
docs/webhook.md.

Metrics (Prometheus) on --metrics-bind-address, over HTTPS to callers the API server
authenticates and authorizes (--metrics-secure), /healthz and /readyz on
--health-probe-bind-address. On SIGTERM /readyz fails and answers close their
connections for --shutdown-delay, then the server stops listening and serves the
connections still open, for at most --shutdown-timeout, until the API server closes
them. Idle keep-alive connections are kept 120 s, longer than the API server's 90 s,
so the API server never sends into a connection the server is closing.`,
		Example: `  # in a pod (the Helm chart sets these)
  meshguard serve --mode zone --zone zone-1 --secret-namespace meshguard-system

  # without any cluster, to send it AdmissionReviews with curl (docs/webhook.md)
  meshguard serve --offline --cert-dir ./certs --port 9443 --metrics-bind-address 0

  # outside a cluster, against a local API server
  meshguard serve --kubeconfig kubeconfig --sync-cert-dir --cert-dir /tmp/meshguard-certs \
    --cert-dns-name localhost --cert-dns-name 127.0.0.1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log, err := newLogger(o.logLevel, o.logFormat)
			if err != nil {
				return err
			}
			switch kumaauthz.Form(o.previewForm) {
			case kumaauthz.FormExpanded, kumaauthz.FormCompact:
				o.PreviewForm = kumaauthz.Form(o.previewForm)
			default:
				return usageErr("--preview-form must be expanded or compact (got %q)", o.previewForm)
			}
			if err := o.Check(); err != nil {
				return err
			}
			if o.memoryLimitRatio < 0 || o.memoryLimitRatio > 1 {
				return usageErr("--memory-limit-ratio must be between 0 and 1 (got %g)", o.memoryLimitRatio)
			}
			applyMemoryLimit(log, cgroupRoot, o.memoryLimitRatio)
			var cfg *rest.Config
			if !o.Offline {
				if cfg, err = restConfig(o.kubeconfig); err != nil {
					return err
				}
				logReleases(log, settleReleases(cmd.Context(), cfg, &o.Settings, cmd.Flags()))
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if err := webhook.Run(ctx, cfg, o.Options, log); err != nil {
				return fmt.Errorf("serve: %w", err)
			}
			return nil
		},
	}
	serveFlags(cmd.Flags(), o)
	return cmd
}

// serveFlags defines the flags of `meshguard serve` on o.
func serveFlags(f *pflag.FlagSet, o *serveOptions) {
	settingsFlags(f, &o.Settings)
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig for running outside a cluster (default: in-cluster config, then $KUBECONFIG)")
	f.StringVar(&o.Host, "host", "", "address to serve the webhook on (default all)")
	f.IntVar(&o.Port, "port", 9443, "webhook HTTPS port")
	f.StringVar(&o.CertDir, "cert-dir", "/tmp/k8s-webhook-server/serving-certs", "directory with tls.crt and tls.key")
	f.BoolVar(&o.DisableCertRotation, "disable-cert-rotation", false, "serve the certificate in --cert-dir as is (cert-manager or another issuer rotates it)")
	f.BoolVar(&o.SyncCertDir, "sync-cert-dir", false, "write the generated Secret to --cert-dir (outside a cluster, where no kubelet mounts it)")
	f.StringVar(&o.SecretNamespace, "secret-namespace", defaultNamespace(), "namespace of the certificate Secret and the webhook Service ($POD_NAMESPACE when set)")
	f.StringVar(&o.SecretName, "secret-name", "meshguard-webhook-cert", "Secret holding the generated CA and serving certificate")
	f.StringVar(&o.ServiceName, "service-name", "meshguard-webhook", "Service in front of the webhook; the certificate is issued for <service>.<namespace>.svc")
	f.StringArrayVar(&o.CertDNSNames, "cert-dns-name", nil, "extra DNS name (or IP) for the serving certificate, e.g. localhost; repeatable")
	f.StringVar(&o.MutatingWebhookName, "mutating-webhook-name", "meshguard-mutating", "MutatingWebhookConfiguration whose caBundle is kept current")
	f.StringVar(&o.ValidatingWebhookName, "validating-webhook-name", "meshguard-validating", "ValidatingWebhookConfiguration whose caBundle is kept current")
	f.DurationVar(&o.CertValidity, "cert-validity", 0, "serving certificate lifetime (default: cert-controller's, 10 years)")
	f.DurationVar(&o.RotationCheck, "rotation-check-interval", 0, "how often to check whether to rotate (default 12h)")
	f.DurationVar(&o.RotationLookahead, "rotation-lookahead", 0, "rotate this long before expiry (default 90 days)")
	f.StringVar(&o.MetricsAddr, "metrics-bind-address", ":8080", "Prometheus metrics address; 0 disables")
	f.BoolVar(&o.MetricsSecure, "metrics-secure", true, "serve metrics over HTTPS (a self-signed certificate) to callers whose bearer token the API server authenticates and who may GET the /metrics non-resource URL (the chart's meshguard-metrics-reader ClusterRole); false serves plain HTTP to anyone who reaches the port")
	f.StringVar(&o.SchemaCheck, "schema-check", webhook.SchemaCheckAuto, "when the validating webhook runs the schema layer: auto skips it for kinds whose installed CRD has the schema of the embedded release (the API server has just checked the object against it; watching CRDs needs get/list/watch on customresourcedefinitions), always runs it as lint does, never leaves it to the API server")
	f.StringVar(&o.ProbeAddr, "health-probe-bind-address", ":8081", "/healthz and /readyz address")
	f.StringVar(&o.PprofAddr, "pprof-bind-address", "0", "address serving Go's pprof profiles (/debug/pprof/) to find where a replica spends CPU or memory; 0 disables. Bind it to localhost: profiles are not authenticated")
	f.BoolVar(&o.EnableHTTP2, "enable-http2", false, "allow HTTP/2 on the webhook server (off: CVE-2023-44487)")
	f.DurationVar(&o.ShutdownTimeout, "shutdown-timeout", 30*time.Second, "once the server stops listening, how long it keeps serving open connections until their clients close them (requests in flight finish, idle ones are not closed under the client)")
	f.DurationVar(&o.ShutdownDelay, "shutdown-delay", 0, "after SIGTERM, keep serving this long with /readyz failing and every answer closing its connection, so the Service or load balancer and the API server's keep-alive connections move to another replica before this one stops listening (for runs behind a balancer without a preStop hook; in a pod the chart's preStop sleep plays this part; 0: stop listening at once)")
	f.BoolVar(&o.FailOpenUntilReady, "fail-open-until-ready", false, "the chart registered the webhooks with failurePolicy Ignore: set "+webhook.MutatingWebhook+" and "+webhook.ValidatingWebhook+" to Fail once a self-check through their clientConfig and caBundle passes (first install; see docs/webhook.md)")
	f.StringSliceVar(&o.PrivilegedUsers, "privileged-users", nil,
		"users trusted like the mesh's own sync, in addition to system:serviceaccount:<--system-namespace>:kuma-control-plane, the garbage collector and the namespace controller (always trusted): their writes skip mutation and the owned-label checks, and they may change kuma.io/origin and kuma.io/zone and delete synced objects. Comma-separated or repeated, e.g. for Kong Mesh's control plane account")
	f.StringSliceVar(&o.PrivilegedGroups, "privileged-groups", nil, "groups whose members are trusted like --privileged-users (none by default)")
	f.StringVar(&o.previewForm, "preview-form", string(kumaauthz.FormExpanded), "RBAC preview form in the audit annotation: expanded (falls back to compact when large) or compact")
	f.IntVar(&o.PreviewMaxItems, "preview-max-items", webhook.DefaultPreviewMaxItems, "merged items (of one tag; fewer when items carry more tags) past which a group's RBAC preview is not compiled at admission: it compares items pairwise and the API server waits only timeoutSeconds; 0: no bound. meshguard preview has none")
	f.StringVar(&o.LinkerdServerConflicts, "linkerd-server-conflicts", webhook.ServerConflictsWarn,
		"Linkerd Servers that can select the same pod and port (MG350, from the informer cache of Servers): warn or deny")
	linkerdFlags(f, &o.Linkerd)
	f.DurationVar(&o.RequestReadTimeout, "request-read-timeout", serving.DefaultRequestReadTimeout, "time a client gets to send a whole request body; slower senders get 408 and are disconnected")
	f.DurationVar(&o.RequestWriteTimeout, "request-write-timeout", serving.DefaultRequestWriteTimeout, "time from the start of a request to the end of its answer")
	f.Int64Var(&o.RequestMinBodyRate, "request-min-body-rate", serving.DefaultMinBodyRate, "bytes per second a request body must keep arriving at after a grace second; slower senders get 408 and are disconnected (a byte every few seconds is cut in about a second); 0: the default, negative: only --request-read-timeout counts")
	f.IntVar(&o.MaxConnections, "max-connections", 0, "connections kept open; at the cap a new one closes the one that has sent nothing the longest (never one being answered); 0: a quarter of the Go memory limit at 64 KiB each (921 with the chart's 256Mi), 1024 without a limit")
	f.Int64Var(&o.RequestBodyBudget, "request-body-budget", serving.DefaultRequestBodyBudget, "bytes of request bodies all requests together may hold while they are read (bodies are capped at 7 MiB each); past it requests wait, then get 503")
	f.BoolVar(&o.Offline, "offline", false, "serve without an API server (implies --disable-cert-rotation): the certificate in --cert-dir, no informer caches, previews of the incoming policy alone; for trying the webhook with curl")
	f.Float64Var(&o.memoryLimitRatio, "memory-limit-ratio", 0.9, "set the Go runtime's soft memory limit to this share of the container's cgroup memory limit, so that the collector works harder near it rather than the pod being OOM-killed; 0 leaves the default, and GOMEMLIMIT overrides it")
	f.StringVar(&o.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	f.StringVar(&o.logFormat, "log-format", "json", "log format: json or console")
}

// logReleases logs what settleReleases found, a warning for each mismatch.
func logReleases(log logr.Logger, lines []string) {
	for _, l := range lines {
		if w, ok := strings.CutPrefix(l, "warning: "); ok {
			log.Info("mesh release mismatch", "warning", w)
			continue
		}
		log.Info("mesh release", "detected", l)
	}
}

// newLogger builds the zap logger behind logr, JSON by default.
func newLogger(level, format string) (logr.Logger, error) {
	var lvl zapcore.Level
	if err := lvl.UnmarshalText([]byte(level)); err != nil {
		return logr.Logger{}, usageErr("--log-level must be debug, info, warn or error (got %q)", level)
	}
	cfg := zap.NewProductionConfig()
	switch format {
	case "json":
	case "console":
		cfg.Encoding = "console"
		cfg.EncoderConfig.EncodeTime = zapcore.ISO8601TimeEncoder
	default:
		return logr.Logger{}, usageErr("--log-format must be json or console (got %q)", format)
	}
	cfg.Level = zap.NewAtomicLevelAt(lvl)
	cfg.Sampling = nil
	cfg.EncoderConfig.TimeKey = "ts"
	cfg.EncoderConfig.EncodeTime = zapcore.ISO8601TimeEncoder
	z, err := cfg.Build()
	if err != nil {
		return logr.Logger{}, err
	}
	return zapr.NewLogger(z), nil
}

// restConfig loads --kubeconfig, else the in-cluster config, else $KUBECONFIG.
func restConfig(path string) (*rest.Config, error) {
	if path != "" {
		return clientcmd.BuildConfigFromFlags("", path)
	}
	if cfg, err := rest.InClusterConfig(); err == nil {
		return cfg, nil
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, nil).ClientConfig()
}
