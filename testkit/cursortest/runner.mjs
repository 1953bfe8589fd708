// Runs Cursor SDK local-agent turns for testkit/cursortest (Go writes this
// file next to the job and starts it with a Node >= 22.13). argv[2] is the
// job, JSON: {sdk, apiKey, model, cwd, stateRoot, agents: [{prompts: [...]}]}.
// Each agent is created with the SDK's own SQLite store opened at stateRoot
// (as Conductor lays it out), sends its prompts one run at a time, and is
// disposed; stdout's last line is {agents: [{agentId, runs: [{runId,
// status, error}]}]}.
import { pathToFileURL } from "node:url";

const job = JSON.parse(process.argv[2]);
const entry = (file) => pathToFileURL(`${job.sdk}/dist/esm/${file}`).href;
const { Agent } = await import(entry("index.js"));
const { SqliteLocalAgentStore } = await import(entry("sqlite.js"));

const store = await SqliteLocalAgentStore.open({ workspaceRef: job.cwd, stateRoot: job.stateRoot });
const out = { agents: [] };
for (const spec of job.agents) {
  const agent = await Agent.create({
    apiKey: job.apiKey,
    model: { id: job.model },
    local: { cwd: job.cwd, store },
  });
  const record = { agentId: agent.agentId, runs: [] };
  for (const prompt of spec.prompts) {
    const run = await agent.send(prompt);
    const result = await run.wait();
    record.runs.push({ runId: run.id, status: result.status, error: result.error?.message ?? "" });
  }
  await agent[Symbol.asyncDispose]();
  out.agents.push(record);
}
await store.dispose();
console.log(JSON.stringify(out));
process.exit(0);
