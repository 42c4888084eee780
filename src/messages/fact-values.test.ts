import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { RUNS, SEED } from '../../test/properties/generators.js'
import { bytesToBase64 } from './base64.js'
import { mentions } from './fact-list.js'
import { isBlob } from './fact-text.js'
import { extractFacts, type Fact, factsOfText } from './facts.js'
import { JsonDeep, JsonNumber, JsonObject, readJson } from './json.js'
import type { Message } from './message.js'

const tool = (content: string): Message => ({ role: 'tool', toolCallId: 'c', content })
const values = (facts: readonly Fact[], kind?: Fact['kind']) =>
  facts.filter((f) => f.kind !== 'tool' && (!kind || f.kind === kind)).map((f) => f.value)

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='
const ARN = 'arn:aws:s3:::my-bucket-name-2024/path/to/object-with-a-long-name-123'

describe('fact values are exact', () => {
  it('lists identifiers with letters beyond ASCII whole, as written (composed or not)', () => {
    const text =
      'Ñandú-42, München7 and ÅB12CD; 𝔘XY12 then N\u0303andu\u0301-43 and 注文42号 😀A1B2C3😀'
    expect(values(factsOfText(text), 'id')).toEqual([
      'Ñandú-42',
      'München7',
      'ÅB12CD',
      '𝔘XY12',
      'N\u0303andu\u0301-43',
      '注文42号',
      'A1B2C3',
    ])
  })

  it('lists a long identifier whole (an ARN, a URN, a 100-character token), and skips one too long to be an identifier rather than cut it', () => {
    const token = `ORD-${'2024-0515-x7'.repeat(8)}`
    const facts = values(factsOfText(`${ARN} urn:isbn:0451450523 ${token} and ${'Q1'.repeat(150)}`))
    expect(facts).toEqual([ARN, 'urn:isbn:0451450523', token])
    // Under a key naming an identifier too.
    const long = `order-${'a1'.repeat(120)}`
    expect(
      values(extractFacts([tool(JSON.stringify({ resource_arn: ARN, order_id: long }))])),
    ).toEqual([ARN])
  })

  it('lists JSON numbers as their source text: a large id is not rounded, an amount keeps its zeros', () => {
    const facts = extractFacts([
      tool(
        '{"order_id": 12345678901234567890, "price": 1250.50, "fee": -0.10, "total": 1.5e3, "count": 12345678901234567890}',
      ),
    ])
    expect(facts.slice(1)).toEqual([
      { kind: 'id', value: '12345678901234567890', label: 'order_id' },
      { kind: 'amount', value: '1250.50', label: 'price' },
      { kind: 'amount', value: '-0.10', label: 'fee' },
      { kind: 'amount', value: '1.5e3', label: 'total' },
    ])
    // Said again with other zeros, an amount is still mentioned.
    expect(mentions('paid 1250.5', { kind: 'amount', value: '1250.50' })).toBe(true)
    expect(mentions('paid $1,250.50', { kind: 'amount', value: '1250.5' })).toBe(true)
    expect(mentions('paid 1250.05', { kind: 'amount', value: '1250.50' })).toBe(false)
  })

  it('reads duplicate keys, __proto__ keys, escapes and deep nesting without touching a prototype; invalid JSON is read as text', () => {
    const facts = extractFacts([
      tool(
        '{"__proto__": {"order_id": "Q9Z8X"}, "order_id": "A1", "order_id": "B2C3", "note": "ref \\u00d1and\\u00fa-42", "constructor": {"prototype": {"x_id": "P1Q2"}}}',
      ),
      tool(`{"deep": ${'['.repeat(40)}"HAT123"${']'.repeat(40)}}`),
      tool('{"order_id": "ZZ99", "price": 12,}'),
    ])
    expect(({} as Record<string, unknown>).order_id).toBeUndefined()
    expect(({} as Record<string, unknown>).x_id).toBeUndefined()
    expect(facts).toEqual(
      expect.arrayContaining([
        { kind: 'id', value: 'Q9Z8X', label: 'order_id' },
        { kind: 'id', value: 'A1', label: 'order_id' },
        { kind: 'id', value: 'B2C3', label: 'order_id' },
        { kind: 'id', value: 'Ñandú-42', label: 'note' },
        { kind: 'id', value: 'P1Q2', label: 'x_id' },
        // Nested deeper than is walked: read as text.
        { kind: 'id', value: 'HAT123' },
        { kind: 'id', value: 'ZZ99' },
      ]),
    )
  })

  it('finds no facts in base64, hex dumps or data URLs, but a commit sha, a hash or a UUID is an identifier', () => {
    const sha = '3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39'
    const uuid = '550e8400-e29b-41d4-a716-446655440000'
    const text = [
      `image ${PNG}`,
      `inline <img src="data:image/png;base64,${PNG}"> and data:text/plain,HAT123%20http://x.test/Q1W2`,
      'jpeg "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEx8Q/5s"',
      '00000010  48 65 6c 6c 6f 20 57 6f  72 6c 64 0a 1f 2e 3d 4c  |Hello World...=L|',
      '00000020: 4865 6c6c 6f20 576f 726c 640a  Hello World.',
      `dump de ad be ef 00 11 22 33 and ${'0a1b2c3d'.repeat(10)}`,
      `fixed in ${sha}, hash ${'e3b0c44298fc1c149afbf4c8996fb924'.repeat(2)}, request ${uuid}`,
    ].join('\n')
    expect(values(factsOfText(text))).toEqual([
      sha,
      'e3b0c44298fc1c149afbf4c8996fb924'.repeat(2),
      uuid,
    ])
    // By its key, a value is an identifier whatever it looks like.
    const facts = extractFacts([
      tool(JSON.stringify({ commit: sha, next_cursor_id: PNG.slice(0, 60), image: PNG })),
    ])
    expect(values(facts)).toEqual([sha, PNG.slice(0, 60)])
  })

  it('tells base64 from names made of words', () => {
    expect(isBlob(PNG)).toBe(true)
    expect(isBlob(bytesToBase64(new Uint8Array(31).fill(7)))).toBe(true)
    expect(isBlob('0123456789abcdef'.repeat(5))).toBe(true)
    expect(isBlob('getUserDetailsForReservation2024AndPaymentMethods')).toBe(false)
    expect(isBlob('reservation_for_customer_omar_davis_3817_2024')).toBe(false)
    expect(isBlob('3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39')).toBe(false)
  })
})

describe('readJson', () => {
  it('reads what JSON.parse reads, rejects what it rejects, numbers as written', () => {
    const plain = (v: unknown): unknown => {
      if (v instanceof JsonNumber) return Number(v.raw)
      if (v instanceof JsonDeep) return JSON.parse(v.text)
      if (Array.isArray(v)) return v.map(plain)
      if (v instanceof JsonObject) {
        const o: Record<string, unknown> = {}
        for (const [k, x] of v.entries)
          Object.defineProperty(o, k, { value: plain(x), enumerable: true, writable: true })
        return o
      }
      return v
    }
    const texts = fc.oneof(
      fc.json(),
      fc.string(),
      fc.jsonValue().map((v) => JSON.stringify(v, null, 1)),
      fc
        .tuple(fc.json(), fc.nat(), fc.constantFrom('x', ',', ']', '}', '"', '\\', '\n'))
        .map(([s, k, c]) => `${s.slice(0, k % (s.length + 1))}${c}${s.slice(k % (s.length + 1))}`),
    )
    fc.assert(
      fc.property(texts, fc.integer({ min: 0, max: 3 }), (text, depth) => {
        let expected: unknown
        try {
          expected = JSON.parse(text)
        } catch {
          expect(readJson(text, depth)).toBeUndefined()
          return
        }
        expect(JSON.stringify(plain(readJson(text, depth)))).toBe(JSON.stringify(expected))
      }),
      { numRuns: RUNS * 20, seed: SEED },
    )
  })

  it('reads 100,000 levels of nesting without recursion', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`
    expect(readJson(deep, 12)).toBeDefined()
    expect(readJson(`${deep}]`, 12)).toBeUndefined()
  })
})

// --- The property: values as written, whole, never a blob -------------------------------------

/** Letters, digits and marks: what a token is made of. */
const WORD = /[\p{L}\p{N}\p{M}_]/u
/** Whether `value` occurs in `source` where it is not part of a longer token. */
function occursWhole(source: string, value: string, kind: Fact['kind']): boolean {
  const first = Array.from(value)[0] ?? ''
  const last = Array.from(value).at(-1) ?? ''
  for (let at = source.indexOf(value); at >= 0; at = source.indexOf(value, at + 1)) {
    const before = Array.from(source.slice(Math.max(0, at - 2), at)).at(-1) ?? ''
    const after = source.slice(at + value.length)
    const next = Array.from(after.slice(0, 2))[0] ?? ''
    if (WORD.test(first) && WORD.test(before)) continue
    if (WORD.test(last) && WORD.test(next)) continue
    // An identifier goes on through `.`, `:` and `-` between letters or digits.
    if (kind === 'id' && /^[.:-][\p{L}\p{N}\p{M}_]/u.test(after)) continue
    if (kind === 'id' && /[\p{L}\p{N}\p{M}_][.:-]$/u.test(source.slice(Math.max(0, at - 3), at)))
      continue
    return true
  }
  return false
}

/** Random bytes, as an image or a hash is: not the small values fast-check favours. */
const bytes = (min: number, max: number) =>
  fc.noBias(fc.uint8Array({ minLength: min, maxLength: max }))
const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0'))
/** Text no fact may come from. */
const blob = fc.oneof(
  bytes(45, 300).map(bytesToBase64),
  bytes(45, 300).map((b) => `data:image/png;base64,${bytesToBase64(b)}`),
  bytes(40, 120).map((b) => hex(b).join('')),
  bytes(16, 48).map(
    (b) => `0000${hex(b.slice(0, 2)).join('')}  ${hex(b).join(' ')}  |${'.'.repeat(b.length)}|`,
  ),
  fc.constant('de ad be ef 00 11 22 33'),
)
const unicodeId = fc
  .tuple(
    fc.array(fc.constantFrom('Ñ', 'ü', 'Å', 'ç', 'é', '注', '文', 'Ж', '𝔘', 'n\u0303', 'A', 'b'), {
      minLength: 1,
      maxLength: 6,
    }),
    fc.constantFrom('', '-', '_', '.'),
    fc.integer({ min: 0, max: 99_999 }),
  )
  .map(([letters, sep, n]) => `${letters.join('')}${sep}${n}`)
const piece = fc.oneof(
  unicodeId,
  fc.constantFrom(
    'HAT123',
    'omar_davis_3817',
    ARN,
    'urn:isbn:0451450523',
    '550e8400-e29b-41d4-a716-446655440000',
    '3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39',
    'mail a.b@example.com',
    'https://x.test/a?b=1.',
    '/var/log/app.log',
    '2024-05-15T10:30:00Z',
    '$1,250.50',
    '45 min',
    '12 kg',
    '',
    ' ',
    '\n\t',
  ),
  fc.integer({ min: 1, max: 400 }).map((n) => `ID${'x7'.repeat(n)}`),
  fc.bigInt({ min: 0n, max: 10n ** 40n }).map(String),
)
const astral = fc.constantFrom('😀', '𝔘', '👍🏽', '🇫🇷', '\u{10FFFD}')
const separator = fc.constantFrom(' ', ', ', '\n', ' (', ') ', '"', '/', ': ')

/** A text of pieces and blobs, an astral character put in between any two code points. */
const text = fc
  .tuple(
    fc.array(
      fc.tuple(
        fc.oneof(
          { weight: 2, arbitrary: piece.map((p) => ({ p, blob: false })) },
          { weight: 1, arbitrary: blob.map((p) => ({ p, blob: true })) },
        ),
        separator,
      ),
      { maxLength: 12 },
    ),
    fc.array(fc.tuple(fc.nat(), astral), { maxLength: 3 }),
  )
  .map(([parts, inserts]) => {
    // `/` is a base64 character: a blob written against a word by one is a longer token.
    const glued = (k: number) => parts[k]?.[0].blob || parts[k + 1]?.[0].blob
    const points = Array.from(
      parts.map(([x, s], k) => x.p + (s === '/' && glued(k) ? ' ' : s)).join(''),
    )
    for (const [at, c] of inserts) points.splice(at % (points.length + 1), 0, c)
    const text = points.join('')
    // A blob an astral character was put into is two shorter texts, judged each on its own.
    const blobs = parts.filter(([x]) => x.blob && text.includes(x.p)).map(([x]) => x.p)
    return { text, blobs }
  })

/** JSON with numbers written as they come (big, with zeros), keys that are traps, escapes. */
type Tree = string | { raw: string } | Tree[] | { entries: [string, Tree][] }
const key = fc.constantFrom(
  'order_id',
  'price',
  'total',
  '__proto__',
  'constructor',
  'note',
  'image',
  'commit',
  'Ñandú-42',
  'payment_methods',
  'credit_card_7803378',
)
const number = fc.oneof(
  fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
  fc.constantFrom('1250.50', '0.10', '-0', '1.5e3', '12345678901234567890', '2E-7'),
)
const tree: fc.Arbitrary<Tree> = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text.map((t) => t.text),
    number.map((raw) => ({ raw })),
    fc.array(tie('tree'), { maxLength: 4 }),
    fc.array(fc.tuple(key, tie('tree')), { maxLength: 5 }).map((entries) => ({ entries })),
  ),
})).tree

function write(t: Tree, escaped: boolean): string {
  const str = (s: string) =>
    escaped
      ? JSON.stringify(s).replace(
          /[^\x20-\x7e]/g,
          (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
        )
      : JSON.stringify(s)
  if (typeof t === 'string') return str(t)
  if (Array.isArray(t)) return `[${t.map((x) => write(x, escaped)).join(',')}]`
  if ('raw' in t) return t.raw
  return `{${t.entries.map(([k, v]) => `${str(k)}: ${write(v, escaped)}`).join(', ')}}`
}

/** Every string of a tree, keys included, as the JSON written of it decodes to. */
function stringsOf(t: Tree, out: string[] = []): string[] {
  if (typeof t === 'string') out.push(t)
  else if (Array.isArray(t)) for (const x of t) stringsOf(x, out)
  else if ('entries' in t)
    for (const [k, v] of t.entries) {
      out.push(k)
      stringsOf(v, out)
    }
  return out
}

describe('fact values, on random texts and tool results', () => {
  it('every value occurs whole and verbatim where it came from (for JSON strings, in the decoded string), and none is a blob or comes out of one', () => {
    const message = fc.oneof(
      text.map((t) => ({
        message: { role: 'user', content: t.text } as Message,
        strings: [] as string[],
        blobs: t.blobs,
      })),
      fc.tuple(tree, fc.boolean()).map(([t, escaped]) => ({
        message: tool(write(t, escaped)),
        strings: stringsOf(t),
        blobs: [] as string[],
      })),
    )
    fc.assert(
      fc.property(message, ({ message: m, strings, blobs }) => {
        const source = m.content as string
        const sources = [source, ...strings]
        for (const f of extractFacts([m])) {
          if (f.kind === 'tool') continue
          expect(
            sources.some((s) => occursWhole(s, f.value, f.kind)),
            `${f.kind} ${JSON.stringify(f.value)} whole in ${JSON.stringify(source.slice(0, 300))}`,
          ).toBe(true)
          if (!(f.label === 'commit' || f.label === 'order_id')) expect(isBlob(f.value)).toBe(false)
          if (f.value.length >= 8) for (const b of blobs) expect(b.includes(f.value)).toBe(false)
        }
      }),
      { numRuns: RUNS, seed: SEED },
    )
  })
})
