// The real-client tier of ragd's MCP server: the official TypeScript SDK
// spawns `ragd mcp`, lists the tools, and walks an agent's path: search a
// question, open the top hit with get, vote on it with feedback. The SDK
// checks every structured result against the tool's output schema.
//
// Run by cmd/ragd's TestMCP_NodeClient (RAGD_NODE_TESTS=1), which starts a
// daemon with an indexed repository and sets:
//   RAGD_BIN, RAGD_BIN_ARGS (JSON array)  the command that is `ragd mcp`
//   RAGD_MCP_CWD                          its working directory (the repository)
//   RAGD_QUESTION                         what to ask
//   RAGD_WANT_FILE, RAGD_WANT_HEADING     the ADR section that answers it
//   RAGD_WANT_TEXT                        a phrase of that section's text
// It prints one JSON line with what it found, and exits non-zero on the first
// failed assertion.
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const need = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};
const text = (res) => res.content.filter((c) => c.type === "text").map((c) => c.text).join("");

const clientName = "node-sdk-tier";
const transport = new StdioClientTransport({
  command: need("RAGD_BIN"),
  args: JSON.parse(process.env.RAGD_BIN_ARGS ?? '["mcp"]'),
  cwd: need("RAGD_MCP_CWD"),
  env: process.env,
  stderr: "inherit",
});
const client = new Client({ name: clientName, version: "1.0.0" });
await client.connect(transport);

assert.equal(client.getServerVersion()?.name, "ragd");
const { tools } = await client.listTools();
assert.deepEqual(tools.map((t) => t.name).sort(), ["feedback", "get", "reindex", "search", "status"]);
for (const t of tools) {
  assert.ok(t.description.length > 100, `${t.name}: a description a model can choose by`);
  assert.equal(t.inputSchema.type, "object");
  assert.ok(t.outputSchema, `${t.name}: an output schema`);
}
const search = tools.find((t) => t.name === "search");
assert.equal(search.inputSchema.properties.limit.maximum, 20);
assert.deepEqual(search.inputSchema.required, ["query"]);

// Find the section that answers the question.
const found = await client.callTool({ name: "search", arguments: { query: need("RAGD_QUESTION"), limit: 3 } });
assert.ok(!found.isError, text(found));
const out = found.structuredContent;
assert.ok(out.hits.length > 0, "no hit");
const top = out.hits[0];
assert.equal(top.scope, "adr");
assert.equal(top.file, need("RAGD_WANT_FILE"));
assert.deepEqual(top.headingPath, [need("RAGD_WANT_HEADING")]);
assert.match(top.commit, /^[0-9a-f]{40}$/);
assert.equal(out.degraded, false);
assert.ok(Number.isInteger(out.searchId) && out.searchId > 0);
assert.ok(text(found).includes(top.citation), "the text form cites the hit");

// Open it.
const opened = await client.callTool({ name: "get", arguments: { chunkId: top.chunkId } });
assert.ok(!opened.isError, text(opened));
assert.ok(opened.structuredContent.text.includes(need("RAGD_WANT_TEXT")), opened.structuredContent.text);
assert.deepEqual(opened.structuredContent.headingPath, top.headingPath);
assert.deepEqual(opened.structuredContent.parent?.headingPath, []);

// Vote.
const voted = await client.callTool({
  name: "feedback",
  arguments: { searchId: out.searchId, chunkId: top.chunkId, verdict: "useful" },
});
assert.ok(!voted.isError, text(voted));
assert.equal(voted.structuredContent.rank, 1);
assert.equal(voted.structuredContent.actor, `agent:${clientName}`);

// A bad argument is a tool error, and the server goes on.
const bad = await client.callTool({ name: "search", arguments: { query: "x", limit: 50 } });
assert.equal(bad.isError, true);
assert.match(text(bad), /limit/);
const status = await client.callTool({ name: "status", arguments: {} });
assert.equal(status.structuredContent.daemon.running, true);

await client.close();
console.log(JSON.stringify({ ok: true, searchId: out.searchId, chunkId: top.chunkId, citation: top.citation }));
