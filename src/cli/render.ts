import { redactCredentials } from '../messages/credentials.js'
import type { Message } from '../messages/message.js'
import { messageText } from '../messages/message.js'
import { oneLine } from '../messages/records.js'

/** Colour only for a terminal, and never under NO_COLOR. */
export function useColor(stream: NodeJS.WriteStream = process.stdout): boolean {
  return Boolean(stream.isTTY) && !process.env.NO_COLOR
}

const CODES = {
  red: 31,
  green: 32,
  yellow: 33,
  blue: 34,
  magenta: 35,
  cyan: 36,
  dim: 2,
  bold: 1,
} as const
export type Colour = keyof typeof CODES

export function paint(text: string, colour: Colour, on: boolean): string {
  return on ? `\u001b[${CODES[colour]}m${text}\u001b[0m` : text
}

/**
 * One line of a message's text, at most `width` characters: no credential, and no control
 * character (an escape sequence, a CR, a NEL) that could redraw the row as another role's.
 */
export function preview(m: Message, width = 60): string {
  let text = messageText(m)
  if (m.role === 'tool' && m.toolName) text = `${m.toolName} -> ${text}`
  text = oneLine(redactCredentials(text))
  return text.length > width ? `${text.slice(0, width - 1)}…` : text
}

const ANSI = new RegExp(`${String.fromCharCode(27)}\\[\\d+m`, 'g')

/** Columns padded to their widest cell; numbers right-aligned. */
export function table(rows: string[][], rightAligned: ReadonlySet<number> = new Set()): string {
  const visible = (s: string) => s.replace(ANSI, '').length
  const widths: number[] = []
  for (const row of rows) {
    row.forEach((cell, k) => {
      widths[k] = Math.max(widths[k] ?? 0, visible(cell))
    })
  }
  return rows
    .map((row) =>
      row
        .map((cell, k) => {
          const pad = ' '.repeat((widths[k] ?? 0) - visible(cell))
          return rightAligned.has(k) ? pad + cell : k === row.length - 1 ? cell : cell + pad
        })
        .join('  '),
    )
    .join('\n')
}

/** A bar of `width` characters: filled for `used` of `total`. */
export function bar(used: number, total: number, width = 40): string {
  const filled = total > 0 ? Math.min(width, Math.round((used / total) * width)) : 0
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`
}

/** A bar split into parts, each drawn with its own character, e.g. system `S`, messages `#`, reserve `r`, free `.`. */
export function splitBar(
  parts: readonly { n: number; ch: string }[],
  total: number,
  width = 40,
): string {
  let out = ''
  let acc = 0
  let drawn = 0
  for (const p of parts) {
    acc += p.n
    const upTo = total > 0 ? Math.min(width, Math.round((acc / total) * width)) : 0
    out += p.ch.repeat(Math.max(0, upTo - drawn))
    drawn = Math.max(drawn, upTo)
  }
  return `[${out}${'.'.repeat(Math.max(0, width - drawn))}]`
}

export function roleLabel(m: Message, color: boolean): string {
  const colour: Colour =
    m.role === 'system'
      ? 'cyan'
      : m.role === 'user'
        ? 'blue'
        : m.role === 'tool'
          ? 'yellow'
          : 'green'
  const label =
    m.role === 'assistant' && m.toolCalls?.length
      ? `assistant→${m.toolCalls.length} call${m.toolCalls.length > 1 ? 's' : ''}`
      : m.role
  return paint(label, colour, color)
}
