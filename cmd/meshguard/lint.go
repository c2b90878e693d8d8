package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/lint"
	"github.com/meshguard/meshguard/validate"
)

// lintOptions are the flags of `meshguard lint` and `meshguard default`.
type lintOptions struct {
	settings  api.Settings
	namespace string
	output    string
	failOn    string
	color     string
	// noKustomize and noHelm read kustomization directories and Helm charts as
	// plain files, as before rendering existed.
	noKustomize bool
	noHelm      bool
	// helmValues are values files for every chart rendered (helm template -f).
	helmValues []string
	progress   string
	// ignoreFile is the suppression file (--ignore-file); showSuppressed lists
	// suppressed findings in text output too.
	ignoreFile     string
	showSuppressed bool
	// inventory are files or directories of objects references may name (workloads,
	// Services, ...), linted for nothing; noInventory turns the reference checks off.
	inventory   []string
	noInventory bool
	// strictRefs judges every reference against the linted tree plus the
	// inventory as complete: one that names nothing is an error.
	strictRefs bool
	// progressDelay is how long a run goes before the progress line appears.
	progressDelay time.Duration
}

func (o *lintOptions) bind(cmd *cobra.Command) {
	settingsFlags(cmd.Flags(), &o.settings)
	o.settings.UnknownFields = api.UnknownFieldsError
	cmd.Flags().StringVar((*string)(&o.settings.UnknownFields), "unknown-fields", string(o.settings.UnknownFields),
		"a field the CRD does not declare (MG001): error (kubectl apply's strict field validation refuses the object), warn (the API server prunes it, as tools without strict validation leave it), ignore")
	cmd.Flags().StringVarP(&o.namespace, "namespace", "n", "default", "namespace for objects that name none (as kubectl apply -n), and of Helm releases rendered")
	cmd.Flags().BoolVar(&o.noKustomize, "no-kustomize", false, "read directories with a kustomization file as plain files instead of rendering them")
	cmd.Flags().BoolVar(&o.noHelm, "no-helm", false, "read Helm chart directories (with a Chart.yaml) as plain files instead of rendering them")
	cmd.Flags().StringArrayVar(&o.helmValues, "helm-values", nil, "values file merged over every rendered chart's values.yaml, like helm template -f (repeatable)")
}

// bindSuppressions adds the flags of the doors that report findings.
func (o *lintOptions) bindSuppressions(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.ignoreFile, "ignore-file", "", "YAML file of findings accepted on purpose (code, kind/namespace/name globs, reason, expires); see docs/lint.md#suppressions")
	cmd.Flags().BoolVar(&o.showSuppressed, "show-suppressed", false, "list suppressed findings in text output too (json and sarif always include them, marked)")
}

// loadOptions read the arguments the way the doors share: kustomization
// directories and Helm charts rendered unless switched off.
func (o *lintOptions) loadOptions() lint.LoadOptions {
	return lint.LoadOptions{Kustomize: !o.noKustomize, Helm: !o.noHelm, HelmValues: o.helmValues, Namespace: o.namespace}
}

// load reads all the arguments at once, for the doors that need every document
// together (preview).
func (o *lintOptions) load(s streams, args []string) lint.Loaded {
	return lint.LoadAll(args, s.in, o.loadOptions())
}

func (o *lintOptions) engine() (lint.Options, error) {
	if err := o.settings.Check(); err != nil {
		return lint.Options{}, err
	}
	if o.namespace == "" {
		return lint.Options{}, usageErr("--namespace must not be empty")
	}
	if err := o.settings.LoadSchemas(); err != nil {
		return lint.Options{}, err
	}
	eng := lint.Options{Settings: o.settings, Namespace: o.namespace, Registry: api.DefaultRegistry(),
		Stages: lint.CrossDocument(o.settings, o.namespace)}
	if o.ignoreFile != "" {
		f, err := lint.ReadIgnoreFile(o.ignoreFile, lint.RuleSeverity, time.Now())
		if err != nil {
			return lint.Options{}, usageErr("%v", err)
		}
		eng.Ignore = f
	}
	return eng, nil
}

func newLintCmd(s streams) *cobra.Command {
	o := &lintOptions{}
	cmd := &cobra.Command{
		Use:   "lint [PATH|-]...",
		Short: "Check policy manifests the way the admission webhook would",
		Long: `Lint reads YAML or JSON manifests (files, directories searched recursively for
.yaml/.yml/.json, or - for standard input; multi-document files and kind: List work),
defaults each object as the mutating webhook would, then validates it.

Rendering: a directory that holds a kustomization.yaml (kustomization.yml,
Kustomization) is built with the kustomize library, as kubectl kustomize builds it,
and the rendered objects are linted, not the files the kustomization consumes. A
directory that holds a Chart.yaml is rendered like helm template (values from
--helm-values over the chart's values.yaml, release namespace from -n). In a tree,
each kustomization or chart is rendered once, including bases that overlays in the
same tree use; files under it are its inputs and are not linted as they are.
Findings on rendered objects name the source file (for kustomize, the patch that
sets the field or else the resource file; lines there are approximate) and the
kustomization or chart that rendered them. A kustomize build or Helm render that
fails is an MG000 error on the kustomization file or Chart.yaml. --no-kustomize and
--no-helm read those directories as plain files. See docs/lint.md.

References between objects (a MeshService a route sends to, the Server an
AuthorizationPolicy targets, the pods a selector picks) are resolved against the
linted objects plus --inventory and reported as warnings (MG401-MG449) when they
name nothing; only kinds and namespaces the inventory holds objects of are
judged, so a lint of one file stays quiet about what it cannot see.
--no-inventory turns the check off.

YAML that is not a Kubernetes object (no apiVersion and no kind: Helm values, CI
workflows) is skipped with a note on standard error, counted as skipped in the
summary and listed in json and sarif output; it does not change the exit code.

Output formats: text (file:line: severity code field: message), json (one object
with findings, summary and skipped) and sarif (SARIF 2.1.0 for code-scanning UIs).

Suppressions: the meshguard.io/ignore annotation on an object ("MG203: reason;
MG201 until 2027-01-31: reason") and --ignore-file accept warnings on purpose. A
suppressed finding stays in json and sarif, marked, is counted (not listed) in text
unless --show-suppressed, and never changes the exit code. Errors cannot be
suppressed. See docs/lint.md#suppressions.

Exit codes: 0 when nothing is at or above --fail-on, 1 when something is, 2 on a
usage error or a document that cannot be read or parsed, or a render that fails
(the other documents are still linted).`,
		Example: `  meshguard lint policies/
  meshguard lint deploy/                  # renders deploy/**/kustomization.yaml and charts
  meshguard lint overlays/prod            # one kustomization, with the bases it uses
  meshguard lint -n payments --helm-values prod-values.yaml charts/payments
  meshguard lint --no-kustomize --no-helm deploy/   # every file as it is
  kubectl kustomize overlays/prod | meshguard lint -o json -
  meshguard lint --mode zone --zone zone-1 -o sarif policies/ > meshguard.sarif
  helm template shop charts/shop > rendered.yaml
  meshguard lint --inventory rendered.yaml policies/   # references resolve against the chart's objects`,
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := o.engine()
			if err != nil {
				return err
			}
			if len(args) == 0 {
				return usageErr("lint needs at least one PATH, or - for standard input")
			}
			if eng.Stages, err = o.stages(eng); err != nil {
				return err
			}
			if o.failOn != validate.SeverityError && o.failOn != validate.SeverityWarning {
				return usageErr("--fail-on must be error or warning (got %q)", o.failOn)
			}
			prog, err := o.progressLine(s)
			if err != nil {
				return err
			}
			defer tuneGCForLint()()
			findings, sum, skipped := lint.Run(args, s.in, o.loadOptions(), eng, prog.Update)
			prog.Done()
			if err := o.write(s, findings, sum, skipped); err != nil {
				return err
			}
			if err := lint.WriteNotes(s.err, skipped); err != nil {
				return err
			}
			return exitFor(findings, o.failOn)
		},
	}
	o.bind(cmd)
	o.bindSuppressions(cmd)
	cmd.Flags().StringVarP(&o.output, "output", "o", "text", "output format: text, json or sarif")
	cmd.Flags().StringVar(&o.failOn, "fail-on", validate.SeverityError, "lowest severity that makes the exit code 1: error or warning")
	cmd.Flags().StringVar(&o.color, "color", "auto", "colour text output: auto (only on a terminal, honours NO_COLOR), always, never")
	cmd.Flags().StringArrayVar(&o.inventory, "inventory", nil, "file or directory of objects that references may name but that are not linted (workloads, Services, Namespaces, ServiceAccounts, mesh objects; e.g. a rendered Helm chart or a cluster dump); repeatable. See docs/lint.md")
	cmd.Flags().BoolVar(&o.noInventory, "no-inventory", false, "do not check references between objects (MG401-MG449)")
	cmd.Flags().BoolVar(&o.strictRefs, "strict-references", false, "the linted PATHs plus --inventory are the whole cluster: a reference that names nothing (MG401-MG449, MG369) is an error, in every kind and namespace")
	cmd.Flags().StringVar(&o.progress, "progress", "auto", "progress line on standard error for runs over a second: auto (only on a terminal), always, never")
	cmd.Flags().DurationVar(&o.progressDelay, "progress-delay", time.Second, "how long a run goes before the progress line appears")
	_ = cmd.Flags().MarkHidden("progress-delay")
	return cmd
}

// stages are the cross-document stages of a lint run: the reference checks
// resolve against the linted objects plus --inventory, or are off with
// --no-inventory. An inventory document that cannot be read is a usage error: a
// broken inventory would silently hide every reference it should resolve.
func (o *lintOptions) stages(eng lint.Options) (func() []lint.Stage, error) {
	if o.noInventory {
		if len(o.inventory) > 0 {
			return nil, usageErr("--inventory and --no-inventory exclude each other")
		}
		if o.strictRefs {
			return nil, usageErr("--strict-references and --no-inventory exclude each other")
		}
		return lint.CrossDocumentInventory(o.settings, o.namespace, nil), nil
	}
	inv, bad := lint.LoadInventory(o.inventory, o.loadOptions(), eng)
	if len(bad) > 0 {
		f := bad[0]
		return nil, usageErr("--inventory: %s:%d: %s", f.File, f.Line, f.Message)
	}
	inv.Complete = o.strictRefs
	return lint.CrossDocumentInventory(o.settings, o.namespace, inv), nil
}

// progressOn says whether a --progress value (auto, always, never) draws a
// progress line: auto only when standard error is a terminal.
func progressOn(mode string, s streams) (bool, error) {
	switch mode {
	case "auto":
		return s.stderr != nil && lint.IsTerminal(s.stderr), nil
	case "always":
		return true, nil
	case "never":
		return false, nil
	}
	return false, usageErr("--progress must be auto, always or never (got %q)", mode)
}

// progressLine is the progress line --progress asks for: drawn on standard error
// only when it is a terminal (auto) or always; never, as in CI logs and tests,
// otherwise.
func (o *lintOptions) progressLine(s streams) (*lint.Progress, error) {
	on, err := progressOn(o.progress, s)
	if err != nil {
		return nil, err
	}
	if !on {
		return lint.NewProgress(io.Discard, 0), nil
	}
	return lint.NewProgress(s.err, o.progressDelay), nil
}

func (o *lintOptions) write(s streams, fs []lint.Finding, sum lint.Summary, skipped []lint.Skip) error {
	switch o.output {
	case "text":
		color := o.color == "always" || (o.color == "auto" && s.stdout != nil && lint.IsTerminal(s.stdout))
		if !o.showSuppressed {
			fs = lint.Unsuppressed(fs)
		}
		return lint.WriteText(s.out, fs, sum, color)
	case "json":
		return lint.WriteJSON(s.out, fs, sum, skipped)
	case "sarif":
		return lint.WriteSARIF(s.out, fs, skipped, lint.Rules())
	}
	return usageErr("--output must be text, json or sarif (got %q)", o.output)
}

// exitFor turns findings into the documented exit code: parse errors win (2), then
// anything at or above the threshold (1).
func exitFor(fs []lint.Finding, failOn string) error {
	code := exitOK
	for _, f := range fs {
		if f.Suppression != nil {
			continue
		}
		if f.Code == validate.CodeParse {
			return exitError{exitUsage}
		}
		if f.Severity == validate.SeverityError || failOn == validate.SeverityWarning {
			code = exitFindings
		}
	}
	if code != exitOK {
		return exitError{code}
	}
	return nil
}

func newDefaultCmd(s streams) *cobra.Command {
	o := &lintOptions{}
	cmd := &cobra.Command{
		Use:   "default [PATH|-]...",
		Short: "Print objects as the mutating webhook would store them",
		Long: `Default reads manifests like lint and prints every document, in the same order, as
YAML the way the mutating webhook would store it: kuma.io/mesh, k8s.kuma.io/namespace,
kuma.io/policy-role and the zone/origin labels, plus (with --sugar=expand) the implied
spec values of the policy-on-namespace design. Objects of other kinds are printed
unchanged. Kustomizations and Helm charts are rendered first, as lint renders them
(--no-kustomize, --no-helm, --helm-values work the same), so the output is the
rendered objects, defaulted. YAML that is not a Kubernetes object is left out with a
note on standard error.

On standard error it says what the webhook would say: a warning for each label the
document set that was replaced (MG016), and for each object the validating webhook
would deny, "file:line: note: this object would be denied: CODES" (run lint on the
file for the findings).

Exit codes: 0 when every object would be admitted, 1 when some would be denied, 2 on
a usage error, a document that cannot be read or parsed, or a render that fails (the
other documents are still printed).`,
		Example: `  meshguard default -n payments-ns policy.yaml
  meshguard default overlays/prod > prod-as-stored.yaml
  meshguard default --mode zone --zone zone-1 --sugar keep policies/`,
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := o.engine()
			if err != nil {
				return err
			}
			if len(args) == 0 {
				return usageErr("default needs at least one PATH, or - for standard input")
			}
			return printDefaulted(s, args, o.loadOptions(), eng)
		},
	}
	o.bind(cmd)
	return cmd
}

// printDefaulted streams the documents as the mutating webhook would store them,
// separated by "---", with defaultDocument's notes on standard error, and returns
// the documented exit code: 2 for an unreadable document, else 1 when an object
// would be denied.
func printDefaulted(s streams, args []string, lo lint.LoadOptions, eng lint.Options) error {
	bad, denied, first := false, false, true
	var failed error
	skipped := lint.Stream(args, s.in, lo, func(d *lint.Document) defaulted { return defaultDocument(d, eng) }, func(r defaulted) {
		switch {
		case failed != nil:
		case r.parseErr != nil:
			bad = true
			printParseError(s, r.parseErr)
		case r.err != nil:
			failed = r.err
		default:
			for _, n := range r.notes {
				fmt.Fprintln(s.err, n)
			}
			denied = denied || r.denied
			if !first {
				fmt.Fprintln(s.out, "---")
			}
			first = false
			_, failed = s.out.Write(r.yaml)
		}
	})
	if failed != nil {
		return failed
	}
	if err := lint.WriteNotes(s.err, skipped); err != nil {
		return err
	}
	switch {
	case bad:
		return exitError{exitUsage}
	case denied:
		return exitError{exitFindings}
	}
	return nil
}

// defaulted is one document of `meshguard default`: the YAML to print and the
// lines for standard error, or why not. Documents are defaulted concurrently and
// printed in order, so nothing is written until then.
type defaulted struct {
	yaml     []byte
	notes    []string
	denied   bool
	err      error
	parseErr *lint.Document
}

// defaultDocument defaults one document (lint.Default) and renders it: the YAML to
// print, and a warning line per replaced label and a note when the object would be
// denied, as the webhook would say them.
func defaultDocument(d *lint.Document, eng lint.Options) defaulted {
	if d.Err != nil {
		return defaulted{parseErr: &lint.Document{File: d.File, Line: d.Line, ErrLine: d.ErrLine, Err: d.Err}}
	}
	var r defaulted
	res := lint.Default(d, eng)
	for _, f := range res.Replaced {
		r.notes = append(r.notes, fmt.Sprintf("%s:%d: %s %s %s: %s", f.File, f.Line, f.Severity, f.Code, f.Field, f.Message))
	}
	if len(res.Denied) > 0 {
		r.denied = true
		at := res.DeniedAt
		r.notes = append(r.notes, fmt.Sprintf("%s:%d: note: this object would be denied: %s", at.File, at.Line, strings.Join(res.Denied, ", ")))
	}
	r.yaml, r.err = yaml.Marshal(d.Object.Object)
	return r
}

// printParseError reports a document that could not be read, in lint's text format,
// for the doors that print objects rather than findings.
func printParseError(s streams, d *lint.Document) {
	fmt.Fprintf(s.err, "%s:%d: error %s: %v\n", d.File, max(d.ErrLine, d.Line, 1), validate.CodeParse, d.Err)
}
