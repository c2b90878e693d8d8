package validate

import (
	"strings"
	"testing"
)

// TestIsURL pins isURL to the answers of govalidator.IsURL (v0.0.0-20230301143203,
// the version Kuma 2.14 links), recorded from it: the addresses of Kuma's own
// validator tests (MeshAccessLog tcp.address, MeshTrace zipkin and datadog urls,
// conformance/kuma-validators-2.14) and the edges of its rules.
func TestIsURL(t *testing.T) {
	long := "http://" + strings.Repeat("a", 2080) + ".com"
	for _, tc := range []struct {
		in   string
		want bool
	}{
		// Kuma's validator tests.
		{"127.0.0.1:5000", true},
		{"google.com", true},
		{"http://logs.com", true},
		{"not_valid_url", false},
		{"http://jaeger-collector.mesh-observability:9411/api/v2/spans", true},
		{"http://intake.datadoghq.eu:8126", true},
		{"http://intake.datadoghq.eu:999999", false},
		{"sql://intake.datadoghq.eu:8126", false},
		// Edges.
		{"logstash.logging:5000", true},
		{"logstash:5000", true},
		{"", false},
		{"abc", false},
		{"a.b", false},
		{".example.com", false},
		{"localhost", false},
		{"localhost:5000", true},
		{"http://localhost:5000", true},
		{"http://[::1]:9411/x", true},
		{"http://user:pw@host.com:80/p?q=1#f", true},
		{"https://münchen.de/x", true},
		{"ftp://files.example.org", true},
		{"tcp://logstash.logging:5000", true},
		{"udp://10.0.0.1:514", true},
		{"http://.example.com", false},
		{"http://256.1.1.1", false},
		{"with space.com", false},
		{"http://a b.com", false},
		{long, false},
		{"http:/x.com", false},
		{"x.com/path with space", false},
		{"grpc://otel:4317", false},
		{"otel-collector", false},
		{"http://otel-collector:4317", true},
	} {
		if got := isURL(tc.in); got != tc.want {
			t.Errorf("isURL(%.60q) = %v, want %v (govalidator's answer)", tc.in, got, tc.want)
		}
	}
}

// TestIsFilePath pins isFilePath to govalidator.IsFilePath's answers (Kuma's
// check of MeshAccessLog file.path and MeshHealthCheck eventLogPath).
func TestIsFilePath(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		// Kuma's validator tests.
		{"/tmp/logs.txt", true},
		{"#not_valid", false},
		// Edges.
		{"/dev/stdout", true},
		{`C:\logs\a.txt`, true},
		{`c:\`, true},
		{"relative/x", false},
		{"", false},
		{"/a\x00b", false},
		{"/", true},
		{"//double", true},
		{"/var/log/", true},
		{"C:/logs", false},
		{"./x", false},
	} {
		if got := isFilePath(tc.in); got != tc.want {
			t.Errorf("isFilePath(%q) = %v, want %v (govalidator's answer)", tc.in, got, tc.want)
		}
	}
}
