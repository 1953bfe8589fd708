package price

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"conductorbridge/bridge/event"
)

func TestNormalize(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"claude-opus-4-6", "claude-opus-4-6"},
		{"claude-opus-4.6", "claude-opus-4-6"},
		{"Claude-Haiku-4.5", "claude-haiku-4-5"},
		{"claude-sonnet-4-5-20250929", "claude-sonnet-4-5"},
		{"claude-opus-4-6[1m]", "claude-opus-4-6"},
		{"claude-sonnet-4-5-1m", "claude-sonnet-4-5"},
		{"claude-3-7-sonnet-latest", "claude-3-7-sonnet"},
		{"anthropic/claude-opus-4.5", "claude-opus-4-5"},
		{"us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5"},
		{"anthropic.claude-3-5-sonnet-20240620-v1:0", "claude-3-5-sonnet"},
		{"claude-opus-4-5@20251101", "claude-opus-4-5"},
		{"deepseek-v4-pro", "deepseek-v4-pro"},
		{"gpt-5.5", "gpt-5-5"},
		{"gpt-5-2025-08-07", "gpt-5"},
		{"openai/gpt-5.1-codex-mini", "gpt-5-1-codex-mini"},
		{"gpt-4.1-mini-2025-04-14", "gpt-4-1-mini"},
		{"o4-mini-2025-04-16", "o4-mini"},
		{"codex-mini-latest", "codex-mini"},
		{"global.openai.gpt-5.6-terra", "gpt-5-6-terra"},
		{"gpt-5-codex", "gpt-5-codex"},
		{"<synthetic>", "<synthetic>"},
	} {
		if got := Normalize(tt.in); got != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestCost prices requests worked out by hand from prices.json's rates
// (USD per million tokens).
func TestCost(t *testing.T) {
	tab := Embedded()
	for _, tt := range []struct {
		name  string
		req   Request
		want  float64
		known bool
	}{
		// 1000 in × $5 + 500 out × $25 + 2000 5m-writes × $6.25 + 10000 reads × $0.50
		// = 0.005 + 0.0125 + 0.0125 + 0.005 = $0.035
		{"opus 4.6 short", Request{Model: "claude-opus-4-6", Usage: event.Usage{InputTokens: 1000, OutputTokens: 500, CacheCreationTokens: 2000, CacheReadTokens: 10000}}, 0.035, true},
		// 3000 writes of which 1000 at 1h: 2000 × $3.75 + 1000 × $6 = 0.0075 + 0.006 = $0.0135
		{"sonnet 1h writes", Request{Model: "claude-sonnet-4-5-20250929", Usage: event.Usage{CacheCreationTokens: 3000, Cache1hTokens: 1000}}, 0.0135, true},
		// input 10 + writes 0 + reads 250000 > 200k: long tier. 10 × $6 + 100 out × $22.50 + 250000 × $0.60
		// = 0.00006 + 0.00225 + 0.15 = $0.15231
		{"sonnet long context", Request{Model: "claude-sonnet-4-5", Usage: event.Usage{InputTokens: 10, OutputTokens: 100, CacheReadTokens: 250000}}, 0.15231, true},
		// exactly 200000 is not above the threshold: 200000 reads × $0.30 = $0.06
		{"sonnet at threshold", Request{Model: "claude-sonnet-4-5", Usage: event.Usage{CacheReadTokens: 200000}}, 0.06, true},
		// haiku 4.5 has no long tier: 300000 reads × $0.10 = $0.03
		{"haiku no long tier", Request{Model: "claude-haiku-4.5", Usage: event.Usage{CacheReadTokens: 300000}}, 0.03, true},
		// 2 web searches × $0.01 + 100 in × $1 = 0.02 + 0.0001
		{"web search", Request{Model: "claude-haiku-4-5", Usage: event.Usage{InputTokens: 100}, WebSearches: 2}, 0.0201, true},
		// fast: 1000 in × $30 + 1000 out × $150 = 0.03 + 0.15
		{"opus fast", Request{Model: "claude-opus-4-6", Usage: event.Usage{InputTokens: 1000, OutputTokens: 1000}, Fast: true}, 0.18, true},
		// Bedrock id of opus 4.1: 1000 out × $75
		{"bedrock", Request{Model: "us.anthropic.claude-opus-4-1-20250805-v1:0", Usage: event.Usage{OutputTokens: 1000}}, 0.075, true},
		// claude-opus-4-0 is an alias of claude-opus-4: 1000 in × $15
		{"alias", Request{Model: "claude-opus-4-0", Usage: event.Usage{InputTokens: 1000}}, 0.015, true},
		// deepseek-reasoner bills as V4-Flash: 1e6 in × $0.14 + 1e6 out × $0.28
		{"deepseek", Request{Model: "deepseek-reasoner", Usage: event.Usage{InputTokens: 1e6, OutputTokens: 1e6}}, 0.42, true},
		// deepseek-v4-pro: 1e6 in × $1.74 + 1e6 read × $0.145 + 1e6 out × $3.48
		{"deepseek v4 pro", Request{Model: "deepseek-v4-pro", Usage: event.Usage{InputTokens: 1e6, CacheReadTokens: 1e6, OutputTokens: 1e6}}, 5.365, true},
		{"synthetic", Request{Model: "<synthetic>", Usage: event.Usage{InputTokens: 5}}, 0, true},
		// Claude Code 2.1's default: 1000 in × $4 + 1000 out × $20 + 1000 1h-writes × $8 + 10000 reads × $0.20
		// = 0.004 + 0.02 + 0.008 + 0.002 = $0.034
		{"opus 5.5", Request{Model: "claude-opus-5-5", Usage: event.Usage{InputTokens: 1000, OutputTokens: 1000, CacheCreationTokens: 1000, Cache1hTokens: 1000, CacheReadTokens: 10000}}, 0.034, true},
		// haiku 5.5 at 100000 prompt tokens is the short tier: 100000 reads × $0.01 + 1000 out × $0.50 = 0.001 + 0.0005
		{"haiku 5.5 short", Request{Model: "claude-haiku-5-5", Usage: event.Usage{CacheReadTokens: 100000, OutputTokens: 1000}}, 0.0015, true},
		// one token more is its own long tier (100k, not the table's 200k), output included:
		// 1 in × $0.50 + 100000 reads × $0.05 + 1000 out × $2.50 = 0.0000005 + 0.005 + 0.0025
		{"haiku 5.5 long", Request{Model: "claude-haiku-5-5", Usage: event.Usage{InputTokens: 1, CacheReadTokens: 100000, OutputTokens: 1000}}, 0.0075005, true},
		// dotted name: sonnet 5.5 after the 2026-10-07 cut, 1e6 reads × $0.10
		{"sonnet 5.5 dotted", Request{Model: "claude-sonnet-5.5", Usage: event.Usage{CacheReadTokens: 1e6}}, 0.10, true},
		// OpenAI, as the Codex parser reports a response: InputTokens fresh (input − cached),
		// CacheReadTokens cached, OutputTokens including reasoning (ReasoningOutputTokens is
		// a part of it, never added again).
		// gpt-5.5: 400 fresh × $5 + 800 cached × $0.50 + 300 out × $30 = 0.002 + 0.0004 + 0.009
		{"gpt-5.5", Request{Model: "gpt-5.5", Usage: event.Usage{InputTokens: 400, CacheReadTokens: 800, OutputTokens: 300, ReasoningOutputTokens: 120}}, 0.0114, true},
		// gpt-5-codex with a date and a prefix: 1e6 fresh × $1.25 + 1e6 cached × $0.125 + 1e6 out × $10
		{"gpt-5-codex dated", Request{Model: "openai/gpt-5-codex-2025-09-15", Usage: event.Usage{InputTokens: 1e6, CacheReadTokens: 1e6, OutputTokens: 1e6}}, 11.375, true},
		// gpt-5.5 bills no cache write: 1000 written tokens cost input, 1000 × $5
		{"gpt-5.5 write is input", Request{Model: "gpt-5.5", Usage: event.Usage{CacheCreationTokens: 1000}}, 0.005, true},
		// gpt-6.1-terra bills its 30-minute write: 1000 × $1.25
		{"gpt-6.1-terra write", Request{Model: "gpt-6.1-terra", Usage: event.Usage{CacheCreationTokens: 1000}}, 0.00125, true},
		// gpt-5.5 above 272K input: 2000 fresh + 271000 cached = 273000 > 272000, long tier:
		// 2000 × $10 + 271000 × $1 + 1000 out × $45 = 0.02 + 0.271 + 0.045
		{"gpt-5.5 long", Request{Model: "gpt-5.5", Usage: event.Usage{InputTokens: 2000, CacheReadTokens: 271000, OutputTokens: 1000}}, 0.336, true},
		// at 272000 it is the standard tier: 272000 cached × $0.50
		{"gpt-5.5 at threshold", Request{Model: "gpt-5.5", Usage: event.Usage{CacheReadTokens: 272000}}, 0.136, true},
		// o4-mini: 1e6 fresh × $1.10 + 1e6 out × $4.40
		{"o4-mini", Request{Model: "o4-mini", Usage: event.Usage{InputTokens: 1e6, OutputTokens: 1e6}}, 5.5, true},
		// gpt-4.1: 1e6 cached × $0.50
		{"gpt-4.1", Request{Model: "gpt-4.1-2025-04-14", Usage: event.Usage{CacheReadTokens: 1e6}}, 0.5, true},
		{"unknown openai", Request{Model: "gpt-7", Usage: event.Usage{InputTokens: 5}}, 0, false},
		{"unknown newer", Request{Model: "claude-opus-9", Usage: event.Usage{InputTokens: 5}}, 0, false},
		{"unknown vendor", Request{Model: "kimi-k2-turbo", Usage: event.Usage{InputTokens: 5}}, 0, false},
	} {
		got, known := tab.Cost(tt.req)
		if known != tt.known || math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: Cost = %v, %v; want %v, %v", tt.name, got, known, tt.want, tt.known)
		}
	}
}

func TestUnknownIsReportedOnce(t *testing.T) {
	tab := Embedded()
	var heard []string
	tab.OnUnknown = func(m string) { heard = append(heard, m) }
	for _, m := range []string{"claude-opus-9", "claude-opus-9", "Claude-Opus-9", "claude-opus-4-6", "gpt-x"} {
		tab.Lookup(m)
	}
	if len(heard) != 2 || heard[0] != "claude-opus-9" || heard[1] != "gpt-x" {
		t.Errorf("heard %q, want each unknown model once", heard)
	}
}

func TestTableHasSourceDateAndEveryRate(t *testing.T) {
	tab := Embedded()
	if tab.Source == "" || len(tab.Date) != len("2006-01-02") || tab.LongContextThreshold != 200000 {
		t.Errorf("table lacks source/date/threshold: %q %q %d", tab.Source, tab.Date, tab.LongContextThreshold)
	}
	for name, m := range tab.Models {
		if name != Normalize(name) {
			t.Errorf("key %q is not normalised", name)
		}
		if name == "<synthetic>" {
			continue
		}
		if m.Input <= 0 || m.Output <= 0 || m.CacheWrite5m <= 0 || m.CacheWrite1h <= 0 || m.CacheRead <= 0 {
			t.Errorf("%s lacks a rate: %+v", name, m.Rates)
		}
	}
	for from, to := range tab.Aliases {
		if _, ok := tab.Models[to]; !ok {
			t.Errorf("alias %s → %s: no such model", from, to)
		}
	}
}

func TestOverride(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(`{"date":"2030-01-01",
		"models":{"claude-opus-5":{"input":7,"output":30,"cache_write_5m":8,"cache_write_1h":14,"cache_read":0.7},
		          "claude-haiku-4.5":{"input":2,"output":10,"cache_write_5m":2.5,"cache_write_1h":4,"cache_read":0.2}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tab, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	// a new model: 1000 in × $7 = $0.007; a replaced one: 1000 in × $2 = $0.002; others stay
	for model, want := range map[string]float64{"claude-opus-5": 0.007, "claude-haiku-4-5": 0.002, "claude-opus-4-6": 0.005} {
		if got, ok := tab.Cost(Request{Model: model, Usage: event.Usage{InputTokens: 1000}}); !ok || math.Abs(got-want) > 1e-12 {
			t.Errorf("%s: %v %v, want %v", model, got, ok, want)
		}
	}
	if tab.Date != "2030-01-01" || tab.Source == "" {
		t.Errorf("date %q source %q", tab.Date, tab.Source)
	}
	if _, err := Load(t.TempDir()); err != nil {
		t.Errorf("no override file: %v", err)
	}
	os.WriteFile(filepath.Join(dir, FileName), []byte("{nope"), 0o600)
	if tab, err := Load(dir); err == nil || tab == nil {
		t.Errorf("a broken override: want an error and the built-in table, got %v, %v", tab, err)
	}
}

// TestFuncOf: a table's Func prices from it alone; nil's, from the
// built-in table.
func TestFuncOf(t *testing.T) {
	own, err := Parse([]byte(`{"date":"2030-01-01","models":{"m-own":{"input":7,"output":30}}}`))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		table *Table
		model string
		want  float64 // 1000 input tokens' cost
		known bool
	}{
		{"a table, its model", own, "m-own", 0.007, true},
		{"a table, a built-in model", own, "claude-opus-4-6", 0, false},
		{"nil, a built-in model", nil, "claude-opus-4-6", 0.005, true},
		{"nil, no such model", nil, "m-own", 0, false},
	}
	for _, c := range cases {
		got, known := FuncOf(c.table)(c.model, event.Usage{InputTokens: 1000})
		if known != c.known || math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: %v %v, want %v %v", c.name, got, known, c.want, c.known)
		}
	}
}
