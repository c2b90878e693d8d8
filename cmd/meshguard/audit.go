package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/audit"
	"github.com/meshguard/meshguard/lint"
	"github.com/meshguard/meshguard/live"
	"github.com/meshguard/meshguard/schema"
	"github.com/meshguard/meshguard/webhook/serving"
)

// auditOptions are the flags of `meshguard audit`.
type auditOptions struct {
	settings       api.Settings
	kubeconfig     string
	context        string
	namespaces     []string
	output         string
	failOn         string
	color          string
	ignoreFile     string
	showSuppressed bool
	writeReports   bool
	reportFormat   string
	maxResults     int
	pageSize       int64
	interval       time.Duration
	metricsAddr    string
	metricsSecure  bool
	healthAddr     string
	logLevel       string
	logFormat      string
	progress       string
	progressDelay  time.Duration
	mapFile        string
	// flags are the command's flags: whether --kuma-version and --linkerd-version
	// were given (detection does not override them).
	flags *pflag.FlagSet
}

func newAuditCmd(s streams) *cobra.Command {
	o := &auditOptions{}
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Lint every policy stored in a live cluster, optionally writing policy reports",
		Long: `Audit reads every Kuma, Linkerd and Gateway API route object a cluster stores (the
kinds the cluster serves; others are skipped and said so), in all namespaces or those
of -n, with the Namespaces, Services, ServiceAccounts and workloads the cross-object
checks need, and lints them all in one run with the engine of meshguard lint. It
finds what admission never saw: objects stored before meshguard was installed, or
while its webhook was failing open. It only reads, unless --write-reports.

--write-reports creates or updates one report per namespace (and one cluster
report for cluster-scoped objects) with server-side apply: OpenReports
(openreports.io/v1alpha1 Report/ClusterReport, as Kyverno 1.15 writes them) or, with
--report-format wgpolicy, wgpolicyk8s.io/v1alpha2 PolicyReport/ClusterPolicyReport.
Each result has policy = the rule code, rule = the field, result fail (error), warn
(warning) or skip (suppressed). Reports of namespaces with nothing left to audit are
deleted. The CRDs must be installed (chart value audit.reports.installCRDs).

--interval keeps auditing every interval and serves the Prometheus gauge
meshguard_audit_findings{code,severity} on --metrics-bind-address; the chart runs
it that way (audit.enabled). Suppressions work as in lint: the meshguard.io/ignore
annotation and --ignore-file. See docs/audit.md.

Exit codes (single run): 0 when nothing is at or above --fail-on, 1 when something
is, 2 on a usage error or when the cluster cannot be read or reports not written.`,
		Example: `  meshguard audit                                  # current kubeconfig context, all namespaces
  meshguard audit --context prod -n payments -n orders -o json
  meshguard audit --ignore-file meshguard-ignore.yaml -o sarif > audit.sarif
  meshguard audit --write-reports                  # OpenReports Report per namespace
  meshguard audit --write-reports --report-format wgpolicy
  meshguard audit --write-reports --interval 10m --metrics-bind-address :8080
  meshguard audit -o json=audit.json --map access-map.md   # the access map beside the report`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd.Context(), s) },
	}
	f := cmd.Flags()
	o.flags = f
	settingsFlags(f, &o.settings)
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, ~/.kube/config, or the in-cluster configuration)")
	f.StringVar(&o.context, "context", "", "kubeconfig context to use (default: the current context)")
	f.StringSliceVarP(&o.namespaces, "namespace", "n", nil, "audit only these namespaces (repeatable or comma-separated; default: all). Cluster-scoped kinds are always read")
	bindReportOutput(cmd, &o.output)
	bindFailOn(cmd, &o.failOn, failOnError, "the severity of findings; none: only a cluster that cannot be read fails")
	f.StringVar(&o.color, "color", "auto", "colour text output: auto (only on a terminal, honours NO_COLOR), always, never")
	f.StringVar(&o.ignoreFile, "ignore-file", "", "YAML file of findings accepted on purpose; see docs/lint.md#suppressions")
	f.BoolVar(&o.showSuppressed, "show-suppressed", false, "list suppressed findings in text output too")
	f.BoolVar(&o.writeReports, "write-reports", false, "create or update one policy report per namespace (server-side apply) and delete stale ones")
	f.StringVar(&o.reportFormat, "report-format", string(audit.FormatOpenReports), "report API: openreports (openreports.io/v1alpha1) or wgpolicy (wgpolicyk8s.io/v1alpha2)")
	f.IntVar(&o.maxResults, "max-report-results", audit.DefaultMaxResults, "most results one report lists (the summary counts all); keeps a report under etcd's object size limit")
	f.Int64Var(&o.pageSize, "page-size", live.DefaultPageSize, "objects per list request")
	f.DurationVar(&o.interval, "interval", 0, "audit again every interval until stopped, serving metrics (0: audit once and exit)")
	f.StringVar(&o.metricsAddr, "metrics-bind-address", ":8080", "Prometheus metrics address with --interval; 0 disables")
	f.BoolVar(&o.metricsSecure, "metrics-secure", true, "serve metrics over HTTPS to callers the API server authenticates and authorizes to GET /metrics (false: plain HTTP to anyone)")
	f.StringVar(&o.healthAddr, "health-probe-bind-address", ":8081", "address of /healthz with --interval, for a liveness probe; 0 disables")
	f.StringVar(&o.logLevel, "log-level", "info", "log level with --interval: debug, info, error")
	f.StringVar(&o.logFormat, "log-format", "json", "log format with --interval: json or console")
	f.StringVar(&o.mapFile, "map", "", "also write the cluster's access map (meshguard map) to this file; its format by extension: .json, .yaml, .csv, .md, .dot, .html, else text")
	f.StringVar(&o.progress, "progress", "auto", "progress line on standard error for audits over a second: auto (only on a terminal), always, never")
	f.DurationVar(&o.progressDelay, "progress-delay", time.Second, "how long an audit goes before the progress line appears")
	_ = f.MarkHidden("progress-delay")
	return cmd
}

// check reports flags that cannot work; run then loads the CRDs of the releases
// it settles on.
func (o *auditOptions) check() error {
	if err := schema.CheckSettings(o.settings); err != nil {
		return err
	}
	switch {
	case checkEnum("fail-on", o.failOn, failOnLevels()) != nil:
		return checkEnum("fail-on", o.failOn, failOnLevels())
	case !audit.Format(o.reportFormat).Valid():
		return usageErr("--report-format must be openreports or wgpolicy (got %q)", o.reportFormat)
	case o.maxResults < 1:
		return usageErr("--max-report-results must be at least 1")
	case o.pageSize < 1:
		return usageErr("--page-size must be at least 1")
	case o.interval < 0:
		return usageErr("--interval must not be negative")
	case o.mapFile != "" && o.interval > 0:
		return usageErr("--map writes one map after a single audit; it does not go with --interval")
	}
	for _, ns := range o.namespaces {
		if ns == "" {
			return usageErr("--namespace must not be empty")
		}
	}
	return nil
}

// engine is the linter's options for stored objects.
func (o *auditOptions) engine() (lint.Options, error) {
	// audit.Run sets the stages: they read the cluster's Dataplanes it lists.
	eng := lint.Options{Settings: o.settings, Namespace: "default", Registry: api.DefaultRegistry()}
	if o.ignoreFile != "" {
		f, err := lint.ReadIgnoreFile(o.ignoreFile, lint.RuleSeverity, time.Now())
		if err != nil {
			return lint.Options{}, usageErr("%v", err)
		}
		eng.Ignore = f
	}
	return eng, nil
}

func (o *auditOptions) run(ctx context.Context, s streams) error {
	if err := o.check(); err != nil {
		return err
	}
	outs, err := parseOutputs(o.output)
	if err != nil {
		return err
	}
	// Read once here so a bad ignore file is a usage error at start; each audit
	// reads it again, so expiry dates and an updated file (a ConfigMap) hold in
	// a long --interval run.
	if _, err := o.engine(); err != nil {
		return err
	}
	cfg, err := live.Config(o.kubeconfig, o.context)
	if err != nil {
		return err
	}
	sayReleases(s, "audit", settleReleases(ctx, cfg, &o.settings, o.flags))
	if err := schema.LoadInto(&o.settings); err != nil {
		return err
	}
	reader, err := live.NewReader(cfg)
	if err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	objects := &lint.Objects{}
	once := func(ctx context.Context, progress func(int)) (audit.Result, error) {
		eng, err := o.engine()
		if err != nil {
			return audit.Result{}, err
		}
		objects = recordObjects(&eng, outs)
		r, err := audit.Run(ctx, reader, audit.Options{Lint: eng, Live: live.Options{Namespaces: o.namespaces, PageSize: o.pageSize, Progress: progress}})
		if err != nil || !o.writeReports {
			return r, err
		}
		ro := audit.ReportOptions{Format: audit.Format(o.reportFormat), Namespaces: o.namespaces, MaxResults: o.maxResults, Now: time.Now()}
		w, err := audit.Write(ctx, dyn, audit.Build(r, ro), ro)
		if err == nil && o.interval == 0 {
			fmt.Fprintf(s.err, "meshguard audit: wrote %d reports, deleted %d stale ones\n", len(w.Applied), len(w.Deleted))
		}
		return r, err
	}
	if o.interval > 0 {
		return o.loop(ctx, cfg, once)
	}
	prog, err := o.progressLine(s)
	if err != nil {
		return err
	}
	r, err := once(ctx, prog.update)
	prog.done()
	if err != nil {
		return err
	}
	for _, line := range r.Describe() {
		fmt.Fprintf(s.err, "meshguard audit: %s\n", line)
	}
	lo := lintOptions{color: o.color, showSuppressed: o.showSuppressed, failOn: o.failOn}
	// Kinds not read go where lint puts documents it did not lint: json's
	// skipped list, SARIF's notifications.
	var skipped []lint.Skip
	for _, sk := range r.Skipped {
		skipped = append(skipped, lint.Skip{File: live.Source + sk.Resource, Reason: sk.Kind + " not read: " + sk.Reason})
	}
	if err := lo.write(s, outs, report{findings: r.Findings, summary: r.Summary, skipped: skipped, objects: objects.List()}); err != nil {
		return err
	}
	if o.mapFile != "" {
		if err := o.writeMap(s); err != nil {
			return err
		}
	}
	return exitFor(r.Findings, o.failOn)
}

// writeMap reads the cluster as `meshguard map --kubeconfig` does and writes
// its access map to --map.
func (o *auditOptions) writeMap(s streams) error {
	loaded, err := readLive(o.kubeconfig, o.context)
	if err != nil {
		return err
	}
	return writeMapFile(s, defaultMapOptions(o.settings), loaded, o.mapFile)
}

// syncProgress is a progress line the reader's goroutines may update at once.
type syncProgress struct {
	mu sync.Mutex
	p  *lint.Progress
}

func (p *syncProgress) update(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.p.Update(n)
}

func (p *syncProgress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.p.Done()
}

func (o *auditOptions) progressLine(s streams) (*syncProgress, error) {
	on, err := progressOn(o.progress, s)
	if err != nil {
		return nil, err
	}
	if !on {
		return &syncProgress{p: lint.NewProgress(io.Discard, 0)}, nil
	}
	return &syncProgress{p: lint.NewProgressOf(s.err, o.progressDelay, "meshguard audit: %d objects read")}, nil
}

// loop audits every --interval until SIGTERM, serving the gauges (over HTTPS
// behind the API server's authentication and authorization unless
// --metrics-secure=false) and /healthz.
func (o *auditOptions) loop(ctx context.Context, cfg *rest.Config, once func(context.Context, func(int)) (audit.Result, error)) error {
	log, err := newLogger(o.logLevel, o.logFormat)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m, err := audit.NewMetrics(reg)
	if err != nil {
		return err
	}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	mo := serving.MetricsOptions{Addr: o.metricsAddr, Secure: o.metricsSecure, Config: cfg, HTTPClient: hc, Gatherer: reg,
		TLS: func(c *tls.Config) { c.MinVersion, c.CipherSuites = tls.VersionTLS12, serving.AEADCipherSuites() }}
	if _, err := serving.ServeMetrics(ctx, mo, log.WithName("metrics")); err != nil {
		return err
	}
	if _, err := serving.ServeHealth(ctx, o.healthAddr, log.WithName("health")); err != nil {
		return err
	}
	log.Info("auditing periodically", "interval", o.interval.String(), "namespaces", strings.Join(o.namespaces, ","), "writeReports", o.writeReports)
	audit.Loop(ctx, o.interval, m, log, func(ctx context.Context) (audit.Result, error) { return once(ctx, nil) })
	return nil
}
