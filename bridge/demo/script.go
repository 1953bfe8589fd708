package demo

import (
	"fmt"
	"strings"
)

// A step is one thing the simulated agent does in a turn.
type step struct {
	think   string         // a thinking block
	say     string         // text to the person
	tool    string         // a tool call …
	input   map[string]any // … its input
	output  string         // … and its result
	failing bool           // the result is an error
	ask     string         // the agent stops to ask for permission (needs input)
}

// A turn is a prompt and what the agent does about it.
type turn struct {
	prompt string
	steps  []step
	answer string // the last words of the turn
}

// longFile is a result long enough to be cut at 500 characters.
var longFile = func() string {
	var b strings.Builder
	b.WriteString("import { themes } from './theme';\n\nexport function Settings({ user, onSave }) {\n")
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&b, "  // field %02d: keeps the form aligned with the account page\n", i)
	}
	b.WriteString("  return <form>{/* theme goes here */}</form>;\n}\n")
	return b.String()
}()

// script is the session the demo plays, in order, then again from the top.
var script = []turn{
	{
		prompt: "Add a dark mode toggle to the settings page",
		steps: []step{
			{think: "The settings page is src/settings.tsx; themes live in src/theme.ts. I'll find where the theme is read first."},
			{tool: "Grep", input: map[string]any{"pattern": "theme", "path": "src"}, output: "src/settings.tsx:2: return <form>{/* theme goes here */}</form>;\nsrc/theme.ts:1: export const themes = { light: {}, dark: {} };"},
			{tool: "Read", input: map[string]any{"file_path": "src/settings.tsx"}, output: longFile},
			{say: "The form has a placeholder for the theme. I'll add a toggle that switches between the two themes and remembers the choice."},
			{tool: "Edit", input: map[string]any{"file_path": "src/settings.tsx", "old_string": "{/* theme goes here */}", "new_string": "<ThemeToggle themes={themes} />"}, output: "The file src/settings.tsx has been updated."},
			{tool: "Bash", input: map[string]any{"command": "npm test -- settings", "description": "Run the settings tests"}, output: "✓ tests/settings.spec.ts (3 tests) 41ms\n\nTest Files  1 passed (1)\n     Tests  3 passed (3)"},
		},
		answer: "Dark mode is in: Settings now has a theme toggle that switches between light and dark and remembers the choice. The settings tests pass.",
	},
	{
		prompt: "Now run the end-to-end tests",
		steps: []step{
			{ask: "permission_prompt"},
			{tool: "Bash", input: map[string]any{"command": "npx playwright test", "description": "Run the e2e suite"}, output: "Error: browserType.launch: Executable doesn't exist at /ms-playwright/chromium-1140/chrome-linux/chrome\n╔════════════════════════════════════════╗\n║ Looks like Playwright was just installed ║\n║ Please run: npx playwright install      ║\n╚════════════════════════════════════════╝", failing: true},
			{think: "Playwright's browsers are not installed in this worktree. The unit tests pass, so the change itself is fine."},
		},
		answer: "The e2e run needs Playwright's browsers (`npx playwright install`), which this machine lacks. The unit tests pass; want me to install the browsers and run it again?",
	},
	{
		prompt: "Check the mobile layout of the login page",
		steps: []step{
			{tool: "Read", input: map[string]any{"file_path": "src/login.tsx"}, output: "export function Login({ onSubmit }) {\n  return <form onSubmit={onSubmit}>…</form>;\n}"},
			{tool: "Glob", input: map[string]any{"pattern": "src/**/*.css"}, output: "src/login.css\nsrc/settings.css"},
			{say: "The login form has a fixed width of 420px, so it overflows on phones. I'll make it fluid under 480px."},
			{tool: "Edit", input: map[string]any{"file_path": "src/login.css", "old_string": "width: 420px;", "new_string": "width: min(420px, 100%);"}, output: "The file src/login.css has been updated."},
			{tool: "Bash", input: map[string]any{"command": "npm test -- login"}, output: "✓ tests/login.spec.ts (5 tests) 63ms\n\n     Tests  5 passed (5)"},
		},
		answer: "The login form now shrinks to the screen width on phones instead of overflowing; its tests pass.",
	},
}

// reply is how the agent answers a message sent from the side panel.
func reply(msg string) turn {
	return turn{
		steps: []step{
			{think: "The person sent a message from the side panel: " + msg},
			{tool: "Read", input: map[string]any{"file_path": "src/login.tsx"}, output: "export function Login({ onSubmit }) { … }"},
			{say: "On it."},
		},
		answer: "Got your message — \"" + msg + "\". Done: I've taken it into account in the login page.",
	}
}
