import type { FitResult } from '../context/fit.js'
import { InvalidOptionError } from '../errors.js'
import { requireMessages } from '../messages/check.js'
import { redactCredentials } from '../messages/credentials.js'
import { type Message, messageText } from '../messages/message.js'
import { oneLine } from '../messages/records.js'
import { unitsOf } from '../messages/units.js'
import type { TokenCounter } from '../tokens/counter.js'
import { exactCounter } from '../tokens/counters.js'

export interface ReportSettings {
  source?: string
  strategy: string
  options?: Record<string, unknown>
  counter?: string
  model?: string
  budget: number | null
  /** Relevance score per input message, when a query was used. */
  scores?: (number | undefined)[]
  query?: string
  /** The counter the fit used (for the budget bar's split); default exact o200k. */
  tokenCounter?: TokenCounter
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
const pct = (n: number, of: number) => (of > 0 ? (100 * n) / of : 0)

/** The fate label of an input message, in words (never colour alone). */
function label(result: FitResult, i: number): { key: string; text: string } {
  const f = result.fates[i]
  if (!f) return { key: 'dropped', text: 'dropped' }
  if (f.fate === 'summarized') {
    const at = result.inserted.find((s) => s.replaces.includes(i))
    return {
      key: 'summarized',
      text: `summarized into the summary sent at position ${at ? at.position : '?'}`,
    }
  }
  if (f.fate === 'changed') return { key: 'changed', text: `${f.reason ?? 'changed'}` }
  if (f.fate === 'invalid') return { key: 'invalid', text: `invalid (${f.reason})` }
  if (f.fate === 'dropped') return { key: 'dropped', text: `dropped (${f.reason ?? 'strategy'})` }
  return { key: 'kept', text: 'kept' }
}

/**
 * One self-contained HTML page (inline CSS and a few lines of JS, nothing fetched) showing
 * where the budget went, every message with its fate, tool exchanges as groups, the full
 * text on click, and the settings used.
 */
export function renderReport(
  input: readonly Message[],
  result: FitResult,
  given: Partial<ReportSettings> = {},
): string {
  requireMessages(input)
  if (!result || typeof result !== 'object' || !Array.isArray(result.messages) || !result.tokens)
    throw new InvalidOptionError('result', 'expected the FitResult of fitting those messages')
  if (given === null || typeof given !== 'object')
    throw new InvalidOptionError('settings', 'expected an object')
  // What the result already says need not be given again.
  const settings: ReportSettings = {
    ...given,
    strategy: given.strategy ?? result.strategy,
    budget: given.budget === undefined ? result.budget : given.budget,
  }
  const budget = result.budget ?? result.tokens.total + result.tokens.reserve
  const counter = settings.tokenCounter ?? exactCounter()
  const insertedAt = new Set(result.inserted.map((s) => s.position))
  let systemTokens = 0
  let summaries = 0
  result.messages.forEach((m, k) => {
    const t = counter.countMessage(m)
    if (insertedAt.has(k)) summaries += t
    else if (m.role === 'system') systemTokens += t
  })
  const keptTokens = Math.max(0, result.tokens.messages - systemTokens - summaries)
  const used = result.tokens.total + result.tokens.reserve
  const free = Math.max(0, budget - used)
  const droppedTokens = result.fates.reduce(
    (n, f) => n + (f.position === undefined ? f.tokens : 0),
    0,
  )
  const segments = [
    { key: 'system', name: 'system', n: systemTokens },
    {
      key: 'tools',
      name: 'tool schemas and reply priming',
      n: result.tokens.tools + result.tokens.priming,
    },
    { key: 'kept', name: 'kept messages', n: keptTokens },
    { key: 'summary', name: 'summaries / placeholders', n: summaries },
    { key: 'reserve', name: 'reply reserve', n: result.tokens.reserve },
    { key: 'free', name: 'free', n: free },
  ]
  const bar = segments
    .filter((s) => s.n > 0)
    .map(
      (s) =>
        `<div class="seg ${s.key}" data-segment="${s.key}" style="width:${pct(s.n, budget).toFixed(2)}%" title="${esc(s.name)}: ${s.n} tokens (${pct(s.n, budget).toFixed(1)}%)"></div>`,
    )
    .join('')
  const legend = segments
    .map(
      (s) =>
        `<li><span class="sw ${s.key}"></span>${esc(s.name)}: <b>${s.n}</b> (${pct(s.n, budget).toFixed(1)}%)</li>`,
    )
    .join('')

  const units = unitsOf(input)
  const rows: string[] = []
  for (const unit of units) {
    const group = unit.kind === 'exchange'
    if (group)
      rows.push(
        `<div class="group" role="group" aria-label="tool exchange, messages ${unit.start} to ${unit.end - 1}">`,
      )
    for (let i = unit.start; i < unit.end; i++) {
      const m = input[i] as Message
      const f = result.fates[i]
      const l = label(result, i)
      // A report is shared (attached to an issue, sent to a colleague): it shows no credential
      // a message holds, and a preview is one line with no control or format character raw.
      const text = redactCredentials(
        messageText(m) || (m.role === 'assistant' && m.thought ? `(reasoning) ${m.thought}` : ''),
      )
      const preview = oneLine(text).slice(0, 140)
      const score = settings.scores?.[i]
      rows.push(
        `<details class="msg ${l.key}" data-fate="${l.key}" data-index="${i}"><summary><span class="idx">#${i}</span><span class="role">${esc(m.role === 'tool' ? `tool ${m.toolName ?? ''}` : m.role)}</span><span class="tok">${f?.tokens ?? 0} tok</span><span class="fate">${esc(l.text)}</span>${score !== undefined ? `<span class="score">score ${score.toFixed(2)}</span>` : ''}<span class="pv">${esc(preview)}</span></summary><pre>${esc(text)}</pre></details>`,
      )
    }
    if (group) rows.push('</div>')
    for (const ins of result.inserted) {
      const lastReplaced = ins.replaces[ins.replaces.length - 1] ?? -1
      if (lastReplaced >= unit.start && lastReplaced < unit.end) {
        rows.push(
          `<details class="msg inserted" data-fate="inserted"><summary><span class="idx" title="not an input message: written by the strategy, sent at this position">new @${ins.position}</span><span class="role">${esc(ins.message.role)}</span><span class="tok"></span><span class="fate">${esc(ins.reason)} for ${ins.replaces.length} messages</span><span class="pv">${esc(messageText(ins.message).slice(0, 140))}</span></summary><pre>${esc(messageText(ins.message))}</pre></details>`,
        )
      }
    }
  }

  const factRows = result.inserted
    .filter((ins) => ins.facts)
    .map((ins) => {
      const f = ins.facts as NonNullable<typeof ins.facts>
      const list = (facts: typeof f.reinserted) =>
        facts.length
          ? `<ul class="facts">${facts.map((x) => `<li><span class="kind">${esc(x.label ?? x.kind)}</span> <code>${esc(x.value)}</code></li>`).join('')}</ul>`
          : '<p>none</p>'
      return `<section class="ledger" data-ledger="${ins.position}"><p>The summary sent at position ${ins.position}: <b>${f.kept + f.reinserted.length} of ${f.total}</b> facts of the summarized messages are sent (${(100 * f.rate).toFixed(1)}%): ${f.kept} kept by the summarizer or beside it, <b>${f.reinserted.length} re-inserted</b> in its facts section, ${f.lost.length} lost for want of room.</p><details open><summary>Re-inserted (${f.reinserted.length})</summary>${list(f.reinserted)}</details>${f.lost.length ? `<details><summary>Lost (${f.lost.length})</summary>${list(f.lost)}</details>` : ''}</section>`
    })
    .join('')
  const cm = result.contextManagement
  const cmSection = cm
    ? `<h2>Provider context management</h2><table class="settings"><tr><th>target</th><td>${esc(cm.target)}</td></tr>${Object.entries(
        cm.where,
      )
        .map(([k, v]) => `<tr><th>${esc(k)}</th><td>run by the ${esc(String(v))}</td></tr>`)
        .join(
          '',
        )}<tr><th>request fields</th><td><code>${esc(JSON.stringify(cm.request))}</code></td></tr></table>${
        cm.provider
          ? `<h3>What the provider did</h3><ul class="applied">${
              cm.provider.applied
                .map(
                  (e) =>
                    `<li>${esc(e.type)}: ${[
                      e.clearedToolUses !== undefined && `${e.clearedToolUses} tool uses`,
                      e.clearedThinkingTurns !== undefined &&
                        `${e.clearedThinkingTurns} thinking turns`,
                      e.clearedInputTokens !== undefined && `${e.clearedInputTokens} tokens`,
                    ]
                      .filter(Boolean)
                      .join(', ')} cleared</li>`,
                )
                .join('') || '<li>no edit applied</li>'
            }${cm.provider.compactions
              .map(
                (c) =>
                  `<li>compaction${c.id ? ` ${esc(c.id)}` : ''}: ${c.summary ? esc(c.summary) : c.encrypted ? '(encrypted)' : '(failed: no summary)'}</li>`,
              )
              .join('')}</ul>`
          : '<p>No provider response read yet.</p>'
      }`
    : ''

  const settingsRows = Object.entries({
    source: settings.source,
    strategy: settings.strategy,
    options:
      settings.options && Object.keys(settings.options).length
        ? JSON.stringify(settings.options)
        : undefined,
    counter: settings.counter,
    model: settings.model,
    budget: settings.budget ?? 'none',
    query: settings.query,
  })
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(String(v))}</td></tr>`)
    .join('')

  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>context-window report${settings.source ? ` — ${esc(settings.source)}` : ''}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1b1f24;background:#fafbfc}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:20px 0 8px}
.headline{color:#444;margin-bottom:12px}
.bar{display:flex;height:28px;border:1px solid #888;border-radius:4px;overflow:hidden;background:#fff}
.seg{height:100%}.system,.sw.system{background:#4a6fa5}.tools,.sw.tools{background:#8e6bbf}.kept,.sw.kept{background:#3f9e5a}
.sw.summary{background:#d08a2e}.reserve,.sw.reserve{background:#9aa4ad}.free,.sw.free{background:#e9edf1}
.seg.summary{background:#d08a2e}
ul.legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:14px;margin:8px 0}
.sw{display:inline-block;width:12px;height:12px;margin-right:5px;vertical-align:-1px;border:1px solid #777}
.dropped-note{color:#8a2d2d}
.timeline{display:flex;flex-direction:column;gap:3px}
.group{border-left:4px solid #8e6bbf;padding-left:6px;display:flex;flex-direction:column;gap:3px}
details.msg{background:#fff;border:1px solid #d5dbe1;border-left:6px solid #3f9e5a;border-radius:3px}
details.msg.dropped{border-left-color:#c9ced4;opacity:.75}details.msg.summarized{border-left-color:#d08a2e}
details.msg.changed{border-left-color:#e0b000}details.msg.invalid{border-left-color:#c0392b}details.msg.inserted{border-left-color:#d08a2e;background:#fff7ea}
summary{display:grid;grid-template-columns:52px 120px 70px 190px 1fr;gap:8px;padding:4px 8px;cursor:pointer;align-items:baseline}
summary .score{grid-column:4}.idx{color:#666}.role{font-weight:600}.tok{text-align:right;color:#444}.fate{font-weight:600}
.pv{white-space:nowrap;overflow:hidden;text-overflow:ellipsis;color:#333}
pre{white-space:pre-wrap;margin:0;padding:8px 12px;border-top:1px solid #eee;font:12px/1.4 ui-monospace,monospace;max-height:400px;overflow:auto}
table.settings th{text-align:left;padding-right:12px;color:#555;font-weight:600}
ul.facts{columns:3;list-style:none;padding:0;margin:4px 0}ul.facts .kind{color:#666;font-size:12px}
</style></head><body>
<h1>What goes into the context window</h1>
<div class="headline">${esc(result.strategy)}: ${result.kept.length} of ${input.length} messages kept, ${result.dropped.length} dropped${result.inserted.length ? `, ${result.inserted.length} inserted` : ''}; ${result.tokens.total} tokens sent${result.tokens.reserve ? ` + ${result.tokens.reserve} reserved` : ''} of ${result.budget ?? 'no'} budget.</div>
<h2>Budget</h2>
<div class="bar" role="img" aria-label="budget bar">${bar}</div>
<ul class="legend">${legend}<li class="dropped-note">dropped: <b>${droppedTokens}</b> tokens in ${result.dropped.length} messages</li></ul>
<h2>Conversation <small>(click a message for its full text)</small></h2>
<div class="timeline">${rows.join('\n')}</div>
${factRows ? `<h2>Facts kept through compaction</h2>${factRows}` : ''}
${cmSection}
<h2>Settings</h2>
<table class="settings">${settingsRows}</table>
<script>
document.addEventListener('keydown',function(e){if(e.key==='o'){document.querySelectorAll('details.msg').forEach(function(d){d.open=!d.open})}})
</script>
</body></html>
`
}
