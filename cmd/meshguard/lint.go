package main

import (
	"fmt"
	"io"
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
	progress  string
	// progressDelay is how long a run goes before the progress line appears.
	progressDelay time.Duration
}

func (o *lintOptions) bind(cmd *cobra.Command) {
	settingsFlags(cmd.Flags(), &o.settings)
	cmd.Flags().StringVarP(&o.namespace, "namespace", "n", "default", "namespace for objects that name none (as kubectl apply -n)")
}

func (o *lintOptions) engine() (lint.Options, error) {
	if err := o.settings.Check(); err != nil {
		return lint.Options{}, err
	}
	if o.namespace == "" {
		return lint.Options{}, usageErr("--namespace must not be empty")
	}
	return lint.Options{Settings: o.settings, Namespace: o.namespace, Registry: api.DefaultRegistry(),
		Stages: lint.CrossDocument(o.settings, o.namespace)}, nil
}

func newLintCmd(s streams) *cobra.Command {
	o := &lintOptions{}
	cmd := &cobra.Command{
		Use:   "lint [PATH|-]...",
		Short: "Check policy manifests the way the admission webhook would",
		Long: `Lint reads YAML or JSON manifests (files, directories searched recursively for
.yaml/.yml/.json, or - for standard input; multi-document files and kind: List work),
defaults each object as the mutating webhook would, then validates it.

Output formats: text (file:line: severity code field: message), json (one object
with findings and summary) and sarif (SARIF 2.1.0 for code-scanning UIs).

Exit codes: 0 when nothing is at or above --fail-on, 1 when something is, 2 on a
usage error or a document that cannot be read or parsed (the other documents are
still linted).`,
		Example: `  meshguard lint policies/
  kubectl kustomize overlays/prod | meshguard lint -o json -
  meshguard lint --mode zone --zone zone-1 -o sarif policies/ > meshguard.sarif`,
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := o.engine()
			if err != nil {
				return err
			}
			if len(args) == 0 {
				return usageErr("lint needs at least one PATH, or - for standard input")
			}
			if o.failOn != validate.SeverityError && o.failOn != validate.SeverityWarning {
				return usageErr("--fail-on must be error or warning (got %q)", o.failOn)
			}
			prog, err := o.progressLine(s)
			if err != nil {
				return err
			}
			findings, sum := lint.Run(args, s.in, eng, prog.Update)
			prog.Done()
			if err := o.write(s, findings, sum); err != nil {
				return err
			}
			return exitFor(findings, o.failOn)
		},
	}
	o.bind(cmd)
	cmd.Flags().StringVarP(&o.output, "output", "o", "text", "output format: text, json or sarif")
	cmd.Flags().StringVar(&o.failOn, "fail-on", validate.SeverityError, "lowest severity that makes the exit code 1: error or warning")
	cmd.Flags().StringVar(&o.color, "color", "auto", "colour text output: auto (only on a terminal, honours NO_COLOR), always, never")
	cmd.Flags().StringVar(&o.progress, "progress", "auto", "progress line on standard error for runs over a second: auto (only on a terminal), always, never")
	cmd.Flags().DurationVar(&o.progressDelay, "progress-delay", time.Second, "how long a run goes before the progress line appears")
	_ = cmd.Flags().MarkHidden("progress-delay")
	return cmd
}

// progressLine is the progress line --progress asks for: drawn on standard error
// only when it is a terminal (auto) or always; never, as in CI logs and tests,
// otherwise.
func (o *lintOptions) progressLine(s streams) (*lint.Progress, error) {
	on := false
	switch o.progress {
	case "auto":
		on = s.stderr != nil && lint.IsTerminal(s.stderr)
	case "always":
		on = true
	case "never":
	default:
		return nil, usageErr("--progress must be auto, always or never (got %q)", o.progress)
	}
	if !on {
		return lint.NewProgress(io.Discard, 0), nil
	}
	return lint.NewProgress(s.err, o.progressDelay), nil
}

func (o *lintOptions) write(s streams, fs []lint.Finding, sum lint.Summary) error {
	switch o.output {
	case "text":
		color := o.color == "always" || (o.color == "auto" && s.stdout != nil && lint.IsTerminal(s.stdout))
		return lint.WriteText(s.out, fs, sum, color)
	case "json":
		return lint.WriteJSON(s.out, fs, sum)
	case "sarif":
		return lint.WriteSARIF(s.out, fs, ruleInfos())
	}
	return usageErr("--output must be text, json or sarif (got %q)", o.output)
}

// exitFor turns findings into the documented exit code: parse errors win (2), then
// anything at or above the threshold (1).
func exitFor(fs []lint.Finding, failOn string) error {
	code := exitOK
	for _, f := range fs {
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
unchanged. Documents that cannot be parsed are reported on standard error and make
the exit code 2.`,
		Example: `  meshguard default -n payments-ns policy.yaml
  meshguard default --mode zone --zone zone-1 --sugar keep policies/`,
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := o.engine()
			if err != nil {
				return err
			}
			if len(args) == 0 {
				return usageErr("default needs at least one PATH, or - for standard input")
			}
			bad := false
			first := true
			var failed error
			lint.Stream(args, s.in, func(d *lint.Document) defaulted {
				if d.Err != nil {
					return defaulted{parseErr: &lint.Document{File: d.File, Line: d.Line, ErrLine: d.ErrLine, Err: d.Err}}
				}
				lint.Prepare(d, eng)
				out, err := yaml.Marshal(d.Object.Object)
				return defaulted{yaml: out, err: err}
			}, func(r defaulted) {
				switch {
				case failed != nil:
				case r.parseErr != nil:
					bad = true
					printParseError(s, r.parseErr)
				case r.err != nil:
					failed = r.err
				default:
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
			if bad {
				return exitError{exitUsage}
			}
			return nil
		},
	}
	o.bind(cmd)
	return cmd
}

// defaulted is one document of `meshguard default`: the YAML to print, or why not.
type defaulted struct {
	yaml     []byte
	err      error
	parseErr *lint.Document
}

// printParseError reports a document that could not be read, in lint's text format,
// for the doors that print objects rather than findings.
func printParseError(s streams, d *lint.Document) {
	fmt.Fprintf(s.err, "%s:%d: error %s: %v\n", d.File, max(d.ErrLine, d.Line, 1), validate.CodeParse, d.Err)
}
