package validate

import (
	"net/url"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// isURL answers as github.com/asaskevich/govalidator's IsURL, which Kuma's
// validators call for MeshTrace's zipkin.url and MeshAccessLog's tcp.address,
// so meshguard accepts exactly the addresses Kuma accepts: a scheme is
// optional (ftp, tcp, udp, ws, wss, http, https when given), "host:port"
// counts, a bare name needs a dot, and the string has 4 to 2082 characters.
// It is the same algorithm on the same pattern, without linking govalidator,
// whose package initialiser compiles ~60 regular expressions on every meshguard
// start (docs/performance.md, "Start-up"); the pattern here is compiled on
// first use.
func isURL(s string) bool {
	const maxRunes, minBytes = 2083, 3
	if s == "" || utf8.RuneCountInString(s) >= maxRunes || len(s) <= minBytes || strings.HasPrefix(s, ".") {
		return false
	}
	parsed := s
	if strings.Contains(s, ":") && !strings.Contains(s, "://") {
		// "host:port" without a scheme: url.Parse would take host as one.
		parsed = "http://" + s
	}
	u, err := url.Parse(parsed)
	if err != nil || strings.HasPrefix(u.Host, ".") {
		return false
	}
	if u.Host == "" && u.Path != "" && !strings.Contains(u.Path, ".") {
		return false
	}
	return urlPattern().MatchString(s)
}

// urlPattern is govalidator's URL pattern (MIT licence, (c) Alex Saskevich),
// assembled from the same parts.
var urlPattern = sync.OnceValue(func() *regexp.Regexp {
	const (
		ip        = `(([0-9a-fA-F]{1,4}:){7,7}[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,7}:|([0-9a-fA-F]{1,4}:){1,6}:[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,5}(:[0-9a-fA-F]{1,4}){1,2}|([0-9a-fA-F]{1,4}:){1,4}(:[0-9a-fA-F]{1,4}){1,3}|([0-9a-fA-F]{1,4}:){1,3}(:[0-9a-fA-F]{1,4}){1,4}|([0-9a-fA-F]{1,4}:){1,2}(:[0-9a-fA-F]{1,4}){1,5}|[0-9a-fA-F]{1,4}:((:[0-9a-fA-F]{1,4}){1,6})|:((:[0-9a-fA-F]{1,4}){1,7}|:)|fe80:(:[0-9a-fA-F]{0,4}){0,4}%[0-9a-zA-Z]{1,}|::(ffff(:0{1,4}){0,1}:){0,1}((25[0-5]|(2[0-4]|1{0,1}[0-9]){0,1}[0-9])\.){3,3}(25[0-5]|(2[0-4]|1{0,1}[0-9]){0,1}[0-9])|([0-9a-fA-F]{1,4}:){1,4}:((25[0-5]|(2[0-4]|1{0,1}[0-9]){0,1}[0-9])\.){3,3}(25[0-5]|(2[0-4]|1{0,1}[0-9]){0,1}[0-9]))`
		schema    = `((ftp|tcp|udp|wss?|https?):\/\/)`
		username  = `(\S+(:\S*)?@)`
		path      = `((\/|\?|#)[^\s]*)`
		port      = `(:(\d{1,5}))`
		ipv4      = `([1-9]\d?|1\d\d|2[01]\d|22[0-3]|24\d|25[0-5])(\.(\d{1,2}|1\d\d|2[0-4]\d|25[0-5])){2}(?:\.([0-9]\d?|1\d\d|2[0-4]\d|25[0-5]))`
		subdomain = `((www\.)|([a-zA-Z0-9]+([-_\.]?[a-zA-Z0-9])*[a-zA-Z0-9]\.[a-zA-Z0-9]+))`
	)
	return regexp.MustCompile(`^` + schema + `?` + username + `?` + `((` + ipv4 + `|(\[` + ip + `\])|(([a-zA-Z0-9]([a-zA-Z0-9-_]+)?[a-zA-Z0-9]([-\.][a-zA-Z0-9]+)*)|(` + subdomain + `?))?(([a-zA-Z\x{00a1}-\x{ffff}0-9]+-?-?)*[a-zA-Z\x{00a1}-\x{ffff}0-9]+)(?:\.([a-zA-Z\x{00a1}-\x{ffff}]{1,}))?))\.?` + port + `?` + path + `?$`)
})
