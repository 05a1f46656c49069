#!/usr/bin/env node
// Usage: node openai-client.mjs <baseURL> <calls> <in-flight> <request.json> <expected-text>
// The baseline client of scripts/bench/http.sh: <calls> chat completions made with the official
// `openai` npm package, <in-flight> at once (a simple promise pool: that many workers, each
// taking the next call number until none is left). Every call sends the model and messages of
// <request.json> (a real request body captured from strata) with `stream: false`; a call
// succeeds when it resolves and its choices[0].message.content equals <expected-text>.
// No retries (maxRetries 0), so a failure is counted, not hidden. TLS verifies against the
// system store plus NODE_EXTRA_CA_CERTS. It has to be run from a directory whose
// node_modules holds `openai` (http.sh copies it next to its temporary install).
// Prints one JSON line: {"version","calls","ok","failed","firstError","loopSeconds"}, where
// loopSeconds is the time from the first request to the last answer (module loading and
// process start excluded). Exit 0 only if every call succeeded.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import OpenAI from "openai";

const [baseURL, callsArg, inFlightArg, requestPath, expected] = process.argv.slice(2);
const calls = Number(callsArg);
const inFlight = Number(inFlightArg);
if (!baseURL || !Number.isInteger(calls) || calls < 1 || !Number.isInteger(inFlight) || inFlight < 1 || !requestPath ||
    expected === undefined) {
  console.error("usage: node openai-client.mjs <baseURL> <calls> <in-flight> <request.json> <expected-text>");
  process.exit(1);
}
const request = JSON.parse(readFileSync(requestPath, "utf8"));
const client = new OpenAI({ baseURL, apiKey: "sk-bench", maxRetries: 0, timeout: 60_000 });

let next = 0;
let ok = 0;
let failed = 0;
let firstError = null;
async function worker() {
  while (next < calls) {
    next += 1;
    try {
      const completion = await client.chat.completions.create({
        model: request.model,
        messages: request.messages,
        stream: false,
      });
      if (completion.choices?.[0]?.message?.content === expected) ok += 1;
      else {
        failed += 1;
        firstError ??= `unexpected completion: ${JSON.stringify(completion).slice(0, 200)}`;
      }
    } catch (error) {
      failed += 1;
      firstError ??= String(error?.message ?? error).slice(0, 200);
    }
  }
}

const start = process.hrtime.bigint();
await Promise.all(Array.from({ length: Math.min(inFlight, calls) }, worker));
const loopSeconds = Number(process.hrtime.bigint() - start) / 1e9;
let version = "unknown";
try {
  // The package's exports hide package.json; read it beside the resolved entry point.
  const entry = createRequire(import.meta.url).resolve("openai");
  version = JSON.parse(readFileSync(entry.replace(/[^/]*$/, "package.json"), "utf8")).version;
} catch {}
console.log(JSON.stringify({ version, calls, ok, failed, firstError, loopSeconds }));
process.exit(ok === calls ? 0 : 2);
