package codex

import (
	"testing"
	"time"

	"github.com/valyala/fastjson"

	"conductorbridge/bridge/usage/driver"
)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestRateLimits: the windows of a token_count's rate_limits as the
// releases write them (resets_at or resets_in_seconds, a null window).
func TestRateLimits(t *testing.T) {
	for _, tt := range []struct {
		name, line string
		want       []driver.Limit
	}{
		{"resets_at", `{"timestamp":"2026-12-03T09:00:00.000Z","type":"event_msg","payload":{"type":"token_count","info":null,` +
			`"rate_limits":{"primary":{"used_percent":12.5,"window_minutes":300,"resets_at":1796302800},"secondary":{"used_percent":40,"window_minutes":10080,"resets_at":1796734800},"plan_type":"plus"}}}`,
			[]driver.Limit{
				{Agent: "codex", Name: "primary", UsedPercent: 12.5, WindowMinutes: 300, ResetsAt: time.Unix(1796302800, 0).UTC(), Plan: "plus", Seen: at("2026-12-03T09:00:00Z")},
				{Agent: "codex", Name: "secondary", UsedPercent: 40, WindowMinutes: 10080, ResetsAt: time.Unix(1796734800, 0).UTC(), Plan: "plus", Seen: at("2026-12-03T09:00:00Z")},
			}},
		{"resets_in_seconds", `{"timestamp":"2026-12-03T09:00:00Z","type":"event_msg","payload":{"type":"token_count",` +
			`"rate_limits":{"primary":{"used_percent":3,"window_minutes":299,"resets_in_seconds":600},"secondary":null}}}`,
			[]driver.Limit{{Agent: "codex", Name: "primary", UsedPercent: 3, WindowMinutes: 299, ResetsAt: at("2026-12-03T09:10:00Z"), Seen: at("2026-12-03T09:00:00Z")}}},
		{"all null (0.169 against an API key)", `{"timestamp":"2026-12-03T09:00:00Z","type":"event_msg","payload":{"type":"token_count",` +
			`"rate_limits":{"limit_id":"codex","primary":null,"secondary":null}}}`, nil},
		{"not JSON", `{"rate_limits":`, nil},
		// A reset no calendar (nor JSON) can write is unknown (issue 24, #7).
		{"resets past the year 9999", `{"timestamp":"2026-12-03T09:00:00Z","type":"event_msg","payload":{"type":"token_count",` +
			`"rate_limits":{"primary":{"used_percent":3,"window_minutes":299,"resets_at":300000000000},` +
			`"secondary":{"used_percent":4,"resets_in_seconds":100000000000000000}}}}`,
			[]driver.Limit{{Agent: "codex", Name: "primary", UsedPercent: 3, WindowMinutes: 299, Seen: at("2026-12-03T09:00:00Z")},
				{Agent: "codex", Name: "secondary", UsedPercent: 4, Seen: at("2026-12-03T09:00:00Z")}}},
		{"a reset in the past by seconds", `{"timestamp":"2026-12-03T09:00:00Z","type":"event_msg","payload":{"type":"token_count",` +
			`"rate_limits":{"primary":{"used_percent":3,"resets_in_seconds":-5}}}}`,
			[]driver.Limit{{Agent: "codex", Name: "primary", UsedPercent: 3, Seen: at("2026-12-03T09:00:00Z")}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var jp fastjson.Parser
			got := rateLimits(&jp, []byte(tt.line))
			if len(got) != len(tt.want) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("got %+v, want %+v", got[i], tt.want[i])
				}
			}
		})
	}
}
