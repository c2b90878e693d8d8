package validate

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/rules"
)

func TestParseIgnore(t *testing.T) {
	severities := SeverityLookup([]rules.Rule{{Code: "MG201", Severity: SeverityWarning}, {Code: "MG203", Severity: SeverityWarning},
		{Code: "MG002", Severity: SeverityError}, {Code: "MG001", Severity: SeverityWarning}, {Code: "MG051", Severity: SeverityWarning}})
	now := time.Date(2027, 1, 31, 23, 0, 0, 0, time.UTC)
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	for _, tc := range []struct {
		name  string
		value string
		want  []Suppression
		codes []string
	}{
		{"one", "MG201: shadowed on purpose", []Suppression{{Codes: []string{"MG201"}, Reason: "shadowed on purpose"}}, nil},
		{"several entries and codes", "mg201, MG203: demo;\n MG203: again", []Suppression{
			{Codes: []string{"MG201", "MG203"}, Reason: "demo"}, {Codes: []string{"MG203"}, Reason: "again", Entry: 1}}, nil},
		{"reason keeps colons", "MG201: see https://x/y", []Suppression{{Codes: []string{"MG201"}, Reason: "see https://x/y"}}, nil},
		{"until today holds", "MG201 until 2027-01-31: migration", []Suppression{{Codes: []string{"MG201"}, Reason: "migration", Expires: day("2027-02-01")}}, nil},
		{"expired", "MG201 until 2027-01-30: migration", nil, []string{CodeSuppressExpired}},
		{"no reason", "MG201", nil, []string{CodeSuppressNoReason}},
		{"empty reason", "MG201:  ", nil, []string{CodeSuppressNoReason}},
		{"unknown code", "MG999: x", nil, []string{CodeSuppressSyntax}},
		{"not a code", "shadowing: x", nil, []string{CodeSuppressSyntax}},
		{"bad date", "MG201 until tomorrow: x", nil, []string{CodeSuppressSyntax}},
		{"no codes", ": x", nil, []string{CodeSuppressSyntax}},
		{"error code refused, others kept", "MG002, MG201: x", []Suppression{{Codes: []string{"MG201"}, Reason: "x"}}, []string{CodeSuppressRefused}},
		{"MG001 refused", "MG001: x", nil, []string{CodeSuppressRefused}},
		{"suppression codes refused", "MG051: x", nil, []string{CodeSuppressRefused}},
		{"empty", " ; \n", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, errs := ParseIgnore(tc.value, field.NewPath("metadata"), severities, now)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("suppressions (-want +got):\n%s", diff)
			}
			var codes []string
			for _, e := range errs {
				codes = append(codes, e.Origin)
			}
			if diff := cmp.Diff(tc.codes, codes); diff != "" {
				t.Errorf("codes (-want +got):\n%s\n%v", diff, errs)
			}
		})
	}
}

func TestSuppressible(t *testing.T) {
	for _, tc := range []struct {
		code, severity string
		want           bool
	}{
		{"MG201", SeverityWarning, true},
		{"MG350", SeverityWarning, true},
		{"MG350", SeverityError, false}, // --deny-server-conflicts makes it a denial
		{"MG002", SeverityError, false},
		{"MG001", SeverityWarning, false},
		{"MG053", SeverityWarning, false},
	} {
		if got := Suppressible(tc.code, tc.severity); got != tc.want {
			t.Errorf("Suppressible(%s, %s) = %v", tc.code, tc.severity, got)
		}
	}
}

func FuzzParseIgnore(f *testing.F) {
	for _, s := range []string{"MG201: x", "MG201 until 2027-01-01: y; MG2", ":::;;;", "MG201,,MG203 until"} {
		f.Add(s)
	}
	severities := SeverityLookup(rules.Catalogue())
	f.Fuzz(func(t *testing.T, v string) {
		sups, _ := ParseIgnore(v, nil, severities, time.Now())
		for _, s := range sups {
			if s.Reason == "" || len(s.Codes) == 0 {
				t.Fatalf("%q: suppression without reason or codes: %+v", v, s)
			}
		}
	})
}
