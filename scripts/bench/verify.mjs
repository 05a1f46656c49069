#!/usr/bin/env node
// Usage: node verify.mjs <ledger.json>
// Reference-style sha256-normalized-v1 check (spec §2) of an observation ledger, doing the hash
// work `strata verify` does: the ledger hash plus every nested observation's own hash.
// Deliberately the plain idiomatic implementation, as the upstream tool would write it, so the
// benchmark compares Strata with what a Node user would get for free.
// Exit 0 when everything matches, 2 on any mismatch or unreadable input.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";

// Sort keys by UTF-16 code units (default sort); rebuilding a JS object moves array-index keys
// to the front, which is exactly the ordering spec §2.2 describes.
const canonical = (v) =>
  Array.isArray(v) ? v.map(canonical)
  : v !== null && typeof v === "object"
    ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical(v[k])]))
    : v;

// Only the top-level contentHash is excluded; nested ones (observations) are hashed.
const contentHash = ({ contentHash: _omit, ...rest }) =>
  createHash("sha256").update(JSON.stringify(canonical(rest)), "utf8").digest("hex");

const path = process.argv[2];
if (!path) {
  console.error("usage: node verify.mjs <ledger.json>");
  process.exit(1);
}

let ledger;
try {
  ledger = JSON.parse(readFileSync(path, "utf8"));
} catch (e) {
  console.error(`FAIL ${path}: ${e.message}`);
  process.exit(2);
}
if (ledger?.type !== "controlled-study-observation-ledger" || !Array.isArray(ledger.observations)) {
  console.error(`FAIL ${path}: not an observation ledger`);
  process.exit(2);
}

const mismatches = [];
const check = (where, value) => {
  const computed = contentHash(value);
  if (computed !== value.contentHash) mismatches.push(`${where}: stored ${value.contentHash}, computed ${computed}`);
};
check("$.contentHash", ledger);
ledger.observations.forEach((o, i) => check(`$.observations[${i}].contentHash`, o));

if (mismatches.length === 0) {
  console.log(`ok ${ledger.observations.length} observations`);
} else {
  console.log(mismatches.join("\n"));
  process.exit(2);
}
