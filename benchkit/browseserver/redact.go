package browseserver

import (
	"net/url"
	"regexp"
	"strings"
	"unicode/utf16"
)

// The patterns of activity.ts.
var (
	sensitiveParam = regexp.MustCompile(`(?i)\b(password|token|secret|key|auth|bearer|api[_-]?key)\b`)
	secretSelector = regexp.MustCompile(`(?i)password|passwd|secret|token`)
	secretHeader   = regexp.MustCompile(`(?i)^(authorization|x-api-key|cookie|set-cookie)`)
)

// filterArgs is activity.ts filterArgs: what gstack redacts before an
// entry leaves the server.
func filterArgs(command string, args []string) []string {
	if len(args) == 0 {
		return args
	}
	switch command {
	case "fill":
		if len(args) >= 2 && secretSelector.MatchString(args[0]) {
			return []string{args[0], "[REDACTED]"}
		}
		return args
	case "header":
		if secretHeader.MatchString(args[0]) {
			if i := strings.IndexByte(args[0], ':'); i > 0 {
				return []string{args[0][:i+1] + "[REDACTED]"}
			}
		}
		return args
	case "cookie":
		if i := strings.IndexByte(args[0], '='); i > 0 {
			return []string{args[0][:i+1] + "[REDACTED]"}
		}
		return args
	case "type":
		return []string{"[REDACTED]"}
	}
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = redactURLArg(a)
	}
	return out
}

// redactURLArg replaces secret query parameters' values in a URL
// argument, re-serializing the query in order as URLSearchParams does
// (spaces as +, the rest percent-encoded), and giving an empty path its
// "/" as WHATWG URL's toString does.
func redactURLArg(arg string) string {
	if !strings.HasPrefix(arg, "http://") && !strings.HasPrefix(arg, "https://") {
		return arg
	}
	u, err := url.Parse(arg)
	if err != nil {
		return arg
	}
	redacted := false
	var pairs []string
	for _, kv := range strings.Split(u.RawQuery, "&") {
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		key, _ := url.QueryUnescape(k)
		val, _ := url.QueryUnescape(v)
		if sensitiveParam.MatchString(key) {
			val, redacted = "[REDACTED]", true
		}
		pairs = append(pairs, url.QueryEscape(key)+"="+url.QueryEscape(val))
	}
	if !redacted {
		return arg
	}
	u.RawQuery = strings.Join(pairs, "&")
	if u.Path == "" {
		u.Path = "/"
	}
	return u.String()
}

// truncateResult is activity.ts truncateResult: over 200 UTF-16 units,
// the first 200 and "..." (a surrogate pair cut in half is sent as U+FFFD,
// as sanitizeReplacer does at egress).
func truncateResult(s string) string {
	units := utf16.Encode([]rune(s))
	if len(units) <= 200 {
		return s
	}
	return string(utf16.Decode(units[:200])) + "..."
}
