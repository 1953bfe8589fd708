// Package eventtest renders the bridge's events for tests: the reviewed
// event lists beside each corpus file and failure messages share one form,
// whichever agent wrote the record. Parse feeds a parser a record's lines;
// its filters (OfType, OfSession, LastStatus) pick out the events a test
// looks at.
package eventtest

import (
	"strconv"
	"strings"

	"conductorbridge/bridge/event"
)

// Describe renders events one per line, readable in a review and in a
// failure message; every agent's events take the same form:
//
//	user [sidechain] [system] message=<id> "text" truncated=false
//	tool_use <name> <call id> "input" truncated=false
//	tool_result <name> <call id> error=false "output" truncated=true
//	turn_complete in= out= cache_write= cache_write_1h= cache_read= reasoning= cost= duration_ms= model= [subagent: …]
func Describe(evs []event.Event) string {
	var b strings.Builder
	for _, e := range evs {
		b.WriteString(e.Type)
		for _, flag := range []struct {
			on   bool
			name string
		}{{e.Sidechain, " [sidechain]"}, {e.System, " [system]"}} {
			if flag.on {
				b.WriteString(flag.name)
			}
		}
		switch e.Type {
		case event.User, event.Assistant, event.Thinking:
			if e.MessageID != "" {
				b.WriteString(" message=" + e.MessageID)
			}
			b.WriteString(" " + quote(e.Content, e.Truncated))
		case event.ToolUse:
			b.WriteString(" " + e.Name + " " + e.ToolUseID + " " + quote(e.Input, e.TruncIn))
		case event.ToolResult:
			b.WriteString(" " + e.Name + " " + e.ToolUseID + " error=" + flagText(e.IsError) + " " + quote(e.Output, e.TruncOut))
		case event.TurnComplete:
			b.WriteString(" " + usageText(e.Usage) + " cost=" + costText(e.CostUSD, e.CostKnown) +
				" duration_ms=" + itoa(e.DurationMS) + " model=" + e.Model)
			if e.SubagentUsage != (event.Usage{}) {
				b.WriteString(" subagent: " + usageText(e.SubagentUsage) + " cost=" + costText(e.SubagentCostUSD, true))
			}
		default:
			b.WriteString(" state=" + e.State + " reason=" + e.Reason)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func quote(s string, truncated bool) string {
	return strconv.Quote(s) + " truncated=" + flagText(truncated)
}

func usageText(u event.Usage) string {
	return "in=" + itoa(u.InputTokens) + " out=" + itoa(u.OutputTokens) + " cache_write=" + itoa(u.CacheCreationTokens) +
		" cache_write_1h=" + itoa(u.Cache1hTokens) + " cache_read=" + itoa(u.CacheReadTokens) + " reasoning=" + itoa(u.ReasoningOutputTokens)
}

func costText(usd float64, known bool) string {
	if !known {
		return "null"
	}
	return strconv.FormatFloat(usd, 'f', 6, 64)
}

func flagText(b bool) string { return strconv.FormatBool(b) }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
