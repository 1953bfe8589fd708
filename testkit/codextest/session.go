package codextest

import (
	"conductorbridge/testkit/fakemodel"
)

// The corpus session's prompts: the first runs with `codex exec`, the
// second resumes the thread with `codex exec resume`.
const (
	FirstPrompt  = "Give me a short tour: run a command, show me some failures, and create greeting.txt."
	SecondPrompt = "Thanks! What's in greeting.txt now?"
)

// Patch is the apply_patch the scenario makes: it adds greeting.txt.
const Patch = "*** Begin Patch\n*** Add File: greeting.txt\n+hello world\n*** End Patch\n"

func shell(cmd string) fakemodel.Turn {
	return fakemodel.Build(func(r fakemodel.Request) []fakemodel.Block {
		return []fakemodel.Block{fakemodel.Shell(r.ToolNames(), cmd)}
	})
}

// FirstTurn is the model's side of the first prompt: a reasoning summary,
// text, a shell call, a long output, a failing command, a patch and a final
// answer with cached and reasoning tokens.
func FirstTurn() []fakemodel.Turn {
	return []fakemodel.Turn{
		fakemodel.Build(func(r fakemodel.Request) []fakemodel.Block {
			return []fakemodel.Block{
				fakemodel.Thinking("**Planning the tour**\n\nI will start with a harmless command."),
				fakemodel.Text("Let me start with a quick command."),
				fakemodel.Shell(r.ToolNames(), "echo hello"),
			}
		}),
		shell("seq 1 400"),
		fakemodel.Build(func(r fakemodel.Request) []fakemodel.Block {
			return []fakemodel.Block{
				fakemodel.Text("Now a command that fails."),
				fakemodel.Shell(r.ToolNames(), "cat missing.txt"),
			}
		}),
		fakemodel.Build(func(r fakemodel.Request) []fakemodel.Block {
			return []fakemodel.Block{fakemodel.ApplyPatch(r, Patch)}
		}),
		{
			Blocks: []fakemodel.Block{
				fakemodel.Thinking("**Summing up**\n\nEverything ran."),
				fakemodel.Text("All done: greeting.txt says hello world."),
			},
			Usage: fakemodel.Usage{InputTokens: 400, CacheReadInputTokens: 800, OutputTokens: 300, ReasoningTokens: 120},
		},
	}
}

// SecondTurn answers SecondPrompt: a shell call, then the answer.
func SecondTurn() []fakemodel.Turn {
	return []fakemodel.Turn{
		shell("cat greeting.txt"),
		fakemodel.Reply(fakemodel.Text("It says: hello world.")),
	}
}
