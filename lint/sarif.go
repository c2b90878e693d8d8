package lint

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/meshguard/meshguard/rules"
)

const (
	// SARIFSchema is the JSON schema of SARIF 2.1.0 the output declares.
	SARIFSchema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	// InformationURI is the project page code-scanning tools link to.
	InformationURI = "https://github.com/meshguard/meshguard"
	// RulesDocURI is the page documenting every rule; each rule's helpUri adds the
	// lower-case code as anchor.
	RulesDocURI = InformationURI + "/blob/main/docs/rules.md"
)

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations,omitempty"`
	Results     []sarifResult     `json:"results"`
}

// sarifInvocation carries the skipped documents as tool notifications: SARIF's
// place for "the tool did not analyse this", which code-scanning UIs do not
// turn into alerts.
type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications"`
}

type sarifNotification struct {
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string `json:"name"`
	InformationURI string `json:"informationUri"`
	// Version is the build's version as `meshguard version` says it;
	// SemanticVersion the same without the leading v, when it is a semantic
	// version, so viewers can tell which release found a result.
	Version         string      `json:"version,omitempty"`
	SemanticVersion string      `json:"semanticVersion,omitempty"`
	Rules           []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID                   string      `json:"id"`
	ShortDescription     sarifText   `json:"shortDescription"`
	DefaultConfiguration sarifConfig `json:"defaultConfiguration"`
	HelpURI              string      `json:"helpUri"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations"`
	// RelatedLocations holds, for an object a kustomize build or Helm render
	// produced, the kustomization file or Chart.yaml that rendered it.
	RelatedLocations []sarifRelated `json:"relatedLocations,omitempty"`
	// Properties carry the render provenance as data (see renderProperties).
	Properties map[string]any `json:"properties,omitempty"`
	// Suppressions is SARIF's record of a result accepted on purpose; viewers
	// hide such results and keep them for audit.
	Suppressions []sarifSuppression `json:"suppressions,omitempty"`
}

// sarifSuppression is one SARIF suppression: kind inSource (the annotation on
// the object) or external (an ignore file), with the reason as justification.
type sarifSuppression struct {
	Kind          string         `json:"kind"`
	Status        string         `json:"status"`
	Justification string         `json:"justification"`
	Location      *sarifLocation `json:"location,omitempty"`
}

// sarifRelated is a location that explains a result without being where it is.
type sarifRelated struct {
	ID               int           `json:"id"`
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
	Message          sarifText     `json:"message"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

// WriteSARIF prints the findings as a SARIF 2.1.0 log with one run, the format
// GitHub code scanning and other CI dashboards ingest. catalogue (normally
// rules.Catalogue()) fills the driver's rule table; codes that appear in findings
// but not in it get a minimal entry
// so every result's ruleId resolves. Skipped documents become notifications of
// the run's invocation, not results. version is the tool's version (driver.version
// and, when it is a semantic version, driver.semanticVersion); "" leaves them out.
func WriteSARIF(w io.Writer, fs []Finding, skipped []Skip, catalogue []rules.Rule, version string) error {
	driver := sarifDriver{Name: "meshguard", InformationURI: InformationURI, Rules: []sarifRule{},
		Version: version, SemanticVersion: semanticVersion(version)}
	index := map[string]int{}
	addRule := func(r rules.Rule) {
		if _, ok := index[r.Code]; ok {
			return
		}
		index[r.Code] = len(driver.Rules)
		driver.Rules = append(driver.Rules, sarifRule{
			ID:                   r.Code,
			ShortDescription:     sarifText{Text: r.Summary},
			DefaultConfiguration: sarifConfig{Level: sarifLevel(r.Severity)},
			HelpURI:              RulesDocURI + "#" + strings.ToLower(r.Code),
		})
	}
	for _, r := range catalogue {
		addRule(r)
	}
	results := make([]sarifResult, 0, len(fs))
	for _, f := range fs {
		addRule(rules.Rule{Code: f.Code, Severity: f.Severity, Summary: f.Code})
		text := oneLine(f.Message) + renderedNote(f)
		if f.Field != "" {
			text = f.Field + ": " + text
		}
		results = append(results, sarifResult{
			RuleID:           f.Code,
			RuleIndex:        index[f.Code],
			Level:            sarifLevel(f.Severity),
			Message:          sarifText{Text: text},
			Locations:        []sarifLocation{location(f.File, f.Line)},
			RelatedLocations: renderedLocations(f),
			Properties:       renderProperties(f),
			Suppressions:     sarifSuppressions(f.Suppression),
		})
	}
	run := sarifRun{Tool: sarifTool{Driver: driver}, Results: results}
	if len(skipped) > 0 {
		inv := sarifInvocation{ExecutionSuccessful: true}
		for _, s := range skipped {
			inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{
				Level: "note", Message: sarifText{Text: "skipped: " + s.Reason}, Locations: []sarifLocation{location(s.File, s.Line)}})
		}
		run.Invocations = []sarifInvocation{inv}
	}
	log := sarifLog{Schema: SARIFSchema, Version: "2.1.0", Runs: []sarifRun{run}}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

func sarifSuppressions(s *Suppression) []sarifSuppression {
	if s == nil {
		return nil
	}
	out := sarifSuppression{Kind: s.Kind, Status: "accepted", Justification: s.Justification}
	if s.Kind == SuppressionExternal {
		if i := strings.LastIndex(s.Source, ":"); i > 0 {
			n, _ := strconv.Atoi(s.Source[i+1:])
			l := location(s.Source[:i], n)
			out.Location = &l
		}
	}
	return []sarifSuppression{out}
}

func location(file string, line int) sarifLocation {
	return sarifLocation{PhysicalLocation: sarifPhysical{
		ArtifactLocation: sarifArtifact{URI: artifactURI(file)},
		Region:           sarifRegion{StartLine: max(line, 1)},
	}}
}

func sarifLevel(severity string) string {
	switch severity {
	case "error", "warning":
		return severity
	}
	return "note"
}

// artifactURI turns a file name into the relative, forward-slash URI reference
// SARIF viewers resolve against the repository root. Absolute paths under the
// working directory are made relative; others become file:// URIs.
func artifactURI(file string) string {
	p := file
	if filepath.IsAbs(p) {
		if wd, err := os.Getwd(); err == nil {
			if rel, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(rel, "..") {
				p = rel
			}
		}
	}
	p = filepath.ToSlash(p)
	if filepath.IsAbs(file) && p == filepath.ToSlash(file) {
		return (&url.URL{Scheme: "file", Path: p}).String()
	}
	return (&url.URL{Path: strings.TrimPrefix(p, "./")}).String()
}

// renderProperties records where a rendered object came from, as the text
// output's "[rendered by ...]" note says it: the renderer (helm or kustomize),
// the Chart.yaml or kustomization file, the field's line in the render's output
// and, for Helm, the template file the result points at. Nil for objects read
// as they are.
func renderProperties(f Finding) map[string]any {
	if f.RenderedBy == "" {
		return nil
	}
	p := map[string]any{"renderedBy": artifactURI(f.RenderedBy), "renderedLine": f.RenderedLine, "renderer": "kustomize"}
	if filepath.Base(f.RenderedBy) == chartFile {
		p["renderer"] = "helm"
		p["template"] = artifactURI(f.File)
	}
	return p
}

// renderedLocations points at the kustomization or chart that rendered the
// finding's object, so viewers link it next to the result.
func renderedLocations(f Finding) []sarifRelated {
	if f.RenderedBy == "" {
		return nil
	}
	what := "the kustomization that rendered this object"
	if filepath.Base(f.RenderedBy) == chartFile {
		what = "the Helm chart that rendered this object"
	}
	l := location(f.RenderedBy, 1)
	return []sarifRelated{{ID: 1, PhysicalLocation: l.PhysicalLocation,
		Message: sarifText{Text: fmt.Sprintf("%s (the field is on line %d of its output)", what, f.RenderedLine)}}}
}

// semanticVersion is v without its leading "v" when the rest is a semantic
// version (major.minor.patch, optional pre-release and build), else "".
func semanticVersion(v string) string {
	s := strings.TrimPrefix(v, "v")
	core, _, _ := strings.Cut(s, "+")
	core, _, _ = strings.Cut(core, "-")
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return ""
	}
	for _, p := range parts {
		if _, err := strconv.ParseUint(p, 10, 64); err != nil || (len(p) > 1 && p[0] == '0') {
			return ""
		}
	}
	return s
}
