package price

import (
	"strings"
)

// Normalize turns a model name as transcripts and providers write it into
// the table's spelling: lower case; no provider prefix ("anthropic/",
// "openai/", Bedrock's "us.anthropic." / "global.openai." and "-v1:0",
// Vertex's "@20251101"); dots in versions as dashes ("claude-opus-4.6" →
// "claude-opus-4-6", "gpt-5.5" → "gpt-5-5"); no "[1m]" or "-1m" context
// suffix, no "-latest", no release date (Anthropic's "-20250514",
// OpenAI's "-2025-08-07").
func Normalize(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	for _, vendor := range []string{"anthropic.", "openai."} {
		if i := strings.Index(m, vendor); i >= 0 && !strings.Contains(m[:i], "-") {
			m = m[i+len(vendor):] // Bedrock: [region.]<vendor>.<model>
		}
	}
	if i := strings.IndexByte(m, '@'); i > 0 {
		m = m[:i] // Vertex: <model>@<date>
	}
	m = strings.TrimSuffix(m, "[1m]")
	m = trimBedrockVersion(m)
	m = dotsToDashes(m)
	for {
		before := m
		m = strings.TrimSuffix(m, "-latest")
		m = strings.TrimSuffix(m, "-1m")
		m = trimDate(m)
		m = trimDashedDate(m)
		if m == before {
			return m
		}
	}
}

// trimBedrockVersion drops Bedrock's "-v1:0" / "-v2" suffix.
func trimBedrockVersion(m string) string {
	i := strings.LastIndex(m, "-v")
	if i < 0 {
		return m
	}
	rest := m[i+2:]
	if rest == "" {
		return m
	}
	for _, c := range rest {
		if (c < '0' || c > '9') && c != ':' {
			return m
		}
	}
	return m[:i]
}

// trimDate drops a "-20250514" release date.
func trimDate(m string) string {
	i := strings.LastIndexByte(m, '-')
	if i < 0 || len(m)-i-1 != 8 {
		return m
	}
	for _, c := range m[i+1:] {
		if c < '0' || c > '9' {
			return m
		}
	}
	return m[:i]
}

// trimDashedDate drops OpenAI's "-2025-08-07" snapshot date.
func trimDashedDate(m string) string {
	const form = "-dddd-dd-dd"
	if len(m) <= len(form) {
		return m
	}
	tail := m[len(m)-len(form):]
	for i := range len(form) {
		if (form[i] == 'd') != isDigit(tail[i]) || (form[i] == '-' && tail[i] != '-') {
			return m
		}
	}
	return m[:len(m)-len(form)]
}

// dotsToDashes spells a version's dot as a dash: only a dot between two
// digits, so nothing else in a name changes.
func dotsToDashes(m string) string {
	if !strings.Contains(m, ".") {
		return m
	}
	b := []byte(m)
	for i := 1; i+1 < len(b); i++ {
		if b[i] == '.' && isDigit(b[i-1]) && isDigit(b[i+1]) {
			b[i] = '-'
		}
	}
	return string(b)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
