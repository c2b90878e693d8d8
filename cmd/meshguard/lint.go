package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/lint"
	"github.com/meshguard/meshguard/schema"
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
	// render holds the Helm and kustomize flags and the rendering bounds.
	render renderFlags
	// changedFiles reads the PATHs as a commit's changed files (--changed-files).
	changedFiles bool
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
	o.render.bind(cmd)
}

// bindSuppressions adds the flags of the doors that report findings.
func (o *lintOptions) bindSuppressions(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.ignoreFile, "ignore-file", "", "YAML file of findings accepted on purpose (code, kind/namespace/name globs, reason, expires); see docs/lint.md#suppressions")
	cmd.Flags().BoolVar(&o.showSuppressed, "show-suppressed", false, "list suppressed findings in text output too (json and sarif always include them, marked)")
}

// loadOptions read the arguments the way the doors share: kustomization
// directories and Helm charts rendered unless switched off.
func (o *lintOptions) loadOptions() lint.LoadOptions {
	ro, timeout, _ := o.render.options() // checked in engine()
	return lint.LoadOptions{Kustomize: !o.noKustomize, Helm: !o.noHelm, HelmValues: o.helmValues, Namespace: o.namespace,
		RenderTimeout: timeout, Render: ro}
}

// checkPaths refuses, before any work, PATHs that are missing, unreadable,
// not a file or directory, or too large: an input error (exit 2), never a
// finding about a file that is not there.
func checkPaths(args []string) error {
	if err := lint.CheckPaths(args); err != nil {
		return usageErr("%v", err)
	}
	return nil
}

// load reads all the arguments at once, for the doors that need every document
// together (preview).
func (o *lintOptions) load(s streams, args []string) lint.Loaded {
	return lint.LoadAll(args, s.in, o.loadOptions())
}

func (o *lintOptions) engine() (lint.Options, error) {
	if err := schema.CheckSettings(o.settings); err != nil {
		return lint.Options{}, err
	}
	if o.namespace == "" {
		return lint.Options{}, usageErr("--namespace must not be empty")
	}
	if _, _, err := o.render.options(); err != nil {
		return lint.Options{}, err
	}
	if err := schema.LoadInto(&o.settings); err != nil {
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
		Use:         "lint [PATH|-]...",
		Annotations: map[string]string{bulkReadAnnotation: "lint"},
		Short:       "Check policy manifests the way the admission webhook would",
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
--no-helm read those directories as plain files. helm template's --set,
--set-string, --release-name, --api-versions and --kube-version and kustomize's
--enable-helm and --load-restrictor work as there. Rendering is safe on an untrusted
repository: nothing is fetched without --allow-remote, symlinks may not lead out of
the PATHs, and each render is bounded (--render-timeout, --render-max-bytes,
--render-max-memory). --changed-files (the pre-commit hooks) lints the chart or
kustomization around each changed file. See docs/lint.md.

References between objects (a MeshService a route sends to, the Server an
AuthorizationPolicy targets, the pods a selector picks) are resolved against the
linted objects plus --inventory and reported as warnings (MG401-MG449) when they
name nothing; only kinds and namespaces the inventory holds objects of are
judged, so a lint of one file stays quiet about what it cannot see.
--no-inventory turns the check off.

YAML that is not a Kubernetes object (no apiVersion and no kind: Helm values, CI
workflows) is skipped with a note on standard error, counted as skipped in the
summary and listed in json and sarif output; it does not change the exit code.

Output formats (-o): text (file:line: severity code field: message), json (one
object with findings, summary and skipped), yaml (the same as YAML), sarif (SARIF
2.1.0 for code-scanning UIs, with the tool version and render provenance),
markdown (a table for a job summary or pull-request comment), github (GitHub
Actions workflow commands: annotations without code scanning) and junit (JUnit
XML: a testsuite per file, a testcase per object, a failure per finding at or
above --fail-on). One run can write several: -o text,sarif=meshguard.sarif
prints text and writes SARIF to a file.

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
  meshguard lint -o text,sarif=meshguard.sarif,junit=report.xml policies/
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
			args = o.changed(args, &eng)
			if err := checkPaths(args); err != nil {
				return err
			}
			if eng.Stages, err = o.stages(eng); err != nil {
				return err
			}
			if err := checkEnum("fail-on", o.failOn, failOnLevels()); err != nil {
				return err
			}
			outs, err := parseOutputs(o.output)
			if err != nil {
				return err
			}
			objects := recordObjects(&eng, outs)
			prog, err := o.progressLine(s)
			if err != nil {
				return err
			}
			defer tuneGCForLint()()
			findings, sum, skipped := lint.Run(args, s.in, o.loadOptions(), eng, prog.Update)
			prog.Done()
			if err := o.write(s, outs, report{findings: findings, summary: sum, skipped: skipped, objects: objects.List()}); err != nil {
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
	bindReportOutput(cmd, &o.output)
	bindFailOn(cmd, &o.failOn, failOnError, "the severity of findings; none: only unreadable input fails")
	cmd.Flags().StringVar(&o.color, "color", "auto", "colour text output: auto (only on a terminal, honours NO_COLOR), always, never")
	cmd.Flags().StringArrayVar(&o.inventory, "inventory", nil, "file or directory of objects that references may name but that are not linted (workloads, Services, Namespaces, ServiceAccounts, mesh objects; e.g. a rendered Helm chart or a cluster dump); repeatable. See docs/lint.md")
	cmd.Flags().BoolVar(&o.noInventory, "no-inventory", false, "do not check references between objects (MG401-MG449)")
	cmd.Flags().BoolVar(&o.strictRefs, "strict-references", false, "the linted PATHs plus --inventory are the whole cluster: a reference that names nothing (MG401-MG449, MG369) is an error, in every kind and namespace")
	cmd.Flags().StringVar(&o.progress, "progress", "auto", "progress line on standard error for runs over a second: auto (only on a terminal), always, never")
	cmd.Flags().DurationVar(&o.progressDelay, "progress-delay", time.Second, "how long a run goes before the progress line appears")
	cmd.Flags().BoolVar(&o.changedFiles, "changed-files", false, "the PATHs are changed files (a pre-commit hook's): lint the chart or kustomization around each, once; leave out hidden files; no MG054 for --ignore-file entries")
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

// write writes the run's reports to the outputs of -o, text in colour only on a
// terminal (--color).
func (o *lintOptions) write(s streams, outs []reportOutput, r report) error {
	r.color = o.color == "always" || (o.color == "auto" && s.stdout != nil && lint.IsTerminal(s.stdout))
	r.showSuppressed, r.failOn = o.showSuppressed, o.failOn
	return writeReports(s, outs, r)
}

// bindReportOutput adds the -o of the doors that report findings: one format,
// or several with files (see parseOutputs).
func bindReportOutput(cmd *cobra.Command, p *string) {
	names := formatNames(findingFormats())
	cmd.Flags().StringVarP(p, "output", "o", string(formatText), "output format: "+oneOf(names)+
		"; or a comma-separated list of FORMAT=FILE plus at most one FORMAT for standard output, to write several reports from one run (-o text,sarif=meshguard.sarif)")
	completeEnum(cmd, "output", names)
}

// recordObjects makes the run record the objects it lints when a report lists
// every object (JUnit), by adding a recording stage to eng; the result's List is
// empty otherwise.
func recordObjects(eng *lint.Options, outs []reportOutput) *lint.Objects {
	objects := &lint.Objects{}
	if !wants(outs, formatJUnit) {
		return objects
	}
	stages := eng.Stages
	eng.Stages = func() []lint.Stage {
		var ss []lint.Stage
		if stages != nil {
			ss = stages()
		}
		return append(ss, objects.Stage())
	}
	return objects
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
		if lint.FailsOn(f.Severity, failOn) {
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
note on standard error. -o json prints the objects as one JSON List
(apiVersion v1, kind List) instead of YAML documents.

On standard error it says what the webhook would say: a warning for each label the
document set that was replaced (MG016), and for each object the validating webhook
would deny, "file:line: note: this object would be denied: CODES" (run lint on the
file for the findings).

Exit codes: 0 when every object would be admitted, 1 when some would be denied, 2 on
a usage error, a document that cannot be read or parsed, or a render that fails (the
other documents are still printed).`,
		Example: `  meshguard default -n payments-ns policy.yaml
  meshguard default overlays/prod > prod-as-stored.yaml
  meshguard default --mode zone --zone zone-1 --sugar keep policies/
  meshguard default -o json policy.yaml | jq '.items[].metadata.labels'`,
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := o.engine()
			if err != nil {
				return err
			}
			if len(args) == 0 {
				return usageErr("default needs at least one PATH, or - for standard input")
			}
			if err := checkOutput(o.output, defaultFormats()); err != nil {
				return err
			}
			if err := checkPaths(args); err != nil {
				return err
			}
			return printDefaulted(s, args, o.loadOptions(), eng, format(o.output))
		},
	}
	o.bind(cmd)
	bindOutput(cmd, &o.output, defaultFormats()...)
	return cmd
}

// defaultFormats are default's -o values: the objects as YAML documents, or as
// one JSON List (as kubectl get -o json prints several objects).
func defaultFormats() []format { return []format{formatYAML, formatJSON} }

// printDefaulted streams the documents as the mutating webhook would store them,
// separated by "---", with defaultDocument's notes on standard error, and returns
// the documented exit code: 2 for an unreadable document, else 1 when an object
// would be denied.
func printDefaulted(s streams, args []string, lo lint.LoadOptions, eng lint.Options, out format) error {
	bad, denied, first := false, false, true
	var failed error
	var items []json.RawMessage
	skipped := lint.Stream(args, s.in, lo, func(d *lint.Document) defaulted { return defaultDocument(d, eng, out) }, func(r defaulted) {
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
			if out == formatJSON {
				items = append(items, r.yaml)
				return
			}
			if !first {
				fmt.Fprintln(s.out, "---")
			}
			first = false
			_, failed = s.out.Write(r.yaml)
		}
	})
	if failed == nil && out == formatJSON {
		failed = writeJSONList(s.out, items)
	}
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

// writeJSONList prints objects as one kind: List, indented.
func writeJSONList(w io.Writer, items []json.RawMessage) error {
	if items == nil {
		items = []json.RawMessage{}
	}
	b, err := json.MarshalIndent(map[string]any{"apiVersion": "v1", "kind": "List", "items": items}, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// defaulted is one document of `meshguard default`: the YAML (or JSON) to print and the
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
func defaultDocument(d *lint.Document, eng lint.Options, out format) defaulted {
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
	if out == formatJSON {
		r.yaml, r.err = json.Marshal(d.Object.Object)
		return r
	}
	r.yaml, r.err = yaml.Marshal(d.Object.Object)
	return r
}

// printParseError reports a document that could not be read, in lint's text format,
// for the doors that print objects rather than findings.
func printParseError(s streams, d *lint.Document) {
	fmt.Fprintf(s.err, "%s:%d: error %s: %v\n", d.File, max(d.ErrLine, d.Line, 1), validate.CodeParse, d.Err)
}
