package validate

import (
	"regexp"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// meshHealthCheck checks MeshHealthCheck's confs as Kuma 2.14's validator does:
// each item checks over http, tcp or grpc, durations and thresholds are more than
// zero, percentages are 0 to 100, eventLogPath is a file path, an http path is not
// empty and expected statuses are HTTP status codes. healthyPanicThreshold still
// works but Kuma warns it has moved to MeshCircuitBreaker; so does meshguard.
func (v *validator) meshHealthCheck(s *api.MeshHealthCheckSpec, p *field.Path) {
	c := confRules{v: v, kind: v.kind.Kind, code: CodeHealthCheckConf}
	for i, it := range s.To {
		c.healthCheckConf(p.Child("to").Index(i).Child("default"), it.Default)
	}
}

func (c confRules) healthCheckConf(p *field.Path, conf *api.MeshHealthCheckConf) {
	if conf == nil {
		c.absentDefault(p, "configure how to check: set http, tcp or grpc")
		return
	}
	c.positiveDuration(p.Child("interval"), conf.Interval)
	c.positiveDuration(p.Child("timeout"), conf.Timeout)
	c.positiveThreshold(p.Child("unhealthyThreshold"), conf.UnhealthyThreshold)
	c.positiveThreshold(p.Child("healthyThreshold"), conf.HealthyThreshold)
	c.positiveDuration(p.Child("initialJitter"), conf.InitialJitter)
	c.positiveDuration(p.Child("intervalJitter"), conf.IntervalJitter)
	if n, ok := c.int32(p.Child("intervalJitterPercent"), conf.IntervalJitterPercent); ok && (n < 0 || n > 100) {
		c.invalid(p.Child("intervalJitterPercent"), n, "is a percentage: must be from 0 to 100")
	}
	// Kuma 3.0's CRD has no healthyPanicThreshold: the schema layer reported it
	// (MG001, with where it went) and the API server prunes it.
	if conf.HealthyPanicThreshold != nil && api.KumaBefore(c.v.s.KumaVersion, api.Kuma30) {
		hp := p.Child("healthyPanicThreshold")
		c.decimalPercent(hp, conf.HealthyPanicThreshold)
		c.v.warn(field.Invalid(hp, conf.HealthyPanicThreshold.String(),
			"healthyPanicThreshold of MeshHealthCheck is deprecated in Kuma 2.x: set outlierDetection.healthyPanicThreshold of a MeshCircuitBreaker instead"), CodeResilienceDeprecated)
	}
	c.positiveDuration(p.Child("noTrafficInterval"), conf.NoTrafficInterval)
	if conf.EventLogPath != nil && !isFilePath(*conf.EventLogPath) {
		c.invalid(p.Child("eventLogPath"), *conf.EventLogPath, "must be an absolute file path, e.g. /tmp/health-check.log (or C:\\logs\\hc.log)")
	}
	if h := conf.HTTP; h != nil {
		hp := p.Child("http")
		if h.Path != nil && *h.Path == "" {
			c.required(hp.Child("path"), "path is empty; set the path to probe, e.g. /health, or remove it to use /")
		}
		if h.ExpectedStatuses != nil {
			for i, st := range *h.ExpectedStatuses {
				if st < 100 || st > 599 {
					c.invalid(hp.Child("expectedStatuses").Index(i), st, "must be an HTTP status code from 100 to 599")
				}
			}
		}
	}
	if conf.HTTP == nil && conf.TCP == nil && conf.GRPC == nil {
		c.required(p, "configure how to check: set at least one of http, tcp or grpc")
	}
}

// positiveThreshold is an int32 count that, when set, must be at least 1.
func (c confRules) positiveThreshold(p *field.Path, n *int64) {
	if x, ok := c.int32(p, n); ok && x <= 0 {
		c.invalid(p, x, "must be greater than zero when set; remove it to use the default")
	}
}

// File paths as Kuma accepts them for eventLogPath (govalidator.IsFilePath, whose answers they give; pinned in url_test.go): an
// absolute Windows path (at most 32767 characters after the drive) or an absolute
// Unix path.
var (
	winFilePath  = regexp.MustCompile(`^[a-zA-Z]:\\(?:[^\\/:*?"<>|\r\n]+\\)*[^\\/:*?"<>|\r\n]*$`)
	unixFilePath = regexp.MustCompile(`^(/[^/\x00]*)+/?$`)
)

func isFilePath(s string) bool {
	if winFilePath.MatchString(s) {
		return len(s[3:]) <= 32767
	}
	return unixFilePath.MatchString(s)
}
