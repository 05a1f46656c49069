// The way a simple adapter reads an agent's event stream (the reference Codex adapter does it
// this way): keep all of stdout in one string, split it into lines when the agent exits, parse
// every line. The comparison point for `strata provider`'s streaming reader in
// scripts/bench/agents.sh. Usage: node buffered-reader.mjs < stream.jsonl  (prints the line count)
let text = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', (chunk) => { text += chunk })
process.stdin.on('end', () => {
  let events = 0
  for (const line of text.split('\n')) {
    if (!line.trim()) continue
    try { JSON.parse(line); events += 1 } catch { /* a line that is not JSON is skipped */ }
  }
  process.stdout.write(`${events}\n`)
})
