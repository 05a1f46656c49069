// The page's script: the studies, the live stream, the observation table (filters, sort, paging
// on the server), the drill-down. Every value from a ledger is put in the page as text
// (textContent), never as markup: a hostile task id or trajectory cannot inject anything.
// Kept in the binary: `strata view` works offline and serves no file from disk for its page.
#include "strata/app/view/view_app.hpp"

namespace strata::app {

const std::string& view_page_script() {
  static const std::string text = R"strata_page('use strict';
const PAGE = 100;
const state = { studies: [], current: null, sort: 'index', order: 'asc', offset: 0, total: 0, updates: 0, reloadTimer: null };

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') node.className = v; else if (k.startsWith('data-')) node.setAttribute(k, v); else node[k] = v;
  }
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(c == null ? '' : String(c)));
  return node;
}
const $ = (id) => document.getElementById(id);
const fmt = (v, digits) => v == null ? '-' : (typeof v === 'number' ? (digits == null ? v.toLocaleString('en') : v.toFixed(digits)) : String(v));

async function getJson(url) {
  const response = await fetch(url, { credentials: 'same-origin', cache: 'no-store' });
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}

function renderStudies() {
  const nav = $('studies');
  nav.replaceChildren();
  if (state.studies.length === 0) nav.append(el('p', { class: 'muted' }, 'No study found yet in the paths given; new ledgers appear here.'));
  for (const s of state.studies) {
    const b = el('button', { type: 'button', 'data-study': s.id, class: s.id === state.current ? 'current' : '' },
      el('strong', {}, s.name), el('br'), el('span', { class: 'muted' }, `${fmt(s.summary.observations)} observations`));
    b.addEventListener('click', () => selectStudy(s.id));
    nav.append(b);
  }
}

function renderOverview(s) {
  const m = s.summary;
  const card = (label, value, key) => el('div', { class: 'card', 'data-card': key }, el('b', {}, value), label);
  $('overview').replaceChildren(
    card('observations', fmt(m.observations), 'observations'),
    card('failures', fmt(m.failures), 'failures'),
    card('tokens in / out', `${fmt(m.inputTokens)} / ${fmt(m.outputTokens)}`, 'tokens'),
    card('cost so far (USD)', m.costUsd == null ? 'not priced' : fmt(m.costUsd, 4), 'cost'));
  const live = s.live;
  if (live && live.budget) {
    const b = live.budget;
    const parts = [];
    if (b.maxCostUsd != null) parts.push(`$${fmt(b.spentCostUsd, 4)} of $${fmt(b.maxCostUsd, 4)} (reserved $${fmt(b.reservedCostUsd, 4)})`);
    if (b.maxTokens != null) parts.push(`${fmt(b.spentTokens)} of ${fmt(b.maxTokens)} tokens (reserved ${fmt(b.reservedTokens)})`);
    $('overview').append(card('budget spent', parts.join('; '), 'budget'));
  }
  $('run-state').textContent = live ? `Running: run ${live.runId}, ${fmt(live.completed)} done this run, ${live.running.length} running, updated ${live.updatedAt}` : 'Not running';
  const running = $('running');
  running.hidden = !live;
  running.tBodies[0].replaceChildren(...((live && live.running) || []).map((r) =>
    el('tr', {}, el('td', {}, r.taskId), el('td', {}, `${r.modelId} / ${r.scenarioId}`), el('td', {}, r.attempt), el('td', {}, r.startedAt))));
  const problem = $('study-problem');
  problem.hidden = !m.problem;
  problem.textContent = m.problem || '';
  const body = $('progress').tBodies[0];
  body.replaceChildren();
  for (const r of s.progress || []) {
    const done = r.planned ? `${Math.round(100 * r.recorded / r.planned)}%` : '-';
    body.append(el('tr', {}, el('td', {}, r.runId), el('td', {}, fmt(r.recorded)), el('td', {}, r.planned == null ? 'plan not found' : fmt(r.planned)), el('td', {}, done)));
  }
  fillFilters(m);
}

function fillFilters(m) {
  const options = { arm: m.arms, run: Object.keys(m.runs), status: m.statuses, error: m.errorCodes, claimed: m.claimed, adjudicated: m.adjudicated };
  for (const [name, values] of Object.entries(options)) {
    const select = document.querySelector(`#filters select[name="${name}"]`);
    const chosen = select.value;
    select.replaceChildren(el('option', { value: '' }, 'any'), ...values.map((v) => el('option', { value: v }, v)));
    select.value = values.includes(chosen) ? chosen : '';
  }
}

function tableUrl() {
  const q = new URLSearchParams({ sort: state.sort, order: state.order, offset: state.offset, limit: PAGE });
  for (const select of document.querySelectorAll('#filters select')) if (select.value) q.set(select.name, select.value);
  return `/api/studies/${state.current}/observations?${q}`;
}

async function loadTable(freshFrom) {
  if (state.current == null) return;
  const page = await getJson(tableUrl());
  state.total = page.total;
  const body = $('observations').tBodies[0];
  body.replaceChildren();
  for (const r of page.rows) {
    const verified = r.verifiedTotal == null ? 'not verified' : `${r.verifiedPassed}/${r.verifiedTotal}${r.claimAgrees === 0 ? ' (claim false)' : ''}`;
    const tr = el('tr', { 'data-index': r.index, class: (r.status !== 'completed' ? 'failed ' : '') + (freshFrom != null && r.index >= freshFrom ? 'fresh' : '') },
      el('td', {}, r.index), el('td', {}, r.taskId), el('td', {}, r.arm), el('td', {}, r.runId), el('td', {}, r.status),
      el('td', {}, r.errorCode || ''), el('td', {}, r.claimed), el('td', {}, r.adjudicated), el('td', {}, verified),
      el('td', {}, fmt(r.inputTokens + r.outputTokens)), el('td', {}, r.costUsd == null ? '-' : fmt(r.costUsd, 4)), el('td', {}, fmt(r.durationMs)));
    tr.addEventListener('click', () => openDetail(r.index));
    body.append(tr);
  }
  $('table-count').textContent = `(${page.total.toLocaleString('en')} shown by the filters)`;
  const last = Math.max(0, Math.ceil(page.total / PAGE) - 1);
  $('page').textContent = `page ${Math.floor(state.offset / PAGE) + 1} of ${last + 1}`;
  $('prev').disabled = state.offset === 0;
  $('next').disabled = state.offset + PAGE >= page.total;
  for (const th of document.querySelectorAll('#observations th')) {
    th.classList.toggle('sorted-asc', th.dataset.sort === state.sort && state.order === 'asc');
    th.classList.toggle('sorted-desc', th.dataset.sort === state.sort && state.order === 'desc');
  }
}

function metricsView(report) {
  const wrap = el('div');
  if (report.error) { wrap.append(el('p', { class: 'muted' }, report.error)); return wrap; }
  const m = report.metrics;
  if (m.findings && m.findings.length) {
    wrap.append(el('h4', {}, 'Findings'));
    const list = el('ul');
    for (const f of m.findings) list.append(el('li', { class: 'finding' }, f.sentence));
    wrap.append(list);
  }
  const arms = el('table', { id: 'arms' }, el('caption', {}, 'Arms'),
    el('thead', {}, el('tr', {}, ...['Model', 'Scenario', 'Executions', 'Success rate', 'Tokens (median)', 'Duration ms (median)', 'Cost (USD)', 'Verified rate', 'Claims true'].map((h) => el('th', {}, h)))));
  const body = el('tbody');
  for (const a of m.arms || []) {
    const v = a.verified;
    body.append(el('tr', {}, el('td', {}, a.modelId), el('td', {}, a.scenarioId), el('td', {}, fmt(a.executions)), el('td', {}, fmt(a.successRate, 3)),
      el('td', {}, fmt(a.totalTokens && a.totalTokens.median)), el('td', {}, fmt(a.durationMs && a.durationMs.median)),
      el('td', {}, a.costUsd ? fmt(a.costUsd.total, 4) : 'not priced'),
      el('td', {}, v ? fmt(v.verifiedRate, 3) : '-'), el('td', {}, v ? fmt(v.claimsTrueRate, 3) : '-')));
  }
  arms.append(body);
  wrap.append(arms);
  const paired = Array.isArray(m.paired) ? m.paired : [];
  if (paired.length) {
    const pct = (v) => v == null ? '-' : `${(100 * v).toFixed(1)}`;
    const table = el('table', { id: 'paired' }, el('caption', {}, 'Paired comparison (success, percentage points)'),
      el('thead', {}, el('tr', {}, ...['Model', 'Baseline', 'Current', 'Pairs', 'Baseline rate', 'Current rate', 'Difference', '95% interval', 'McNemar p', 'Adjusted p', 'Tokens ratio of medians'].map((h) => el('th', {}, h)))));
    const body = el('tbody');
    for (const c of paired) {
      const x = c.success || {};
      body.append(el('tr', {}, el('td', {}, c.modelId), el('td', {}, c.baselineScenarioId), el('td', {}, c.currentScenarioId), el('td', {}, fmt(c.pairs)),
        el('td', {}, pct(x.baselineRate)), el('td', {}, pct(x.currentRate)), el('td', {}, pct(x.difference)),
        el('td', {}, x.interval ? `${pct(x.interval[0])} to ${pct(x.interval[1])}` : '-'), el('td', {}, fmt(x.mcnemarP, 3)), el('td', {}, fmt(x.adjustedP, 3)),
        el('td', {}, c.totalTokens ? fmt(c.totalTokens.ratioOfMedians, 2) : '-')));
    }
    table.append(body);
    wrap.append(table);
  }
  return wrap;
}

async function loadMetrics() {
  if (state.current == null || !$('metrics-panel').open) return;
  $('metrics').replaceChildren(metricsView(await getJson(`/api/studies/${state.current}/metrics`)));
}

async function selectStudy(id) {
  state.current = id;
  state.offset = 0;
  const s = state.studies.find((x) => x.id === id);
  $('study').hidden = false;
  $('study-name').textContent = s.name;
  $('study-path').textContent = s.ledger;
  for (const select of document.querySelectorAll('#filters select')) select.value = '';
  renderStudies();
  renderOverview(s);
  if ($('report-panel').open) $('report-frame').src = `/api/studies/${id}/report`;
  await Promise.all([loadTable(), loadMetrics()]);
}

function stepView(step) {
  const box = el('div', { class: `step ${step.source || ''}`, 'data-step': step.step_id },
    el('h4', {}, `Step ${step.step_id} \u00b7 ${step.source || '?'}${step.model_name ? ' \u00b7 ' + step.model_name : ''}`));
  if (step.message) box.append(el('pre', { class: 'message' }, typeof step.message === 'string' ? step.message : JSON.stringify(step.message, null, 2)));
  if (step.reasoning_content) box.append(el('details', {}, el('summary', {}, 'Reasoning'), el('pre', {}, step.reasoning_content)));
  for (const call of step.tool_calls || [])
    box.append(el('div', { class: 'tool-call' }, el('strong', {}, `\u2192 ${call.function_name}`), el('pre', {}, JSON.stringify(call.arguments, null, 2))));
  for (const result of (step.observation && step.observation.results) || [])
    box.append(el('div', { class: 'tool-result' }, el('em', {}, `\u2190 ${result.source_call_id || 'result'}`),
      el('pre', {}, typeof result.content === 'string' ? result.content : JSON.stringify(result.content, null, 2))));
  return box;
}

async function openDetail(index) {
  const d = await getJson(`/api/studies/${state.current}/observations/${index}`);
  const r = d.row;
  $('detail').hidden = false;
  $('detail').dataset.index = index;
  $('detail-title').textContent = `${r.taskId} \u00b7 ${r.arm} \u00b7 ${r.status}`;
  const parts = [
    el('p', {}, `Execution key ${r.executionKey}`),
    el('p', {}, `Claimed ${r.claimed}; adjudicated ${r.adjudicated}; verified ${r.verifiedTotal == null ? 'not run' : r.verifiedPassed + ' of ' + r.verifiedTotal}`)];
  const o = d.observation;
  if (o.adjudication) parts.push(el('h4', {}, 'Adjudication'), el('pre', { id: 'detail-adjudication' }, JSON.stringify(o.adjudication, null, 2)));
  const files = d.files || {};
  for (const [key, title] of [['trajectory', 'Trajectory'], ['judgeTrajectory', "The judge's trajectory"]]) {
    const t = files[key];
    if (!t) continue;
    parts.push(el('h4', {}, `${title} (${t.path})`));
    if (t.error) { parts.push(el('p', { class: 'problem' }, t.error)); continue; }
    const section = el('div', { id: key === 'trajectory' ? 'detail-trajectory' : 'detail-judge-trajectory' });
    for (const step of t.value.steps || []) section.append(stepView(step));
    parts.push(section);
  }
  if (files.patch) parts.push(el('h4', {}, `Workspace diff (${files.patch.path})`), el('pre', { id: 'detail-patch' }, files.patch.text));
  if (files.verifierOutput) parts.push(el('h4', {}, "The verifier's output"), el('pre', { id: 'detail-verifier' }, JSON.stringify(files.verifierOutput.value || files.verifierOutput.error, null, 2)));
  if (!files.trajectory) parts.push(el('p', { class: 'muted' }, 'No trajectory kept for this execution in the directories given.'));
  parts.push(el('h4', {}, 'Observation'), el('pre', { id: 'detail-observation' }, JSON.stringify(o, null, 2)));
  $('detail-body').replaceChildren(...parts);
}

function onChange(event) {
  const change = JSON.parse(event.data);
  state.updates += 1;
  document.body.dataset.liveUpdates = state.updates;
  let reload = false, freshFrom = null;
  for (const c of change.studies) {
    if (c.new) {
      state.studies.push(c.study);
      if (state.current == null) selectStudy(c.study.id);  // the first study found opens by itself
      continue;
    }
    const s = state.studies.find((x) => x.id === c.id);
    if (!s) continue;
    s.summary = c.summary;
    s.progress = c.progress;
    s.live = c.live;
    if (c.id === state.current) {
      renderOverview(s);
      reload = reload || c.reset || c.added > 0;
      if (c.newest && c.newest.length) freshFrom = c.newest[0].index;
    }
  }
  renderStudies();
  if (reload) {
    clearTimeout(state.reloadTimer);
    state.reloadTimer = setTimeout(() => { loadTable(freshFrom); loadMetrics(); }, 200);
  }
}

function connect() {
  const source = new EventSource('/api/events');
  source.addEventListener('open', () => { $('live').textContent = 'live'; $('live').classList.add('on'); });
  source.addEventListener('change', onChange);
  source.addEventListener('error', () => { $('live').textContent = 'reconnecting'; $('live').classList.remove('on'); });
}

async function start() {
  for (const th of document.querySelectorAll('#observations th')) {
    th.addEventListener('click', () => {
      state.order = state.sort === th.dataset.sort && state.order === 'asc' ? 'desc' : 'asc';
      state.sort = th.dataset.sort;
      state.offset = 0;
      loadTable();
    });
  }
  $('filters').addEventListener('change', () => { state.offset = 0; loadTable(); });
  $('prev').addEventListener('click', () => { state.offset = Math.max(0, state.offset - PAGE); loadTable(); });
  $('next').addEventListener('click', () => { state.offset += PAGE; loadTable(); });
  $('close').addEventListener('click', () => { $('detail').hidden = true; });
  $('metrics-panel').addEventListener('toggle', loadMetrics);
  $('report-panel').addEventListener('toggle', () => { if ($('report-panel').open && state.current != null) $('report-frame').src = `/api/studies/${state.current}/report`; });
  const list = await getJson('/api/studies');
  state.studies = list.studies;
  renderStudies();
  if (state.studies.length) await selectStudy(state.studies[0].id);
  document.body.dataset.ready = 'true';
  connect();
}

start().catch((e) => { document.body.dataset.error = e.message; $('studies').replaceChildren(el('p', { class: 'problem' }, e.message)); });
)strata_page";
  return text;
}

}  // namespace strata::app
