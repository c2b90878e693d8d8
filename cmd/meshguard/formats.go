package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// format is a value of -o/--output. Every command draws its formats from the one
// list below, so a format means the same wherever it is offered and help,
// validation and shell completion cannot disagree.
type format string

// The output formats, in the order help and completion list them.
const (
	formatText     format = "text"
	formatJSON     format = "json"
	formatYAML     format = "yaml"
	formatSARIF    format = "sarif"
	formatMarkdown format = "markdown"
	formatGitHub   format = "github"
	formatJUnit    format = "junit"
	// formatTable is preview's columns; text is a synonym there.
	formatTable format = "table"
	// formatCSV, formatDot and formatHTML are map's: a row per pair, a
	// Graphviz graph, one self-contained page.
	formatCSV  format = "csv"
	formatDot  format = "dot"
	formatHTML format = "html"
)

// allFormats is the one list every -o draws from.
func allFormats() []format {
	return append(findingFormats(), formatTable, formatCSV, formatDot, formatHTML)
}

// findingFormats are the formats of the doors that report findings (lint, audit).
func findingFormats() []format {
	return []format{formatText, formatJSON, formatYAML, formatSARIF, formatMarkdown, formatGitHub, formatJUnit}
}

// failOn is a value of --fail-on: the lowest level of what a command reports
// that makes its exit code 1. lint and audit report findings (error, warning);
// diff reports access changes (a widening is an error, a narrowing a warning).
type failOn string

// The --fail-on levels, the same in every command that has the flag.
const (
	failOnError   failOn = "error"
	failOnWarning failOn = "warning"
	failOnNone    failOn = "none"
)

// failOnLevels lists the --fail-on values, most severe first.
func failOnLevels() []string {
	return []string{string(failOnError), string(failOnWarning), string(failOnNone)}
}

// defaultForm is the RBAC form check and preview compile 'from' policies to
// unless --form says otherwise: the seed's full rule view, which falls back to
// compact by itself when it would be too large.
const defaultForm = "expanded"

// formValues are the values of --form.
func formValues() []string { return []string{"expanded", "compact"} }

// oneOf says "a, b or c" for messages and help.
func oneOf(values []string) string {
	switch len(values) {
	case 0:
		return ""
	case 1:
		return values[0]
	}
	return strings.Join(values[:len(values)-1], ", ") + " or " + values[len(values)-1]
}

func formatNames(fs []format) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = string(f)
	}
	return out
}

// checkEnum is the usage error of a flag whose value is not one of values.
func checkEnum(flag, value string, values []string) error {
	if slices.Contains(values, value) {
		return nil
	}
	return usageErr("--%s must be %s (got %q)", flag, oneOf(values), value)
}

// checkOutput is checkEnum for -o/--output.
func checkOutput(value string, offered []format) error {
	return checkEnum("output", value, formatNames(offered))
}

// bindOutput adds -o/--output offering the given formats (the first is the
// default), with their shell completion.
func bindOutput(cmd *cobra.Command, p *string, offered ...format) {
	names := formatNames(offered)
	cmd.Flags().StringVarP(p, "output", "o", names[0], "output format: "+oneOf(names))
	completeEnum(cmd, "output", names)
}

// bindFailOn adds --fail-on with the shared levels and what each means for
// this command.
func bindFailOn(cmd *cobra.Command, p *string, def failOn, meaning string) {
	cmd.Flags().StringVar(p, "fail-on", string(def), fmt.Sprintf("lowest level that makes the exit code 1: %s (%s)", oneOf(failOnLevels()), meaning))
	completeEnum(cmd, "fail-on", failOnLevels())
}

// completeEnum registers the values of an enum flag for shell completion.
// Registering a flag twice is a programming error cobra reports; it is ignored
// here so a shared binder may run on a command that already has the completion.
func completeEnum(cmd *cobra.Command, flag string, values []string) {
	_ = cmd.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
}
