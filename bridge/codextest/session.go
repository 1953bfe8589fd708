package codextest

import (
	"conductorbridge/bridge/fakeopenai"
)

// The corpus session's prompts: the first runs with `codex exec`, the
// second resumes the thread with `codex exec resume`.
const (
	FirstPrompt  = "Give me a short tour: run a command, show me some failures, and create greeting.txt."
	SecondPrompt = "Thanks! What's in greeting.txt now?"
)

// Patch is the apply_patch the scenario makes: it adds greeting.txt.
const Patch = "*** Begin Patch\n*** Add File: greeting.txt\n+hello world\n*** End Patch\n"

func shell(cmd string) fakeopenai.Turn {
	return fakeopenai.Build(func(r fakeopenai.Request) []fakeopenai.Item {
		return []fakeopenai.Item{fakeopenai.Shell(r.ToolNames(), cmd)}
	})
}

// FirstTurn is the model's side of the first prompt: a reasoning summary,
// text, a shell call, a long output, a failing command, a patch and a final
// answer with cached and reasoning tokens.
func FirstTurn() []fakeopenai.Turn {
	return []fakeopenai.Turn{
		fakeopenai.Build(func(r fakeopenai.Request) []fakeopenai.Item {
			return []fakeopenai.Item{
				fakeopenai.Reasoning("**Planning the tour**\n\nI will start with a harmless command."),
				fakeopenai.Message("Let me start with a quick command."),
				fakeopenai.Shell(r.ToolNames(), "echo hello"),
			}
		}),
		shell("seq 1 400"),
		fakeopenai.Build(func(r fakeopenai.Request) []fakeopenai.Item {
			return []fakeopenai.Item{
				fakeopenai.Message("Now a command that fails."),
				fakeopenai.Shell(r.ToolNames(), "cat missing.txt"),
			}
		}),
		fakeopenai.Build(func(r fakeopenai.Request) []fakeopenai.Item {
			return []fakeopenai.Item{fakeopenai.ApplyPatch(r, Patch)}
		}),
		{
			Items: []fakeopenai.Item{
				fakeopenai.Reasoning("**Summing up**\n\nEverything ran."),
				fakeopenai.Message("All done: greeting.txt says hello world."),
			},
			Usage: fakeopenai.Usage{InputTokens: 1200, CachedTokens: 800, OutputTokens: 300, ReasoningTokens: 120},
		},
	}
}

// SecondTurn answers SecondPrompt: a shell call, then the answer.
func SecondTurn() []fakeopenai.Turn {
	return []fakeopenai.Turn{
		shell("cat greeting.txt"),
		fakeopenai.Reply(fakeopenai.Message("It says: hello world.")),
	}
}
