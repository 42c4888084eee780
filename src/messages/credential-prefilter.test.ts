import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { corpora } from '../../test/credentials/corpora.js'
import { readLocomo } from '../../test/locomo-data.js'
import { tauBench } from '../../test/tau-bench.js'
import { fromOpenAIChat } from '../providers/openai-chat/codec.js'
import { credentialTriggers, prefilterOf } from './credential-prefilter.js'
import { credentialSpans, credentialSpansGated, tokenRules } from './credentials.js'
import type { Message } from './message.js'
import { messageText } from './message.js'
import { secretsOf } from './quoted-facts.js'

const gitleaks = JSON.parse(
  readFileSync(new URL('../../test/data/gitleaks/samples.json', import.meta.url), 'utf8'),
) as { rules: { id: string; tps: string[]; fps: string[] }[] }

/** Every scan, no prefilter: the reference the prefiltered filter must equal. */
const full = (text: string) => credentialSpansGated(text, undefined)

const tau = tauBench().flatMap((r) =>
  fromOpenAIChat(r.traj).flatMap((m) => [
    messageText(m),
    ...(m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => c.arguments) : []),
  ]),
)
const locomo = (readLocomo() as { conversation: Record<string, unknown> }[]).flatMap((c) =>
  Object.values(c.conversation).flatMap((v) =>
    Array.isArray(v) ? v.map((t) => String((t as { text?: unknown }).text ?? '')) : [],
  ),
)
const c = corpora()
const corpusTexts = [
  ...c.secretlint.map((s) => s.text),
  ...c.negatives.map((s) => s.text),
  ...c.written.map((s) => s.text),
  ...c.precision.map((s) => s.text),
]
const samples = gitleaks.rules.flatMap((r) => [...r.tps, ...r.fps])
const { table } = tokenRules()
/** Each token rule's matches on gitleaks' samples, bare, in a sentence (no key word beside them). */
const bare = table.flatMap(([, source]) =>
  samples.flatMap((t) => [...t.matchAll(new RegExp(source, 'g'))].map((m) => `use ${m[0]} now`)),
)

/** Credentials as people write them, one for each kind of evidence the scans read. */
const written = [
  'password=hunter2hunter2',
  'DB_PASSWORD: "c0rrect-h0rse"',
  'pin_code: 4921',
  'userPin=8812',
  'the cvv2 is 123',
  'api-key: Zx81kLm2Qp',
  'X-Api-Key: Zx81kLm2Qp',
  'stripe_key=rk9Vt3Lp0q2',
  'seed phrase: ribbon lunar orbit canvas',
  'recovery_codes:\n  - 1234-5678\n  - 8765-4321',
  'connection string = Server=db;Uid=app;Pwd=Tr0ub4dor;',
  'Uid=app;Pwd=Tr0ub4dor',
  'session_id=9f8e7d6c5b4a',
  'access_tokens: ["AbC123xyz987"]',
  'passWord=Tr0ub4dor',
  'pass: letmein99',
  'db_pass=letmein99',
  'authorization: Bearer abcDEF123456789',
  'the otp was 992211',
  'ssn: 123-45-6789',
  'mnemonic = "abandon ability able about above absent"',
  'sig=0a1b2c3d4e5f',
  'creds: s3cr3tV4lue',
  'my cookie: sid=12345abcdef',
  'sessid=abcdef123456',
  'curl -u admin:Sup3rS3cret https://api.example.com',
  'mysql -u app -pCDbTJUO5ugH8MYp4y0 -h db',
  'sshpass -p Sup3rS3cret ssh host',
  'redis-cli -a Sup3rS3cret ping',
  'ldapsearch -w Sup3rS3cret -D cn=admin',
  'sqlplus scott/tiger99@orcl',
  'vault login s.ABCDEFGHIJKLMNOPQRSTUVWX',
  'vault login hvs123456789abcdef',
  'wpa_passphrase MyWifi Sup3rS3cret',
  'nmcli dev wifi connect Home password Sup3rS3cret',
  'htpasswd -b .htpasswd admin Sup3rS3cret',
  'ftp -n host <<EOF\nuser admin Sup3rS3cret\nEOF',
  'db.example.com:5432:app:admin:Sup3rS3cret',
  '*:*:*:postgres:Sup3rS3cret',
  'https://admin:Sup3rS3cret@db.example.com/app',
  'see https://discord.com/api/webhooks/123456789/AbCdEfGhIjKlMnOpQrStUvWxYz012345',
  'see https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw',
  'client secret abc1Q~AbCdEfGhIjKlMnOpQrStUvWxYz0123456',
  'Authorization: Basic dXNlcjpwYXNzd29yZA==',
  'use Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc123',
  `-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----`,
  '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----',
  'ftp host.example.com\nuser admin Sup3rS3cret\nget file',
  'the header was Bearer abcDEF123456789xyz',
  'connection_string = abc123XYZvalue9',
  `blob ${'QmFzZTY0IGJvZHkgb2YgYSBrZXk1'.repeat(3)}Zm9v`,
  `key sk-${'a1B2c3D4e5'.repeat(2)}`,
  `token ghp_${'aB3dE5fG7h'.repeat(3)}123456`,
  'AKIAIOSFODNN7EXAMPLE',
  '{"name": "X-Api-Key", "value": "Zx81kLm2Qp"}',
  '<add key="ClientSecret" value="Zx81kLm2Qp"/>',
  // Kelvin sign and dotted capital I: they lower-case to ASCII letters in a key's words.
  '{"name": "api_\u212aey", "value": "Zx81kLm2Qp"}',
  '{"name": "P\u0130N", "value": "4921"}',
]

const INVISIBLE = ['\u200b', '\u00ad', '\u2060', '\ufeff']

/** A text in the forms that hide or carry it: escaped, split, quoted, in a URL, at every place. */
function variants(t: string): string[] {
  const out = [t, t.toUpperCase(), t.toLowerCase(), JSON.stringify(t), JSON.stringify({ v: t })]
  out.push(`${t} trailing prose.`, `Leading prose: ${t}`, `a ${t} b`, `${t}${t}`)
  out.push(`https://example.com/?q=${encodeURIComponent(t)}`, `https://example.com/${t}`)
  out.push(t.replaceAll('/', '\\/'))
  // One character written as a JSON escape, at each third place.
  for (let i = 0; i < t.length; i += 3)
    out.push(`${t.slice(0, i)}\\u${t.charCodeAt(i).toString(16).padStart(4, '0')}${t.slice(i + 1)}`)
  // Split by an invisible character, at each fifth place.
  for (let i = 1; i < t.length; i += 5)
    out.push(`${t.slice(0, i)}${INVISIBLE[i % INVISIBLE.length]}${t.slice(i)}`)
  out.push(`\u{1F600}${t}\u{1F600}`, `__proto__: ${t}`, `{"__proto__": ${JSON.stringify(t)}}`)
  return out
}

const nasty = [
  '',
  ' ',
  '\n\t ',
  '\u200b\u200b\u200b\u200b',
  '\u{1F600}'.repeat(40),
  '__proto__',
  '{"__proto__": {"constructor": 1}}',
  'user.name.with.dots:1:2:3',
  'task-based risk-free passenger shipping design author assessment keyboard',
  'basic economy, basic membership, Basic usage',
  'at 10:30:45 the 5:1 ratio; a:1:b:c:d',
  ...[...written, ...samples.slice(0, 400)].flatMap(variants),
]

const all = [...tau, ...locomo, ...corpusTexts, ...samples, ...bare, ...nasty]

describe('the credential prefilter', () => {
  it('finds exactly what the full scan finds, on τ-bench, LoCoMo, the corpora, gitleaks samples and generated texts', () => {
    let withSpans = 0
    for (const text of all) {
      const expected = full(text)
      if (expected.length > 0) withSpans++
      expect(credentialSpans(text), text.slice(0, 200)).toEqual(expected)
    }
    // The check is not empty: many texts hold credentials, and most of τ-bench none.
    expect(withSpans).toBeGreaterThan(2_000)
  })

  it('has literals the one pass can find: one code unit past ASCII, or two ASCII ones or more in lower case', () => {
    const literals = credentialTriggers().flatMap(([, l]) => l)
    expect(literals.length).toBeGreaterThan(200)
    for (const l of literals)
      expect(
        (l.length === 1 && l.charCodeAt(0) >= 128) ||
          (l.length >= 2 && /^[\0-\x7f]+$/.test(l) && l === l.toLowerCase()),
        l,
      ).toBe(true)
  })

  it('says no to most of an agent history (so the full scan seldom runs)', () => {
    const may = prefilterOf(credentialTriggers())
    const passed = tau.filter((t) => may(t)).length
    expect(tau.length).toBeGreaterThan(5_000)
    expect(passed / tau.length).toBeLessThan(0.05)
  })

  it('needs every trigger: taking one out loses a credential the full scan finds, unless the others admit its every form', () => {
    const triggers = credentialTriggers()
    // A text the full scan finds a credential in: each trigger must be the only one admitting one.
    const found = all.filter((t) => full(t).length > 0)
    expect(found.length).toBeGreaterThan(1_000)
    let needed = 0
    const unneeded: string[] = []
    for (const [k, [name]] of triggers.entries()) {
      const without = prefilterOf(triggers.filter((_, j) => j !== k))
      if (found.some((t) => !without(t))) {
        needed++
        continue
      }
      // A token rule whose every match the other triggers admit alone (another rule's literal
      // inside it, `sk-` in OpenAI's keys, a run of 64 base64 characters) is an equivalent
      // mutant; any other trigger taken out must lose a credential.
      const rule = /^token rule (\d+)$/.exec(name)?.[1]
      const source = rule === undefined ? undefined : table[Number(rule)]?.[1]
      const matches =
        source === undefined
          ? []
          : samples.flatMap((t) => [...t.matchAll(new RegExp(source, 'g'))].map((m) => m[0]))
      if (matches.length === 0 || !matches.every((m) => without(` ${m} `))) unneeded.push(name)
    }
    expect(unneeded).toEqual([])
    expect(needed).toBeGreaterThan(triggers.length / 2)
  })

  it('gives each message the same credentials as reading every text whole (spans and JSON keys)', () => {
    const messages: Message[] = [
      ...tauBench().flatMap((r) => fromOpenAIChat(r.traj)),
      ...[...corpusTexts, ...samples, ...nasty].flatMap((text, k): Message[] => [
        { role: 'user', content: text },
        { role: 'tool', toolCallId: `c${k}`, content: JSON.stringify({ out: text, [`k${k}`]: 1 }) },
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: `c${k}`, name: 'run', arguments: JSON.stringify({ input: text }) }],
        },
      ]),
      // Keys naming a credential, in JSON only (no value a scan would find as written).
      { role: 'tool', toolCallId: 'k1', content: '{"PIN": 4921, "user": "ann"}' },
      { role: 'tool', toolCallId: 'k2', content: '{"name": "X-Api-Key", "value": 12}' },
      { role: 'tool', toolCallId: 'k3', content: '{"p\\u0077d": "hunter22"}' },
      { role: 'tool', toolCallId: 'k4', content: '{"api\\tkey": "hunter22"}' },
      { role: 'tool', toolCallId: 'k5', content: '[{"credentials": {"value": "abcd1234"}}]' },
    ]
    let holding = 0
    for (const m of messages) {
      const expected = secretsOf(m, new Map(), false)
      if (expected.length > 0) holding++
      expect(secretsOf(m), JSON.stringify(m).slice(0, 200)).toEqual(expected)
    }
    expect(holding).toBeGreaterThan(2_000)
  })
})
