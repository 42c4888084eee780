import { randomBytes } from 'node:crypto'
import {
  lstatSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ContextWindowError, InvalidInputError } from '../errors.js'
import { decode, encode, FORMATS, type Format } from '../formats/detect.js'
import { requireMessages } from '../messages/check.js'
import type { Message } from '../messages/message.js'
import { fieldsOf } from '../providers/codec-kit.js'

/** The conversation shipped with the package (`--example`): a τ-bench airline trajectory. */
export const EXAMPLE_FILE = fileURLToPath(
  new URL('../../examples/airline-booking.json', import.meta.url),
)

/** Thrown for a usage mistake: one line, exit code 2. */
export class UsageError extends ContextWindowError {
  override name = 'UsageError'
}

export interface Input {
  /** The file name, or `stdin`. */
  source: string
  /** The format it was read in. */
  format: Format
  messages: Message[]
  /** Writes messages back in the input's shape (a bare list, or the object with `messages` replaced). */
  encode(messages: readonly Message[]): unknown
}

export function readText(file: string): string {
  try {
    return file === '-' ? readFileSync(0, 'utf8') : readFileSync(file, 'utf8')
  } catch (e) {
    const { code } = fieldsOf(e)
    throw new UsageError(
      `${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a folder' : (e as Error).message}`,
    )
  }
}

export function parseJson(text: string, source: string): unknown {
  try {
    return JSON.parse(text)
  } catch (e) {
    throw new InvalidInputError(`invalid JSON (${(e as Error).message})`, { source })
  }
}

/** Reads a conversation in any known format (`auto` detects it) and remembers its shape. */
export function readInput(file: string, format: Format | 'auto' = 'auto'): Input {
  const source = file === '-' ? 'stdin' : file
  const text = readText(file)
  if (text.trim() === '')
    throw new InvalidInputError('the file is empty: expected a conversation as JSON', { source })
  const json = parseJson(text, source)
  if (format !== 'auto' && !FORMATS.includes(format)) {
    throw new UsageError(
      `option --format: expected auto or one of ${FORMATS.join(', ')}, got ${JSON.stringify(format)}`,
    )
  }
  try {
    const decoded = decode(json, format)
    // Empty means empty: no messages, or one with nothing in it, is bad input, never a fit of nothing.
    if (decoded.messages.length === 0)
      throw new InvalidInputError('no messages: the conversation is empty', { field: 'messages' })
    requireMessages(decoded.messages)
    return {
      source,
      format: decoded.format,
      messages: decoded.messages,
      encode: (out) => {
        // A Responses request sent with store: false gets reasoning only with encrypted_content.
        const store = fieldsOf(json).store === false ? { store: false } : {}
        const { output } = encode(out, decoded.format, { request: !Array.isArray(json), ...store })
        // Keep the input's shape: other top-level keys (model, max_tokens, state type) stay.
        if (Array.isArray(json) || !json || typeof json !== 'object') return output
        if (Array.isArray(output)) return { ...json, messages: output }
        return { ...json, ...fieldsOf(output) }
      },
    }
  } catch (e) {
    if (e instanceof InvalidInputError) throw e.withSource(source)
    throw e
  }
}

/**
 * Writes a file whole or not at all: a temporary file beside it, then a rename. A name that
 * is not a regular file (`/dev/stdout`, a pipe, a device) is written to directly, never
 * renamed over; a symbolic link to a regular file is followed, and the file it names replaced.
 */
export function writeAtomic(file: string, text: string): void {
  let target = file
  try {
    const info = lstatSync(file, { throwIfNoEntry: false })
    if (info?.isSymbolicLink()) target = realpathSync(file)
    const real = target === file ? info : statSync(target, { throwIfNoEntry: false })
    if (real && !real.isFile()) {
      writeFileSync(file, text)
      return
    }
  } catch (e) {
    throw new UsageError(`${file}: cannot write (${errorCode(e)})`)
  }
  const temp = join(dirname(target), `.${basename(target)}.${randomBytes(4).toString('hex')}.tmp`)
  try {
    writeFileSync(temp, text)
    renameSync(temp, target)
  } catch (e) {
    rmSync(temp, { force: true })
    throw new UsageError(`${file}: cannot write (${errorCode(e)})`)
  }
}

function errorCode(e: unknown): string {
  const { code } = fieldsOf(e)
  return typeof code === 'string' ? code : e instanceof Error ? e.message : String(e)
}
